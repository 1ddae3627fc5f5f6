//! The number concept: the traits that say what a number the language runs on is, in one
//! place, below the instructions ([`crate::instr`]), the number types ([`crate::numbers`]) and
//! automatic differentiation ([`crate::ad`](mod@crate::ad)), which all build on it and none of
//! which it names.
//!
//! | trait | says | implemented by |
//! |---|---|---|
//! | [`Arithmetic`] | `Copy` and `+ − × ÷`, negation by value | every type that has them |
//! | [`Real`] | an ordered real with the elementary functions | `f32`, `f64`, `Dual`, `Duals`, fixed point |
//! | [`Elem`] | a plain element of the gradient API's arguments | every `Real`, the batches |
//! | [`Plain`] | `+=` on it evaluates the function (no adjoint) | floats, integers, complex, fixed point, `Dual` |
//! | [`FromLiteral`] | a literal constant converts into it | every number |
//! | [`Fresh`] | it (or a workspace of it) can be checked for zero and zeroed | every number and container |
//! | [`Value`] | its value as `f64` (conditions, printing) | every number but the batches |
//! | [`Adjoints`] | whether it carries adjoints | every number (`GVar`: yes) |
//! | [`LaneOrd`] | lane-wise comparisons as 0/1 masks | every number |
//! | [`AbsAbove`] | `abs(x) > tol` in any lane (a loop test) | every number |
//!
//! The two bundles that name instructions sit one layer up, in [`crate::instr`]:
//! [`Scalar`](crate::instr::Scalar) (every instruction runs on it) and
//! [`Ordered`](crate::instr::Ordered) (a `Scalar` with an order and a value).
//!
//! ```
//! use nilang::number::{Real, Value};
//! fn half<T: Real + Value>(x: T) -> f64 {
//!     (x / T::from_f64(2.0)).value()
//! }
//! assert_eq!(half(3.0_f64), 1.5);
//! assert_eq!(half(nilang::Dual::new(3.0_f64, 1.0)), 1.5);
//! ```
mod elem;
mod fresh;
mod literal;
mod real;
mod value;

pub use elem::Elem;
pub use fresh::Fresh;
pub use literal::{FromLiteral, Plain};
pub use real::{Arithmetic, Real};
pub use value::{AbsAbove, Adjoints, LaneOrd, Value};
