//! [`Plain`] numbers, on which an instruction evaluates its function, and [`FromLiteral`], the
//! numbers a literal constant converts into.
use core::ops::{AddAssign, SubAssign};

/// Plain (non-differentiable-by-itself) number types on which `+=` evaluates the function.
///
/// Implemented for the float, integer, complex, fixed-point and dual number types.
pub trait Plain: Copy + AddAssign + SubAssign {}

macro_rules! plain {
    ($($t:ty),*) => {$( impl Plain for $t {} )*};
}
plain!(f32, f64, i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize);
impl Plain for num_complex::Complex<f32> {}
impl Plain for num_complex::Complex<f64> {}
/// Wrapping integers: `+=`, `-=`, `*` wrap around, so integer programs invert bit-exactly
/// without overflow panics.
impl<T> Plain for core::num::Wrapping<T> where core::num::Wrapping<T>: Copy + AddAssign + SubAssign {}

/// Conversion of a numeric literal into the type of the instruction's target (so that
/// `y += x * 2.0` works for `y: f64`, `y: GVar<f64>`, `y: Dual<f64>`, fixed point, ...).
pub trait FromLiteral {
    /// From a float literal.
    fn from_f64_lit(v: f64) -> Self;
    /// From an integer literal.
    fn from_i64_lit(v: i64) -> Self;
}
macro_rules! from_lit {
    ($($t:ty),*) => {$(
        impl FromLiteral for $t {
            #[inline(always)]
            fn from_f64_lit(v: f64) -> Self { v as $t }
            #[inline(always)]
            fn from_i64_lit(v: i64) -> Self { v as $t }
        }
    )*};
}
from_lit!(f32, f64, i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize);
impl<T: FromLiteral> FromLiteral for core::num::Wrapping<T> {
    #[inline(always)]
    fn from_f64_lit(v: f64) -> Self {
        core::num::Wrapping(T::from_f64_lit(v))
    }
    #[inline(always)]
    fn from_i64_lit(v: i64) -> Self {
        core::num::Wrapping(T::from_i64_lit(v))
    }
}
impl<T: FromLiteral + num_traits::Zero> FromLiteral for num_complex::Complex<T> {
    fn from_f64_lit(v: f64) -> Self {
        num_complex::Complex::new(T::from_f64_lit(v), T::zero())
    }
    fn from_i64_lit(v: i64) -> Self {
        num_complex::Complex::new(T::from_i64_lit(v), T::zero())
    }
}
