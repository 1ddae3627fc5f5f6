//! The number concept's traits on the gradient numbers ([`GVar`]), [`Dual`] and [`Lanes`], and
//! [`max_of`].
use crate::ad::{GVar, Lanes};
use crate::instr::Scalar;
use crate::number::{AbsAbove, Adjoints, LaneOrd, Value};
use crate::numbers::{Dual, F64x4, F64x8};

impl<T> Adjoints for GVar<T> {
    const HAS_ADJOINT: bool = true;
}
impl<T: Value> Value for GVar<T> {
    #[inline(always)]
    fn value(&self) -> f64 {
        self.x.value()
    }
}
impl<T: Value> Value for Dual<T> {
    #[inline(always)]
    fn value(&self) -> f64 {
        self.x.value()
    }
}
impl<const N: usize> Value for Lanes<N> {
    #[inline(always)]
    fn value(&self) -> f64 {
        if N == 0 {
            0.0
        } else {
            self.0[0]
        }
    }
}

impl<T: LaneOrd + Default> LaneOrd for GVar<T> {
    const WIDE: bool = T::WIDE;
    #[inline(always)]
    fn le_mask(&self, o: &Self) -> Self {
        Self::from(self.x.le_mask(&o.x))
    }
    #[inline(always)]
    fn lt_mask(&self, o: &Self) -> Self {
        Self::from(self.x.lt_mask(&o.x))
    }
    #[inline(always)]
    fn lane_max(&self, o: &Self) -> Self {
        Self::from(self.x.lane_max(&o.x))
    }
}

/// The lane-wise maximum of the values of a slice (a constant, see [`LaneOrd::lane_max`]);
/// `−∞` for an empty slice.
///
/// ```
/// assert_eq!(nilang::ad::max_of(&[1.0, 3.0, 2.0]), 3.0);
/// ```
pub fn max_of<T: Scalar>(v: &[T]) -> T {
    v.iter()
        .fold(T::lit(f64::NEG_INFINITY), |m, a| m.lane_max(a))
}

/// By value, in any lane.
impl AbsAbove for GVar<F64x4> {
    #[inline(always)]
    fn abs_above(&self, tol: f64) -> bool {
        self.x.abs_above(tol)
    }
}
/// By value, in any lane.
impl AbsAbove for GVar<F64x8> {
    #[inline(always)]
    fn abs_above(&self, tol: f64) -> bool {
        self.x.abs_above(tol)
    }
}
