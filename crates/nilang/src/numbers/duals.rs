//! [`Duals`]: forward-mode dual numbers with several directional derivatives at once, one
//! per lane of a batch ([`F64x4`](super::F64x4), [`F64x8`](super::F64x8)).
use super::{Arithmetic, Batch, Real};
use crate::check::AlmostSame;
use crate::instr::basic::Increment;
use crate::instr::{FromLiteral, Plain};
use core::cmp::Ordering;
use core::ops::{Add, AddAssign, Div, DivAssign, Mul, MulAssign, Neg, Sub, SubAssign};

/// The batch types that can hold the tangents of [`Duals`]: a [`Batch`] with its
/// [`Arithmetic`].
///
/// ```
/// fn takes<B: nilang::numbers::Tangents>() {}
/// takes::<nilang::numbers::F64x4>();
/// takes::<nilang::numbers::F64x8>();
/// ```
pub trait Tangents: Batch + Arithmetic {}
impl<B: Batch + Arithmetic> Tangents for B {}

/// A value `x` with `B::LANES` directional derivatives `eps` (one per lane): running a plain
/// program on `Duals<B>` computes `B::LANES` directional derivatives in one run, the tangent
/// arithmetic in SIMD lanes and the value once. It is a [`Real`] (ordered by its value, so
/// programs with data-dependent branches run on it, unlike on a batch), and
/// `GVar<Duals<F64x8>>` computes 8 Hessian columns per reverse pass
/// ([`hessian_fwd_rev_lanes`](crate::ad::hessian_fwd_rev_lanes)).
///
/// Lane `k` follows exactly the arithmetic of [`Dual<f64>`](super::Dual) with tangent
/// `eps.lane(k)`.
///
/// ```
/// use nilang::numbers::{Duals, F64x4};
/// use nilang::Real;
/// // f(x, y) = x·sin(y) at (2, 0.5): the partial derivatives in lanes 0 and 1
/// let x = Duals::new(2.0, F64x4::new([1.0, 0.0, 0.0, 0.0]));
/// let y = Duals::new(0.5, F64x4::new([0.0, 1.0, 0.0, 0.0]));
/// let f = x * y.sin();
/// assert_eq!(f.x, 2.0 * 0.5_f64.sin());
/// assert_eq!(f.eps.to_array(), [0.5_f64.sin(), 2.0 * 0.5_f64.cos(), 0.0, 0.0]);
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct Duals<B> {
    /// The value.
    pub x: f64,
    /// The derivatives (tangents), one per lane.
    pub eps: B,
}

impl<B: Tangents> Duals<B> {
    /// `x + Σ eps_k·ε_k`.
    #[inline(always)]
    pub fn new(x: f64, eps: B) -> Self {
        Duals { x, eps }
    }
    /// A constant: zero derivatives.
    #[inline(always)]
    pub fn constant(x: f64) -> Self {
        Duals {
            x,
            eps: B::splat(0.0),
        }
    }
    /// `(f(x), f'(x)·eps)` from the value and derivative of `f` at `x`.
    #[inline(always)]
    fn chain(self, fx: f64, dfx: f64) -> Self {
        Duals {
            x: fx,
            eps: self.eps * B::splat(dfx),
        }
    }
}

impl<B: Tangents> PartialEq for Duals<B> {
    /// Value and every tangent.
    fn eq(&self, o: &Self) -> bool {
        self.x == o.x && (0..B::LANES).all(|k| self.eps.lane(k) == o.eps.lane(k))
    }
}
impl<B: Tangents> PartialOrd for Duals<B> {
    /// By value.
    #[inline(always)]
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        self.x.partial_cmp(&o.x)
    }
}

