//! `f64` lanes as plain arrays ([`F4`], [`F8`], with their `u64` twins [`U4`], [`U8`]): `F8` the
//! vector of the batch number [`F64x8`](super::F64x8), both the vectors of the lane functions
//! ([`lane_math`](super::lane_math)) when they are compiled for the running CPU's vector width. Every operation
//! is an ordinary loop over the lanes, written `#[inline(always)]`, so code compiled with
//! `#[target_feature(enable = "avx512f")]` (or `avx2`: the run-time dispatch of `lane_math`
//! and [`crate::stdlib::elementwise`]) gets the wide instructions and a default build gets
//! SSE2 (NEON on aarch64), with the same bits on every path: each operation is one IEEE
//! operation per lane (no contraction into FMA), and the comparisons, selects, min/max and
//! bit operations are defined lane by lane as `wide`'s (masks of all ones or all zeros;
//! `fast_min(a, b)` is `a` where `a < b`, else `b`, as `minpd`).
//!
//! [`ArrayLanes`] gives each function of the table of elementary functions that has a vector
//! implementation its value and derivative on eight and sixteen lanes (used by
//! [`crate::stdlib::elementwise`]).
use super::batch::lanes;
use crate::instr::fns;
use core::ops::{Add, BitAnd, BitOr, BitXor, Div, Mul, Neg, Not, Shl, Shr, Sub};

/// `[f(a[0]), .., f(a[N - 1])]`.
#[inline(always)]
fn map<A: Copy, R: Copy + Default, const N: usize>(a: [A; N], f: impl Fn(A) -> R) -> [R; N] {
    let mut r = [R::default(); N];
    for i in 0..N {
        r[i] = f(a[i]);
    }
    r
}
/// `[f(a[0], b[0]), .., f(a[N - 1], b[N - 1])]`.
#[inline(always)]
fn zip<A: Copy, B: Copy, R: Copy + Default, const N: usize>(
    a: [A; N],
    b: [B; N],
    f: impl Fn(A, B) -> R,
) -> [R; N] {
    let mut r = [R::default(); N];
    for i in 0..N {
        r[i] = f(a[i], b[i]);
    }
    r
}
/// A mask lane: all ones or all zeros.
#[inline(always)]
fn mask(b: bool) -> f64 {
    f64::from_bits(if b { u64::MAX } else { 0 })
}

macro_rules! binary {
    ($T:ident, $e:ty: $($tr:ident $m:ident $op:tt),*) => {$(
        impl $tr for $T {
            type Output = $T;
            #[inline(always)]
            fn $m(self, o: $T) -> $T {
                $T(zip(self.0, o.0, |a: $e, b: $e| a $op b))
            }
        }
    )*};
}

macro_rules! bits_binary {
    ($F:ident: $($tr:ident $m:ident $op:tt),*) => {$(
        impl $tr for $F {
            type Output = $F;
            #[inline(always)]
            fn $m(self, o: $F) -> $F {
                $F(zip(self.0, o.0, |a: f64, b: f64| f64::from_bits(a.to_bits() $op b.to_bits())))
            }
        }
    )*};
}

macro_rules! compare {
    ($F:ident: $($m:ident $op:tt),*) => {$(
        /// A lane mask: all ones where the comparison holds.
        #[inline(always)]
        pub(crate) fn $m(self, o: $F) -> $F {
            $F(zip(self.0, o.0, |a: f64, b: f64| mask(a $op b)))
        }
    )*};
}

