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
            nilang_functions::elementary_functions!(crate::numbers::forward::forward_rules! { $V; });
            /// `atan2(self, x)`: derivative `(x·dy − y·dx) / (x² + y²)`.
            #[inline(always)]
            fn atan2(self, x: Self) -> Self {
                let r2 = self.x * self.x + x.x * x.x;
                Self::new(
                    self.x.atan2(x.x),
                    (Self::splat(x.x) * self.eps - Self::splat(self.x) * x.eps) / Self::splat(r2),
                )
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

/// The chain rules of the table of elementary functions ([`nilang_functions`]), as methods of
/// `impl Real` for a forward-mode number (inside [`forward_mode!`]): `(f(x), ±d·eps)` or
/// `(f(x), ±eps / d)` with `d` the row's derivative expression, evaluated on the value type
/// `V` from `x` and `r = f(x)` in the order written.
macro_rules! forward_rules {
    ($V:ty; $($F:ident { names: [$f:ident $(, $alias:ident)*], c: $c:ident, domain: $dom:literal, d: $s:tt $op:tt ($($d:tt)*), lanes: $l:ident },)*) => {$(
        #[inline(always)]
        #[allow(unused_variables)] // `x` or `r`, where the derivative does not read it
        fn $f(self) -> Self {
            let (x, r) = (self.x, self.x.$f());
            $crate::numbers::forward::forward_rules!(@rule $V, self, x, r, $s $op
                ($crate::numbers::forward::forward_rules!(@expr $V, x, r; [] $($d)*)))
        }
    )*};
    (@rule $V:ty, $me:ident, $x:ident, $r:ident, + * ($d:expr)) => { $me.chain($r, $d) };
    (@rule $V:ty, $me:ident, $x:ident, $r:ident, - * ($d:expr)) => { $me.chain($r, -($d)) };
    (@rule $V:ty, $me:ident, $x:ident, $r:ident, + / ($d:expr)) => {
        Self::new($r, $me.eps / Self::splat($d))
    };
    (@rule $V:ty, $me:ident, $x:ident, $r:ident, - / ($d:expr)) => {
        Self::new($r, -($me.eps / Self::splat($d)))
    };
    // the derivative expression in Rust: `1`, `x`, `r`, `abs2(e)` (`e · e`), `g(e)` (`e.g()`)
    (@expr $V:ty, $x:ident, $r:ident; [$($out:tt)*]) => { ($($out)*) };
    (@expr $V:ty, $x:ident, $r:ident; [$($out:tt)*] + $($rest:tt)*) => {
        $crate::numbers::forward::forward_rules!(@expr $V, $x, $r; [$($out)* +] $($rest)*)
    };
    (@expr $V:ty, $x:ident, $r:ident; [$($out:tt)*] - $($rest:tt)*) => {
        $crate::numbers::forward::forward_rules!(@expr $V, $x, $r; [$($out)* -] $($rest)*)
    };
    (@expr $V:ty, $x:ident, $r:ident; [$($out:tt)*] 1 $($rest:tt)*) => {
        $crate::numbers::forward::forward_rules!(@expr $V, $x, $r;
            [$($out)* <$V as $crate::numbers::Real>::one()] $($rest)*)
    };
    (@expr $V:ty, $x:ident, $r:ident; [$($out:tt)*] x $($rest:tt)*) => {
        $crate::numbers::forward::forward_rules!(@expr $V, $x, $r; [$($out)* $x] $($rest)*)
    };
    (@expr $V:ty, $x:ident, $r:ident; [$($out:tt)*] r $($rest:tt)*) => {
        $crate::numbers::forward::forward_rules!(@expr $V, $x, $r; [$($out)* $r] $($rest)*)
    };
    (@expr $V:ty, $x:ident, $r:ident; [$($out:tt)*] abs2 ($($e:tt)*) $($rest:tt)*) => {
        $crate::numbers::forward::forward_rules!(@expr $V, $x, $r; [$($out)* {
            let v = $crate::numbers::forward::forward_rules!(@expr $V, $x, $r; [] $($e)*);
            v * v
        }] $($rest)*)
    };
    (@expr $V:ty, $x:ident, $r:ident; [$($out:tt)*] $g:ident ($($e:tt)*) $($rest:tt)*) => {
        $crate::numbers::forward::forward_rules!(@expr $V, $x, $r; [$($out)*
            <$V as $crate::numbers::Real>::$g($crate::numbers::forward::forward_rules!(@expr $V, $x, $r; [] $($e)*))
        ] $($rest)*)
    };
}
pub(super) use forward_rules;
