//! `fresh!(ws, ..)`: ancilla workspaces that are zero at this point.
//!
//! A workspace passed as a parameter (a slice, a `Vec`, a struct of them) can hold the
//! ancillas of a loop body: computed by a routine, uncomputed by its `unroutine!()`, zero
//! again at the end of every iteration. `fresh!(ws)` states that: it checks that `ws` is
//! zero (with checks on) and sets every number in it, adjoints included, to exact zero. It is
//! its own inverse. In a gradient program it does what deallocating and reallocating an
//! ancilla does: the adjoint a zero workspace carries is dropped, so the next routine that
//! computes into it starts from zero adjoints (no cancelling adjoint work piles up over the
//! iterations).
use crate::check::{fail, AlmostSame, ErrorKind};
use core::fmt::Debug;

pub use crate::number::Fresh;

/// [`Fresh::VALUES_SKIPPED`] of a place's type (the compiler's choice of how to uncompute a
/// routine on `fresh!` workspaces: a constant after monomorphisation).
///
/// ```
/// let (ws, gs) = (vec![0.0_f64; 3], vec![nilang::GVar::new(0.0_f64, 0.0); 3]);
/// assert!(!nilang::instr::fresh::values_skipped(&ws));
/// assert!(nilang::instr::fresh::values_skipped(&gs));
/// ```
#[inline(always)]
pub fn values_skipped<W: Fresh + ?Sized>(_: &W) -> bool {
    W::VALUES_SKIPPED
}

/// `Fresh` for number types whose zero is their `Default`, compared by `AlmostSame`.
macro_rules! fresh_scalar {
    ($([$($g:tt)*] $t:ty),* $(,)?) => {$(
        impl<$($g)*> $crate::number::Fresh for $t {
            #[inline(always)]
            fn is_fresh(&self) -> bool {
                $crate::check::AlmostSame::almost_same(self, &<$t>::default())
            }
            #[inline(always)]
            fn make_fresh(&mut self) {
                *self = <$t>::default();
            }
        }
    )*};
}
macro_rules! fresh_float {
    ($($t:ty),*) => {$(
        impl Fresh for $t {
            #[inline(always)]
            fn is_fresh(&self) -> bool {
                self.almost_same(&0.0)
            }
            /// Exact zero, also without checks: a reused workspace is bit-identical to a
            /// fresh one (the round-off an uncomputation leaves is cleared).
            #[inline(always)]
            fn make_fresh(&mut self) {
                *self = 0.0;
            }
            #[inline(always)]
            fn neg_zero(self) -> Self {
                if self == 0.0 {
                    -0.0
                } else {
                    self
                }
            }
        }
    )*};
}
pub(crate) use fresh_scalar;
fresh_float!(f32, f64);
fresh_scalar!(
    [] i8, [] i16, [] i32, [] i64, [] i128, [] isize, [] u8, [] u16, [] u32,
    [] u64, [] u128, [] usize,
    [T: Default + AlmostSame + Clone + num_traits::Num] num_complex::Complex<T>,
);

/// Sequences: every element.
macro_rules! fresh_seq {
    ($([$($g:tt)*] $t:ty),*) => {$(
        impl<$($g)*> Fresh for $t {
            fn is_fresh(&self) -> bool {
                self.iter().all(Fresh::is_fresh)
            }
            fn make_fresh(&mut self) {
                self.iter_mut().for_each(Fresh::make_fresh)
            }
            fn make_fresh_unchecked(&mut self) {
                self.iter_mut().for_each(Fresh::make_fresh_unchecked)
            }
            fn zero_values(&mut self) {
                T::zero_values_slice(&mut self[..])
            }
            const VALUES_SKIPPED: bool = T::VALUES_SKIPPED;
        }
    )*};
}
fresh_seq!([T: Fresh] [T], [T: Fresh, const N: usize] [T; N], [T: Fresh] Vec<T>);

/// The start of an ancilla, `let t = T::default();` in `#[i]` code: the compiler emits
/// `(&Start::new(v)).nilang_start()`, which is [`Fresh::ancilla`] where the type has
/// [`Fresh`] ([`StartFresh`]) and `v` itself otherwise ([`StartAny`]).
///
/// ```
/// use nilang::instr::fresh::{Start, StartAny as _, StartFresh as _};
/// let g = (&Start::new(nilang::GVar::new(0.0_f64, 0.0))).nilang_start();
/// assert!(g.g.is_sign_negative());
/// let s = (&Start::new(String::from("a"))).nilang_start();
/// assert_eq!(s, "a");
/// ```
pub struct Start<T>(core::cell::Cell<Option<T>>);

impl<T> Start<T> {
    /// The ancilla's value.
    #[inline(always)]
    pub fn new(v: T) -> Self {
        Start(core::cell::Cell::new(Some(v)))
    }
    #[inline(always)]
    fn take(&self) -> T {
        match self.0.take() {
            Some(v) => v,
            None => unreachable!("an ancilla's start is taken once"),
        }
    }
}

