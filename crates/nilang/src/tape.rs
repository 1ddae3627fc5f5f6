//! The store tape: where `#[store] routine! { ... }` keeps a routine's results for the
//! backward pass (split reversal) instead of uncomputing and recomputing them (joint
//! reversal, NiLang's default).
//!
//! In joint mode `routine! { R } body unroutine!()` runs `R, body, R⁻¹` forward and
//! `R, body⁻¹, R⁻¹` backward: `R` runs four times in a gradient. With `#[store]` the forward
//! run is `R, body, push` (the routine's ancillas move onto this tape and leave zero behind)
//! and the backward run `pop, body⁻¹, R⁻¹`: `R` runs twice and its results are kept in memory
//! between the two runs, a tape local to that call. Both give the same values and gradients.
//!
//! The tape is a per-thread LIFO stack: every push of a forward run is popped by the matching
//! inverse run, in reverse order, as a reversible program guarantees. A forward call that is
//! never inverted leaves its entries behind (see [`stats`], [`clear`]).
//!
//! Numbers are stored exactly; when the inverse runs on other numbers than the forward (the
//! gradient runs forward on `f64` and backward on [`GVar<f64>`](crate::GVar)) a stored number
//! is converted through its value with zero derivative parts, which is exactly what the
//! recomputation of joint mode gives for first-order gradients. (Derivative parts of numbers
//! stored by a forward run on gradient or dual numbers are kept only when the inverse runs on
//! the same type.)
use crate::ad::{GVar, Scalar};
use crate::check::{fail, ErrorKind};
use crate::numbers::Dual;
use core::any::Any;
use std::cell::RefCell;

struct Entry {
    value: f64,
    /// The number itself when it is not an `f64`.
    exact: Option<Box<dyn Any>>,
}

struct Tape {
    entries: Vec<Entry>,
    bytes: usize,
    peak_bytes: usize,
    pushes: usize,
}

impl Tape {
    const fn new() -> Self {
        Tape {
            entries: Vec::new(),
            bytes: 0,
            peak_bytes: 0,
            pushes: 0,
        }
    }
}

thread_local! {
    static TAPE: RefCell<Tape> = const { RefCell::new(Tape::new()) };
}

/// The size and history of this thread's store tape.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TapeStats {
    /// Numbers on the tape now.
    pub len: usize,
    /// Bytes they take now.
    pub bytes: usize,
    /// The most bytes held at once since the last [`reset_peak`] (or [`clear`]).
    pub peak_bytes: usize,
    /// Numbers pushed since the last [`clear`].
    pub pushes: usize,
}

/// This thread's tape statistics.
///
/// ```
/// let s = nilang::tape::stats();
/// assert!(s.peak_bytes >= s.bytes);
/// ```
pub fn stats() -> TapeStats {
    TAPE.with(|t| {
        let t = t.borrow();
        TapeStats {
            len: t.entries.len(),
            bytes: t.bytes,
            peak_bytes: t.peak_bytes,
            pushes: t.pushes,
        }
    })
}

/// Restart the peak measurement at the current size.
pub fn reset_peak() {
    TAPE.with(|t| {
        let mut t = t.borrow_mut();
        t.peak_bytes = t.bytes;
    })
}

/// Drop every entry and reset the statistics (after forward runs that are never inverted).
pub fn clear() {
    TAPE.with(|t| *t.borrow_mut() = Tape::new())
}

fn push_entry(e: Entry) {
    let size = core::mem::size_of::<Entry>()
        + e.exact
            .as_ref()
            .map_or(0, |b| core::mem::size_of_val::<dyn Any>(&**b));
    TAPE.with(|t| {
        let mut t = t.borrow_mut();
        t.entries.push(e);
        t.bytes += size;
        t.peak_bytes = t.peak_bytes.max(t.bytes);
        t.pushes += 1;
    })
}

fn pop_entry() -> Entry {
    let e = TAPE.with(|t| {
        let mut t = t.borrow_mut();
        let e = t.entries.pop()?;
        let size = core::mem::size_of::<Entry>()
            + e.exact
                .as_ref()
                .map_or(0, |b| core::mem::size_of_val::<dyn Any>(&**b));
        t.bytes -= size;
        Some(e)
    });
    e.unwrap_or_else(|| {
        fail(
            ErrorKind::Stack,
            concat!(file!(), ":", line!()),
            "#[store] routine: restore the stored results",
            "the store tape is empty: the inverse of a `#[store]` routine runs without its \
             forward run (or on another thread)"
                .into(),
        )
    })
}

/// A value a `#[store]` routine can keep: a number ([`Scalar`]) or an array of them.
pub trait TapeValue: Sized {
    /// Move onto the tape (the last number pushed last).
    fn push_tape(self);
    /// Take back from the tape (the inverse of [`TapeValue::push_tape`]).
    fn pop_tape() -> Self;
}

/// The value of a stored number of one of the usual types, for taking it back as another
/// type (`NaN` for other types, such as batches, which must be taken back as themselves).
fn value_of(any: &dyn Any) -> f64 {
    if let Some(v) = any.downcast_ref::<f32>() {
        *v as f64
    } else if let Some(v) = any.downcast_ref::<GVar<f64>>() {
        v.x
    } else if let Some(v) = any.downcast_ref::<Dual<f64>>() {
        v.x
    } else if let Some(v) = any.downcast_ref::<GVar<GVar<f64>>>() {
        v.x.x
    } else if let Some(v) = any.downcast_ref::<GVar<Dual<f64>>>() {
        v.x.x
    } else {
        f64::NAN
    }
}

impl<T: Scalar> TapeValue for T {
    fn push_tape(self) {
        let any: &dyn Any = &self;
        let (value, exact) = match any.downcast_ref::<f64>() {
            Some(&v) => (v, None),
            None => (value_of(any), Some(Box::new(self) as Box<dyn Any>)),
        };
        push_entry(Entry { value, exact });
    }
    fn pop_tape() -> Self {
        let e = pop_entry();
        match e.exact {
            Some(b) => match b.downcast::<T>() {
                Ok(v) => *v,
                Err(_) => T::from_f64_lit(e.value),
            },
            None => T::from_f64_lit(e.value),
        }
    }
}

impl<T: TapeValue, const N: usize> TapeValue for [T; N] {
    fn push_tape(self) {
        for v in self {
            v.push_tape();
        }
    }
    fn pop_tape() -> Self {
        let mut rev: Vec<T> = (0..N).map(|_| T::pop_tape()).collect();
        rev.reverse();
        match rev.try_into() {
            Ok(a) => a,
            Err(_) => unreachable!("N elements popped"),
        }
    }
}

/// `#[store]` routines, forward: move `x` onto the tape and leave it at its initial value
/// `init` (what uncomputing would have left). Generated code calls this; its inverse is
/// [`store_inv`].
///
/// ```
/// let mut x = 2.5;
/// nilang::tape::store(&mut x, 0.0);
/// assert_eq!(x, 0.0);
/// nilang::tape::store_inv(&mut x, 0.0);
/// assert_eq!(x, 2.5);
/// ```
pub fn store<X: TapeValue>(x: &mut X, init: X) {
    core::mem::replace(x, init).push_tape();
}

/// The inverse of [`store`]: `x` (at its initial value) takes back the stored value.
pub fn store_inv<X: TapeValue>(x: &mut X, init: X) {
    let _ = init;
    *x = X::pop_tape();
}

// `#[store]` routines call the pair from generated code: its analyses (never one-pass; it may
// write `x`) and its value-only variant (itself)
crate::additive!(store, store_inv: 0);
