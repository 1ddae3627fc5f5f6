//! Fixed-point numbers: [`Fixed43`] (NiLang's `Q20f43`) and [`Fixed32`].
//!
//! `+=` and `-=` on fixed point are exact (integer additions), so a program that only
//! accumulates into fixed-point variables inverts **bit-exactly**. Products and quotients are
//! computed by the `fixed` crate (rounded); elementary functions (`exp`, `ln`, `sin`, ...) are
//! computed through `f64` and rounded back, as NiLang does. Since the rounded value is the
//! same in both directions, `y += f(x)` followed by `y -= f(x)` restores `y` exactly.
//! (`ROT`, `IROT`, `HADAMARD` and `INV` work on fixed point too, but they transform their
//! operands in place with rounding, so their inverses are exact only up to a few ulps.)
//!
//! ```
//! use nilang::Fixed43;
//! use nilang::instr::{PlusEq1, PlusEq2, fns::{Div, Exp}, lit_i};
//! let (mut y, mut x) = (Fixed43::ZERO, Fixed43::from_num(1));
//! let mut two = lit_i(&y, 2);
//! PlusEq2::<Div, _, _>::plus_eq(&mut y, &mut x, &mut two);
//! assert_eq!(y, Fixed43::from_num(0.5));
//! PlusEq1::<Exp, _>::plus_eq(&mut y, &mut x);
//! PlusEq1::<Exp, _>::minus_eq(&mut y, &mut x);
//! PlusEq2::<Div, _, _>::minus_eq(&mut y, &mut x, &mut two);
//! assert_eq!(y.to_bits(), 0);
//! ```
use crate::check::AlmostSame;
use crate::instr::basic::Increment;
use crate::instr::{FromLiteral, Plain};
use crate::numbers::Real;

/// Fixed point with 43 fractional bits in an `i64` (range ±2²⁰, resolution 2⁻⁴³ ≈ 1.1e-13):
/// NiLang's `Fixed43` (`Q20f43`).
pub type Fixed43 = fixed::types::I21F43;
/// Fixed point with 32 fractional bits in an `i64` (range ±2³¹, resolution 2⁻³²).
pub type Fixed32 = fixed::types::I32F32;

