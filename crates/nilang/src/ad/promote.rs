//! [`Promote`]: operands of a gradient instruction may be gradient numbers or plain constants.
use super::{GVar, Scalar};

/// An operand of an instruction on `GVar<T>`: either a `GVar<T>` (its adjoint is accumulated)
/// or a plain `T` (a constant: promoted with a zero adjoint that is then dropped).
pub trait Promote<T> {
    /// The operand as a gradient number.
    fn promote(&self) -> GVar<T>;
    /// Write the (possibly updated) gradient number back.
    fn restore(&mut self, v: GVar<T>);
    /// The operand's value, in place (for value-only instructions: no copy of the adjoint is
    /// read or written back).
    fn primal_part(&mut self) -> &mut T;
}
impl<T: Scalar> Promote<T> for GVar<T> {
    #[inline(always)]
    fn promote(&self) -> GVar<T> {
        *self
    }
    #[inline(always)]
    fn restore(&mut self, v: GVar<T>) {
        *self = v;
    }
    #[inline(always)]
    fn primal_part(&mut self) -> &mut T {
        &mut self.x
    }
}
impl<T: Scalar> Promote<T> for T {
    #[inline(always)]
    fn promote(&self) -> GVar<T> {
        GVar {
            x: *self,
            g: T::default(),
        }
    }
    #[inline(always)]
    fn restore(&mut self, v: GVar<T>) {
        *self = v.x;
    }
    #[inline(always)]
    fn primal_part(&mut self) -> &mut T {
        self
    }
}
