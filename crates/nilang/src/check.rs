//! Runtime invertibility checks and the [`InvertibilityError`] they raise.
//!
//! Checks are on by default and removed statically by `#[nocheck]` on a statement or
//! `#[i(nocheck)]` on a function. A failure unwinds with a typed [`InvertibilityError`]
//! payload; [`catch`] turns it back into a `Result`.
use core::fmt;
use std::cell::Cell;
use std::sync::atomic::{AtomicU64, Ordering};

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

static ATOL: AtomicU64 = AtomicU64::new(0x3E45798EE2308C3A); // 1e-8
static RTOL: AtomicU64 = AtomicU64::new(0x3E45798EE2308C3A); // 1e-8

/// Set the absolute and relative tolerances for float comparisons in runtime checks
/// (defaults `1e-8`, `1e-8`): `|a - b| <= atol + rtol * max(|a|, |b|)`.
pub fn set_tolerance(atol: f64, rtol: f64) {
    ATOL.store(atol.to_bits(), Ordering::Relaxed);
    RTOL.store(rtol.to_bits(), Ordering::Relaxed);
}
/// The current `(atol, rtol)`.
pub fn tolerance() -> (f64, f64) {
    (
        f64::from_bits(ATOL.load(Ordering::Relaxed)),
        f64::from_bits(RTOL.load(Ordering::Relaxed)),
    )
}
/// Float closeness under the current tolerance.
#[inline]
pub fn float_close(a: f64, b: f64) -> bool {
    if a == b {
        return true;
    }
    let (atol, rtol) = tolerance();
    (a - b).abs() <= atol + rtol * a.abs().max(b.abs())
}

/// Equality as the runtime checks understand it: exact for integers and bools, within the
/// tolerance for floats, value-only for gradient numbers.
pub trait AlmostSame {
    /// Whether `self` and `other` are the same up to the tolerance.
    fn almost_same(&self, other: &Self) -> bool;
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
}
impl AlmostSame for f32 {
    #[inline]
    fn almost_same(&self, other: &Self) -> bool {
        float_close(*self as f64, *other as f64)
    }
}
impl<T: AlmostSame> AlmostSame for core::num::Wrapping<T> {
    fn almost_same(&self, other: &Self) -> bool {
        self.0.almost_same(&other.0)
    }
}
impl<T: AlmostSame> AlmostSame for num_complex::Complex<T> {
    fn almost_same(&self, other: &Self) -> bool {
        self.re.almost_same(&other.re) && self.im.almost_same(&other.im)
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
}
impl<T: AlmostSame + ?Sized> AlmostSame for &mut T {
    fn almost_same(&self, other: &Self) -> bool {
        (**self).almost_same(&**other)
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

/// Check emitted for `dealloc!(x = v)` and copy-pop: `x` must equal `v`.
#[inline]
#[track_caller]
pub fn dealloc<T: AlmostSame + fmt::Debug + ?Sized>(
    x: &T,
    expected: &T,
    location: &'static str,
    statement: &'static str,
) {
    if !x.almost_same(expected) {
        raise(InvertibilityError {
            kind: ErrorKind::Deallocation,
            location,
            statement,
            detail: format!("ancilla holds {x:?}, expected {expected:?}"),
        });
    }
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
