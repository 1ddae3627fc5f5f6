//! [`Duals`]: forward-mode dual numbers with several directional derivatives at once, one
//! per lane of a batch ([`F64x4`](super::F64x4), [`F64x8`](super::F64x8)).
use super::{Arithmetic, Batch};
use crate::check::AlmostSame;
use crate::instr::basic::Increment;
use crate::instr::{FromLiteral, Plain};
use core::cmp::Ordering;

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
/// arithmetic in SIMD lanes and the value once. It is a [`Real`](super::Real) (ordered by its
/// value, so programs with data-dependent branches run on it, unlike on a batch), and
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
    /// The value `v` as a factor of the tangents: `v` in every lane.
    #[inline(always)]
    fn splat(v: f64) -> B {
        B::splat(v)
    }
    /// `f` on the tangents `a` and `b` lane by lane.
    #[inline(always)]
    fn zip_lanes(a: B, b: B, f: impl Fn(f64, f64) -> f64) -> B {
        B::from_fn(|k| f(a.lane(k), b.lane(k)))
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

// ---- arithmetic and elementary functions: the rules of `Dual`, on every lane ----------------
super::forward::forward_mode!(impl[B: Tangents] Duals<B>, value f64);

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
impl<B: Tangents> crate::number::Value for Duals<B> {
    #[inline(always)]
    fn value(&self) -> f64 {
        self.x
    }
}
impl<B: Tangents> crate::number::Fresh for Duals<B> {
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
    use crate::numbers::{Dual, F64x4, Real};

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
        assert_eq!(crate::number::Value::value(&c), 2.0);
        use crate::number::Fresh;
        assert!(!c.is_fresh());
        c.make_fresh();
        assert!(c.is_fresh() && c == Duals::default());
    }
}
