//! The deallocation check for any ancilla type: `AlmostSame` (numbers, with the float
//! tolerance) when the type has it, else `PartialEq` (user structs with `#[derive(PartialEq)]`
//! need no hand-written `AlmostSame`).
//!
//! Generated code calls `(&Probe(&x)).nilang_dealloc(&value, location, statement)` with both
//! traits in scope; method resolution prefers the impl on `Probe` (no extra auto-reference)
//! over the one on `&Probe` ("auto-ref specialisation"), in generic functions too, where the
//! choice follows the bounds in scope.
use crate::check::AlmostSame;
use core::fmt::Debug;

/// A borrowed ancilla being deallocated.
#[doc(hidden)]
pub struct Probe<'a, T: ?Sized>(pub &'a T);

/// Deallocation check through [`AlmostSame`] (preferred).
#[doc(hidden)]
pub trait ViaAlmostSame<T: ?Sized> {
    fn nilang_dealloc(&self, expected: &T, location: &'static str, statement: &'static str);
}
impl<T: AlmostSame + Debug + ?Sized> ViaAlmostSame<T> for Probe<'_, T> {
    #[inline]
    fn nilang_dealloc(&self, expected: &T, location: &'static str, statement: &'static str) {
        crate::check::dealloc(self.0, expected, location, statement)
    }
}

/// Deallocation check through `PartialEq` (types without [`AlmostSame`]).
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "an ancilla of type `{T}` cannot be checked at deallocation",
    note = "derive `PartialEq` and `Debug` for it, implement `nilang::check::AlmostSame`, or \
            write the statement with `#[nocheck]`"
)]
pub trait ViaPartialEq<T: ?Sized> {
    fn nilang_dealloc(&self, expected: &T, location: &'static str, statement: &'static str);
}
impl<T: PartialEq + Debug + ?Sized> ViaPartialEq<T> for &Probe<'_, T> {
    #[inline]
    fn nilang_dealloc(&self, expected: &T, location: &'static str, statement: &'static str) {
        if self.0 != expected {
            crate::check::fail(
                crate::check::ErrorKind::Deallocation,
                location,
                statement,
                format!("ancilla holds {:?}, expected {expected:?}", self.0),
            );
        }
    }
}
