//! Shared test and measurement support for the NiLang.rs workspace (no dependency on the
//! other crates, so every crate can use it as a dev-dependency):
//!
//! - [`alloc`]: a counting global allocator (allocations, peak heap bytes, per thread) and
//!   [`alloc::measure`];
//! - [`rnd`]: deterministic pseudo-random inputs;
//! - [`close`]: element-wise closeness with a relative tolerance.
//!
//! ```
//! use nilang_testkit::{close, rnd};
//! let x = rnd(4, 7);
//! assert_eq!(x, rnd(4, 7));
//! assert!(x.iter().all(|v| (-1.0..1.0).contains(v)));
//! assert!(close(&x, &x, 0.0));
//! ```
#![warn(missing_docs)]

pub mod alloc;

/// `n` deterministic pseudo-random numbers in `[-1, 1)` (a 64-bit LCG seeded by `seed`).
///
/// ```
/// assert_ne!(nilang_testkit::rnd(3, 1), nilang_testkit::rnd(3, 2));
/// ```
pub fn rnd(n: usize, seed: u64) -> Vec<f64> {
    let step = |s: u64| {
        s.wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407)
    };
    let mut s = step(seed);
    (0..n)
        .map(|_| {
            s = step(s);
            ((s >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
        })
        .collect()
}

/// Whether `a` and `b` have the same length and `|a_i - b_i| <= tol (1 + |b_i|)` everywhere.
///
/// ```
/// use nilang_testkit::close;
/// assert!(close(&[1.0, 100.0], &[1.0 + 1e-9, 100.0 + 1e-7], 1e-8));
/// assert!(!close(&[1.0], &[1.1], 1e-8));
/// assert!(!close(&[1.0], &[1.0, 2.0], 1.0));
/// ```
pub fn close(a: &[f64], b: &[f64], tol: f64) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|(x, y)| (x - y).abs() <= tol * (1.0 + y.abs()))
}