impl<B: Tangents> Add for Duals<B> {
    type Output = Self;
    #[inline(always)]
    fn add(self, o: Self) -> Self {
        Duals::new(self.x + o.x, self.eps + o.eps)
    }
}
impl<B: Tangents> Sub for Duals<B> {
    type Output = Self;
    #[inline(always)]
    fn sub(self, o: Self) -> Self {
        Duals::new(self.x - o.x, self.eps - o.eps)
    }
}
impl<B: Tangents> Mul for Duals<B> {
    type Output = Self;
    #[inline(always)]
    fn mul(self, o: Self) -> Self {
        Duals::new(
            self.x * o.x,
            self.eps * B::splat(o.x) + B::splat(self.x) * o.eps,
        )
    }
}
impl<B: Tangents> Div for Duals<B> {
    type Output = Self;
    #[inline(always)]
    fn div(self, o: Self) -> Self {
        let q = self.x / o.x;
        Duals::new(q, (self.eps - B::splat(q) * o.eps) / B::splat(o.x))
    }
}
impl<B: Tangents> Neg for Duals<B> {
    type Output = Self;
    #[inline(always)]
    fn neg(self) -> Self {
        Duals::new(-self.x, -self.eps)
    }
}
macro_rules! assign_ops {
    ($($tr:ident $m:ident $op:tt),*) => {$(
        impl<B: Tangents> $tr for Duals<B> {
            #[inline(always)]
            fn $m(&mut self, o: Self) {
                *self = *self $op o;
            }
        }
    )*};
}
assign_ops!(AddAssign add_assign +, SubAssign sub_assign -, MulAssign mul_assign *, DivAssign div_assign /);

impl<B: Tangents> Real for Duals<B> {
    #[inline(always)]
    fn from_f64(x: f64) -> Self {
        Duals::constant(x)
    }
    #[inline(always)]
    fn to_f64(self) -> f64 {
        self.x
    }
    #[inline(always)]
    fn sin(self) -> Self {
        self.chain(self.x.sin(), self.x.cos())
    }
    #[inline(always)]
    fn cos(self) -> Self {
        self.chain(self.x.cos(), -self.x.sin())
    }
    #[inline(always)]
    fn tan(self) -> Self {
        let t = self.x.tan();
        self.chain(t, 1.0 + t * t)
    }
    #[inline(always)]
    fn asin(self) -> Self {
        self.chain(self.x.asin(), (1.0 - self.x * self.x).sqrt().recip())
    }
    #[inline(always)]
    fn acos(self) -> Self {
        self.chain(self.x.acos(), -(1.0 - self.x * self.x).sqrt().recip())
    }
    #[inline(always)]
    fn atan(self) -> Self {
        self.chain(self.x.atan(), (1.0 + self.x * self.x).recip())
    }
    /// `atan2(self, x)`: derivative `(x·dy − y·dx) / (x² + y²)`.
    #[inline(always)]
    fn atan2(self, x: Self) -> Self {
        let r2 = self.x * self.x + x.x * x.x;
        Duals::new(
            self.x.atan2(x.x),
            (B::splat(x.x) * self.eps - B::splat(self.x) * x.eps) / B::splat(r2),
        )
    }
    #[inline(always)]
    fn sinh(self) -> Self {
        self.chain(self.x.sinh(), self.x.cosh())
    }
    #[inline(always)]
    fn cosh(self) -> Self {
        self.chain(self.x.cosh(), self.x.sinh())
    }
    #[inline(always)]
    fn tanh(self) -> Self {
        let t = self.x.tanh();
        self.chain(t, 1.0 - t * t)
    }
    #[inline(always)]
    fn exp(self) -> Self {
        let e = self.x.exp();
        self.chain(e, e)
    }
    #[inline(always)]
    fn ln(self) -> Self {
        Duals::new(self.x.ln(), self.eps / B::splat(self.x))
    }
    #[inline(always)]
    fn ln_1p(self) -> Self {
        Duals::new(self.x.ln_1p(), self.eps / B::splat(1.0 + self.x))
    }
    #[inline(always)]
    fn exp_m1(self) -> Self {
        self.chain(self.x.exp_m1(), self.x.exp())
    }
    /// `sqrt`; the derivatives are taken as zero at `x = 0`, as [`Dual`](super::Dual)'s.
    #[inline(always)]
    fn sqrt(self) -> Self {
        let s = self.x.sqrt();
        if s == 0.0 {
            return Duals::constant(s);
        }
        Duals::new(s, self.eps / B::splat(s + s))
    }
    /// `|x|`, derivative `sign(x)·eps` (`+eps` at `0`).
    #[inline(always)]
    fn abs(self) -> Self {
        if self.x < 0.0 {
            -self
        } else {
            self
        }
    }
    /// `x^e` as [`Dual`](super::Dual)'s, lane by lane: a term whose tangent is zero in a lane
    /// is skipped in that lane.
    fn powf(self, e: Self) -> Self {
        let v = self.x.powf(e.x);
        let (dx, de) = (self.eps, e.eps);
        let d = B::from_fn(|k| {
            let mut d = 0.0;
            if dx.lane(k) != 0.0 {
                d += e.x * self.x.powf(e.x - 1.0) * dx.lane(k);
            }
            if de.lane(k) != 0.0 {
                d += v * self.x.ln() * de.lane(k);
            }
            d
        });
        Duals::new(v, d)
    }
    #[inline(always)]
    fn powi(self, n: i32) -> Self {
        if n == 0 {
            return Duals::constant(1.0);
        }
        self.chain(self.x.powi(n), n as f64 * self.x.powi(n - 1))
    }
    /// `hypot(x, y)`, derivative `(x·dx + y·dy) / h` (zero at the origin).
    #[inline(always)]
    fn hypot(self, y: Self) -> Self {
        let h = self.x.hypot(y.x);
        if h == 0.0 {
            return Duals::constant(h);
        }
        Duals::new(
            h,
            (B::splat(self.x) * self.eps + B::splat(y.x) * y.eps) / B::splat(h),
        )
    }
    #[inline(always)]
    fn recip(self) -> Self {
        let r = self.x.recip();
        self.chain(r, -(r * r))
    }
}

