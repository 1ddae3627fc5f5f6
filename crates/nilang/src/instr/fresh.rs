//! `fresh!(ws, ..)`: ancilla workspaces that are zero at this point.
//!
//! A workspace passed as a parameter (a slice, a `Vec`, a struct of them) can hold the
//! ancillas of a loop body: computed by a routine, uncomputed by its `unroutine!()`, zero
//! again at the end of every iteration. `fresh!(ws)` states that: it checks that `ws` is
//! zero (with checks on) and sets every number in it, adjoints included, to exact zero. It is
//! its own inverse. In a gradient program it does what deallocating and reallocating an
//! ancilla does: the adjoint a zero workspace carries is dropped, so the next routine that
//! computes into it starts from zero adjoints (no cancelling adjoint work piles up over the
//! iterations).
use crate::check::{fail, AlmostSame, ErrorKind};
use core::fmt::Debug;

/// Numbers and containers of numbers that can be checked for zero and zeroed.
pub trait Fresh {
    /// Whether every number is zero (up to the float tolerance).
    fn is_fresh(&self) -> bool;
    /// Set every number, with every adjoint, to zero.
    fn make_fresh(&mut self);
    /// What `fresh!` does without checks: [`Fresh::make_fresh`], except that plain floats,
    /// already zero up to rounding, are left alone (no adjoint to drop, no memory traffic).
    #[inline(always)]
    fn make_fresh_unchecked(&mut self) {
        self.make_fresh()
    }
}

macro_rules! fresh_scalar {
    ($([$($g:tt)*] $t:ty),* $(,)?) => {$(
        impl<$($g)*> Fresh for $t {
            #[inline(always)]
            fn is_fresh(&self) -> bool {
                self.almost_same(&<$t>::default())
            }
            #[inline(always)]
            fn make_fresh(&mut self) {
                *self = <$t>::default();
            }
        }
    )*};
}
macro_rules! fresh_float {
    ($($t:ty),*) => {$(
        impl Fresh for $t {
            #[inline(always)]
            fn is_fresh(&self) -> bool {
                self.almost_same(&0.0)
            }
            #[inline(always)]
            fn make_fresh(&mut self) {
                *self = 0.0;
            }
            /// Already zero up to rounding, and no adjoint to drop: nothing to do.
            #[inline(always)]
            fn make_fresh_unchecked(&mut self) {}
        }
    )*};
}
fresh_float!(f32, f64);
fresh_scalar!(
    [] i8, [] i16, [] i32, [] i64, [] i128, [] isize, [] u8, [] u16, [] u32,
    [] u64, [] u128, [] usize,
    [T: Default + AlmostSame] crate::ad::GVar<T>,
    [T: Default + AlmostSame] crate::numbers::Dual<T>,
    [const N: usize] crate::ad::Lanes<N>,
    [T: Default + AlmostSame + Clone + num_traits::Num] num_complex::Complex<T>,
);

/// Slices, arrays and vectors are fresh when every element is.
macro_rules! fresh_elementwise {
    ($([$($g:tt)*] $ty:ty),* $(,)?) => {$(
        impl<$($g)*> Fresh for $ty {
            fn is_fresh(&self) -> bool {
                self.iter().all(Fresh::is_fresh)
            }
            fn make_fresh(&mut self) {
                self.iter_mut().for_each(Fresh::make_fresh)
            }
            fn make_fresh_unchecked(&mut self) {
                self.iter_mut().for_each(Fresh::make_fresh_unchecked)
            }
        }
    )*};
}
fresh_elementwise!([T: Fresh] [T], [T: Fresh, const N: usize] [T; N], [T: Fresh] Vec<T>);

/// `fresh!(ws)` with checks: `ws` must be zero.
#[inline]
pub fn fresh<W: Fresh + Debug + ?Sized>(
    ws: &mut W,
    location: &'static str,
    statement: &'static str,
) {
    if !ws.is_fresh() {
        fail(
            ErrorKind::Deallocation,
            location,
            statement,
            format!(
                "workspace is not zero: {ws:?} (the routine computing into it was not \
                 uncomputed before `fresh!`)"
            ),
        );
    }
    ws.make_fresh();
}

/// `fresh!(ws)` without checks.
#[inline(always)]
pub fn fresh_unchecked<W: Fresh + ?Sized>(ws: &mut W) {
    ws.make_fresh_unchecked();
}
