//! Runtime invertibility checks and the [`InvertibilityError`] they raise.
//!
//! Checks are on by default and removed statically by `#[nocheck]` on a statement or
//! `#[i(nocheck)]` on a function. A failure unwinds with a typed [`InvertibilityError`]
//! payload; [`catch`] turns it back into a `Result`.
use core::fmt;
use std::cell::Cell;

/// What kind of reversibility condition failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// An ancilla did not hold its declared value when deallocated (`dealloc!(x = v)`).
    Deallocation,
    /// An `if` post-condition disagrees with its pre-condition.
    IfPostcondition,
    /// A `while` condition was violated (post-condition true at entry, or false after an iteration).
    WhileCondition,
    /// A `for` loop's bounds were changed by its body.
    ForBounds,
    /// Two index expressions in one statement reach the same element.
    SharedElement,
    /// A stack operation failed (pop from an empty stack, pop into a non-zero variable,
    /// copy-pop of a different value).
    Stack,
    /// Gradient numbers were unwrapped with a non-zero gradient (`~Grad`).
    NonZeroGradient,
    /// An argument violates a function's precondition (an empty slice where a mean is taken,
    /// too few values for a sample variance); raised before anything is modified, in both
    /// directions.
    Argument,
    /// Slices whose lengths must agree do not (raised by [`same_len!`](crate::same_len) and by
    /// the standard library's dimension checks, before anything is modified).
    Length,
    /// Anything else.
    Other,
}

/// A violated reversibility condition, naming the source location, the statement and the values.
#[derive(Clone, Debug, PartialEq)]
pub struct InvertibilityError {
    /// The failed condition.
    pub kind: ErrorKind,
    /// `file:line:column` of the statement in the user's source.
    pub location: &'static str,
    /// The statement as written (for a generated inverse: the statement it was inverted from).
    pub statement: &'static str,
    /// The values involved, formatted.
    pub detail: String,
}

impl fmt::Display for InvertibilityError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "invertibility error ({:?}) at {}: `{}`: {}",
            self.kind, self.location, self.statement, self.detail
        )
    }
}
impl std::error::Error for InvertibilityError {}

thread_local! {
    static CATCH_DEPTH: Cell<usize> = const { Cell::new(0) };
}

/// Raise an [`InvertibilityError`]: prints it (unless inside [`catch`]) and unwinds with it as
/// the payload.
#[cold]
#[inline(never)]
pub fn raise(err: InvertibilityError) -> ! {
    if CATCH_DEPTH.with(|d| d.get()) == 0 {
        eprintln!("{err}");
    }
    std::panic::resume_unwind(Box::new(err))
}

