//! Gradients of user primitives (NiLang's `primitive_grad`).
//!
//! `#[nilang::primitive(grad = df)] fn f(a: T, b: T) -> T` registers `f` for use on the right
//! of `+=` and attaches a first-order backward rule: `df(a, b)` returns the partial derivatives
//! `(∂f/∂a, ∂f/∂b)` (a single value for one argument, a tuple for two or three). The macro
//! implements [`Partials1`]/[`Partials2`]/[`Partials3`] and [`Rule1`]/[`Rule2`]/[`Rule3`] for
//! the marker type `f`, so `y += f(a, b)` works on `GVar<T>` with any mix of gradient numbers
//! and constants.
//!
//! ```
//! use nilang::prelude::*;
//!
//! #[primitive(grad = dsq_sin)]
//! fn sq_sin<T: Real>(x: T, y: T) -> T {
//!     x * x * y.sin()
//! }
//! fn dsq_sin<T: Real>(x: T, y: T) -> (T, T) {
//!     (T::from_f64(2.0) * x * y.sin(), x * x * y.cos())
//! }
//! // a program using a primitive names its instruction as a bound
//! #[i]
//! fn f<T: Scalar>(out: &mut T, x: &mut T, y: &mut T)
//! where
//!     T: nilang::instr::PlusEq2<sq_sin, T, T>,
//! {
//!     out += sq_sin(x, y);
//! }
//! let (mut o, mut x, mut y) = (0.0, 1.5, 0.3);
//! let (_, gx, gy) = nilang::gradient(&F, (&mut o, &mut x, &mut y), 0);
//! assert_eq!((gx.g, gy.g), (3.0 * 0.3_f64.sin(), 2.25 * 0.3_f64.cos()));
//! ```
//!
//! The rule is first order: the partials are plain numbers of the gradient's element type `T`.
//! It works on `GVar<f64>` and, when `f` and `df` are generic over [`Real`](crate::Real)
//! (as above), on `GVar<Dual<f64>>` (forward-over-reverse Hessians): `df` evaluated on dual
//! numbers carries the second derivatives. Reverse-over-reverse (`GVar<GVar<f64>>`) needs the
//! rule written as a reversible `#[i]` program, as the built-in rules in `ad::rules` are
//! (implement [`Rule1`]/[`Rule2`]/[`Rule3`] by hand with it).
use super::{GVar, Scalar};
use crate::instr::fns::{Identity, Mul};
use crate::instr::{Func, PlusEq1, PlusEq2};

#[doc(inline)]
pub use super::rules::{Rule1, Rule2, Rule3};

/// Partial derivative of a one-argument primitive (implemented by `#[primitive(grad = df)]`).
pub trait Partials1<T> {
    /// `∂f/∂a` at `a`.
    fn partials(a: T) -> T;
}
/// Partial derivatives of a two-argument primitive.
pub trait Partials2<T> {
    /// `(∂f/∂a, ∂f/∂b)` at `(a, b)`.
    fn partials(a: T, b: T) -> (T, T);
}
/// Partial derivatives of a three-argument primitive.
pub trait Partials3<T> {
    /// `(∂f/∂a, ∂f/∂b, ∂f/∂c)` at `(a, b, c)`.
    fn partials(a: T, b: T, c: T) -> (T, T, T);
}

/// `y.x ±= v` on the element type.
#[inline(always)]
fn acc<T: Scalar>(y: &mut T, mut v: T, plus: bool) {
    if plus {
        <T as PlusEq1<Identity, T>>::plus_eq(y, &mut v)
    } else {
        <T as PlusEq1<Identity, T>>::minus_eq(y, &mut v)
    }
}
/// `g ±= ȳ · d`.
#[inline(always)]
fn acc_mul<T: Scalar>(g: &mut T, mut yg: T, mut d: T, plus: bool) {
    if plus {
        <T as PlusEq2<Mul, T, T>>::plus_eq(g, &mut yg, &mut d)
    } else {
        <T as PlusEq2<Mul, T, T>>::minus_eq(g, &mut yg, &mut d)
    }
}

/// The rule of a one-argument primitive: `plus = true` is `y += f(a)` (`ā −= ȳ f'(a)`, then
/// `y += f(a)`), `plus = false` is its inverse `y -= f(a)` (`ā += ȳ f'(a)`).
#[inline(always)]
pub fn rule1<F, T>(y: &mut GVar<T>, a: &mut GVar<T>, plus: bool)
where
    T: Scalar,
    F: Func<(T,), Out = T> + Partials1<T>,
{
    let da = F::partials(a.x);
    acc_mul(&mut a.g, y.g, da, !plus);
    acc(&mut y.x, F::eval((a.x,)), plus);
}
/// The rule of a two-argument primitive (see [`rule1`]).
#[inline(always)]
pub fn rule2<F, T>(y: &mut GVar<T>, a: &mut GVar<T>, b: &mut GVar<T>, plus: bool)
where
    T: Scalar,
    F: Func<(T, T), Out = T> + Partials2<T>,
{
    let (da, db) = F::partials(a.x, b.x);
    acc_mul(&mut a.g, y.g, da, !plus);
    acc_mul(&mut b.g, y.g, db, !plus);
    acc(&mut y.x, F::eval((a.x, b.x)), plus);
}
/// The rule of a three-argument primitive (see [`rule1`]).
#[inline(always)]
pub fn rule3<F, T>(y: &mut GVar<T>, a: &mut GVar<T>, b: &mut GVar<T>, c: &mut GVar<T>, plus: bool)
where
    T: Scalar,
    F: Func<(T, T, T), Out = T> + Partials3<T>,
{
    let (da, db, dc) = F::partials(a.x, b.x, c.x);
    acc_mul(&mut a.g, y.g, da, !plus);
    acc_mul(&mut b.g, y.g, db, !plus);
    acc_mul(&mut c.g, y.g, dc, !plus);
    acc(&mut y.x, F::eval((a.x, b.x, c.x)), plus);
}
