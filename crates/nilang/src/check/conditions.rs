//! The checks that generated code and the standard library call: deallocation, arguments,
//! lengths, loop bounds and distinct elements.
use super::{fail, raise, tolerance, AlmostSame, ErrorKind, InvertibilityError};
#[cfg(doc)]
use super::{track, Tolerance};
use core::fmt;

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

/// Check emitted for `dealloc!(x = v)` of a scalar ancilla whose history (its round-off
/// budget, the sum of the finite magnitudes it held after each statement, see [`track`]) is
/// known: `x` must equal `v` under [`Tolerance`].
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
        dealloc_failed(x, expected, history, "", location, statement)
    }
}

/// [`dealloc_at`] knowing `origin`: `location: \`statement\`` of the statement after which
/// the ancilla first held a NaN or an infinity (empty: it never did), named in the message
/// when the check fails on a non-finite value.
///
/// ```
/// use nilang::check::{catch, dealloc_from};
/// let e = catch(|| dealloc_from(&f64::NAN, &0.0, 1.0, "f.rs:3:5: `t += x / y`", "f.rs:9:5", "t → 0"))
///     .unwrap_err();
/// assert!(e.detail.contains("first held one after f.rs:3:5: `t += x / y`"), "{}", e.detail);
/// ```
#[inline]
pub fn dealloc_from<T: AlmostSame + fmt::Debug + ?Sized>(
    x: &T,
    expected: &T,
    history: f64,
    origin: &'static str,
    location: &'static str,
    statement: &'static str,
) {
    if !x.almost_same_at(expected, history) {
        dealloc_failed(x, expected, history, origin, location, statement)
    }
}

#[cold]
#[inline(never)]
fn dealloc_failed<T: AlmostSame + fmt::Debug + ?Sized>(
    x: &T,
    expected: &T,
    history: f64,
    origin: &'static str,
    location: &'static str,
    statement: &'static str,
) -> ! {
    let detail = if x.non_finite() && !expected.non_finite() {
        let from = if origin.is_empty() {
            String::from("an operand or input of the statements that wrote it")
        } else {
            format!("an operand or input of the statement that wrote it (it first held one after {origin})")
        };
        format!(
            "ancilla holds {x:?}, expected {expected:?}: a non-finite value (NaN or infinity) \
             arrived in it, from {from} (a NaN or infinite argument, a division by zero, an \
             overflow, a function outside its domain); no tolerance can restore it. Check the \
             inputs, or the operands of the statements writing this ancilla, for non-finite \
             values."
        )
    } else {
        let t = tolerance();
        let held = if history.is_nan() {
            String::from("its history is not tracked (counts as 1)")
        } else {
            format!(
                "its round-off budget (the sum of the magnitudes it held after each statement) \
                 was {history:e}"
            )
        };
        format!(
            "ancilla holds {x:?}, expected {expected:?}; {held}; tolerance: abs {abs:e} + rel \
             {rel:e} × the larger value + rel/64 × the budget (NaN and infinities never pass). \
             If the uncomputation is correct and this is round-off, widen the tolerance for \
             the call with `nilang::check::with_tolerance(nilang::check::Tolerance {{ rel, abs \
             }}, || ...)` or mark the statement `#[nocheck]`; otherwise the statements before \
             it do not undo what was computed into the ancilla.",
            abs = t.abs,
            rel = t.rel,
        )
    };
    raise(InvertibilityError {
        kind: ErrorKind::Deallocation,
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
