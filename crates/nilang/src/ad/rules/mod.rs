//! Backward rules: how each function marker acts on gradient numbers.
//!
//! A rule is written once, for `y -= f(a)` on gradient numbers (the direction the backward
//! pass executes), as a reversible `#[i]` program over a [`Scalar`]; the compiler generates
//! its inverse, the `y += f(a)` direction. So every gradient program is itself reversible,
//! and rules over `GVar<GVar<T>>` give second derivatives.
use super::{GVar, Promote, Scalar};
use crate::instr::{PlusEq1, PlusEq2, PlusEq3};

mod convert;
mod elementary;
mod instructions;

/// The backward rule of a one-argument function marker.
pub trait Rule1<T> {
    /// `y += f(..)` where `y`'s value afterwards is never read: only the adjoints need to
    /// move (`y.x` may be left as it was). The default is [`Self::plus`].
    #[inline(always)]
    fn plus_adjoint(y: &mut GVar<T>, a: &mut GVar<T>) {
        Self::plus(y, a)
    }
    /// `y -= f(..)` where `y`'s value afterwards is never read (see [`Self::plus_adjoint`]).
    #[inline(always)]
    fn minus_adjoint(y: &mut GVar<T>, a: &mut GVar<T>) {
        Self::minus(y, a)
    }
    /// `y += f(a)` on gradient numbers.
    fn plus(y: &mut GVar<T>, a: &mut GVar<T>);
    /// `y -= f(a)` on gradient numbers (adjoint propagation `ā += ȳ f'(a)`).
    fn minus(y: &mut GVar<T>, a: &mut GVar<T>);
    /// Whether [`Self::plus_value`]/[`Self::minus_value`] compute the function on values
    /// (the elementary functions do); otherwise value-only instructions run the full rule.
    const VALUE: bool = false;
    /// `y += f(..)` on values: what a gradient instruction does when `y`'s adjoint is zero.
    #[inline(always)]
    fn plus_value(y: &mut T, a: &mut T) {
        let _ = (y, a);
    }
    /// `y -= f(..)` on values (see [`Self::plus_value`]).
    #[inline(always)]
    fn minus_value(y: &mut T, a: &mut T) {
        let _ = (y, a);
    }
}
/// The backward rule of a two-argument function marker.
pub trait Rule2<T> {
    /// `y += f(..)` where `y`'s value afterwards is never read: only the adjoints need to
    /// move (`y.x` may be left as it was). The default is [`Self::plus`].
    #[inline(always)]
    fn plus_adjoint(y: &mut GVar<T>, a: &mut GVar<T>, b: &mut GVar<T>) {
        Self::plus(y, a, b)
    }
    /// `y -= f(..)` where `y`'s value afterwards is never read (see [`Self::plus_adjoint`]).
    #[inline(always)]
    fn minus_adjoint(y: &mut GVar<T>, a: &mut GVar<T>, b: &mut GVar<T>) {
        Self::minus(y, a, b)
    }
    /// `y += f(a, b)` on gradient numbers.
    fn plus(y: &mut GVar<T>, a: &mut GVar<T>, b: &mut GVar<T>);
    /// `y -= f(a, b)` on gradient numbers.
    fn minus(y: &mut GVar<T>, a: &mut GVar<T>, b: &mut GVar<T>);
    /// Whether [`Self::plus_value`]/[`Self::minus_value`] compute the function on values
    /// (the elementary functions do); otherwise value-only instructions run the full rule.
    const VALUE: bool = false;
    /// `y += f(..)` on values: what a gradient instruction does when `y`'s adjoint is zero.
    #[inline(always)]
    fn plus_value(y: &mut T, a: &mut T, b: &mut T) {
        let _ = (y, a, b);
    }
    /// `y -= f(..)` on values (see [`Self::plus_value`]).
    #[inline(always)]
    fn minus_value(y: &mut T, a: &mut T, b: &mut T) {
        let _ = (y, a, b);
    }
}
/// The backward rule of a three-argument function marker.
pub trait Rule3<T> {
    /// `y += f(..)` where `y`'s value afterwards is never read: only the adjoints need to
    /// move (`y.x` may be left as it was). The default is [`Self::plus`].
    #[inline(always)]
    fn plus_adjoint(y: &mut GVar<T>, a: &mut GVar<T>, b: &mut GVar<T>, c: &mut GVar<T>) {
        Self::plus(y, a, b, c)
    }
    /// `y -= f(..)` where `y`'s value afterwards is never read (see [`Self::plus_adjoint`]).
    #[inline(always)]
    fn minus_adjoint(y: &mut GVar<T>, a: &mut GVar<T>, b: &mut GVar<T>, c: &mut GVar<T>) {
        Self::minus(y, a, b, c)
    }
    /// `y += f(a, b, c)` on gradient numbers.
    fn plus(y: &mut GVar<T>, a: &mut GVar<T>, b: &mut GVar<T>, c: &mut GVar<T>);
    /// `y -= f(a, b, c)` on gradient numbers.
    fn minus(y: &mut GVar<T>, a: &mut GVar<T>, b: &mut GVar<T>, c: &mut GVar<T>);
    /// Whether [`Self::plus_value`]/[`Self::minus_value`] compute the function on values
    /// (the elementary functions do); otherwise value-only instructions run the full rule.
    const VALUE: bool = false;
    /// `y += f(..)` on values: what a gradient instruction does when `y`'s adjoint is zero.
    #[inline(always)]
    fn plus_value(y: &mut T, a: &mut T, b: &mut T, c: &mut T) {
        let _ = (y, a, b, c);
    }
    /// `y -= f(..)` on values (see [`Self::plus_value`]).
    #[inline(always)]
    fn minus_value(y: &mut T, a: &mut T, b: &mut T, c: &mut T) {
        let _ = (y, a, b, c);
    }
}

