//! Gradient rules of the primitive instructions: tuple `sincos`, `ROT`/`IROT`, `INV`.
//! (`SWAP` needs none; `NEG`, `INC`/`DEC` and `HADAMARD` are in `gvar.rs`.)
use super::elementary::{sincos_rule, sincos_rule_inv};
use crate::ad::{GVar, Promote, Scalar};
use crate::i;
use crate::instr::basic::{INV_inv, IROT_inv, Reciprocate, Rotate, SWAP_inv, INV, IROT, SWAP};
use crate::instr::fns::{Cos, Sin, SinCos};
use crate::instr::PlusEq1;

impl<T: Scalar, A: Promote<T>> PlusEq1<SinCos, A> for (GVar<T>, GVar<T>) {
    #[inline(always)]
    fn plus_eq(&mut self, a: &mut A) {
        let mut ga = a.promote();
        sincos_rule_inv(&mut self.0, &mut self.1, &mut ga);
        a.restore(ga);
    }
    #[inline(always)]
    fn minus_eq(&mut self, a: &mut A) {
        let mut ga = a.promote();
        sincos_rule(&mut self.0, &mut self.1, &mut ga);
        a.restore(ga);
    }
    #[inline(always)]
    fn plus_eq_primal(&mut self, a: &mut A) {
        if T::HAS_ADJOINT {
            self.plus_eq(a)
        } else {
            let x = a.primal_part();
            <T as PlusEq1<Sin, T>>::plus_eq(&mut self.0.x, x);
            <T as PlusEq1<Cos, T>>::plus_eq(&mut self.1.x, x);
        }
    }
    #[inline(always)]
    fn minus_eq_primal(&mut self, a: &mut A) {
        if T::HAS_ADJOINT {
            self.minus_eq(a)
        } else {
            let x = a.primal_part();
            <T as PlusEq1<Sin, T>>::minus_eq(&mut self.0.x, x);
            <T as PlusEq1<Cos, T>>::minus_eq(&mut self.1.x, x);
        }
    }
}

/// `IROT` on gradient numbers: restores the values, rotates the adjoints back and accumulates
/// the angle's adjoint `θ̄ += b̄·a − ā·b` (with the rotated values).
#[i(nocheck, norev)]
#[inline(always)] // a leaf: compiled into its caller (its SIMD width, `crate::simd`)
fn irot_rule<T: Scalar + Rotate<T>>(a: &mut GVar<T>, b: &mut GVar<T>, t: &mut GVar<T>) {
    t.g += b.g * a.x;
    t.g -= a.g * b.x;
    IROT(&mut a.x, &mut b.x, &mut t.x);
    IROT(&mut a.g, &mut b.g, &mut t.x);
}

impl<T: Scalar + Rotate<T>> Rotate<GVar<T>> for GVar<T> {
    #[inline(always)]
    fn rot(a: &mut Self, b: &mut Self, theta: &mut GVar<T>) {
        irot_rule_inv(a, b, theta)
    }
    #[inline(always)]
    fn irot(a: &mut Self, b: &mut Self, theta: &mut GVar<T>) {
        irot_rule(a, b, theta)
    }
}
impl<T: Scalar + Rotate<T>> Rotate<T> for GVar<T> {
    #[inline(always)]
    fn rot(a: &mut Self, b: &mut Self, theta: &mut T) {
        let mut t = theta.promote();
        irot_rule_inv(a, b, &mut t);
        theta.restore(t);
    }
    #[inline(always)]
    fn irot(a: &mut Self, b: &mut Self, theta: &mut T) {
        let mut t = theta.promote();
        irot_rule(a, b, &mut t);
        theta.restore(t);
    }
}

/// `INV` on a gradient number: `(y, ȳ) -> (1/y, −ȳ y²)`, written as a reversible program over
/// `T` (so that it has second derivatives): `t = −ȳ y²`, `ȳ += t / y²` (now zero), swap.
#[i(nocheck, norev)]
#[inline(always)] // a leaf: compiled into its caller (its SIMD width, `crate::simd`)
fn inv_rule<T: Scalar + Reciprocate>(v: &mut GVar<T>) {
    routine! {
        let s = T::default();
        s += abs2(v.x);
    }
    let t = T::default();
    t -= v.g * s;
    v.g += t / s;
    unroutine!();
    SWAP(&mut v.g, &mut t);
    dealloc!(t = T::default());
    INV(&mut v.x);
}

impl<T: Scalar + Reciprocate> Reciprocate for GVar<T> {
    /// `INV` on a gradient number: `(y, ȳ) -> (1/y, −ȳ y²)` (self-inverse).
    #[inline(always)]
    fn reciprocate(&mut self) {
        inv_rule(self)
    }
}
