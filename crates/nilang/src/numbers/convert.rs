//! `y += convert(x)`: numeric conversion into the type of the target.
//!
//! The function marker [`fns::Convert`] has no [`crate::instr::Func`] implementation (its
//! result type is the *target's* type, which a `Func` cannot know). Instead
//! `y += convert(x)` is implemented directly for every plain target `Y: NumConvert<X>`.
use super::{Dual, Fixed32, Fixed43, Real, ULog};
use crate::instr::{fns, Plain, PlusEq1};

/// Conversion of a value of type `X` into `Self`, used by `y += convert(x)`.
///
/// Implemented between `f32`, `f64`, [`Fixed43`], [`Fixed32`] (from any of them and from
/// `i32`/`i64`; into fixed point rounded to nearest), from a plain value into a [`Dual`]
/// constant, and from [`ULog<T>`] into `T` (`exp(log)`).
///
/// ```
/// use nilang::{Fixed43, ULog};
/// use nilang::instr::{PlusEq1, fns::Convert};
/// let (mut y, mut x) = (Fixed43::from_num(1), 0.25_f64);
/// PlusEq1::<Convert, _>::plus_eq(&mut y, &mut x);
/// assert_eq!(y, Fixed43::from_num(1.25));
/// let (mut z, mut s) = (0.0_f64, ULog::from_log(2.0_f64));
/// PlusEq1::<Convert, _>::plus_eq(&mut z, &mut s);
/// assert_eq!(z, 2.0_f64.exp());
/// ```
pub trait NumConvert<X> {
    /// `x` as a `Self`.
    fn num_convert(x: X) -> Self;
}

impl<Y: Plain + NumConvert<X>, X: Copy> PlusEq1<fns::Convert, X> for Y {
    #[inline(always)]
    fn plus_eq(&mut self, a: &mut X) {
        *self += Y::num_convert(*a);
    }
    #[inline(always)]
    fn minus_eq(&mut self, a: &mut X) {
        *self -= Y::num_convert(*a);
    }
}

macro_rules! into_fixed {
    ($($t:ty),*) => {$(
        into_fixed!(@from $t: f32, f64, i32, i64, Fixed43, Fixed32);
    )*};
    (@from $t:ty: $($s:ty),*) => {$(
        impl NumConvert<$s> for $t {
            #[inline(always)]
            fn num_convert(x: $s) -> Self {
                <$t>::from_num(x)
            }
        }
    )*};
}
into_fixed!(Fixed43, Fixed32);
macro_rules! into_float {
    ($($t:ty),*) => {$(
        into_float!(@cast $t: f32, f64, i32, i64);
        into_float!(@fixed $t: Fixed43, Fixed32);
    )*};
    (@cast $t:ty: $($s:ty),*) => {$(
        impl NumConvert<$s> for $t {
            #[inline(always)]
            fn num_convert(x: $s) -> Self {
                x as $t
            }
        }
    )*};
    (@fixed $t:ty: $($s:ty),*) => {$(
        impl NumConvert<$s> for $t {
            #[inline(always)]
            fn num_convert(x: $s) -> Self {
                x.to_num::<$t>()
            }
        }
    )*};
}
into_float!(f32, f64);

impl<T: Real> NumConvert<T> for Dual<T> {
    /// A constant.
    #[inline(always)]
    fn num_convert(x: T) -> Self {
        Dual::constant(x)
    }
}
impl<T: Real> NumConvert<ULog<T>> for T {
    /// The value `exp(log)`.
    #[inline(always)]
    fn num_convert(x: ULog<T>) -> Self {
        x.log.exp()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::instr::fns::Convert;

    fn conv<Y: PlusEq1<Convert, X> + Copy, X: Copy>(mut y: Y, mut x: X) -> Y {
        let y0 = y;
        y.plus_eq(&mut x);
        let r = y;
        y.minus_eq(&mut x);
        let _ = y0;
        r
    }

    #[test]
    fn conversions() {
        assert_eq!(conv(Fixed43::ZERO, 0.1_f64), Fixed43::from_num(0.1));
        assert_eq!(conv(Fixed43::ZERO, 3_i32), Fixed43::from_num(3));
        assert_eq!(
            conv(Fixed32::ONE, Fixed43::from_num(0.5)),
            Fixed32::from_num(1.5)
        );
        assert_eq!(conv(1.0_f64, Fixed43::from_num(0.5)), 1.5);
        assert_eq!(conv(1.0_f32, 2.0_f64), 3.0);
        assert_eq!(conv(0.0_f64, 7_i64), 7.0);
        assert_eq!(conv(Dual::variable(1.0_f64), 2.0), Dual::new(3.0, 1.0));
        assert_eq!(conv(0.0_f64, ULog::from_log(0.0)), 1.0);
        assert_eq!(
            conv(Fixed43::ZERO, ULog::from_log(Fixed43::ZERO)),
            Fixed43::ONE
        );
    }

    #[test]
    fn fixed_convert_inverts_bit_exactly() {
        let mut y = Fixed43::from_num(0.7);
        let y0 = y;
        let mut x = 0.123456789_f64;
        for _ in 0..10 {
            PlusEq1::<Convert, _>::plus_eq(&mut y, &mut x);
        }
        for _ in 0..10 {
            PlusEq1::<Convert, _>::minus_eq(&mut y, &mut x);
        }
        assert_eq!(y.to_bits(), y0.to_bits());
    }
}
