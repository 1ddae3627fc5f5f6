//! Batch numbers [`F64x4`], [`F64x8`]: several independent `f64` values (lanes) in a SIMD
//! vector ([`wide`]'s `f64x4`; for `F64x8` a plain lane array, compiled for the running CPU's
//! vector width: [`crate::simd`]), so that one run of a reversible program computes it at 4
//! or 8 inputs.
//!
//! Every instruction acts lane by lane; `GVar<F64x4>` carries one adjoint per lane, so the
//! gradient program is batched too. A batch has **no order and no single value**: it
//! implements neither `PartialOrd` nor [`Value`](crate::ad::Value), so a data-dependent `if`
//! or `while` condition on a batch (`if x > y`, `while x.value() > eps`) does not compile:
//! its lanes could take different branches. The backward rules of the functions with a kink
//! (`abs`, `min`, `max`, `sqrt` at 0, `powf`, `powi`) are written with lane masks
//! ([`LaneOrd`](crate::ad::LaneOrd)) instead of branches, so they are exact lane by lane.
//!
//! The arithmetic, `sqrt`, `powf` and the functions of the table of elementary functions whose row
//! names a vector implementation (`exp`, `exp_m1`, `ln`, `ln_1p`, `tanh`, `sin`, `cos`:
//! [`lane_math`](super::lane_math), each within two ulps of `f64`'s) are SIMD; the other
//! elementary functions run lane by lane with `f64`'s.
use crate::check::AlmostSame;
use crate::instr::basic::{Hadamard, Increment, Reciprocate, Rotate};
use crate::instr::fns;
use crate::instr::{FromLiteral, Func, Plain};
use core::ops::*;

/// A batch number type ([`F64x4`], [`F64x8`]): what generic code needs to fill lanes and
/// reduce them.
///
/// ```
/// use nilang::numbers::{Batch, F64x4};
/// fn total<B: Batch>(v: &[f64]) -> f64 {
///     B::from_fn(|k| v[k]).sum()
/// }
/// assert_eq!(total::<F64x4>(&[1.0, 2.0, 3.0, 4.0]), 10.0);
/// ```
pub trait Batch:
    crate::instr::Scalar + crate::number::AbsAbove + crate::number::Elem + Send + Sync
{
    /// The number of lanes.
    const LANES: usize;
    /// Every lane `v`.
    fn splat(v: f64) -> Self;
    /// Lane `k` is `f(k)`.
    fn from_fn(f: impl FnMut(usize) -> f64) -> Self;
    /// Lane `k`.
    fn lane(self, k: usize) -> f64;
    /// The sum of the lanes, in lane order (deterministic).
    fn sum(self) -> f64;
}

/// The SIMD lane implementations ([`lane_math`](super::lane_math)) that rows of the table of
/// elementary functions name in their `lanes` slot.
macro_rules! lanes {
    (simd_exp, $m:ident, $x:expr) => {
        super::lane_math::$m::exp($x)
    };
    (simd_exp_m1, $m:ident, $x:expr) => {
        super::lane_math::$m::exp_m1($x)
    };
    (simd_ln, $m:ident, $x:expr) => {
        super::lane_math::$m::ln($x)
    };
    (simd_ln_1p, $m:ident, $x:expr) => {
        super::lane_math::$m::ln_1p($x)
    };
    (simd_tanh, $m:ident, $x:expr) => {
        super::lane_math::$m::tanh($x)
    };
    (simd_sin, $m:ident, $x:expr) => {
        super::lane_math::$m::sin($x)
    };
    (simd_cos, $m:ident, $x:expr) => {
        super::lane_math::$m::cos($x)
    };
    (simd_softplus, $m:ident, $x:expr) => {
        super::lane_math::$m::softplus($x)
    };
}
pub(super) use lanes;