/// [`Start`] of a type with [`Fresh`]: [`Fresh::ancilla`].
pub trait StartFresh<T> {
    /// The number the ancilla starts from.
    fn nilang_start(&self) -> T;
}
impl<T: Fresh> StartFresh<T> for Start<T> {
    #[inline(always)]
    fn nilang_start(&self) -> T {
        self.take().ancilla()
    }
}

/// [`Start`] of any other type: the value as it is.
pub trait StartAny<T> {
    /// The value the ancilla starts from.
    fn nilang_start(&self) -> T;
}
impl<T> StartAny<T> for &Start<T> {
    #[inline(always)]
    fn nilang_start(&self) -> T {
        self.take()
    }
}

/// `fresh!(ws)` with checks: `ws` must be zero.
#[inline]
pub fn fresh<W: Fresh + Debug + ?Sized>(
    ws: &mut W,
    location: &'static str,
    statement: &'static str,
) {
    if !ws.is_fresh() {
        fail(
            ErrorKind::Deallocation,
            location,
            statement,
            format!(
                "workspace is not zero: {ws:?} (the routine computing into it was not \
                 uncomputed before `fresh!`)"
            ),
        );
    }
    ws.make_fresh();
}

/// `fresh!(ws)` without checks.
#[inline(always)]
pub fn fresh_unchecked<W: Fresh + ?Sized>(ws: &mut W) {
    ws.make_fresh_unchecked();
}

/// The check of a `#[i(zero(ws))]` parameter (with checks on), on entry (`exit` false: the
/// caller broke the contract, [`ErrorKind::Argument`]) and on exit (`exit` true: the function
/// did not uncompute what it computed there, [`ErrorKind::Deallocation`]): `ws` must be zero
/// up to the float tolerance. `location` and `param` name the attribute; `direction` ends the
/// message (" (while running the inverse `f_inv`)" there, else empty).
///
/// ```
/// use nilang::prelude::*;
/// #[i(zero(w))]
/// fn scaled_sum(out: &mut f64, w: &mut [f64], x: &[f64]) {
///     routine! {
///         for k in 0..x.len() {
///             w[k] += x[k] * 2.0;
///         }
///     }
///     for k in 0..x.len() {
///         out += w[k];
///     }
///     unroutine!();
/// }
/// let (mut out, x) = (0.0, [1.0, 2.0]);
/// scaled_sum(&mut out, &mut [0.0, 0.0], &x);
/// assert_eq!(out, 6.0);
/// let e = nilang::check::catch(|| scaled_sum(&mut out, &mut [1.0, 0.0], &x)).unwrap_err();
/// assert!(e.to_string().contains("`w` is not zero on entry"), "{e}");
/// ```
#[inline]
pub fn zero_param<W: Fresh + Debug + ?Sized>(
    ws: &W,
    exit: bool,
    location: &'static str,
    param: &'static str,
    direction: &'static str,
) {
    if !ws.is_fresh() {
        let (kind, when, why) = if exit {
            (
                ErrorKind::Deallocation,
                "exit",
                "the function did not uncompute what it computed there",
            )
        } else {
            (
                ErrorKind::Argument,
                "entry",
                "a `zero(..)` workspace must be passed zero",
            )
        };
        fail(
            kind,
            location,
            "#[i(zero(..))]",
            format!("`{param}` is not zero on {when}: {ws:?} ({why}){direction}"),
        );
    }
}

/// The entry check of a `#[i(zero(ws))]` parameter (see [`zero_param`]), reported at the
/// caller's line: `#[i(zero(..))]` functions are `#[track_caller]` (with checks on), and
/// `caller` is where they were called from (the `#[i]` statement when an `#[i]` function calls
/// them). On failure the location text is allocated once and kept (an error path only).
///
/// ```
/// use nilang::prelude::*;
/// #[i(zero(w))]
/// fn twice(out: &mut f64, w: &mut [f64], x: &[f64]) {
///     routine! {
///         w[0] += x[0] * 2.0;
///     }
///     out += w[0];
///     unroutine!();
/// }
/// let line = line!() + 1;
/// let e = nilang::check::catch(|| twice(&mut 0.0, &mut [1.0], &[1.0])).unwrap_err();
/// assert!(e.location.contains(&format!(":{line}:")), "{}", e.location);
/// ```
#[inline]
pub fn zero_param_on_entry<W: Fresh + Debug + ?Sized>(
    ws: &W,
    caller: &'static core::panic::Location<'static>,
    param: &'static str,
    direction: &'static str,
) {
    if !ws.is_fresh() {
        let location: &'static str = Box::leak(caller.to_string().into_boxed_str());
        zero_param(ws, false, location, param, direction)
    }
}