macro_rules! fixed_number {
    ($($t:ty),*) => {$(
        impl Plain for $t {}
        impl FromLiteral for $t {
            /// Rounded to nearest; panics (debug) if out of range.
            #[inline(always)]
            fn from_f64_lit(v: f64) -> Self {
                <$t>::from_num(v)
            }
            #[inline(always)]
            fn from_i64_lit(v: i64) -> Self {
                <$t>::from_num(v)
            }
        }
        impl crate::number::Fresh for $t {
            #[inline(always)]
            fn is_fresh(&self) -> bool {
                *self == <$t>::ZERO
            }
            #[inline(always)]
            fn make_fresh(&mut self) {
                *self = <$t>::ZERO;
            }
        }
        impl AlmostSame for $t {
            /// Exact: fixed-point arithmetic of a reversible program is bit-exact.
            #[inline]
            fn almost_same(&self, other: &Self) -> bool {
                self == other
            }
        }
        impl crate::number::Value for $t {
            #[inline(always)]
            fn value(&self) -> f64 {
                self.to_num::<f64>()
            }
        }
        impl Increment for $t {
            #[inline(always)]
            fn increment(&mut self) {
                *self += <$t>::ONE;
            }
            #[inline(always)]
            fn decrement(&mut self) {
                *self -= <$t>::ONE;
            }
        }
        /// Elementary functions through `f64`, rounded to nearest.
        impl Real for $t {
            #[inline(always)]
            fn from_f64(x: f64) -> Self {
                <$t>::from_num(x)
            }
            #[inline(always)]
            fn to_f64(self) -> f64 {
                self.to_num::<f64>()
            }
            #[inline(always)]
            fn zero() -> Self {
                <$t>::ZERO
            }
            #[inline(always)]
            fn one() -> Self {
                <$t>::ONE
            }
            nilang_functions::elementary_functions!(fixed_number! { @table $t; });
            fixed_number!(@unary $t: sqrt);
            fixed_number!(@binary $t: atan2 powf hypot);
            /// Exact.
            #[inline(always)]
            fn abs(self) -> Self {
                <$t>::abs(self)
            }
            #[inline(always)]
            fn powi(self, n: i32) -> Self {
                <$t>::from_num(self.to_num::<f64>().powi(n))
            }
            #[inline(always)]
            fn recip(self) -> Self {
                <$t>::from_num(self.to_num::<f64>().recip())
            }
        }
    )*};
    // the functions of the table ([`nilang_functions`])
    (@table $t:ty; $($F:ident { names: [$f:ident $(, $alias:ident)*], $($rest:tt)* },)*) => {
        fixed_number!(@unary $t: $($f)*);
    };
    (@unary $t:ty: $($f:ident)*) => {$(
        #[inline(always)]
        fn $f(self) -> Self {
            <$t>::from_num(self.to_num::<f64>().$f())
        }
    )*};
    (@binary $t:ty: $($f:ident)*) => {$(
        #[inline(always)]
        fn $f(self, o: Self) -> Self {
            <$t>::from_num(self.to_num::<f64>().$f(o.to_num::<f64>()))
        }
    )*};
}
fixed_number!(Fixed43, Fixed32);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::instr::fns::{Add, Div, Exp, Mul, PowiN, Sin, Sqrt};
    use crate::instr::{lit_f, lit_i, PlusEq1, PlusEq2};

    #[test]
    fn accumulate_is_bit_exact() {
        let mut y = Fixed43::from_num(0.3);
        let y0 = y;
        let (mut a, mut b) = (Fixed43::from_num(1.7), Fixed43::from_num(-0.3));
        for _ in 0..100 {
            PlusEq2::<Mul, _, _>::plus_eq(&mut y, &mut a, &mut b);
            PlusEq1::<Sin, _>::plus_eq(&mut y, &mut a);
            PlusEq2::<Div, _, _>::plus_eq(&mut y, &mut a, &mut b);
            PlusEq1::<PowiN<3>, _>::plus_eq(&mut y, &mut b);
        }
        for _ in 0..100 {
            PlusEq1::<PowiN<3>, _>::minus_eq(&mut y, &mut b);
            PlusEq2::<Div, _, _>::minus_eq(&mut y, &mut a, &mut b);
            PlusEq1::<Sin, _>::minus_eq(&mut y, &mut a);
            PlusEq2::<Mul, _, _>::minus_eq(&mut y, &mut a, &mut b);
        }
        assert_eq!(y.to_bits(), y0.to_bits());
    }

    #[test]
    fn values() {
        // inventory §5.3 case 23: out += x / 2 with out = 0, x = 1 gives exactly 0.5
        let mut out = Fixed43::ZERO;
        let mut x = lit_i(&out, 1);
        let mut two = lit_i(&out, 2);
        PlusEq2::<Div, _, _>::plus_eq(&mut out, &mut x, &mut two);
        assert_eq!(out, Fixed43::from_num(0.5));
        PlusEq2::<Div, _, _>::minus_eq(&mut out, &mut x, &mut two);
        assert_eq!(out, Fixed43::ZERO);

        let mut y = Fixed43::ZERO;
        let mut x = Fixed43::from_num(3.5);
        PlusEq1::<Exp, _>::plus_eq(&mut y, &mut x);
        assert!((y.to_num::<f64>() - 3.5_f64.exp()).abs() < 1e-12);
        let mut z = Fixed32::from_num(2);
        let mut w = Fixed32::ZERO;
        PlusEq1::<Sqrt, _>::plus_eq(&mut w, &mut z);
        assert!((w.to_num::<f64>() - 2f64.sqrt()).abs() < 1e-9);
        let mut c = lit_f(&w, 0.25);
        PlusEq2::<Add, _, _>::plus_eq(&mut w, &mut z, &mut c);
        assert!((w.to_num::<f64>() - 2f64.sqrt() - 2.25).abs() < 1e-9);
    }

    #[test]
    fn gradient_numbers_on_fixed_point() {
        use crate::instr::Scalar;
        use crate::GVar;
        fn scalar<T: Scalar>(_: T) {}
        scalar(Fixed43::ZERO);
        scalar(GVar::from(Fixed32::ZERO));
        // backward pass of y += x * z on GVar<Fixed43>: x̄ += ȳ z, z̄ += ȳ x, y restored
        let f = |v: f64| Fixed43::from_num(v);
        let (mut y, mut x, mut z) = (
            GVar::new(f(1.0) + f(0.5) * f(3.0), f(1.0)),
            GVar::from(f(0.5)),
            GVar::from(f(3.0)),
        );
        PlusEq2::<Mul, _, _>::minus_eq(&mut y, &mut x, &mut z);
        assert_eq!((y.x, x.g, z.g), (f(1.0), f(3.0), f(0.5)));
    }

    #[test]
    fn primitive_instructions() {
        let (mut a, mut b, mut t) = (
            Fixed43::from_num(1.5),
            Fixed43::from_num(-2),
            Fixed43::from_num(0.3),
        );
        crate::ROT(&mut a, &mut b, &mut t);
        crate::IROT(&mut a, &mut b, &mut t);
        assert!((a.to_num::<f64>() - 1.5).abs() < 1e-12 && (b.to_num::<f64>() + 2.0).abs() < 1e-12);
        crate::NEG(&mut a);
        crate::INC(&mut a);
        crate::DEC(&mut a);
        crate::NEG(&mut a);
        let mut r = Fixed43::from_num(4);
        crate::INV(&mut r);
        assert_eq!(r, Fixed43::from_num(0.25));
        assert!(a.almost_same(&a) && !a.almost_same(&(a + Fixed43::DELTA)));
    }
}
