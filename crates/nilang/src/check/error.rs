//! The typed error of a failed check, raising it and catching it.
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
    /// A differentiable variable was passed to a read-only (`&T`) parameter in a gradient
    /// program: the derivative through it would be dropped (declare the parameter `&mut`, or
    /// the argument constant with `cst!(&x)`).
    DroppedDerivative,
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