// Operands are gradient numbers `GVar<T>` or plain constants `T` (see [`Promote`]). The impls
// are spelled out per operand mix (rather than generic over `A: Promote<T>`) so that other
// operand types (a complex operand of `abs` into a real target, see `ad::complex`) can have
// their own impls without overlapping these.
//
// Every operand, the target too, is read into a local here and written back here (these
// wrappers are `inline(always)`, so the reads and writes sit in the `#[i]` function that runs
// the instruction): its `&mut` parameters' `noalias` then covers them, where the rule's own
// reads (the rules are `#[i]` functions that LLVM inlines later) would carry none, and an
// adjoint written to one slice would make every later read of another slice reload (and
// every store stay).
macro_rules! plus_eq1 {
    ($($A:ty),*) => {$(
        impl<T: Scalar, F: Rule1<T>> PlusEq1<F, $A> for GVar<T> {
            #[inline(always)]
            fn plus_eq(&mut self, a: &mut $A) {
                let mut gy = *self;
                let mut ga = a.promote();
                F::plus(&mut gy, &mut ga);
                a.restore(ga);
                *self = gy;
            }
            #[inline(always)]
            fn minus_eq(&mut self, a: &mut $A) {
                let mut gy = *self;
                let mut ga = a.promote();
                F::minus(&mut gy, &mut ga);
                a.restore(ga);
                *self = gy;
            }
            #[inline(always)]
            fn plus_eq_adjoint(&mut self, a: &mut $A) {
                let mut gy = *self;
                let mut ga = a.promote();
                if T::HAS_ADJOINT { F::plus(&mut gy, &mut ga) } else { F::plus_adjoint(&mut gy, &mut ga) }
                a.restore(ga);
                *self = gy;
            }
            #[inline(always)]
            fn minus_eq_adjoint(&mut self, a: &mut $A) {
                let mut gy = *self;
                let mut ga = a.promote();
                if T::HAS_ADJOINT { F::minus(&mut gy, &mut ga) } else { F::minus_adjoint(&mut gy, &mut ga) }
                a.restore(ga);
                *self = gy;
            }
            #[inline(always)]
            fn plus_eq_primal(&mut self, a: &mut $A) {
                if F::VALUE && !T::HAS_ADJOINT {
                    F::plus_value(&mut self.x, a.primal_part())
                } else {
                    <Self as PlusEq1<F, $A>>::plus_eq(self, a)
                }
            }
            #[inline(always)]
            fn minus_eq_primal(&mut self, a: &mut $A) {
                if F::VALUE && !T::HAS_ADJOINT {
                    F::minus_value(&mut self.x, a.primal_part())
                } else {
                    <Self as PlusEq1<F, $A>>::minus_eq(self, a)
                }
            }
        }
    )*};
}
plus_eq1!(GVar<T>, T);
macro_rules! plus_eq2 {
    ($(($A:ty, $B:ty)),*) => {$(
        impl<T: Scalar, F: Rule2<T>> PlusEq2<F, $A, $B> for GVar<T> {
            #[inline(always)]
            fn plus_eq(&mut self, a: &mut $A, b: &mut $B) {
                let mut gy = *self;
                let (mut ga, mut gb) = (a.promote(), b.promote());
                F::plus(&mut gy, &mut ga, &mut gb);
                a.restore(ga);
                b.restore(gb);
                *self = gy;
            }
            #[inline(always)]
            fn minus_eq(&mut self, a: &mut $A, b: &mut $B) {
                let mut gy = *self;
                let (mut ga, mut gb) = (a.promote(), b.promote());
                F::minus(&mut gy, &mut ga, &mut gb);
                a.restore(ga);
                b.restore(gb);
                *self = gy;
            }
            #[inline(always)]
            fn plus_eq_adjoint(&mut self, a: &mut $A, b: &mut $B) {
                let mut gy = *self;
                let (mut ga, mut gb) = (a.promote(), b.promote());
                if T::HAS_ADJOINT { F::plus(&mut gy, &mut ga, &mut gb) } else { F::plus_adjoint(&mut gy, &mut ga, &mut gb) }
                a.restore(ga);
                b.restore(gb);
                *self = gy;
            }
            #[inline(always)]
            fn minus_eq_adjoint(&mut self, a: &mut $A, b: &mut $B) {
                let mut gy = *self;
                let (mut ga, mut gb) = (a.promote(), b.promote());
                if T::HAS_ADJOINT { F::minus(&mut gy, &mut ga, &mut gb) } else { F::minus_adjoint(&mut gy, &mut ga, &mut gb) }
                a.restore(ga);
                b.restore(gb);
                *self = gy;
            }
            #[inline(always)]
            fn plus_eq_primal(&mut self, a: &mut $A, b: &mut $B) {
                if F::VALUE && !T::HAS_ADJOINT {
                    F::plus_value(&mut self.x, a.primal_part(), b.primal_part())
                } else {
                    <Self as PlusEq2<F, $A, $B>>::plus_eq(self, a, b)
                }
            }
            #[inline(always)]
            fn minus_eq_primal(&mut self, a: &mut $A, b: &mut $B) {
                if F::VALUE && !T::HAS_ADJOINT {
                    F::minus_value(&mut self.x, a.primal_part(), b.primal_part())
                } else {
                    <Self as PlusEq2<F, $A, $B>>::minus_eq(self, a, b)
                }
            }
        }
    )*};
}
plus_eq2!((GVar<T>, GVar<T>), (GVar<T>, T), (T, GVar<T>), (T, T));
macro_rules! plus_eq3 {
    ($(($A:ty, $B:ty, $C:ty)),*) => {$(
        impl<T: Scalar, F: Rule3<T>> PlusEq3<F, $A, $B, $C> for GVar<T> {
            #[inline(always)]
            fn plus_eq(&mut self, a: &mut $A, b: &mut $B, c: &mut $C) {
                let mut gy = *self;
                let (mut ga, mut gb, mut gc) = (a.promote(), b.promote(), c.promote());
                F::plus(&mut gy, &mut ga, &mut gb, &mut gc);
                a.restore(ga);
                b.restore(gb);
                c.restore(gc);
                *self = gy;
            }
            #[inline(always)]
            fn minus_eq(&mut self, a: &mut $A, b: &mut $B, c: &mut $C) {
                let mut gy = *self;
                let (mut ga, mut gb, mut gc) = (a.promote(), b.promote(), c.promote());
                F::minus(&mut gy, &mut ga, &mut gb, &mut gc);
                a.restore(ga);
                b.restore(gb);
                c.restore(gc);
                *self = gy;
            }
            #[inline(always)]
            fn plus_eq_primal(&mut self, a: &mut $A, b: &mut $B, c: &mut $C) {
                if F::VALUE && !T::HAS_ADJOINT {
                    F::plus_value(&mut self.x, a.primal_part(), b.primal_part(), c.primal_part())
                } else {
                    <Self as PlusEq3<F, $A, $B, $C>>::plus_eq(self, a, b, c)
                }
            }
            #[inline(always)]
            fn minus_eq_primal(&mut self, a: &mut $A, b: &mut $B, c: &mut $C) {
                if F::VALUE && !T::HAS_ADJOINT {
                    F::minus_value(&mut self.x, a.primal_part(), b.primal_part(), c.primal_part())
                } else {
                    <Self as PlusEq3<F, $A, $B, $C>>::minus_eq(self, a, b, c)
                }
            }
        }
    )*};
}
plus_eq3!(
    (GVar<T>, GVar<T>, GVar<T>),
    (GVar<T>, GVar<T>, T),
    (GVar<T>, T, GVar<T>),
    (GVar<T>, T, T),
    (T, GVar<T>, GVar<T>),
    (T, GVar<T>, T),
    (T, T, GVar<T>),
    (T, T, T)
);
