//! Runtime invertibility checks and the [`InvertibilityError`] they raise.
//!
//! Checks are on where the crate holding the `#[i]` function is built with `debug_assertions`
//! (`cargo build`, `cargo test`) and off in its release builds, unless `nilang` is built with
//! its `release-checks` feature ([`RELEASE_CHECKS`]) or the function says `#[i(check)]`. They
//! are removed statically by `#[nocheck]` on a statement or `#[i(nocheck)]` on a function. A failure unwinds with a typed [`InvertibilityError`]
//! payload; [`catch`] turns it back into a `Result`.

mod almost_same;

/// Whether the default `#[i]` functions run their checks in release builds too: `nilang`'s
/// cargo feature `release-checks`. Debug builds (`debug_assertions`) always run them.
///
/// ```
/// // a default `#[i]` function checks itself where this holds in the user's crate
/// let checks_on = cfg!(debug_assertions) || nilang::check::RELEASE_CHECKS;
/// println!("runtime checks of `#[i]` code: {checks_on}");
/// ```
pub const RELEASE_CHECKS: bool = cfg!(feature = "release-checks");

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