macro_rules! batch_type {
    ($name:ident, $simd:ty, $m:ident, $n:literal, $wide:literal, $doc:literal) => {
        #[doc = $doc]
        ///
        /// ```
        #[doc = concat!("use nilang::numbers::", stringify!($name), ";")]
        #[doc = concat!("let a = ", stringify!($name), "::from_fn(|k| k as f64);")]
        #[doc = concat!("let b = a * ", stringify!($name), "::splat(2.0);")]
        #[doc = concat!("assert_eq!(b.to_array(), core::array::from_fn::<f64, ", stringify!($n), ", _>(|k| 2.0 * k as f64));")]
        /// ```
        #[derive(Clone, Copy, Default)]
        #[repr(transparent)]
        pub struct $name(pub(crate) $simd);

        impl $name {
            /// The number of lanes.
            pub const LANES: usize = $n;
            /// Every lane `v`.
            #[inline(always)]
            pub fn splat(v: f64) -> Self {
                $name(<$simd>::splat(v))
            }
            /// The lanes from an array.
            #[inline(always)]
            pub fn new(a: [f64; $n]) -> Self {
                $name(<$simd>::new(a))
            }
            /// Lane `k` is `f(k)`.
            #[inline(always)]
            pub fn from_fn(f: impl FnMut(usize) -> f64) -> Self {
                Self::new(core::array::from_fn(f))
            }
            /// The lanes as an array.
            #[inline(always)]
            pub fn to_array(self) -> [f64; $n] {
                self.0.to_array()
            }
            /// Lane `k`.
            #[inline(always)]
            pub fn lane(self, k: usize) -> f64 {
                self.to_array()[k]
            }
            /// The sum of the lanes, in lane order (deterministic).
            #[inline(always)]
            pub fn sum(self) -> f64 {
                self.to_array().iter().fold(0.0, |s, v| s + v)
            }
            /// `f` applied lane by lane.
            #[inline(always)]
            pub fn map(self, f: impl Fn(f64) -> f64) -> Self {
                Self::new(self.to_array().map(f))
            }
            /// `f` applied lane by lane to two batches.
            #[inline(always)]
            pub fn zip_map(self, o: Self, f: impl Fn(f64, f64) -> f64) -> Self {
                let (a, b) = (self.to_array(), o.to_array());
                Self::from_fn(|k| f(a[k], b[k]))
            }
        }
        impl core::fmt::Debug for $name {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                write!(f, "{}({:?})", stringify!($name), self.to_array())
            }
        }
        impl From<[f64; $n]> for $name {
            #[inline(always)]
            fn from(a: [f64; $n]) -> Self {
                Self::new(a)
            }
        }
        batch_ops!($name: Add add AddAssign add_assign +, Sub sub SubAssign sub_assign -,
            Mul mul MulAssign mul_assign *, Div div DivAssign div_assign /);
        impl Neg for $name {
            type Output = Self;
            #[inline(always)]
            fn neg(self) -> Self {
                $name(-self.0)
            }
        }
        impl Plain for $name {}
        impl FromLiteral for $name {
            #[inline(always)]
            fn from_f64_lit(v: f64) -> Self {
                Self::splat(v)
            }
            #[inline(always)]
            fn from_i64_lit(v: i64) -> Self {
                Self::splat(v as f64)
            }
        }
        impl AlmostSame for $name {
            /// Every lane.
            fn almost_same(&self, o: &Self) -> bool {
                self.to_array().almost_same(&o.to_array())
            }
            fn almost_same_at(&self, o: &Self, history: f64) -> bool {
                let (a, b) = (self.to_array(), o.to_array());
                a.iter().zip(&b).all(|(a, b)| a.almost_same_at(b, history))
            }
            fn magnitude(&self) -> f64 {
                self.to_array().iter().fold(0.0, |m, a| m.max(a.magnitude()))
            }
        }
        impl crate::number::AbsAbove for $name {
            /// In any lane.
            #[inline(always)]
            fn abs_above(&self, tol: f64) -> bool {
                tol < 0.0 || self.0.abs().simd_gt(<$simd>::splat(tol)).any()
            }
        }
        impl Increment for $name {
            #[inline(always)]
            fn increment(&mut self) {
                *self += Self::splat(1.0);
            }
            #[inline(always)]
            fn decrement(&mut self) {
                *self -= Self::splat(1.0);
            }
        }
        impl Reciprocate for $name {
            #[inline(always)]
            fn reciprocate(&mut self) {
                *self = Self::splat(1.0) / *self;
            }
        }
        impl Rotate<$name> for $name {
            #[inline(always)]
            fn rot(a: &mut Self, b: &mut Self, theta: &mut Self) {
                let (s, c) = super::lane_math::$m::sin_cos(theta.0);
                let (s, c) = ($name(s), $name(c));
                let (x, y) = (*a, *b);
                *a = x * c - y * s;
                *b = x * s + y * c;
            }
            #[inline(always)]
            fn irot(a: &mut Self, b: &mut Self, theta: &mut Self) {
                let (s, c) = super::lane_math::$m::sin_cos(theta.0);
                let (s, c) = ($name(s), $name(c));
                let (x, y) = (*a, *b);
                *a = x * c + y * s;
                *b = y * c - x * s;
            }
        }
        impl Hadamard for $name {
            #[inline(always)]
            fn hadamard(x: &mut Self, y: &mut Self) {
                let h = Self::splat(core::f64::consts::FRAC_1_SQRT_2);
                let (a, b) = (*x, *y);
                *x = (a + b) * h;
                *y = (a - b) * h;
            }
        }
        impl crate::number::Adjoints for $name {}
        crate::instr::fresh::fresh_scalar!([] $name);
        impl crate::number::LaneOrd for $name {
            const WIDE: bool = $wide;
            #[inline(always)]
            fn le_mask(&self, o: &Self) -> Self {
                self.zip_map(*o, |a, b| if a <= b { 1.0 } else { 0.0 })
            }
            #[inline(always)]
            fn lt_mask(&self, o: &Self) -> Self {
                self.zip_map(*o, |a, b| if a < b { 1.0 } else { 0.0 })
            }
            #[inline(always)]
            fn lane_max(&self, o: &Self) -> Self {
                self.zip_map(*o, f64::max)
            }
        }
        impl Batch for $name {
            const LANES: usize = $n;
            #[inline(always)]
            fn splat(v: f64) -> Self {
                $name::splat(v)
            }
            #[inline(always)]
            fn from_fn(f: impl FnMut(usize) -> f64) -> Self {
                $name::from_fn(f)
            }
            #[inline(always)]
            fn lane(self, k: usize) -> f64 {
                $name::lane(self, k)
            }
            #[inline(always)]
            fn sum(self) -> f64 {
                $name::sum(self)
            }
        }
        impl crate::number::Elem for $name {
            #[inline(always)]
            fn one() -> Self {
                Self::splat(1.0)
            }
        }
        // SIMD: sqrt (exp and ln: their rows' lane slots)
        impl Func<($name,)> for fns::Sqrt {
            type Out = $name;
            #[inline(always)]
            fn eval(a: ($name,)) -> $name {
                $name(a.0 .0.sqrt())
            }
        }
        impl Func<($name,)> for fns::Abs2 {
            type Out = $name;
            #[inline(always)]
            fn eval(a: ($name,)) -> $name {
                a.0 * a.0
            }
        }
        impl Func<($name,)> for fns::Recip {
            type Out = $name;
            #[inline(always)]
            fn eval(a: ($name,)) -> $name {
                $name::splat(1.0) / a.0
            }
        }
        impl Func<($name, $name)> for fns::SqDiff {
            type Out = $name;
            #[inline(always)]
            fn eval((a, b): ($name, $name)) -> $name {
                let d = a - b;
                d * d
            }
        }
        impl<const N: i32> Func<($name,)> for fns::PowiN<N> {
            type Out = $name;
            #[inline(always)]
            fn eval(a: ($name,)) -> $name {
                match N {
                    2 => a.0 * a.0,
                    _ => a.0.map(|v| v.powi(N)),
                }
            }
        }
        impl Func<($name, i32)> for fns::Powi {
            type Out = $name;
            #[inline(always)]
            fn eval((a, n): ($name, i32)) -> $name {
                a.map(|v| v.powi(n))
            }
        }
        impl Func<($name,)> for fns::SinCos {
            type Out = ($name, $name);
            #[inline(always)]
            fn eval(a: ($name,)) -> ($name, $name) {
                let (s, c) = super::lane_math::$m::sin_cos(a.0 .0);
                ($name(s), $name(c))
            }
        }
        // lane by lane
        batch_unary!($name: Abs abs);
        // the functions of the table of elementary functions ([`nilang_functions`]), each by
        // its row's lane slot
        nilang_functions::elementary_functions!(batch_unary! { @table $name, $m; });
        batch_binary!($name: Atan2 atan2, Hypot hypot, Min min, Max max);
        impl Func<($name, $name)> for fns::Powf {
            type Out = $name;
            #[inline(always)]
            fn eval((a, b): ($name, $name)) -> $name {
                $name(super::lane_math::$m::powf(a.0, b.0))
            }
        }
    };
}
macro_rules! batch_ops {
    ($name:ident: $($tr:ident $m:ident $tra:ident $ma:ident $op:tt),*) => {$(
        impl $tr for $name {
            type Output = Self;
            #[inline(always)]
            fn $m(self, o: Self) -> Self {
                $name(self.0 $op o.0)
            }
        }
        impl $tra for $name {
            #[inline(always)]
            fn $ma(&mut self, o: Self) {
                self.0 = self.0 $op o.0;
            }
        }
    )*};
}
macro_rules! batch_unary {
    // a row of the table: lane by lane (`each`) or by the SIMD implementation its slot names
    (@table $name:ident, $m:ident; $($F:ident { names: [$f:ident $(, $alias:ident)*], c: $c:ident, domain: $dom:literal, d: $s:tt $op:tt $d:tt, lanes: $l:ident },)*) => {$(
        batch_unary!(@lanes $name, $m, $F $f $l);
    )*};
    (@lanes $name:ident, $m:ident, $F:ident $f:ident each) => {
        batch_unary!($name: $F $f);
    };
    (@lanes $name:ident, $m:ident, $F:ident $f:ident $l:ident) => {
        impl Func<($name,)> for fns::$F {
            type Out = $name;
            #[inline(always)]
            fn eval(a: ($name,)) -> $name {
                $name(lanes!($l, $m, a.0 .0))
            }
        }
    };
    ($name:ident: $($m:ident $f:ident),*) => {$(
        impl Func<($name,)> for fns::$m {
            type Out = $name;
            #[inline(always)]
            fn eval(a: ($name,)) -> $name {
                a.0.map(f64::$f)
            }
        }
    )*};
}
macro_rules! batch_binary {
    ($name:ident: $($m:ident $f:ident),*) => {$(
        impl Func<($name, $name)> for fns::$m {
            type Out = $name;
            #[inline(always)]
            fn eval((a, b): ($name, $name)) -> $name {
                a.zip_map(b, f64::$f)
            }
        }
    )*};
}

batch_type!(
    F64x4,
    wide::f64x4,
    x4,
    4,
    false,
    "Four independent `f64` lanes (a batch of four inputs of one program)."
);
batch_type!(
    F64x8,
    super::lane_array::F8,
    x8,
    8,
    true,
    "Eight independent `f64` lanes (a batch of eight inputs of one program)."
);
