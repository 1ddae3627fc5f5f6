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
pub trait ViaAlmostSame<T: AlmostSame + Debug + ?Sized> {
    /// The ancilla.
    fn nilang_ancilla(&self) -> &T;
    #[inline]
    fn nilang_dealloc(&self, expected: &T, location: &'static str, statement: &'static str) {
        crate::check::dealloc(self.nilang_ancilla(), expected, location, statement)
    }
    /// The check knowing the ancilla's round-off budget (`history`, see `check::track`).
    #[inline]
    fn nilang_dealloc_at(
        &self,
        expected: &T,
        history: f64,
        location: &'static str,
        statement: &'static str,
    ) {
        crate::check::dealloc_at(
            self.nilang_ancilla(),
            expected,
            history,
            location,
            statement,
        )
    }
    /// The check knowing the round-off budget and `origin`, the statement after which the
    /// ancilla first held a non-finite value (empty: none), named when the check fails on one.
    #[inline]
    fn nilang_dealloc_from(
        &self,
        expected: &T,
        history: f64,
        origin: &'static str,
        location: &'static str,
        statement: &'static str,
    ) {
        crate::check::dealloc_from(
            self.nilang_ancilla(),
            expected,
            history,
            origin,
            location,
            statement,
        )
    }
    /// Whether the ancilla holds a NaN or an infinity now.
    #[inline]
    fn nilang_non_finite(&self) -> bool {
        self.nilang_ancilla().non_finite()
    }
    /// The ancilla's magnitude (the start of its history).
    #[inline]
    fn nilang_magnitude(&self) -> f64 {
        self.nilang_ancilla().magnitude()
    }
    /// The history updated with the ancilla's current value.
    #[inline]
    fn nilang_track(&self, history: f64) -> f64 {
        crate::check::track(history, self.nilang_ancilla())
    }
}
impl<T: AlmostSame + Debug + ?Sized> ViaAlmostSame<T> for Probe<'_, T> {
    #[inline]
    fn nilang_ancilla(&self) -> &T {
        self.0
    }
}

/// Deallocation check through `PartialEq` (types without [`AlmostSame`]).
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "an ancilla of type `{T}` cannot be checked at deallocation",
    note = "derive `PartialEq` and `Debug` for it, implement `nilang::check::AlmostSame`, or \
            write the statement with `#[nocheck]`"
)]
pub trait ViaPartialEq<T: PartialEq + Debug + ?Sized> {
    /// The ancilla.
    fn nilang_ancilla(&self) -> &T;
    #[inline]
    fn nilang_dealloc(&self, expected: &T, location: &'static str, statement: &'static str) {
        let ancilla = self.nilang_ancilla();
        if ancilla != expected {
            crate::check::fail(
                crate::check::ErrorKind::Deallocation,
                location,
                statement,
                format!("ancilla holds {ancilla:?}, expected {expected:?}"),
            );
        }
    }
    /// Exact comparison: no history.
    #[inline]
    fn nilang_dealloc_at(
        &self,
        expected: &T,
        _history: f64,
        location: &'static str,
        statement: &'static str,
    ) {
        self.nilang_dealloc(expected, location, statement)
    }
    /// Exact comparison: no history, no origin.
    #[inline]
    fn nilang_dealloc_from(
        &self,
        expected: &T,
        _history: f64,
        _origin: &'static str,
        location: &'static str,
        statement: &'static str,
    ) {
        self.nilang_dealloc(expected, location, statement)
    }
    /// Not tracked.
    #[inline]
    fn nilang_non_finite(&self) -> bool {
        false
    }
    /// No magnitude (an exact comparison does not use it).
    #[inline]
    fn nilang_magnitude(&self) -> f64 {
        1.0
    }
    /// No history.
    #[inline]
    fn nilang_track(&self, history: f64) -> f64 {
        history
    }
}
impl<T: PartialEq + Debug + ?Sized> ViaPartialEq<T> for &Probe<'_, T> {
    #[inline]
    fn nilang_ancilla(&self) -> &T {
        self.0
    }
}
