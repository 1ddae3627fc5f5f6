//! [`Dual`]: forward-mode dual numbers (a value with one directional derivative).
use crate::instr::{FromLiteral, Plain};
use crate::numbers::Real;
use core::cmp::Ordering;
use core::fmt;
use core::ops::{Add, AddAssign, Div, DivAssign, Mul, MulAssign, Sub, SubAssign};

/// A forward-mode dual number `x + eps·ε` with `ε² = 0`.
///
/// Every [`Real`] operation propagates the derivative `eps`, so running a plain program on
/// `Dual`s computes one directional derivative. `Dual` is itself a [`Real`], hence nested
/// duals (`Dual<Dual<f64>>`) give second derivatives, and `GVar<Dual<f64>>` computes Hessian
/// columns (forward-over-reverse).
///
/// Comparisons and runtime checks ([`AlmostSame`](crate::check::AlmostSame)) look at the value only.
///
/// ```
/// use nilang::{Dual, Real};
/// let x = Dual::variable(0.5_f64);
/// let y = x.sin() * x; // y = x sin x, y' = sin x + x cos x
/// assert_eq!(y.x, 0.5_f64.sin() * 0.5);
/// assert!((y.eps - (0.5_f64.sin() + 0.5 * 0.5_f64.cos())).abs() < 1e-15);
///
/// // second derivative of x³ at 2 with nested duals: 6x = 12
/// let x = Dual::new(Dual::variable(2.0_f64), Dual::from(1.0));
/// let y = x.powi(3);
/// assert_eq!(y.eps.eps, 12.0);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Dual<T> {
    /// The value.
    pub x: T,
    /// The derivative (tangent) part.
    pub eps: T,
}

impl<T> Dual<T> {
    /// `x + eps·ε`.
    #[inline(always)]
    pub const fn new(x: T, eps: T) -> Self {
        Dual { x, eps }
    }
}
impl<T: Real> Dual<T> {
    /// The independent variable: unit derivative.
    #[inline(always)]
    pub fn variable(x: T) -> Self {
        Dual { x, eps: T::one() }
    }
    /// A constant: zero derivative.
    #[inline(always)]
    pub fn constant(x: T) -> Self {
        Dual { x, eps: T::zero() }
    }
    /// The value `v` as a factor of the tangent (which is a `T` too): `v` itself.
    #[inline(always)]
    fn splat(v: T) -> T {
        v
    }
    /// `f` on the tangents `a` and `b` (one direction: `f(a, b)`).
    #[inline(always)]
    fn zip_lanes(a: T, b: T, f: impl Fn(T, T) -> T) -> T {
        f(a, b)
    }
}
impl<T: Default> From<T> for Dual<T> {
    /// A constant (zero derivative).
    #[inline(always)]
    fn from(x: T) -> Self {
        Dual {
            x,
            eps: T::default(),
        }
    }
}
impl<T: PartialOrd> PartialOrd for Dual<T> {
    /// By value.
    #[inline(always)]
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        self.x.partial_cmp(&other.x)
    }
}
impl<T: fmt::Display> fmt::Display for Dual<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} + {}ε", self.x, self.eps)
    }
}

// ---- arithmetic and elementary functions -----------------------------------------------
super::forward::forward_mode!(impl[T: Real] Dual<T>, value T);

