//! The tolerance of float comparisons (per thread) and the closeness rule it sets.
use super::AlmostSame;
use core::marker::PhantomData;
use std::cell::{Cell, RefCell};

/// Tolerance of the float comparisons in runtime checks.
///
/// Two floats `a`, `b` pass when they are identical (`a == b`, which includes the same
/// infinity), or when both are finite and
///
/// ```text
/// |a - b| <= abs + rel * max(|a|, |b|) + rel / 64 * budget
/// ```
///
/// where `budget` is the ancilla's round-off budget: the sum of the finite magnitudes it held
/// after each statement that wrote it (every statement rounds at most relative to the value it
/// leaves). For a scalar float ancilla the compiler tracks it (one `abs`/`+` per statement
/// that mentions the ancilla, removed with the check under `#[nocheck]`), so the residual of
/// round-off from large intermediate values passes while a mistake larger than the round-off
/// those statements could cause is caught, at any magnitude from subnormal to `1e308`: an
/// ancilla that held `1e20` for one statement may keep about `1.6e10`, not `1e12`. Where the
/// history is unknown (a plain [`AlmostSame::almost_same`], containers, types that do not
/// report a [`AlmostSame::magnitude`]) the rule is `abs + rel * max(|a|, |b|, 1)`.
///
/// NaN never passes, not even against NaN: a NaN ancilla has lost its value, so nothing was
/// restored. An infinity passes only against the identical infinity (an ancilla declared
/// `f64::INFINITY` that still holds it); against anything else it fails. For `f32` the
/// relative part is at least `64 * f32::EPSILON`, and so is the part per unit of budget.
///
/// The setting is per thread (a new thread starts at [`Tolerance::DEFAULT`]); set it for a
/// scope with [`with_tolerance`] or [`ToleranceGuard`]. Both parts must be finite and
/// non-negative ([`Tolerance::validated`]).
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

/// A tolerance that is NaN, negative or infinite (infinity would turn the checks off): the
/// error of [`set_tolerance`] and [`Tolerance::validated`].
///
/// ```
/// let e = nilang::check::set_tolerance(0.0, f64::NAN).unwrap_err();
/// assert!(e.to_string().contains("rel = NaN"), "{e}");
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct InvalidTolerance {
    /// The tolerance that was refused.
    pub tolerance: Tolerance,
}

impl core::fmt::Display for InvalidTolerance {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let Tolerance { rel, abs } = self.tolerance;
        write!(
            f,
            "invalid tolerance (rel = {rel:e}, abs = {abs:e}): both parts must be finite and \
             non-negative (an infinite tolerance would turn the checks off; to skip checks, \
             write `#[nocheck]`)"
        )
    }
}
impl std::error::Error for InvalidTolerance {}

impl Tolerance {
    /// `self` if both parts are finite and non-negative, else the typed error.
    ///
    /// ```
    /// use nilang::check::Tolerance;
    /// assert!(Tolerance { rel: 1e-6, abs: 0.0 }.validated().is_ok());
    /// assert!(Tolerance { rel: -1.0, abs: 0.0 }.validated().is_err());
    /// assert!(Tolerance { rel: 0.0, abs: f64::INFINITY }.validated().is_err());
    /// ```
    pub fn validated(self) -> Result<Tolerance, InvalidTolerance> {
        let ok = |x: f64| x.is_finite() && x >= 0.0;
        if ok(self.rel) && ok(self.abs) {
            Ok(self)
        } else {
            Err(InvalidTolerance { tolerance: self })
        }
    }
}

impl Default for Tolerance {
    fn default() -> Self {
        Tolerance::DEFAULT
    }
}

thread_local! {
    /// The tolerance in force (read by every check).
    static TOLERANCE: Cell<Tolerance> = const { Cell::new(Tolerance::DEFAULT) };
    /// The live guards, oldest first, `(id, tolerance)`, and the setting below them.
    static GUARDS: RefCell<Guards> = const {
        RefCell::new(Guards { live: Vec::new(), base: Tolerance::DEFAULT, next_id: 0 })
    };
}

/// This thread's live [`ToleranceGuard`]s: the tolerance in force is the newest one's, or
/// `base` when none is live, whatever order the guards are dropped in.
struct Guards {
    live: Vec<(u64, Tolerance)>,
    base: Tolerance,
    next_id: u64,
}

impl Guards {
    fn in_force(&self) -> Tolerance {
        self.live.last().map_or(self.base, |&(_, t)| t)
    }
}

/// Set this thread's tolerance (see [`Tolerance`] for the rule): `atol` is the absolute part,
/// `rtol` the relative part; NaN, negative or infinite values are refused with
/// [`InvalidTolerance`] (nothing changes). Other threads are not affected; prefer
/// [`with_tolerance`], which restores the previous setting. Inside a [`ToleranceGuard`]'s scope
/// the new setting lasts until that guard is dropped.
///
/// ```
/// nilang::check::set_tolerance(0.0, 1e-6).unwrap();
/// assert_eq!(nilang::check::tolerance().rel, 1e-6);
/// assert!(nilang::check::set_tolerance(-1.0, 1e-6).is_err());
/// assert_eq!(nilang::check::tolerance().abs, 0.0);
/// nilang::check::set_tolerance(0.0, 1e-8).unwrap();
/// ```
pub fn set_tolerance(atol: f64, rtol: f64) -> Result<(), InvalidTolerance> {
    let tol = Tolerance {
        rel: rtol,
        abs: atol,
    }
    .validated()?;
    GUARDS.with(|g| {
        let mut g = g.borrow_mut();
        match g.live.last_mut() {
            Some((_, t)) => *t = tol,
            None => g.base = tol,
        }
    });
    TOLERANCE.with(|t| t.set(tol));
    Ok(())
}