/// The `f64` lane type `$F` and its `u64` twin `$U`, `$n` lanes each.
macro_rules! lane_arrays {
    ($F:ident, $U:ident, $n:literal, $align:literal) => {
        #[doc = concat!(stringify!($n), " `f64` lanes.")]
        #[derive(Clone, Copy, Debug, PartialEq, Default)]
        #[repr(C, align($align))]
        pub(crate) struct $F(pub(crate) [f64; $n]);

        #[doc = concat!(stringify!($n), " `u64` lanes (the bits of an [`", stringify!($F), "`]).")]
        #[derive(Clone, Copy, Debug, PartialEq, Default)]
        #[repr(C, align($align))]
        pub(crate) struct $U(pub(crate) [u64; $n]);

        binary!($F, f64: Add add +, Sub sub -, Mul mul *, Div div /);
        binary!($U, u64: BitAnd bitand &, BitOr bitor |);
        // integer lanes wrap (as `wide`'s and the machine's)
        impl Add for $U {
            type Output = $U;
            #[inline(always)]
            fn add(self, o: $U) -> $U {
                $U(zip(self.0, o.0, u64::wrapping_add))
            }
        }
        impl Sub for $U {
            type Output = $U;
            #[inline(always)]
            fn sub(self, o: $U) -> $U {
                $U(zip(self.0, o.0, u64::wrapping_sub))
            }
        }
        bits_binary!($F: BitAnd bitand &, BitOr bitor |, BitXor bitxor ^);
        impl Neg for $F {
            type Output = $F;
            #[inline(always)]
            fn neg(self) -> $F {
                $F(map(self.0, |a| -a))
            }
        }
        impl Not for $F {
            type Output = $F;
            #[inline(always)]
            fn not(self) -> $F {
                $F(map(self.0, |a| f64::from_bits(!a.to_bits())))
            }
        }
        impl Shl<u32> for $U {
            type Output = $U;
            #[inline(always)]
            fn shl(self, s: u32) -> $U {
                $U(map(self.0, |a| a << s))
            }
        }
        impl Shr<u32> for $U {
            type Output = $U;
            #[inline(always)]
            fn shr(self, s: u32) -> $U {
                $U(map(self.0, |a| a >> s))
            }
        }

        #[allow(dead_code)] // the methods the lane functions use, not every one in every build
        impl $F {
            /// Every lane `v`.
            #[inline(always)]
            pub(crate) fn splat(v: f64) -> $F {
                $F([v; $n])
            }
            /// The lanes `a`.
            #[inline(always)]
            pub(crate) fn new(a: [f64; $n]) -> $F {
                $F(a)
            }
            /// The lanes.
            #[inline(always)]
            pub(crate) fn to_array(self) -> [f64; $n] {
                self.0
            }
            /// `|x|` (the sign bit cleared).
            #[inline(always)]
            pub(crate) fn abs(self) -> $F {
                $F(map(self.0, |a| f64::from_bits(a.to_bits() & !(1 << 63))))
            }
            /// `√x` (IEEE, correctly rounded: `sqrtpd`).
            #[inline(always)]
            pub(crate) fn sqrt(self) -> $F {
                $F(map(self.0, f64::sqrt))
            }
            /// Rounded to the nearest integer, half away from zero (`f64::round`, as `wide`'s).
            #[inline(always)]
            pub(crate) fn round(self) -> $F {
                $F(map(self.0, f64::round))
            }
            /// `self` where `self < o`, else `o` (`minpd`).
            #[inline(always)]
            pub(crate) fn fast_min(self, o: $F) -> $F {
                $F(zip(self.0, o.0, |a: f64, b: f64| if a < b { a } else { b }))
            }
            /// `self` where `self > o`, else `o` (`maxpd`).
            #[inline(always)]
            pub(crate) fn fast_max(self, o: $F) -> $F {
                $F(zip(self.0, o.0, |a: f64, b: f64| if a > b { a } else { b }))
            }
            /// `t` where the mask `self` is set, else `f` (bitwise).
            #[inline(always)]
            pub(crate) fn select(self, t: $F, f: $F) -> $F {
                (self & t) | (!self & f)
            }
            /// Whether every lane of the mask is set (its sign bit, as `movmskpd`).
            #[inline(always)]
            pub(crate) fn all(self) -> bool {
                self.0
                    .iter()
                    .fold(true, |all, a| all & a.is_sign_negative())
            }
            /// Whether any lane of the mask is set (its sign bit, as `movmskpd`).
            #[inline(always)]
            pub(crate) fn any(self) -> bool {
                self.0
                    .iter()
                    .fold(false, |any, a| any | a.is_sign_negative())
            }
            compare!($F: simd_eq ==, simd_ne !=, simd_lt <, simd_le <=, simd_gt >, simd_ge >=);
        }

        impl $U {
            /// Every lane `v`.
            #[inline(always)]
            pub(crate) fn splat(v: u64) -> $U {
                $U([v; $n])
            }
            /// The lanes `a`.
            #[inline(always)]
            pub(crate) fn new(a: [u64; $n]) -> $U {
                $U(a)
            }
            /// The lanes.
            #[inline(always)]
            pub(crate) fn to_array(self) -> [u64; $n] {
                self.0
            }
        }

        impl $F {
            /// The bits of the lanes.
            #[inline(always)]
            pub(crate) fn to_bits(self) -> $U {
                $U(map(self.0, f64::to_bits))
            }
            /// The lanes with bits `u`.
            #[inline(always)]
            pub(crate) fn from_bits(u: $U) -> $F {
                $F(map(u.0, f64::from_bits))
            }
        }
    };
}
lane_arrays!(F4, U4, 4, 32);
lane_arrays!(F8, U8, 8, 64);
// two AVX-512 vectors: `stdlib::elementwise`'s values on plain numbers, two independent
// vectors' instructions interleaved
lane_arrays!(F16, U16, 16, 128);

