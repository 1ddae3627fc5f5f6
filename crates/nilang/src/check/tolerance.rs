//! The tolerance of float comparisons (per thread) and the closeness rule it sets.
use super::AlmostSame;
use std::cell::Cell;

/// Tolerance of the float comparisons in runtime checks.
///
/// Two floats `a`, `b` pass when they are identical (`a == b`, which includes the same
/// infinity), or when both are finite and
///
/// ```text
/// |a - b| <= abs + rel * scale,   scale = max(|a|, |b|, history)
/// ```
///
/// where `history` is the largest finite magnitude the value held during its lifetime. For a
/// scalar float ancilla the compiler tracks it (one `abs`/`max` per statement that mentions the
/// ancilla, removed with the check under `#[nocheck]`), so a residual of round-off from large
/// intermediate values passes while a mistake larger than `rel` times those values is caught,
/// at any magnitude from subnormal to `1e308`. Where the history is unknown (a plain
/// [`AlmostSame::almost_same`], containers, types that do not report a
/// [`AlmostSame::magnitude`]) it counts as `1.0`: the rule is then `abs + rel * max(|a|, |b|, 1)`.
///
/// NaN never passes, not even against NaN: a NaN ancilla has lost its value, so nothing was
/// restored. An infinity passes only against the identical infinity (an ancilla declared
/// `f64::INFINITY` that still holds it); against anything else it fails. For `f32` the
/// relative part is at least `64 * f32::EPSILON`.
///
/// The setting is per thread (a new thread starts at [`Tolerance::DEFAULT`]); set it for a
/// scope with [`with_tolerance`] or [`ToleranceGuard`].
///
/// ```
/// use nilang::check::{Tolerance, tolerance};
/// assert_eq!(tolerance(), Tolerance::DEFAULT);
/// assert_eq!(Tolerance::DEFAULT, Tolerance { rel: 1e-8, abs: 0.0 });
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tolerance {
    /// Relative part, in units of the scale (the largest magnitude involved).
    pub rel: f64,
    /// Absolute part, added to the relative one.
    pub abs: f64,
}

impl Tolerance {
    /// `rel = 1e-8`, `abs = 0`.
    pub const DEFAULT: Tolerance = Tolerance {
        rel: 1e-8,
        abs: 0.0,
    };
}

impl Default for Tolerance {
    fn default() -> Self {
        Tolerance::DEFAULT
    }
}

thread_local! {
    static TOLERANCE: Cell<Tolerance> = const { Cell::new(Tolerance::DEFAULT) };
}

/// Set this thread's tolerance (see [`Tolerance`] for the rule): `atol` is the absolute part,
/// `rtol` the relative part. Other threads are not affected; prefer [`with_tolerance`], which
/// restores the previous setting.
///
/// ```
/// nilang::check::set_tolerance(0.0, 1e-6);
/// assert_eq!(nilang::check::tolerance().rel, 1e-6);
/// nilang::check::set_tolerance(0.0, 1e-8);
/// ```
pub fn set_tolerance(atol: f64, rtol: f64) {
    TOLERANCE.with(|t| {
        t.set(Tolerance {
            rel: rtol,
            abs: atol,
        })
    });
}

/// This thread's tolerance.
pub fn tolerance() -> Tolerance {
    TOLERANCE.with(|t| t.get())
}

/// Sets this thread's tolerance until dropped, then restores the previous one (also when
/// unwinding).
///
/// ```
/// use nilang::check::{tolerance, Tolerance, ToleranceGuard};
/// {
///     let _g = ToleranceGuard::set(Tolerance { rel: 1e-4, abs: 0.0 });
///     assert_eq!(tolerance().rel, 1e-4);
/// }
/// assert_eq!(tolerance(), Tolerance::DEFAULT);
/// ```
#[must_use = "the tolerance is restored when the guard is dropped"]
pub struct ToleranceGuard {
    previous: Tolerance,
}

impl ToleranceGuard {
    /// Set `tol` for this thread until the guard is dropped.
    pub fn set(tol: Tolerance) -> Self {
        let previous = TOLERANCE.with(|t| t.replace(tol));
        ToleranceGuard { previous }
    }
}

impl Drop for ToleranceGuard {
    fn drop(&mut self) {
        TOLERANCE.with(|t| t.set(self.previous));
    }
}

/// Run `f` with this thread's tolerance set to `tol`, restoring the previous one afterwards.
///
/// ```
/// use nilang::check::{with_tolerance, Tolerance, float_close};
/// assert!(!float_close(1.0, 1.001));
/// assert!(with_tolerance(Tolerance { rel: 1e-2, abs: 0.0 }, || float_close(1.0, 1.001)));
/// ```
pub fn with_tolerance<R>(tol: Tolerance, f: impl FnOnce() -> R) -> R {
    let _g = ToleranceGuard::set(tol);
    f()
}

/// Float closeness under this thread's tolerance, with unknown history (scale at least 1).
///
/// ```
/// use nilang::check::float_close;
/// assert!(float_close(1.0, 1.0 + 1e-12));
/// assert!(!float_close(f64::NAN, f64::NAN));
/// assert!(float_close(f64::INFINITY, f64::INFINITY));
/// assert!(!float_close(f64::INFINITY, 1e308));
/// ```
#[inline]
pub fn float_close(a: f64, b: f64) -> bool {
    float_close_at(a, b, f64::NAN)
}

/// Float closeness with a known history: `history` is the largest finite magnitude the value
/// held (NaN: unknown, counts as 1).
///
/// ```
/// use nilang::check::float_close_at;
/// // round-off of values near 3.7e8 left in an ancilla that must be 0
/// assert!(float_close_at(2.98e-8, 0.0, 3.7e8));
/// // a real mistake at tiny magnitudes is caught
/// assert!(!float_close_at(1e-300, 0.0, 2e-300));
/// ```
#[inline]
pub fn float_close_at(a: f64, b: f64, history: f64) -> bool {
    if a == b {
        return true;
    }
    close_slow(a, b, history, 0.0)
}

#[inline(never)]
pub(super) fn close_slow(a: f64, b: f64, history: f64, rel_floor: f64) -> bool {
    if !a.is_finite() || !b.is_finite() {
        return false;
    }
    let t = tolerance();
    let scale = a.abs().max(b.abs()).max(history_or_one(history));
    (a - b).abs() <= t.abs + t.rel.max(rel_floor) * scale
}

#[inline]
fn history_or_one(h: f64) -> f64 {
    if h.is_nan() {
        1.0
    } else {
        h
    }
}

/// The largest finite magnitude of `x` merged into `history` (the compiler's per-statement
/// tracking of a scalar ancilla). NaN (unknown) stays NaN.
///
/// ```
/// use nilang::check::track;
/// assert_eq!(track(1.0, &-3.0f64), 3.0);
/// assert_eq!(track(3.0, &f64::INFINITY), 3.0);
/// assert!(track(f64::NAN, &5.0f64).is_nan());
/// ```
#[inline(always)]
pub fn track<T: AlmostSame + ?Sized>(history: f64, x: &T) -> f64 {
    let m = x.magnitude();
    if m > history {
        m
    } else {
        history
    }
}