impl<B: Tangents> Plain for Duals<B> {}
impl<B: Tangents> FromLiteral for Duals<B> {
    /// A constant (zero derivatives).
    #[inline(always)]
    fn from_f64_lit(v: f64) -> Self {
        Duals::constant(v)
    }
    #[inline(always)]
    fn from_i64_lit(v: i64) -> Self {
        Duals::constant(v as f64)
    }
}
impl<B: Tangents> AlmostSame for Duals<B> {
    /// Values only (like [`Dual`](super::Dual)).
    #[inline]
    fn almost_same(&self, o: &Self) -> bool {
        self.x.almost_same(&o.x)
    }
    #[inline]
    fn almost_same_at(&self, o: &Self, history: f64) -> bool {
        self.x.almost_same_at(&o.x, history)
    }
    #[inline]
    fn magnitude(&self) -> f64 {
        self.x.magnitude()
    }
}
impl<B: Tangents> Increment for Duals<B> {
    /// Value only: adding a constant leaves the derivatives alone.
    #[inline(always)]
    fn increment(&mut self) {
        self.x += 1.0;
    }
    #[inline(always)]
    fn decrement(&mut self) {
        self.x -= 1.0;
    }
}
impl<B: Tangents> crate::ad::args::Lift<f64> for Duals<B> {
    fn lift(e: f64) -> Self {
        Duals::constant(e)
    }
    fn lower(self) -> f64 {
        self.x
    }
}
impl<B: Tangents> crate::ad::Value for Duals<B> {
    #[inline(always)]
    fn value(&self) -> f64 {
        self.x
    }
}
impl<B: Tangents> crate::instr::fresh::Fresh for Duals<B> {
    #[inline(always)]
    fn is_fresh(&self) -> bool {
        self.almost_same(&Self::default())
    }
    #[inline(always)]
    fn make_fresh(&mut self) {
        *self = Self::default();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::numbers::{Dual, F64x4};

    type D = Duals<F64x4>;

    /// Every elementary function: lane k equals `Dual<f64>` with tangent lane k, bit for bit.
    #[test]
    fn lanes_are_duals() {
        let ta = [1.0, 0.0, -0.5, 2.0];
        let tb = [0.0, 1.0, 0.25, 0.0];
        for &(a, b) in &[(0.3, 0.8), (0.7, -0.4), (2.5, 1.7), (0.0, 0.6)] {
            let da = Duals::new(a, F64x4::new(ta));
            let db = Duals::new(b, F64x4::new(tb));
            type U = (fn(D) -> D, fn(Dual<f64>) -> Dual<f64>);
            type B2 = (fn(D, D) -> D, fn(Dual<f64>, Dual<f64>) -> Dual<f64>);
            let unary: [U; 17] = [
                (|v| v.sin(), |v| v.sin()),
                (|v| v.cos(), |v| v.cos()),
                (|v| v.tan(), |v| v.tan()),
                (|v| v.asin(), |v| v.asin()),
                (|v| v.acos(), |v| v.acos()),
                (|v| v.atan(), |v| v.atan()),
                (|v| v.sinh(), |v| v.sinh()),
                (|v| v.cosh(), |v| v.cosh()),
                (|v| v.tanh(), |v| v.tanh()),
                (|v| v.exp(), |v| v.exp()),
                (|v| v.ln_1p(), |v| v.ln_1p()),
                (|v| v.exp_m1(), |v| v.exp_m1()),
                (|v| v.sqrt(), |v| v.sqrt()),
                (|v| v.abs(), |v| v.abs()),
                (|v| v.powi(3), |v| v.powi(3)),
                (|v| v.recip(), |v| v.recip()),
                (|v| -v, |v| -v),
            ];
            let binary: [B2; 8] = [
                (|x, y| x + y, |x, y| x + y),
                (|x, y| x - y, |x, y| x - y),
                (|x, y| x * y, |x, y| x * y),
                (|x, y| x / y, |x, y| x / y),
                (|x, y| x.atan2(y), |x, y| x.atan2(y)),
                (|x, y| x.hypot(y), |x, y| x.hypot(y)),
                (|x, y| x.abs().powf(y), |x, y| x.abs().powf(y)),
                (|x, y| x.min(y) + x.max(y), |x, y| x.min(y) + x.max(y)),
            ];
            for k in 0..4 {
                let (sa, sb) = (Dual::new(a, ta[k]), Dual::new(b, tb[k]));
                let same = |g: Duals<F64x4>, w: Dual<f64>, what: usize| {
                    let ok =
                        |p: f64, q: f64| p.to_bits() == q.to_bits() || (p.is_nan() && q.is_nan());
                    assert!(
                        ok(g.x, w.x) && ok(g.eps.lane(k), w.eps),
                        "function {what} at ({a}, {b}) lane {k}: {g:?} vs {w:?}"
                    );
                };
                for (i, (f, g)) in unary.iter().enumerate() {
                    same(f(da), g(sa), i);
                }
                for (i, (f, g)) in binary.iter().enumerate() {
                    same(f(da, db), g(sa, sb), 100 + i);
                }
                if a > 0.0 {
                    same(da.ln(), sa.ln(), 200);
                }
            }
        }
    }

    #[test]
    fn literals_order_and_checks() {
        let a = Duals::<F64x4>::new(1.0, F64x4::splat(3.0));
        let b = Duals::<F64x4>::from_f64_lit(2.0);
        assert!(a < b && b.eps.to_array() == [0.0; 4]);
        assert!(a.almost_same(&Duals::new(1.0, F64x4::splat(0.0))));
        let mut c = a;
        c.increment();
        assert_eq!(c, Duals::new(2.0, F64x4::splat(3.0)));
        assert_eq!(crate::ad::Value::value(&c), 2.0);
        use crate::instr::fresh::Fresh;
        assert!(!c.is_fresh());
        c.make_fresh();
        assert!(c.is_fresh() && c == Duals::default());
    }
}
