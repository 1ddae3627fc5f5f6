//! [`Elem`]: the plain element type of the gradient API's arguments.
use super::Real;

/// The plain element type of the gradient API's arguments: every [`Real`] (`f64`, `f32`,
/// `Dual`, fixed point, ...) and the batches [`F64x4`](crate::numbers::F64x4),
/// [`F64x8`](crate::numbers::F64x8).
pub trait Elem:
    Copy
    + Default
    + core::fmt::Debug
    + core::ops::Add<Output = Self>
    + core::ops::Sub<Output = Self>
    + core::ops::AddAssign
    + 'static
{
    /// `1` (in every lane): the seed of a loss's adjoint.
    fn one() -> Self;
}
impl<T: Real> Elem for T {
    #[inline(always)]
    fn one() -> Self {
        <T as Real>::one()
    }
}