/// Run `f`, turning a raised [`InvertibilityError`] into `Err`. Other panics propagate.
///
/// ```
/// let r = nilang::check::catch(|| 1 + 1);
/// assert_eq!(r.unwrap(), 2);
/// ```
pub fn catch<R>(f: impl FnOnce() -> R) -> Result<R, InvertibilityError> {
    CATCH_DEPTH.with(|d| d.set(d.get() + 1));
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    CATCH_DEPTH.with(|d| d.set(d.get() - 1));
    match r {
        Ok(v) => Ok(v),
        Err(payload) => match payload.downcast::<InvertibilityError>() {
            Ok(e) => Err(*e),
            Err(other) => std::panic::resume_unwind(other),
        },
    }
}

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
fn close_slow(a: f64, b: f64, history: f64, rel_floor: f64) -> bool {
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

/// Equality as the runtime checks understand it: exact for integers and bools, within the
/// tolerance for floats, value-only for gradient numbers.
pub trait AlmostSame {
    /// Whether `self` and `other` are the same up to the tolerance (unknown history).
    fn almost_same(&self, other: &Self) -> bool;
    /// Whether `self` and `other` are the same, knowing that the value held magnitudes up to
    /// `history` (NaN: unknown). Types that do not track magnitudes ignore `history`.
    #[inline]
    fn almost_same_at(&self, other: &Self, history: f64) -> bool {
        let _ = history;
        self.almost_same(other)
    }
    /// The largest finite magnitude in the value, for tracking an ancilla's history; NaN
    /// (the default) when the type does not track it. Non-finite parts count as 0, so that a
    /// value that went through infinity does not widen the tolerance.
    #[inline]
    fn magnitude(&self) -> f64 {
        f64::NAN
    }
}
macro_rules! exact {
    ($($t:ty),*) => {$( impl AlmostSame for $t {
        #[inline] fn almost_same(&self, other: &Self) -> bool { self == other }
    } )*};
}
exact!(
    i8,
    i16,
    i32,
    i64,
    i128,
    isize,
    u8,
    u16,
    u32,
    u64,
    u128,
    usize,
    bool,
    char,
    String,
    &str,
    ()
);
impl AlmostSame for f64 {
    #[inline]
    fn almost_same(&self, other: &Self) -> bool {
        float_close(*self, *other)
    }
    #[inline]
    fn almost_same_at(&self, other: &Self, history: f64) -> bool {
        float_close_at(*self, *other, history)
    }
    #[inline]
    fn magnitude(&self) -> f64 {
        let m = self.abs();
        if m.is_finite() {
            m
        } else {
            0.0
        }
    }
}
/// `64 * f32::EPSILON`: the least relative tolerance for `f32`.
const F32_REL_FLOOR: f64 = 64.0 * f32::EPSILON as f64;
impl AlmostSame for f32 {
    #[inline]
    fn almost_same(&self, other: &Self) -> bool {
        self.almost_same_at(other, f64::NAN)
    }
    #[inline]
    fn almost_same_at(&self, other: &Self, history: f64) -> bool {
        self == other || close_slow(*self as f64, *other as f64, history, F32_REL_FLOOR)
    }
    #[inline]
    fn magnitude(&self) -> f64 {
        (*self as f64).magnitude()
    }
}
impl<T: AlmostSame> AlmostSame for core::num::Wrapping<T> {
    fn almost_same(&self, other: &Self) -> bool {
        self.0.almost_same(&other.0)
    }
    fn almost_same_at(&self, other: &Self, history: f64) -> bool {
        self.0.almost_same_at(&other.0, history)
    }
    fn magnitude(&self) -> f64 {
        self.0.magnitude()
    }
}
impl<T: AlmostSame> AlmostSame for num_complex::Complex<T> {
    fn almost_same(&self, other: &Self) -> bool {
        self.re.almost_same(&other.re) && self.im.almost_same(&other.im)
    }
    fn almost_same_at(&self, other: &Self, history: f64) -> bool {
        self.re.almost_same_at(&other.re, history) && self.im.almost_same_at(&other.im, history)
    }
    fn magnitude(&self) -> f64 {
        let (a, b) = (self.re.magnitude(), self.im.magnitude());
        if a.is_nan() || b.is_nan() {
            f64::NAN
        } else {
            a.max(b)
        }
    }
}
impl<T: AlmostSame> AlmostSame for [T] {
    fn almost_same(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().zip(other).all(|(a, b)| a.almost_same(b))
    }
}
impl<T: AlmostSame, const N: usize> AlmostSame for [T; N] {
    fn almost_same(&self, other: &Self) -> bool {
        self[..].almost_same(&other[..])
    }
}
impl<T: AlmostSame> AlmostSame for Vec<T> {
    fn almost_same(&self, other: &Self) -> bool {
        self[..].almost_same(&other[..])
    }
}
impl<T: AlmostSame + ?Sized> AlmostSame for &T {
    fn almost_same(&self, other: &Self) -> bool {
        (**self).almost_same(*other)
    }
    fn almost_same_at(&self, other: &Self, history: f64) -> bool {
        (**self).almost_same_at(*other, history)
    }
    fn magnitude(&self) -> f64 {
        (**self).magnitude()
    }
}
impl<T: AlmostSame + ?Sized> AlmostSame for &mut T {
    fn almost_same(&self, other: &Self) -> bool {
        (**self).almost_same(&**other)
    }
    fn almost_same_at(&self, other: &Self, history: f64) -> bool {
        (**self).almost_same_at(&**other, history)
    }
    fn magnitude(&self) -> f64 {
        (**self).magnitude()
    }
}
macro_rules! tuple_same {
    ($($n:tt $t:ident),*) => {
        impl<$($t: AlmostSame),*> AlmostSame for ($($t,)*) {
            fn almost_same(&self, other: &Self) -> bool { true $(&& self.$n.almost_same(&other.$n))* }
        }
    };
}
tuple_same!(0 A);
tuple_same!(0 A, 1 B);
tuple_same!(0 A, 1 B, 2 C);
tuple_same!(0 A, 1 B, 2 C, 3 D);
tuple_same!(0 A, 1 B, 2 C, 3 D, 4 E);
tuple_same!(0 A, 1 B, 2 C, 3 D, 4 E, 5 F);

/// Check emitted for `dealloc!(x = v)` and copy-pop: `x` must equal `v` (unknown history).
#[inline]
#[track_caller]
pub fn dealloc<T: AlmostSame + fmt::Debug + ?Sized>(
    x: &T,
    expected: &T,
    location: &'static str,
    statement: &'static str,
) {
    dealloc_at(x, expected, f64::NAN, location, statement)
}

/// Check emitted for `dealloc!(x = v)` of a scalar ancilla whose history (largest finite
/// magnitude it held, see [`track`]) is known: `x` must equal `v` under [`Tolerance`].
///
/// ```
/// use nilang::check::{catch, dealloc_at};
/// assert!(catch(|| dealloc_at(&2.98e-8, &0.0, 3.7e8, "here", "t → 0")).is_ok());
/// let e = catch(|| dealloc_at(&f64::NAN, &0.0, 1.0, "here", "t → 0")).unwrap_err();
/// assert!(e.detail.contains("NaN"));
/// ```
#[inline]
pub fn dealloc_at<T: AlmostSame + fmt::Debug + ?Sized>(
    x: &T,
    expected: &T,
    history: f64,
    location: &'static str,
    statement: &'static str,
) {
    if !x.almost_same_at(expected, history) {
        dealloc_failed(x, expected, history, location, statement)
    }
}

#[cold]
#[inline(never)]
fn dealloc_failed<T: fmt::Debug + ?Sized>(
    x: &T,
    expected: &T,
    history: f64,
    location: &'static str,
    statement: &'static str,
) -> ! {
    let t = tolerance();
    let held = if history.is_nan() {
        String::from("its history is not tracked (counts as 1)")
    } else {
        format!("the largest magnitude it held was {history:e}")
    };
    raise(InvertibilityError {
        kind: ErrorKind::Deallocation,
        location,
        statement,
        detail: format!(
            "ancilla holds {x:?}, expected {expected:?}; {held}; tolerance: abs {abs:e} + rel {rel:e} × \
             the largest magnitude (NaN and infinities never pass). If the uncomputation is \
             correct and this is round-off, widen the tolerance for the call with \
             `nilang::check::with_tolerance(nilang::check::Tolerance {{ rel, abs }}, || ...)` or mark \
             the statement `#[nocheck]`; otherwise the statements before it do not undo what was \
             computed into the ancilla.",
            abs = t.abs,
            rel = t.rel,
        ),
    })
}

/// Raise an error of `kind` with a message (used by the generated code).
#[cold]
#[inline(never)]
pub fn fail(kind: ErrorKind, location: &'static str, statement: &'static str, detail: String) -> ! {
    raise(InvertibilityError {
        kind,
        location,
        statement,
        detail,
    })
}

/// Raise an [`ErrorKind::Argument`] error unless `ok`: a function's precondition, checked
/// before anything is modified (the standard library calls it at the start and at the end of
/// a body, so that the generated inverse checks first too).
///
/// ```
/// use nilang::check::{catch, require, ErrorKind};
/// let e = catch(|| require(false, "f", "f(x)", || "x is empty".into())).unwrap_err();
/// assert_eq!((e.kind, e.detail.as_str()), (ErrorKind::Argument, "x is empty"));
/// assert!(catch(|| require(true, "f", "f(x)", || unreachable!())).is_ok());
/// ```
#[inline]
pub fn require(
    ok: bool,
    function: &'static str,
    call: &'static str,
    detail: impl FnOnce() -> String,
) {
    if !ok {
        fail(ErrorKind::Argument, function, call, detail())
    }
}

/// Raise an [`ErrorKind::Length`] error unless `ok`: slice lengths that must agree (a
/// function's dimension precondition, checked before anything is modified; the standard
/// library checks at the start and at the end of a body, so the generated inverse checks
/// first too).
///
/// ```
/// use nilang::check::{catch, dimensions, ErrorKind};
/// let e = catch(|| dimensions(false, "i_dot", "i_dot(out, x, y)", || "x has 2, y has 3 elements".into()))
///     .unwrap_err();
/// assert_eq!((e.kind, e.statement), (ErrorKind::Length, "i_dot(out, x, y)"));
/// ```
#[inline]
pub fn dimensions(
    ok: bool,
    function: &'static str,
    call: &'static str,
    detail: impl FnOnce() -> String,
) {
    if !ok {
        fail(ErrorKind::Length, function, call, detail())
    }
}

/// Raise an [`ErrorKind::Length`] error unless all `lens` (name, length) agree; the detail
/// lists every length. Used by [`same_len!`](crate::same_len) and the standard library.
///
/// ```
/// use nilang::check::{catch, equal_lengths};
/// let e = catch(|| equal_lengths("i_dot", "i_dot(out, x, y)", &[("x", 2), ("y", 3)])).unwrap_err();
/// assert_eq!(e.detail, "lengths differ: x.len() = 2, y.len() = 3");
/// ```
#[inline]
pub fn equal_lengths(location: &'static str, statement: &'static str, lens: &[(&str, usize)]) {
    if lens.iter().any(|&(_, l)| l != lens[0].1) {
        lengths_differ(location, statement, lens)
    }
}

/// The error of [`equal_lengths`]: every name with its length.
#[doc(hidden)]
#[cold]
#[inline(never)]
pub fn lengths_differ(
    location: &'static str,
    statement: &'static str,
    lens: &[(&str, usize)],
) -> ! {
    let list: Vec<String> = lens
        .iter()
        .map(|(n, l)| format!("{n}.len() = {l}"))
        .collect();
    fail(
        ErrorKind::Length,
        location,
        statement,
        format!("lengths differ: {}", list.join(", ")),
    )
}

/// Check that slices (anything with `.len()`) have equal lengths; otherwise raise a typed
/// [`ErrorKind::Length`] error naming the source location, the statement and every length.
///
/// In an `#[i]` function, write it in `safe! { ... }` at the start of the body (and at the
/// end, so that the generated inverse checks before it modifies anything).
///
/// ```
/// use nilang::check::{catch, ErrorKind};
/// let (x, y) = (vec![1.0, 2.0], vec![1.0; 3]);
/// let e = catch(|| nilang::same_len!(x, y)).unwrap_err();
/// assert_eq!(e.kind, ErrorKind::Length);
/// assert_eq!(e.statement, "same_len!(x, y)");
/// assert_eq!(e.detail, "lengths differ: x.len() = 2, y.len() = 3");
/// assert!(catch(|| nilang::same_len!(x, x)).is_ok());
/// ```
#[macro_export]
macro_rules! same_len {
    ($first:expr $(, $rest:expr)+ $(,)?) => {{
        let __nilang_first = $first.len();
        if false $(|| $rest.len() != __nilang_first)+ {
            $crate::check::lengths_differ(
                ::core::concat!(::core::file!(), ":", ::core::line!(), ":", ::core::column!()),
                ::core::concat!("same_len!(", ::core::stringify!($first) $(, ", ", ::core::stringify!($rest))+, ")"),
                &[(::core::stringify!($first), __nilang_first) $(, (::core::stringify!($rest), $rest.len()))+],
            )
        }
    }};
}

/// Check that loop bounds are unchanged (`for` statements).
#[inline]
pub fn bounds<T: PartialEq + fmt::Debug>(
    before: &T,
    after: &T,
    location: &'static str,
    statement: &'static str,
) {
    if before != after {
        fail(
            ErrorKind::ForBounds,
            location,
            statement,
            format!("loop bounds changed from {before:?} to {after:?} by the loop body"),
        );
    }
}

/// Check that two index expressions reach different elements.
#[inline]
pub fn distinct<T: PartialEq + fmt::Debug>(
    a: &T,
    b: &T,
    location: &'static str,
    statement: &'static str,
) {
    if a == b {
        fail(
            ErrorKind::SharedElement,
            location,
            statement,
            format!("two operands reach the same element (index {a:?})"),
        );
    }
}
