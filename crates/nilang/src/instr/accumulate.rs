//! Accumulating instructions: `y += f(args)`, `y -= f(args)`, `y ^= f(args)`, `y *= f(args)`,
//! `y /= f(args)`.
//!
//! The compiler emits each statement as a call of one of these traits, with the function marker
//! `F` (see [`crate::instr::fns`]) and every operand passed by `&mut` (operands are in-out: a
//! gradient number writes its adjoint back into them). Plain number types get the obvious
//! meaning through [`Func`]; `GVar` implements them with backward rules.
use super::Func;
pub use crate::number::{FromLiteral, Plain};
use core::ops::BitXorAssign;

/// `y += f(a)` / `y -= f(a)`.
///
/// ```
/// use nilang::instr::{PlusEq1, fns::Sin};
/// let (mut y, mut x) = (1.0_f64, 0.5);
/// PlusEq1::<Sin, _>::plus_eq(&mut y, &mut x);
/// assert_eq!(y, 1.0 + 0.5_f64.sin());
/// ```
#[diagnostic::on_unimplemented(
    message = "no instruction `{Self} += {F}({A})`",
    label = "`{Self} += {F}({A})` is not defined for these number types",
    note = "in a generic function, bound the number type: `T: nilang::Scalar` (all `+=` functions on floats, `GVar`, `Dual`, ...), or the instruction itself, e.g. `T: nilang::instr::PlusEq1<F, ..>`",
    note = "a function of your own on a right-hand side must be declared `#[nilang::primitive]`; a value computed from constants can be wrapped in `cst!(..)`"
)]
pub trait PlusEq1<F, A> {
    /// `self += f(a)`.
    fn plus_eq(&mut self, a: &mut A);
    /// `self -= f(a)`.
    fn minus_eq(&mut self, a: &mut A);
    /// `self += f(a)` where `self` carries no adjoint (a fresh ancilla, a `fresh!`
    /// workspace, any number in the forward pass of a gradient): on gradient numbers only the
    /// value moves. The compiler emits it for routines recomputed on fresh ancillas; the
    /// default is the instruction itself.
    #[inline(always)]
    fn plus_eq_primal(&mut self, a: &mut A) {
        self.plus_eq(a)
    }
    /// `self -= f(a)` where `self` carries no adjoint (see [`Self::plus_eq_primal`]).
    #[inline(always)]
    fn minus_eq_primal(&mut self, a: &mut A) {
        self.minus_eq(a)
    }
    /// `self += f(a)` where the value of `self` afterwards is never read (an
    /// ancilla being uncomputed whose value is reset or dropped afterwards): on gradient
    /// numbers only the adjoints move. The compiler emits it in the uncomputation of
    /// routines on fresh ancillas (see `nilang_compiler`'s `adjoint` module); the default is
    /// the instruction itself.
    #[inline(always)]
    fn plus_eq_adjoint(&mut self, a: &mut A) {
        self.plus_eq(a)
    }
    /// `self -= f(a)` where the value of `self` afterwards is never read (see
    /// [`Self::plus_eq_adjoint`]).
    #[inline(always)]
    fn minus_eq_adjoint(&mut self, a: &mut A) {
        self.minus_eq(a)
    }
}
/// `y += f(a, b)` / `y -= f(a, b)`.
#[diagnostic::on_unimplemented(
    message = "no instruction `{Self} += {F}({A}, {B})`",
    label = "`{Self} += {F}({A}, {B})` is not defined for these number types",
    note = "in a generic function, bound the number type: `T: nilang::Scalar` (all `+=` functions on floats, `GVar`, `Dual`, ...), or the instruction itself, e.g. `T: nilang::instr::PlusEq2<F, ..>`",
    note = "a function of your own on a right-hand side must be declared `#[nilang::primitive]`; a value computed from constants can be wrapped in `cst!(..)`"
)]
pub trait PlusEq2<F, A, B> {
    /// `self += f(a, b)`.
    fn plus_eq(&mut self, a: &mut A, b: &mut B);
    /// `self -= f(a, b)`.
    fn minus_eq(&mut self, a: &mut A, b: &mut B);
    /// `self += f(a, b)` where `self` carries no adjoint (a fresh ancilla, a `fresh!`
    /// workspace, any number in the forward pass of a gradient): on gradient numbers only the
    /// value moves. The compiler emits it for routines recomputed on fresh ancillas; the
    /// default is the instruction itself.
    #[inline(always)]
    fn plus_eq_primal(&mut self, a: &mut A, b: &mut B) {
        self.plus_eq(a, b)
    }
    /// `self -= f(a, b)` where `self` carries no adjoint (see [`Self::plus_eq_primal`]).
    #[inline(always)]
    fn minus_eq_primal(&mut self, a: &mut A, b: &mut B) {
        self.minus_eq(a, b)
    }
    /// `self += f(a, b)` where the value of `self` afterwards is never read (an
    /// ancilla being uncomputed whose value is reset or dropped afterwards): on gradient
    /// numbers only the adjoints move. The compiler emits it in the uncomputation of
    /// routines on fresh ancillas (see `nilang_compiler`'s `adjoint` module); the default is
    /// the instruction itself.
    #[inline(always)]
    fn plus_eq_adjoint(&mut self, a: &mut A, b: &mut B) {
        self.plus_eq(a, b)
    }
    /// `self -= f(a, b)` where the value of `self` afterwards is never read (see
    /// [`Self::plus_eq_adjoint`]).
    #[inline(always)]
    fn minus_eq_adjoint(&mut self, a: &mut A, b: &mut B) {
        self.minus_eq(a, b)
    }
}
/// `y += f(a, b, c)` / `y -= f(a, b, c)`.
#[diagnostic::on_unimplemented(
    message = "no instruction `{Self} += {F}({A}, {B}, {C})`",
    label = "`{Self} += {F}({A}, {B}, {C})` is not defined for these number types",
    note = "in a generic function, bound the number type: `T: nilang::Scalar` (all `+=` functions on floats, `GVar`, `Dual`, ...), or the instruction itself, e.g. `T: nilang::instr::PlusEq3<F, ..>`",
    note = "a function of your own on a right-hand side must be declared `#[nilang::primitive]`; a value computed from constants can be wrapped in `cst!(..)`"
)]
pub trait PlusEq3<F, A, B, C> {
    /// `self += f(a, b, c)`.
    fn plus_eq(&mut self, a: &mut A, b: &mut B, c: &mut C);
    /// `self -= f(a, b, c)`.
    fn minus_eq(&mut self, a: &mut A, b: &mut B, c: &mut C);
    /// `self += f(a, b, c)` where `self` carries no adjoint (a fresh ancilla, a `fresh!`
    /// workspace, any number in the forward pass of a gradient): on gradient numbers only the
    /// value moves. The compiler emits it for routines recomputed on fresh ancillas; the
    /// default is the instruction itself.
    #[inline(always)]
    fn plus_eq_primal(&mut self, a: &mut A, b: &mut B, c: &mut C) {
        self.plus_eq(a, b, c)
    }
    /// `self -= f(a, b, c)` where `self` carries no adjoint (see [`Self::plus_eq_primal`]).
    #[inline(always)]
    fn minus_eq_primal(&mut self, a: &mut A, b: &mut B, c: &mut C) {
        self.minus_eq(a, b, c)
    }
    /// `self += f(a, b, c)` where the value of `self` afterwards is never read (an
    /// ancilla being uncomputed whose value is reset or dropped afterwards): on gradient
    /// numbers only the adjoints move. The compiler emits it in the uncomputation of
    /// routines on fresh ancillas (see `nilang_compiler`'s `adjoint` module); the default is
    /// the instruction itself.
    #[inline(always)]
    fn plus_eq_adjoint(&mut self, a: &mut A, b: &mut B, c: &mut C) {
        self.plus_eq(a, b, c)
    }
    /// `self -= f(a, b, c)` where the value of `self` afterwards is never read (see
    /// [`Self::plus_eq_adjoint`]).
    #[inline(always)]
    fn minus_eq_adjoint(&mut self, a: &mut A, b: &mut B, c: &mut C) {
        self.minus_eq(a, b, c)
    }
}
/// `y ^= f(a)` (self-inverse).
#[diagnostic::on_unimplemented(
    message = "no instruction `{Self} ^= {F}({A})`",
    label = "`{Self} ^= {F}({A})` is not defined for these number types",
    note = "in a generic function, bound the number type: `T: nilang::Scalar` (all `+=` functions on floats, `GVar`, `Dual`, ...), or the instruction itself, e.g. `T: nilang::instr::XorEq1<F, ..>`",
    note = "a function of your own on a right-hand side must be declared `#[nilang::primitive]`; a value computed from constants can be wrapped in `cst!(..)`"
)]
pub trait XorEq1<F, A> {
    /// `self ^= f(a)`.
    fn xor_eq(&mut self, a: &mut A);
}
/// `y ^= f(a, b)` (self-inverse).
#[diagnostic::on_unimplemented(
    message = "no instruction `{Self} ^= {F}({A}, {B})`",
    label = "`{Self} ^= {F}({A}, {B})` is not defined for these number types",
    note = "in a generic function, bound the number type: `T: nilang::Scalar` (all `+=` functions on floats, `GVar`, `Dual`, ...), or the instruction itself, e.g. `T: nilang::instr::XorEq2<F, ..>`",
    note = "a function of your own on a right-hand side must be declared `#[nilang::primitive]`; a value computed from constants can be wrapped in `cst!(..)`"
)]
pub trait XorEq2<F, A, B> {
    /// `self ^= f(a, b)`.
    fn xor_eq(&mut self, a: &mut A, b: &mut B);
}
/// `y *= f(a)` / `y /= f(a)`: exact only for number types where multiplication is invertible
/// without rounding (log numbers, tropical numbers).
#[diagnostic::on_unimplemented(
    message = "no instruction `{Self} *= {F}({A})`",
    label = "`{Self} *= {F}({A})` is not defined for these number types",
    note = "in a generic function, bound the number type: `T: nilang::Scalar` (all `+=` functions on floats, `GVar`, `Dual`, ...), or the instruction itself, e.g. `T: nilang::instr::MulEq1<F, ..>`",
    note = "a function of your own on a right-hand side must be declared `#[nilang::primitive]`; a value computed from constants can be wrapped in `cst!(..)`"
)]
pub trait MulEq1<F, A> {
    /// `self *= f(a)`.
    fn mul_eq(&mut self, a: &mut A);
    /// `self /= f(a)`.
    fn div_eq(&mut self, a: &mut A);
}
/// `y *= f(a, b)` / `y /= f(a, b)`.
#[diagnostic::on_unimplemented(
    message = "no instruction `{Self} *= {F}({A}, {B})`",
    label = "`{Self} *= {F}({A}, {B})` is not defined for these number types",
    note = "in a generic function, bound the number type: `T: nilang::Scalar` (all `+=` functions on floats, `GVar`, `Dual`, ...), or the instruction itself, e.g. `T: nilang::instr::MulEq2<F, ..>`",
    note = "a function of your own on a right-hand side must be declared `#[nilang::primitive]`; a value computed from constants can be wrapped in `cst!(..)`"
)]
pub trait MulEq2<F, A, B> {
    /// `self *= f(a, b)`.
    fn mul_eq(&mut self, a: &mut A, b: &mut B);
    /// `self /= f(a, b)`.
    fn div_eq(&mut self, a: &mut A, b: &mut B);
}

