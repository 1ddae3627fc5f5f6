//! [`GVar`]: a number carrying its adjoint (gradient) field.
use crate::check::AlmostSame;
use crate::instr::basic::{Hadamard, Negate};
use crate::instr::FromLiteral;
use crate::number::{Adjoints, Fresh};
use core::cmp::Ordering;

/// A value `x` with its adjoint `g` (NiLang's `GVar`).
///
/// Running the inverse of a reversible program on `GVar`s propagates adjoints backwards: that
/// is the whole of reverse-mode AD in NiLang. `GVar` is generic, so `GVar<Dual<f64>>`
/// (forward-over-reverse) and `GVar<GVar<f64>>` (reverse-over-reverse) work.
///
/// Comparisons and runtime checks look at the value only.
///
/// ```
/// use nilang::GVar;
/// let v = GVar::new(2.0, 1.0);
/// assert_eq!((v.x, v.g), (2.0, 1.0));
/// assert!(v > GVar::from(1.0));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct GVar<T> {
    /// The value.
    pub x: T,
    /// The adjoint (gradient) of the value.
    pub g: T,
}

impl<T> GVar<T> {
    /// A value with a given gradient.
    #[inline(always)]
    pub const fn new(x: T, g: T) -> Self {
        GVar { x, g }
    }
}
impl<T: Default> From<T> for GVar<T> {
    /// A value with zero gradient.
    #[inline(always)]
    fn from(x: T) -> Self {
        GVar { x, g: T::default() }
    }
}
impl<T: PartialOrd> PartialOrd for GVar<T> {
    #[inline(always)]
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        self.x.partial_cmp(&other.x)
    }
}
crate::check::almost_same_by_field!(
    /// Values only: deallocating an ancilla drops its gradient (see the guide on ancilla
    /// gradients; the compiler rejects ancillas allocated from variables).
    GVar.x
);
impl<T: FromLiteral + Default> FromLiteral for GVar<T> {
    #[inline(always)]
    fn from_f64_lit(v: f64) -> Self {
        GVar::from(T::from_f64_lit(v))
    }
    #[inline(always)]
    fn from_i64_lit(v: i64) -> Self {
        GVar::from(T::from_i64_lit(v))
    }
}
impl<T: Negate> Negate for GVar<T> {
    /// `NEG` on a gradient number negates value and gradient (self-inverse).
    #[inline(always)]
    fn negate(&mut self) {
        self.x.negate();
        self.g.negate();
    }
}
crate::instr::basic::increment_by_field!(
    /// Value only: adding a constant does not change adjoints.
    GVar.x
);
impl<T: Hadamard> Hadamard for GVar<T> {
    /// The Hadamard matrix is orthogonal and symmetric: adjoints transform the same way.
    #[inline(always)]
    fn hadamard(a: &mut Self, b: &mut Self) {
        T::hadamard(&mut a.x, &mut b.x);
        T::hadamard(&mut a.g, &mut b.g);
    }
}

impl<T: Default + AlmostSame + Adjoints + Fresh + 'static> Fresh for GVar<T> {
    #[inline(always)]
    fn is_fresh(&self) -> bool {
        self.almost_same(&Self::default())
    }
    #[inline(always)]
    fn make_fresh(&mut self) {
        *self = Self::default();
    }
    /// The value to zero where adjoint-only instructions skip it (no second-order adjoints).
    #[inline(always)]
    fn zero_values(&mut self) {
        if !T::HAS_ADJOINT {
            self.x = T::default();
        }
    }
    /// The values of the whole slice at once, in vector lanes on `GVar<f64>`
    /// ([`gvar_slices::zero_values`](super::gvar_slices)).
    #[inline(always)]
    fn zero_values_slice(v: &mut [Self]) {
        if !T::HAS_ADJOINT && !super::gvar_slices::zero_values(v) {
            for g in v {
                g.x = T::default();
            }
        }
    }
    const VALUES_SKIPPED: bool = !T::HAS_ADJOINT;
    /// The adjoint's zero made −0.0 (see [`Fresh::ancilla`]); the value kept.
    #[inline(always)]
    fn ancilla(self) -> Self {
        GVar {
            x: self.x,
            g: self.g.neg_zero(),
        }
    }
}
