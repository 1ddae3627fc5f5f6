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
    /// The check relative to the largest magnitude the ancilla held (`history`).
    fn nilang_dealloc_at(
        &self,
        expected: &T,
        history: f64,
        location: &'static str,
        statement: &'static str,
    );
    /// The ancilla's magnitude (the start of its history).
    fn nilang_magnitude(&self) -> f64;
    /// The history updated with the ancilla's current value.
    fn nilang_track(&self, history: f64) -> f64;
}
impl<T: AlmostSame + Debug + ?Sized> ViaAlmostSame<T> for Probe<'_, T> {
    #[inline]
    fn nilang_dealloc(&self, expected: &T, location: &'static str, statement: &'static str) {
        crate::check::dealloc(self.0, expected, location, statement)
    }
    #[inline]
    fn nilang_dealloc_at(
        &self,
        expected: &T,
        history: f64,
        location: &'static str,
        statement: &'static str,
    ) {
        crate::check::dealloc_at(self.0, expected, history, location, statement)
    }
    #[inline]
    fn nilang_magnitude(&self) -> f64 {
        self.0.magnitude()
    }
    #[inline]
    fn nilang_track(&self, history: f64) -> f64 {
        crate::check::track(history, self.0)
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
    /// Exact comparison: no history.
    fn nilang_dealloc_at(
        &self,
        expected: &T,
        _history: f64,
        location: &'static str,
        statement: &'static str,
    ) {
        self.nilang_dealloc(expected, location, statement)
    }
    /// No magnitude (an exact comparison does not use it).
    fn nilang_magnitude(&self) -> f64 {
        1.0
    }
    /// No history.
    fn nilang_track(&self, history: f64) -> f64 {
        history
    }
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