impl<T: Plain, F: Func<(A,), Out = T>, A: Copy> PlusEq1<F, A> for T {
    #[inline(always)]
    #[track_caller]
    fn plus_eq(&mut self, a: &mut A) {
        *self += F::eval((*a,));
    }
    #[inline(always)]
    #[track_caller]
    fn minus_eq(&mut self, a: &mut A) {
        *self -= F::eval((*a,));
    }
}
impl<T: Plain, F: Func<(A, B), Out = T>, A: Copy, B: Copy> PlusEq2<F, A, B> for T {
    #[inline(always)]
    #[track_caller]
    fn plus_eq(&mut self, a: &mut A, b: &mut B) {
        *self += F::eval((*a, *b));
    }
    #[inline(always)]
    #[track_caller]
    fn minus_eq(&mut self, a: &mut A, b: &mut B) {
        *self -= F::eval((*a, *b));
    }
}
impl<T: Plain, F: Func<(A, B, C), Out = T>, A: Copy, B: Copy, C: Copy> PlusEq3<F, A, B, C> for T {
    #[inline(always)]
    #[track_caller]
    fn plus_eq(&mut self, a: &mut A, b: &mut B, c: &mut C) {
        *self += F::eval((*a, *b, *c));
    }
    #[inline(always)]
    #[track_caller]
    fn minus_eq(&mut self, a: &mut A, b: &mut B, c: &mut C) {
        *self -= F::eval((*a, *b, *c));
    }
}
/// Tuple targets: `(s, c) += sincos(x)`.
impl<T: Plain, F: Func<(A,), Out = (T, T)>, A: Copy> PlusEq1<F, A> for (T, T) {
    #[inline(always)]
    #[track_caller]
    fn plus_eq(&mut self, a: &mut A) {
        let (u, v) = F::eval((*a,));
        self.0 += u;
        self.1 += v;
    }
    #[inline(always)]
    #[track_caller]
    fn minus_eq(&mut self, a: &mut A) {
        let (u, v) = F::eval((*a,));
        self.0 -= u;
        self.1 -= v;
    }
}
impl<T: Copy + BitXorAssign, F: Func<(A,), Out = T>, A: Copy> XorEq1<F, A> for T {
    #[inline(always)]
    #[track_caller]
    fn xor_eq(&mut self, a: &mut A) {
        *self ^= F::eval((*a,));
    }
}
impl<T: Copy + BitXorAssign, F: Func<(A, B), Out = T>, A: Copy, B: Copy> XorEq2<F, A, B> for T {
    #[inline(always)]
    #[track_caller]
    fn xor_eq(&mut self, a: &mut A, b: &mut B) {
        *self ^= F::eval((*a, *b));
    }
}

