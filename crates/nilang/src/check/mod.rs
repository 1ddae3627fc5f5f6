//! Runtime invertibility checks and the [`InvertibilityError`] they raise.
//!
//! Checks are on by default and removed statically by `#[nocheck]` on a statement or
//! `#[i(nocheck)]` on a function. A failure unwinds with a typed [`InvertibilityError`]
//! payload; [`catch`] turns it back into a `Result`.

mod almost_same;
mod conditions;
mod error;
mod tolerance;

pub(crate) use almost_same::almost_same_by_field;
pub use almost_same::AlmostSame;
pub use conditions::{
    bounds, dealloc, dealloc_at, dealloc_from, dimensions, distinct, equal_lengths, lengths_differ,
    require,
};
pub use error::{catch, fail, raise, ErrorKind, InvertibilityError};
pub use tolerance::{
    float_close, float_close_at, set_tolerance, tolerance, track, with_tolerance, InvalidTolerance,
    Tolerance, ToleranceGuard,
};
