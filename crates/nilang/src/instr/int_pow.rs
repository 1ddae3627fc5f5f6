//! Integer squares and powers: `y += abs2(x)`, `y += x.powi(2)` and `y += powi(x, n)` on
//! primitive integers (overflow panics in debug builds, as `*` does) and on
//! `Wrapping` integers (wrapping). A negative exponent panics (no integer value).
use super::fns::{Abs2, Powi, PowiN};
use super::Func;
use core::num::Wrapping;

#[inline(always)]
#[track_caller]
fn exponent(n: i32) -> u32 {
    u32::try_from(n).unwrap_or_else(|_| panic!("integer power with a negative exponent {n}"))
}

macro_rules! int_pow {
    ($($t:ty),*) => {$(
        impl Func<($t,)> for Abs2 {
            type Out = $t;
            #[inline(always)]
            #[track_caller]
            fn eval(a: ($t,)) -> $t { a.0 * a.0 }
        }
        impl<const N: i32> Func<($t,)> for PowiN<N> {
            type Out = $t;
            #[inline(always)]
            #[track_caller]
            fn eval(a: ($t,)) -> $t { a.0.pow(exponent(N)) }
        }
        impl Func<($t, i32)> for Powi {
            type Out = $t;
            #[inline(always)]
            #[track_caller]
            fn eval((a, n): ($t, i32)) -> $t { a.pow(exponent(n)) }
        }
        impl Func<(Wrapping<$t>,)> for Abs2 {
            type Out = Wrapping<$t>;
            #[inline(always)]
            #[track_caller]
            fn eval(a: (Wrapping<$t>,)) -> Wrapping<$t> { a.0 * a.0 }
        }
        impl<const N: i32> Func<(Wrapping<$t>,)> for PowiN<N> {
            type Out = Wrapping<$t>;
            #[inline(always)]
            #[track_caller]
            fn eval(a: (Wrapping<$t>,)) -> Wrapping<$t> { Wrapping(a.0 .0.wrapping_pow(exponent(N))) }
        }
        impl Func<(Wrapping<$t>, i32)> for Powi {
            type Out = Wrapping<$t>;
            #[inline(always)]
            #[track_caller]
            fn eval((a, n): (Wrapping<$t>, i32)) -> Wrapping<$t> { Wrapping(a.0.wrapping_pow(exponent(n))) }
        }
    )*};
}
int_pow!(i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize);