/// This thread's tolerance.
pub fn tolerance() -> Tolerance {
    TOLERANCE.with(|t| t.get())
}

/// Sets this thread's tolerance until dropped, then restores the one in force without it
/// (also when unwinding). Guards may be dropped in any order: the tolerance in force is always
/// the newest live guard's, or the setting before the first guard when none is live.
///
/// ```
/// use nilang::check::{tolerance, Tolerance, ToleranceGuard};
/// {
///     let _g = ToleranceGuard::set(Tolerance { rel: 1e-4, abs: 0.0 });
///     assert_eq!(tolerance().rel, 1e-4);
/// }
/// assert_eq!(tolerance(), Tolerance::DEFAULT);
/// // dropped out of order: the outer one first
/// let outer = ToleranceGuard::set(Tolerance { rel: 1e-4, abs: 0.0 });
/// let inner = ToleranceGuard::set(Tolerance { rel: 1e-2, abs: 0.0 });
/// drop(outer);
/// assert_eq!(tolerance().rel, 1e-2);
/// drop(inner);
/// assert_eq!(tolerance(), Tolerance::DEFAULT);
/// ```
#[must_use = "the tolerance is restored when the guard is dropped"]
pub struct ToleranceGuard {
    id: u64,
    /// Per thread: not `Send`.
    _thread: PhantomData<*const ()>,
}

impl ToleranceGuard {
    /// Set `tol` for this thread until the guard is dropped.
    ///
    /// # Panics
    /// At the caller's line, with the [`InvalidTolerance`] message, when a part of `tol` is
    /// NaN, negative or infinite (use [`Tolerance::validated`] first to handle that case).
    #[track_caller]
    pub fn set(tol: Tolerance) -> Self {
        let tol = match tol.validated() {
            Ok(t) => t,
            Err(e) => panic!("{e}"),
        };
        let id = GUARDS.with(|g| {
            let mut g = g.borrow_mut();
            let id = g.next_id;
            g.next_id += 1;
            g.live.push((id, tol));
            id
        });
        TOLERANCE.with(|t| t.set(tol));
        ToleranceGuard {
            id,
            _thread: PhantomData,
        }
    }
}

impl Drop for ToleranceGuard {
    fn drop(&mut self) {
        let now = GUARDS.with(|g| {
            let mut g = g.borrow_mut();
            if let Some(k) = g.live.iter().rposition(|&(id, _)| id == self.id) {
                g.live.remove(k);
            }
            g.in_force()
        });
        TOLERANCE.with(|t| t.set(now));
    }
}

/// Run `f` with this thread's tolerance set to `tol`, restoring the previous one afterwards.
/// Panics at the caller's line when `tol` is invalid (see [`ToleranceGuard::set`]).
///
/// ```
/// use nilang::check::{with_tolerance, Tolerance, float_close};
/// assert!(!float_close(1.0, 1.001));
/// assert!(with_tolerance(Tolerance { rel: 1e-2, abs: 0.0 }, || float_close(1.0, 1.001)));
/// ```
#[track_caller]
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

/// Float closeness with a known history: `budget` is the ancilla's round-off budget, the sum
/// of the finite magnitudes it held after each statement (see [`track`]; NaN: unknown, the
/// scale is then `max(|a|, |b|, 1)`).
///
/// ```
/// use nilang::check::float_close_at;
/// // round-off of values near 3.7e8 left in an ancilla that must be 0
/// assert!(float_close_at(2.98e-8, 0.0, 3.7e8));
/// // a real mistake at tiny magnitudes is caught
/// assert!(!float_close_at(1e-300, 0.0, 2e-300));
/// // an ancilla that held 1e20 for one statement cannot keep 1e11
/// assert!(!float_close_at(1e11, 0.0, 1e20 + 1e11));
/// ```
#[inline]
pub fn float_close_at(a: f64, b: f64, budget: f64) -> bool {
    if a == b {
        return true;
    }
    close_slow(a, b, budget, 0.0)
}

/// The part of the relative tolerance allowed per unit of round-off budget: `rel / 64`.
const BUDGET_SHARE: f64 = 1.0 / 64.0;

#[inline(never)]
pub(super) fn close_slow(a: f64, b: f64, budget: f64, rel_floor: f64) -> bool {
    if !a.is_finite() || !b.is_finite() {
        return false;
    }
    let t = tolerance();
    let rel = t.rel.max(rel_floor);
    let here = a.abs().max(b.abs());
    let allowed = if budget.is_nan() {
        rel * here.max(1.0)
    } else {
        rel * here + (t.rel * BUDGET_SHARE).max(rel_floor) * budget
    };
    (a - b).abs() <= t.abs + allowed
}

/// The round-off budget `budget` with the finite magnitude of `x` added (the compiler's
/// per-statement tracking of a scalar ancilla). NaN (unknown) stays NaN.
///
/// ```
/// use nilang::check::track;
/// assert_eq!(track(1.0, &-3.0f64), 4.0);
/// assert_eq!(track(3.0, &f64::INFINITY), 3.0);
/// assert!(track(f64::NAN, &5.0f64).is_nan());
/// ```
#[inline(always)]
pub fn track<T: AlmostSame + ?Sized>(budget: f64, x: &T) -> f64 {
    budget + x.magnitude()
}