/// A function of the table of elementary functions with a vector implementation, on
/// [`F8`] lanes: its value and the factor of its backward rule, computed as the rule on
/// `GVar<F64x4>` computes them (the same operations in the same order, so the same bits).
pub(crate) trait ArrayLanes {
    /// `f(x)`.
    fn value(x: F8) -> F8;
    /// `f(x)` on sixteen lanes: lane by lane the operations of [`ArrayLanes::value`], so the
    /// same bits.
    fn value16(x: F16) -> F16;
    /// `x̄ += ȳ ∘ d` is the rule of `y -= f(x)` (`x̄ −= ȳ ∘ d` that of `y += f(x)`) with
    /// `∘` `*` or `/` and `d` this (`r = f(x)`), negated where the row's sign is `−`.
    fn adjoint_step(ybar: F8, x: F8, r: F8) -> F8;
    /// Whether the derivative reads `r = f(x)` (`exp`: yes; `ln_1p`, `1 / (1 + x)`: no, so
    /// its adjoint-only rule need not compute `f`).
    const READS_R: bool;
    /// [`ArrayLanes::adjoint_step`] on sixteen lanes: lane by lane its operations, so the
    /// same bits (two vectors' chains interleaved where the derivative calls a function).
    fn adjoint_step16(ybar: F16, x: F16, r: F16) -> F16;
    /// Whether the derivative calls a function of the table (`exp(−x)` of `softplus`, `cos`
    /// of `sin`): a rule worth running on sixteen lanes from memory, as the values are.
    const CALLS_FUNCTION: bool;
}

/// The derivative expression of a row (`1`, `x`, `r`, `g(arg)` terms, `±` between them) as
/// the rules evaluate it: each term added to `−0` in turn, a function's sum argument first.
/// `[$L $m]`: the lane type (`F8`, `F16`) and the module of `lane_math` on it (`a8`, `a16`).
macro_rules! derivative {
    (@sum [$L:ident $m:ident] ($acc:expr) [$x:ident $r:ident]) => { $acc };
    (@sum [$L:ident $m:ident] ($acc:expr) [$x:ident $r:ident] + $($rest:tt)*) => { derivative!(@term [$L $m] ($acc) [+] [$x $r] $($rest)*) };
    (@sum [$L:ident $m:ident] ($acc:expr) [$x:ident $r:ident] - $($rest:tt)*) => { derivative!(@term [$L $m] ($acc) [-] [$x $r] $($rest)*) };
    (@term [$L:ident $m:ident] ($acc:expr) [$o:tt] [$x:ident $r:ident] 1 $($rest:tt)*) => {
        derivative!(@sum [$L $m] ($acc $o $L::splat(1.0)) [$x $r] $($rest)*)
    };
    (@term [$L:ident $m:ident] ($acc:expr) [$o:tt] [$x:ident $r:ident] x $($rest:tt)*) => {
        derivative!(@sum [$L $m] ($acc $o $x) [$x $r] $($rest)*)
    };
    (@term [$L:ident $m:ident] ($acc:expr) [$o:tt] [$x:ident $r:ident] r $($rest:tt)*) => {
        derivative!(@sum [$L $m] ($acc $o $r) [$x $r] $($rest)*)
    };
    (@term [$L:ident $m:ident] ($acc:expr) [$o:tt] [$x:ident $r:ident] $g:ident ($($arg:tt)*) $($rest:tt)*) => {
        derivative!(@sum [$L $m] ($acc $o derivative!(@fn [$L $m] $g derivative!(@arg [$L $m] [$x $r] $($arg)*))) [$x $r] $($rest)*)
    };
    (@arg [$L:ident $m:ident] [$x:ident $r:ident] x) => { $x };
    (@arg [$L:ident $m:ident] [$x:ident $r:ident] r) => { $r };
    (@arg [$L:ident $m:ident] [$x:ident $r:ident] - $($sum:tt)*) => { derivative!(@sum [$L $m] ($L::splat(-0.0)) [$x $r] - $($sum)*) };
    (@arg [$L:ident $m:ident] [$x:ident $r:ident] $($sum:tt)*) => { derivative!(@sum [$L $m] ($L::splat(-0.0)) [$x $r] + $($sum)*) };
    (@fn [$L:ident $m:ident] abs2 $v:expr) => {{ let v = $v; v * v }};
    (@fn [$L:ident $m:ident] $g:ident $v:expr) => { super::lane_math::$m::$g($v) };
}