/// A float literal in the type of `_like` (used by the compiler).
#[doc(hidden)]
#[inline(always)]
pub fn lit_f<T: FromLiteral>(_like: &T, v: f64) -> T {
    T::from_f64_lit(v)
}
/// Read-only float data (`x[i]` of `x: &[f64]` in a generic `#[i]` function) in the number
/// type of `_like`, the instruction's target: a constant (on `GVar`, zero gradient).
///
/// ```
/// let like = nilang::GVar::from(0.0_f64);
/// let c = nilang::instr::data_f(&like, 2.5_f32);
/// assert_eq!((c.x, c.g), (2.5, 0.0));
/// ```
#[inline(always)]
pub fn data_f<T: FromLiteral>(_like: &T, v: impl Into<f64>) -> T {
    T::from_f64_lit(v.into())
}
/// An integer literal in the type of `_like` (used by the compiler).
#[doc(hidden)]
#[inline(always)]
pub fn lit_i<T: FromLiteral>(_like: &T, v: i64) -> T {
    T::from_i64_lit(v)
}

/// A copy of `x` made by the instruction `c += x` from a zero `c` (used by the compiler when
/// one instruction reads the same element twice, `y += x[a] * x[b]` with `a == b`): unlike a
/// plain copy, its adjoint starts at zero and [`fan_in`] adds it to `x`'s, so both reads are
/// counted. On numbers without adjoints it is the value of `x`.
///
/// ```
/// use nilang::instr::{fan_in, fan_out};
/// use nilang::GVar;
/// let mut x = GVar::new(3.0, 0.5);
/// let mut c = fan_out(&mut x);
/// assert_eq!((c, x), (GVar::new(3.0, 0.0), GVar::new(3.0, 0.5)));
/// c.g += 2.0; // what an instruction's backward rule adds for the read through `c`
/// fan_in(&mut c, &mut x);
/// assert_eq!(x, GVar::new(3.0, 2.5));
/// ```
#[inline(always)]
pub fn fan_out<T: Default + PlusEq1<super::fns::Identity, T>>(x: &mut T) -> T {
    let mut c = T::default();
    c.plus_eq(x);
    c
}

/// Uncomputes a copy made by [`fan_out`] (`c -= x`), adding its adjoint to `x`'s.
#[inline(always)]
pub fn fan_in<T: PlusEq1<super::fns::Identity, T>>(c: &mut T, x: &mut T) {
    c.minus_eq(x);
}
