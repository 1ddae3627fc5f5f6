//! The forward-mode rules shared by [`Dual`](super::Dual) and [`Duals`](super::Duals): the
//! arithmetic operators and the chain rules of the elementary functions, written once.

/// Writes, for a forward-mode number type `S` with fields `x` (the value, of type `V`) and
/// `eps` (the tangent), the operators `+ − × ÷`, negation and their assignments on `S`, and
/// `impl Real for S` (every elementary function with its chain rule).
///
/// `S` brings, in an inherent impl:
/// - `new(x, eps)` and `constant(x)` (zero tangent);
/// - `splat(v: V) -> Tangent`: the value `v` as a factor of a tangent (`v` itself when the
///   tangent is a `V`, `v` in every lane for a batch of tangents);
/// - `zip_lanes(a, b, f) -> Tangent`: `f` on the tangents `a` and `b` lane by lane (`f(a, b)`
///   for one tangent), for rules that decide term by term;
///
/// and [`Real`](super::Real) in scope (the rules call its methods on `V`). For example
/// `forward_mode!(impl[T: Real] Dual<T>, value T)`.
///
/// Every rule multiplies and divides in the same order for both types, so lane `k` of a
/// batch of tangents follows exactly the arithmetic of a single tangent.
macro_rules! forward_mode {
    (impl[$($g:tt)*] $S:ty, value $V:ty) => {
        impl<$($g)*> $S {
            /// `(f(x), f'(x)·eps)` from the value and derivative of `f` at `x`.
            #[inline(always)]
            fn chain(self, fx: $V, dfx: $V) -> Self {
                Self::new(fx, self.eps * Self::splat(dfx))
            }
        }

        impl<$($g)*> ::core::ops::Add for $S {
            type Output = Self;
            #[inline(always)]
            fn add(self, o: Self) -> Self {
                Self::new(self.x + o.x, self.eps + o.eps)
            }
        }
        impl<$($g)*> ::core::ops::Sub for $S {
            type Output = Self;
            #[inline(always)]
            fn sub(self, o: Self) -> Self {
                Self::new(self.x - o.x, self.eps - o.eps)
            }
        }
        impl<$($g)*> ::core::ops::Mul for $S {
            type Output = Self;
            #[inline(always)]
            fn mul(self, o: Self) -> Self {
                Self::new(
                    self.x * o.x,
                    self.eps * Self::splat(o.x) + Self::splat(self.x) * o.eps,
                )
            }
        }
        impl<$($g)*> ::core::ops::Div for $S {
            type Output = Self;
            #[inline(always)]
            fn div(self, o: Self) -> Self {
                let q = self.x / o.x;
                Self::new(q, (self.eps - Self::splat(q) * o.eps) / Self::splat(o.x))
            }
        }
        impl<$($g)*> ::core::ops::Neg for $S {
            type Output = Self;
            #[inline(always)]
            fn neg(self) -> Self {
                Self::new(-self.x, -self.eps)
            }
        }
        $crate::numbers::forward::forward_mode!(@assign [$($g)*] $S, AddAssign add_assign +);
        $crate::numbers::forward::forward_mode!(@assign [$($g)*] $S, SubAssign sub_assign -);
        $crate::numbers::forward::forward_mode!(@assign [$($g)*] $S, MulAssign mul_assign *);
        $crate::numbers::forward::forward_mode!(@assign [$($g)*] $S, DivAssign div_assign /);

        impl<$($g)*> $crate::numbers::Real for $S {
            #[inline(always)]
            fn from_f64(x: f64) -> Self {
                Self::constant(<$V as $crate::numbers::Real>::from_f64(x))
            }
            #[inline(always)]
            fn to_f64(self) -> f64 {
                <$V as $crate::numbers::Real>::to_f64(self.x)
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
                self.chain(t, <$V as $crate::numbers::Real>::one() + t * t)
            }
            #[inline(always)]
            fn asin(self) -> Self {
                let one = <$V as $crate::numbers::Real>::one();
                self.chain(self.x.asin(), (one - self.x * self.x).sqrt().recip())
            }
            #[inline(always)]
            fn acos(self) -> Self {
                let one = <$V as $crate::numbers::Real>::one();
                self.chain(self.x.acos(), -(one - self.x * self.x).sqrt().recip())
            }
            #[inline(always)]
            fn atan(self) -> Self {
                let one = <$V as $crate::numbers::Real>::one();
                self.chain(self.x.atan(), (one + self.x * self.x).recip())
            }
            /// `atan2(self, x)`: derivative `(x·dy − y·dx) / (x² + y²)`.
            #[inline(always)]
            fn atan2(self, x: Self) -> Self {
                let r2 = self.x * self.x + x.x * x.x;
                Self::new(
                    self.x.atan2(x.x),
                    (Self::splat(x.x) * self.eps - Self::splat(self.x) * x.eps) / Self::splat(r2),
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
                self.chain(t, <$V as $crate::numbers::Real>::one() - t * t)
            }
            #[inline(always)]
            fn exp(self) -> Self {
                let e = self.x.exp();
                self.chain(e, e)
            }
            #[inline(always)]
            fn ln(self) -> Self {
                Self::new(self.x.ln(), self.eps / Self::splat(self.x))
            }
            #[inline(always)]
            fn ln_1p(self) -> Self {
                let one = <$V as $crate::numbers::Real>::one();
                Self::new(self.x.ln_1p(), self.eps / Self::splat(one + self.x))
            }
            #[inline(always)]
            fn exp_m1(self) -> Self {
                self.chain(self.x.exp_m1(), self.x.exp())
            }
            /// `sqrt`; the derivative is taken as zero at `x = 0` (instead of `∞`/`NaN`), as
            /// NiLang's `sqrt` rule does.
            #[inline(always)]
            fn sqrt(self) -> Self {
                let s = self.x.sqrt();
                if s == <$V as $crate::numbers::Real>::zero() {
                    return Self::constant(s);
                }
                Self::new(s, self.eps / Self::splat(s + s))
            }
            /// `|x|`, derivative `sign(x)·eps` (`+eps` at `0`).
            #[inline(always)]
            fn abs(self) -> Self {
                if self.x < <$V as $crate::numbers::Real>::zero() {
                    -self
                } else {
                    self
                }
            }
            /// `x^e`, derivative `e·x^(e−1)·dx + x^e·ln(x)·de`; a term whose tangent is zero
            /// (in a lane) is skipped (in that lane), so `x^const` is fine at `x ≤ 0` and `0^e`
            /// has no `NaN`.
            #[inline(always)]
            fn powf(self, e: Self) -> Self {
                let v = self.x.powf(e.x);
                let (zero, one) = (
                    <$V as $crate::numbers::Real>::zero(),
                    <$V as $crate::numbers::Real>::one(),
                );
                let d = Self::zip_lanes(self.eps, e.eps, |dx, de| {
                    let mut d = zero;
                    if dx != zero {
                        d += e.x * self.x.powf(e.x - one) * dx;
                    }
                    if de != zero {
                        d += v * self.x.ln() * de;
                    }
                    d
                });
                Self::new(v, d)
            }
            #[inline(always)]
            fn powi(self, n: i32) -> Self {
                if n == 0 {
                    return Self::constant(<$V as $crate::numbers::Real>::one());
                }
                let n_v = <$V as $crate::numbers::Real>::from_f64(n as f64);
                self.chain(self.x.powi(n), n_v * self.x.powi(n - 1))
            }
            /// `hypot(x, y)`, derivative `(x·dx + y·dy) / h` (zero at the origin).
            #[inline(always)]
            fn hypot(self, y: Self) -> Self {
                let h = self.x.hypot(y.x);
                if h == <$V as $crate::numbers::Real>::zero() {
                    return Self::constant(h);
                }
                Self::new(
                    h,
                    (Self::splat(self.x) * self.eps + Self::splat(y.x) * y.eps) / Self::splat(h),
                )
            }
            #[inline(always)]
            fn recip(self) -> Self {
                let r = self.x.recip();
                self.chain(r, -(r * r))
            }
        }
    };
    (@assign [$($g:tt)*] $S:ty, $tr:ident $m:ident $op:tt) => {
        impl<$($g)*> ::core::ops::$tr for $S {
            #[inline(always)]
            fn $m(&mut self, o: Self) {
                *self = *self $op o;
            }
        }
    };
}
pub(super) use forward_mode;
