//! What a number is worth outside its lanes and adjoints: its [`Value`], whether it carries
//! [`Adjoints`], its lane-wise order ([`LaneOrd`]) and the loop test [`AbsAbove`].
use super::{Plain, Real};

/// The primal value of a number as `f64` (NiLang's `unwrap`), for conditions and printing:
/// `while (anc.value().abs() > 1e-8, ...)` works the same on plain and gradient numbers.
///
/// Batch numbers ([`F64x4`](crate::numbers::F64x4), ...) have no single value: a condition
/// on one does not compile.
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no single value to branch on",
    label = "no `value()` for `{Self}`",
    note = "a batch number (`F64x4`, `F64x8`, or a `GVar` of one) holds independent lanes that could take different branches: data-dependent `if`/`while` conditions are rejected on batches",
    note = "make the condition depend on integers or flags only, write the branch with lane masks (`nilang::ad::LaneOrd`), or run the program on `f64`",
    note = "in a generic function, `T: nilang::Scalar` does not give `value()`: bound `T: nilang::ad::Ordered` (a `Scalar` with an order and a value)"
)]
pub trait Value {
    /// The value, with every derivative part dropped.
    fn value(&self) -> f64;
}

/// Whether a number carries adjoints (a [`GVar`](crate::GVar) at some level): then an
/// instruction on a gradient number of it moves second-order adjoints even where the
/// first-order adjoint is zero, and value-only instructions (see
/// [`PlusEq1::plus_eq_primal`](crate::instr::PlusEq1::plus_eq_primal)) run the full rule.
///
/// ```
/// use nilang::ad::Adjoints;
/// assert!(!<f64 as Adjoints>::HAS_ADJOINT);
/// assert!(<nilang::GVar<f64> as Adjoints>::HAS_ADJOINT);
/// ```
pub trait Adjoints {
    /// See the trait.
    const HAS_ADJOINT: bool = false;
}
impl<T: Real + Plain> Adjoints for T {}
impl Value for f64 {
    #[inline(always)]
    fn value(&self) -> f64 {
        *self
    }
}
impl Value for f32 {
    #[inline(always)]
    fn value(&self) -> f64 {
        *self as f64
    }
}

/// Lane-wise comparisons as numbers: 1 in the lanes where the comparison holds, 0 elsewhere
/// (values only, no derivative: the masks are constants of the backward rules). For an
/// ordinary number there is one lane. Backward rules of functions with a kink (`abs`, `min`,
/// `max`, ...) multiply by these masks instead of branching, so they are exact on batches.
///
/// ```
/// use nilang::ad::LaneOrd;
/// use nilang::numbers::F64x4;
/// assert_eq!(1.0_f64.le_mask(&2.0), 1.0);
/// let m = F64x4::new([1.0, 3.0, 2.0, 0.0]).le_mask(&F64x4::splat(2.0));
/// assert_eq!(m.to_array(), [1.0, 0.0, 1.0, 1.0]);
/// ```
pub trait LaneOrd {
    /// 1 where `self <= o`, 0 elsewhere (and at NaN).
    fn le_mask(&self, o: &Self) -> Self;
    /// 1 where `self < o`, 0 elsewhere (and at NaN).
    fn lt_mask(&self, o: &Self) -> Self;
    /// The lane-wise maximum of the values (`f64::max`: a NaN lane is ignored), without
    /// derivative (a constant, such as the shift of a `logsumexp`).
    fn lane_max(&self, o: &Self) -> Self;
    /// A batch number on plain lane arrays (`F64x8`, or gradient numbers over it): `#[i]`
    /// functions on it run compiled for the CPU's widest vectors ([`crate::simd`]).
    ///
    /// ```
    /// use nilang::ad::LaneOrd;
    /// use nilang::numbers::F64x8;
    /// assert!(<nilang::GVar<F64x8> as LaneOrd>::WIDE && !<f64 as LaneOrd>::WIDE);
    /// ```
    const WIDE: bool = false;
}
impl<T: Real + Plain> LaneOrd for T {
    #[inline(always)]
    fn le_mask(&self, o: &Self) -> Self {
        T::from_f64(if *self <= *o { 1.0 } else { 0.0 })
    }
    #[inline(always)]
    fn lt_mask(&self, o: &Self) -> Self {
        T::from_f64(if *self < *o { 1.0 } else { 0.0 })
    }
    #[inline(always)]
    fn lane_max(&self, o: &Self) -> Self {
        if o > self || self.to_f64().is_nan() {
            *o
        } else {
            *self
        }
    }
}
/// `|x| > tol` as a loop condition that every lane agrees on: for an ordinary number whether
/// its value's magnitude exceeds `tol`, for a batch ([`F64x4`](crate::numbers::F64x4), ...)
/// whether any lane's does, so all lanes run the same iterations (a lane that has converged
/// takes a few more, which for a vanishing series term only adds terms below `tol`). NaN is
/// above no `tol >= 0`; every number, NaN included, is above a negative `tol` (a loop that
/// only counts: the test folds away when `tol` is a constant). Unlike [`Value`], it exists on batches: `while t.abs_above(eps)` runs a
/// truncated series on them.
///
/// ```
/// use nilang::ad::AbsAbove;
/// use nilang::numbers::F64x4;
/// assert!((-0.5_f64).abs_above(0.1) && !0.05_f64.abs_above(0.1));
/// assert!(F64x4::new([0.0, 0.0, -0.2, 0.0]).abs_above(0.1));
/// assert!(!nilang::GVar::new(0.05_f64, 9.0).abs_above(0.1));
/// ```
pub trait AbsAbove {
    /// `|self| > tol` (by value), in any lane.
    fn abs_above(&self, tol: f64) -> bool;
}
impl<T: Value> AbsAbove for T {
    #[inline(always)]
    fn abs_above(&self, tol: f64) -> bool {
        tol < 0.0 || self.value().abs() > tol
    }
}
