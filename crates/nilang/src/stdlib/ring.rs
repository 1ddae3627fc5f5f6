//! Periodic (ring) neighbours of an index, without integer division.
//!
//! On a periodic grid of `n` cells the neighbours of cell `i` are `(i + 1) % n` and
//! `(i + n - 1) % n`; in an index expression of an `#[i]` step those are two integer
//! divisions per cell, every time the step runs forward or backward (a division costs tens of
//! cycles; a cheap stencil step is then dominated by them). [`next_index`] and [`prev_index`]
//! give the same indices with one comparison each (a conditional move). In a loop over `i`
//! (`for i in s..e`), `#[i]` runs the cells between the first and the last with `i + 1` and
//! `i - 1` instead (no wrap-around there: fixed offsets, no comparison), for either spelling;
//! the first and the last cell keep the calls (the divisions):
//!
//! ```
//! use nilang::prelude::*;
//! use nilang::stdlib::ring::{next_index, prev_index};
//! /// `y[i] += x[i + 1] − x[i − 1]` on a ring
//! #[i]
//! fn central<T: Scalar>(y: &mut [T], x: &mut [T]) {
//!     for i in 0..x.len() {
//!         y[i] += x[next_index(i, x.len())] - x[prev_index(i, x.len())];
//!     }
//! }
//! let (mut y, mut x) = ([0.0; 4], [1.0, 2.0, 4.0, 8.0]);
//! Central.call((&mut y[..], &mut x[..]));
//! assert_eq!(y, [2.0 - 8.0, 4.0 - 1.0, 8.0 - 2.0, 1.0 - 4.0]);
//! ```

/// `(i + 1) % n` for `i < n`: the index after `i` on a ring of `n` (`0` after `n − 1`).
///
/// ```
/// use nilang::stdlib::ring::next_index;
/// assert_eq!((next_index(0, 3), next_index(2, 3)), (1, 0));
/// ```
#[inline(always)]
pub fn next_index(i: usize, n: usize) -> usize {
    if i + 1 == n {
        0
    } else {
        i + 1
    }
}

/// `(i + n − 1) % n` for `i < n`: the index before `i` on a ring of `n` (`n − 1` before `0`).
///
/// ```
/// use nilang::stdlib::ring::prev_index;
/// assert_eq!((prev_index(0, 3), prev_index(2, 3)), (2, 1));
/// ```
#[inline(always)]
pub fn prev_index(i: usize, n: usize) -> usize {
    if i == 0 {
        n - 1
    } else {
        i - 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ring_neighbours_equal_the_modular_ones() {
        for n in 1..6 {
            for i in 0..n {
                assert_eq!(next_index(i, n), (i + 1) % n);
                assert_eq!(prev_index(i, n), (i + n - 1) % n);
            }
        }
    }
}