// mixed with a plain value
impl<T: Real> Add<T> for Dual<T> {
    type Output = Self;
    #[inline(always)]
    fn add(self, o: T) -> Self {
        Dual::new(self.x + o, self.eps)
    }
}
impl<T: Real> Sub<T> for Dual<T> {
    type Output = Self;
    #[inline(always)]
    fn sub(self, o: T) -> Self {
        Dual::new(self.x - o, self.eps)
    }
}
impl<T: Real> Mul<T> for Dual<T> {
    type Output = Self;
    #[inline(always)]
    fn mul(self, o: T) -> Self {
        Dual::new(self.x * o, self.eps * o)
    }
}
impl<T: Real> Div<T> for Dual<T> {
    type Output = Self;
    #[inline(always)]
    fn div(self, o: T) -> Self {
        Dual::new(self.x / o, self.eps / o)
    }
}
macro_rules! assign_ops {
    ($($tr:ident $m:ident $op:tt),*) => {$(
        impl<T: Real> $tr<T> for Dual<T> {
            #[inline(always)]
            fn $m(&mut self, o: T) {
                *self = *self $op o;
            }
        }
    )*};
}
assign_ops!(AddAssign add_assign +, SubAssign sub_assign -, MulAssign mul_assign *, DivAssign div_assign /);
macro_rules! scalar_lhs {
    ($($t:ty),*) => {$(
        impl Add<Dual<$t>> for $t {
            type Output = Dual<$t>;
            #[inline(always)]
            fn add(self, o: Dual<$t>) -> Dual<$t> { Dual::new(self + o.x, o.eps) }
        }
        impl Sub<Dual<$t>> for $t {
            type Output = Dual<$t>;
            #[inline(always)]
            fn sub(self, o: Dual<$t>) -> Dual<$t> { Dual::new(self - o.x, -o.eps) }
        }
        impl Mul<Dual<$t>> for $t {
            type Output = Dual<$t>;
            #[inline(always)]
            fn mul(self, o: Dual<$t>) -> Dual<$t> { Dual::new(self * o.x, self * o.eps) }
        }
        impl Div<Dual<$t>> for $t {
            type Output = Dual<$t>;
            #[inline(always)]
            fn div(self, o: Dual<$t>) -> Dual<$t> { Dual::constant(self) / o }
        }
    )*};
}
scalar_lhs!(f32, f64);

