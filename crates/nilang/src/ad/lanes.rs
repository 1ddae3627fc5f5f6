//! [`Lanes`]: a small vector of numbers used as the scalar of one-pass Jacobians: the value is
//! broadcast in every lane, each lane carries the adjoint of one output.
use super::args::Lift;
use crate::check::AlmostSame;
use crate::instr::{FromLiteral, Plain};
use crate::number::Real;
use core::ops::*;

/// `N` lanes of `f64` with element-wise arithmetic; comparisons look at lane 0.
///
/// ```
/// use nilang::ad::Lanes;
/// let a = Lanes([1.0, 2.0]) * Lanes([3.0, 4.0]);
/// assert_eq!(a.0, [3.0, 8.0]);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Lanes<const N: usize>(pub [f64; N]);

impl<const N: usize> Default for Lanes<N> {
    fn default() -> Self {
        Lanes([0.0; N])
    }
}
impl<const N: usize> PartialOrd for Lanes<N> {
    fn partial_cmp(&self, o: &Self) -> Option<core::cmp::Ordering> {
        if N == 0 {
            return Some(core::cmp::Ordering::Equal);
        }
        self.0[0].partial_cmp(&o.0[0])
    }
}
macro_rules! lane_op {
    ($tr:ident, $m:ident, $tra:ident, $ma:ident, $op:tt) => {
        impl<const N: usize> $tr for Lanes<N> {
            type Output = Self;
            #[inline(always)]
            fn $m(self, o: Self) -> Self {
                Lanes(core::array::from_fn(|k| self.0[k] $op o.0[k]))
            }
        }
        impl<const N: usize> $tra for Lanes<N> {
            #[inline(always)]
            fn $ma(&mut self, o: Self) {
                for k in 0..N {
                    self.0[k] = self.0[k] $op o.0[k];
                }
            }
        }
    };
}
lane_op!(Add, add, AddAssign, add_assign, +);
lane_op!(Sub, sub, SubAssign, sub_assign, -);
lane_op!(Mul, mul, MulAssign, mul_assign, *);
lane_op!(Div, div, DivAssign, div_assign, /);
// scaled by a number (the adjoint code of `#[ad]` functions on several lanes)
impl<const N: usize> Mul<f64> for Lanes<N> {
    type Output = Self;
    #[inline(always)]
    fn mul(self, o: f64) -> Self {
        Lanes(self.0.map(|v| v * o))
    }
}
impl<const N: usize> Div<f64> for Lanes<N> {
    type Output = Self;
    #[inline(always)]
    fn div(self, o: f64) -> Self {
        Lanes(self.0.map(|v| v / o))
    }
}
impl<const N: usize> Neg for Lanes<N> {
    type Output = Self;
    #[inline(always)]
    fn neg(self) -> Self {
        Lanes(self.0.map(|v| -v))
    }
}
impl<const N: usize> Lanes<N> {
    /// Whether every lane holds lane 0's value, bit for bit (as the values of a Jacobian's
    /// gradient numbers do).
    #[inline(always)]
    fn broadcast(&self) -> bool {
        N > 0 && self.0.iter().all(|v| v.to_bits() == self.0[0].to_bits())
    }
}
macro_rules! lane_fn {
    ($($f:ident),*) => {$(
        #[inline(always)]
        fn $f(self) -> Self { Lanes(self.0.map(f64::$f)) }
    )*};
}
// Functions evaluated by a library call: on a broadcast value (the values of a Jacobian's
// `GVar<Lanes<N>>`) once, not once per lane; the same bits either way.
macro_rules! lane_call {
    // the functions of the table of elementary functions ([`nilang_functions`])
    (@table $($F:ident { names: [$f:ident $(, $alias:ident)*], $($row:tt)* },)*) => {
        lane_call!($($f),*);
    };
    ($($f:ident),*) => {$(
        #[inline(always)]
        fn $f(self) -> Self {
            if self.broadcast() {
                Lanes([f64::$f(self.0[0]); N])
            } else {
                Lanes(self.0.map(f64::$f))
            }
        }
    )*};
}
macro_rules! lane_call2 {
    ($($f:ident),*) => {$(
        #[inline(always)]
        fn $f(self, o: Self) -> Self {
            if self.broadcast() && o.broadcast() {
                Lanes([f64::$f(self.0[0], o.0[0]); N])
            } else {
                Lanes(core::array::from_fn(|k| f64::$f(self.0[k], o.0[k])))
            }
        }
    )*};
}
macro_rules! lane_fn2 {
    ($($f:ident),*) => {$(
        #[inline(always)]
        fn $f(self, o: Self) -> Self { Lanes(core::array::from_fn(|k| f64::$f(self.0[k], o.0[k]))) }
    )*};
}
impl<const N: usize> Real for Lanes<N> {
    fn from_f64(x: f64) -> Self {
        Lanes([x; N])
    }
    fn to_f64(self) -> f64 {
        if N == 0 {
            0.0
        } else {
            self.0[0]
        }
    }
    nilang_functions::elementary_functions!(lane_call! { @table });
    lane_fn!(sqrt, abs, recip);
    lane_call2!(atan2, powf, hypot);
    lane_fn2!(min, max);
    #[inline(always)]
    fn powi(self, n: i32) -> Self {
        Lanes(self.0.map(|v| v.powi(n)))
    }
}
impl<const N: usize> Plain for Lanes<N> {}
crate::instr::fresh::fresh_scalar!([const N: usize] Lanes<N>);
impl<const N: usize> crate::instr::basic::Increment for Lanes<N> {
    /// Every lane (the value is broadcast in all lanes).
    #[inline(always)]
    fn increment(&mut self) {
        self.0.iter_mut().for_each(|v| *v += 1.0);
    }
    #[inline(always)]
    fn decrement(&mut self) {
        self.0.iter_mut().for_each(|v| *v -= 1.0);
    }
}
impl<const N: usize> FromLiteral for Lanes<N> {
    fn from_f64_lit(v: f64) -> Self {
        Lanes([v; N])
    }
    fn from_i64_lit(v: i64) -> Self {
        Lanes([v as f64; N])
    }
}
impl<const N: usize> AlmostSame for Lanes<N> {
    fn almost_same(&self, o: &Self) -> bool {
        self.0.almost_same(&o.0)
    }
    fn almost_same_at(&self, o: &Self, history: f64) -> bool {
        self.0
            .iter()
            .zip(&o.0)
            .all(|(a, b)| a.almost_same_at(b, history))
    }
    fn magnitude(&self) -> f64 {
        self.0.iter().fold(0.0, |m, a| m.max(a.magnitude()))
    }
}
impl<const N: usize> Lift<f64> for Lanes<N> {
    fn lift(e: f64) -> Self {
        Lanes([e; N])
    }
    fn lower(self) -> f64 {
        self.to_f64()
    }
}
