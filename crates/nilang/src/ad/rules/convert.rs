//! Gradient rules of `y += convert(x)` between float and fixed-point numbers.
//!
//! The conversion is the identity up to rounding, so its adjoint flows back converted:
//! `x̄ += convert(ȳ)`. The rules are implemented for concrete pairs of distinct types (the
//! same-type case is `identity`).
use crate::ad::GVar;
use crate::instr::fns::Convert;
use crate::instr::PlusEq1;
use crate::numbers::{Fixed32, Fixed43};

macro_rules! convert_rule {
    ($(($Y:ty, $X:ty)),*) => {$(
        impl PlusEq1<Convert, GVar<$X>> for GVar<$Y> {
            #[inline(always)]
            fn plus_eq(&mut self, a: &mut GVar<$X>) {
                <$X as PlusEq1<Convert, $Y>>::minus_eq(&mut a.g, &mut self.g);
                <$Y as PlusEq1<Convert, $X>>::plus_eq(&mut self.x, &mut a.x);
            }
            #[inline(always)]
            fn minus_eq(&mut self, a: &mut GVar<$X>) {
                <$Y as PlusEq1<Convert, $X>>::minus_eq(&mut self.x, &mut a.x);
                <$X as PlusEq1<Convert, $Y>>::plus_eq(&mut a.g, &mut self.g);
            }
        }
        impl PlusEq1<Convert, $X> for GVar<$Y> {
            /// A constant operand: the value only.
            #[inline(always)]
            fn plus_eq(&mut self, a: &mut $X) {
                <$Y as PlusEq1<Convert, $X>>::plus_eq(&mut self.x, a)
            }
            #[inline(always)]
            fn minus_eq(&mut self, a: &mut $X) {
                <$Y as PlusEq1<Convert, $X>>::minus_eq(&mut self.x, a)
            }
        }
    )*};
}
convert_rule!(
    (f64, Fixed43),
    (Fixed43, f64),
    (f64, Fixed32),
    (Fixed32, f64),
    (f32, Fixed43),
    (Fixed43, f32),
    (f32, f64),
    (f64, f32),
    (Fixed43, Fixed32),
    (Fixed32, Fixed43)
);