// ---- language traits --------------------------------------------------------------------
impl<T: Real> Plain for Dual<T> {}
impl<T: Real> FromLiteral for Dual<T> {
    /// A constant (zero derivative).
    #[inline(always)]
    fn from_f64_lit(v: f64) -> Self {
        Dual::constant(T::from_f64(v))
    }
    #[inline(always)]
    fn from_i64_lit(v: i64) -> Self {
        Dual::constant(T::from_f64(v as f64))
    }
}
crate::check::almost_same_by_field!(
    /// Values only (like [`crate::GVar`]).
    Dual.x
);
crate::instr::basic::increment_by_field!(
    /// Value only: adding a constant leaves the derivative alone.
    Dual.x
);
crate::instr::fresh::fresh_scalar!([T: Default + crate::check::AlmostSame] Dual<T>);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::AlmostSame;

    /// Central finite difference of `f` at `x`.
    fn fd(f: impl Fn(f64) -> f64, x: f64) -> f64 {
        let h = 1e-6;
        (f(x + h) - f(x - h)) / (2.0 * h)
    }
    fn check(f: impl Fn(Dual<f64>) -> Dual<f64>, g: impl Fn(f64) -> f64, x: f64) {
        let y = f(Dual::variable(x));
        assert_eq!(y.x, g(x), "value at {x}");
        let n = fd(&g, x);
        assert!(
            (y.eps - n).abs() <= 1e-6 * (1.0 + n.abs()),
            "derivative at {x}: {} vs numeric {n}",
            y.eps
        );
    }

    #[test]
    fn elementary_derivatives() {
        for &x in &[0.3, 0.7, -0.4] {
            check(|d| d.sin(), f64::sin, x);
            check(|d| d.cos(), f64::cos, x);
            check(|d| d.tan(), f64::tan, x);
            check(|d| d.asin(), f64::asin, x);
            check(|d| d.acos(), f64::acos, x);
            check(|d| d.atan(), f64::atan, x);
            check(|d| d.sinh(), f64::sinh, x);
            check(|d| d.cosh(), f64::cosh, x);
            check(|d| d.tanh(), f64::tanh, x);
            check(|d| d.exp(), f64::exp, x);
            check(|d| d.exp_m1(), f64::exp_m1, x);
            check(|d| d.ln_1p(), f64::ln_1p, x);
            check(|d| d.abs(), f64::abs, x);
            check(|d| d.recip(), f64::recip, x);
            check(|d| d.powi(3), |v| v.powi(3), x);
            check(|d| d.powi(-2), |v| v.powi(-2), x);
            check(|d| d.atan2(Dual::constant(0.8)), |v| v.atan2(0.8), x);
            check(|d| Dual::constant(0.8).atan2(d), |v| 0.8_f64.atan2(v), x);
            check(|d| d.hypot(Dual::constant(0.8)), |v| v.hypot(0.8), x);
            check(
                |d| d * d - d / Dual::constant(3.0) + d,
                |v| v * v - v / 3.0 + v,
                x,
            );
            check(
                |d| 2.0 / d - 1.0 * d + (1.0 - d),
                |v| 2.0 / v - v + (1.0 - v),
                x,
            );
            check(
                |d| (d + 1.0) * 2.0 / 4.0 - 0.5,
                |v| (v + 1.0) * 2.0 / 4.0 - 0.5,
                x,
            );
        }
        for &x in &[0.3, 2.5] {
            check(|d| d.ln(), f64::ln, x);
            check(|d| d.sqrt(), f64::sqrt, x);
            check(|d| d.powf(Dual::constant(1.7)), |v| v.powf(1.7), x);
            check(|d| Dual::constant(1.7).powf(d), |v| 1.7_f64.powf(v), x);
            check(|d| d.powf(d), |v| v.powf(v), x);
        }
    }

    #[test]
    fn special_points() {
        assert_eq!(Dual::variable(0.0_f64).sqrt(), Dual::new(0.0, 0.0));
        assert_eq!(
            Dual::variable(-2.0_f64).powf(Dual::constant(2.0)),
            Dual::new(4.0, -4.0)
        );
        assert_eq!(Dual::variable(0.0_f64).powi(0), Dual::new(1.0, 0.0));
        assert_eq!(Dual::variable(0.0_f64).hypot(Dual::constant(0.0)).eps, 0.0);
    }

    #[test]
    fn nested_second_derivative() {
        // f(x) = exp(sin x); f'' = exp(sin x)(cos² x − sin x)
        let x0 = 0.6_f64;
        let x = Dual::new(Dual::variable(x0), Dual::from(1.0));
        let y = x.sin().exp();
        let want = x0.sin().exp() * (x0.cos().powi(2) - x0.sin());
        assert!((y.eps.eps - want).abs() < 1e-14);
        assert_eq!(y.x.x, x0.sin().exp());
    }

    #[test]
    fn instructions_on_duals() {
        use crate::instr::fns::{Mul, Sin};
        use crate::instr::{PlusEq1, PlusEq2};
        let mut y = Dual::new(1.0, 0.0);
        let mut x = Dual::variable(0.5);
        PlusEq1::<Sin, _>::plus_eq(&mut y, &mut x);
        assert_eq!(y, Dual::new(1.0 + 0.5_f64.sin(), 0.5_f64.cos()));
        PlusEq1::<Sin, _>::minus_eq(&mut y, &mut x);
        assert_eq!(y, Dual::new(1.0, 0.0));
        let mut c = crate::instr::lit_f(&y, 2.0);
        PlusEq2::<Mul, _, _>::plus_eq(&mut y, &mut x, &mut c);
        assert_eq!(y, Dual::new(2.0, 2.0));
        let mut z = Dual::variable(3.0);
        crate::INC(&mut z);
        crate::ROT(&mut y, &mut z, &mut x);
        crate::IROT(&mut y, &mut z, &mut x);
        assert!(y.almost_same(&Dual::new(2.0, 2.0)) && z.almost_same(&Dual::new(4.0, 1.0)));
        assert!(Dual::new(1.0, 5.0) < Dual::new(2.0, 0.0));
        assert_eq!(format!("{}", Dual::new(1.0, 2.0)), "1 + 2ε");
    }
}