/// Whether a derivative expression calls a function of the table (`exp(-x)`, `cos(x)`; not
/// `abs2`, a product): the rule then runs a long chain of vector operations of its own.
macro_rules! calls_function {
    () => { false };
    (abs2 ($($inner:tt)*) $($rest:tt)*) => { calls_function!($($inner)*) || calls_function!($($rest)*) };
    ($g:ident ($($inner:tt)*) $($rest:tt)*) => { true };
    (($($inner:tt)*) $($rest:tt)*) => { calls_function!($($inner)*) || calls_function!($($rest)*) };
    ($other:tt $($rest:tt)*) => { calls_function!($($rest)*) };
}

/// Whether a derivative expression mentions `r` (in any group).
macro_rules! reads_r {
    () => { false };
    (r $($rest:tt)*) => { true };
    (($($inner:tt)*) $($rest:tt)*) => { reads_r!($($inner)*) || reads_r!($($rest)*) };
    ($other:tt $($rest:tt)*) => { reads_r!($($rest)*) };
}

/// `ȳ ∘ d`, negated for a `−` row.
macro_rules! adjoint_step {
    (+ *, $yb:expr, $d:expr) => {
        $yb * $d
    };
    (+ /, $yb:expr, $d:expr) => {
        $yb / $d
    };
    (- *, $yb:expr, $d:expr) => {
        -($yb * $d)
    };
    (- /, $yb:expr, $d:expr) => {
        -($yb / $d)
    };
}

macro_rules! array_lanes {
    ($($F:ident { names: [$f:ident $(, $alias:ident)*], c: $c:ident, domain: $dom:literal, d: $s:tt $op:tt ($($d:tt)*), lanes: $l:ident },)*) => {$(
        array_lanes!(@row $F $s $op ($($d)*) $l);
    )*};
    (@row $F:ident $s:tt $op:tt $d:tt each) => {};
    (@row $F:ident $s:tt $op:tt ($($d:tt)*) $l:ident) => {
        impl ArrayLanes for fns::$F {
            #[inline(always)]
            fn value(x: F8) -> F8 {
                lanes!($l, a8, x)
            }
            #[inline(always)]
            fn value16(x: F16) -> F16 {
                lanes!($l, a16, x)
            }
            const READS_R: bool = reads_r!($($d)*);
            const CALLS_FUNCTION: bool = calls_function!($($d)*);
            #[inline(always)]
            fn adjoint_step(ybar: F8, x: F8, r: F8) -> F8 {
                let _ = (x, r); // a row's derivative reads one or both
                let d = derivative!(@sum [F8 a8] (F8::splat(-0.0)) [x r] + $($d)*);
                adjoint_step!($s $op, ybar, d)
            }
            #[inline(always)]
            fn adjoint_step16(ybar: F16, x: F16, r: F16) -> F16 {
                let _ = (x, r);
                let d = derivative!(@sum [F16 a16] (F16::splat(-0.0)) [x r] + $($d)*);
                adjoint_step!($s $op, ybar, d)
            }
        }
    };
}
nilang_functions::elementary_functions!(array_lanes! {});
