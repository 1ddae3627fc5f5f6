//! Complex gradients: `Complex<GVar<T>>` is the gradient number of a complex variable, with
//! one adjoint per part (`z.re.g = ∂L/∂Re z`, `z.im.g = ∂L/∂Im z`; NiLang's convention, the
//! loss being real).
//!
//! As in NiLang, every complex instruction is a reversible `#[i]` program over the real parts,
//! so its inverse and its gradient follow from the real rules: `y += a + b`, `a - b`, `a * b`,
//! `a / b` (operands complex gradient numbers, plain complex constants, real gradient numbers
//! or real constants), `y += -a`, `identity(a)`, `conj(a)`, `exp(a)`, `ln(a)` into a complex
//! target, and `abs(z)`, `abs2(z)` of a complex `z` into a real target.
//!
//! ```
//! use nilang::prelude::*;
//! use num_complex::Complex;
//! #[i]
//! fn f<C: nilang::ad::ComplexOps<T>, T>(y: &mut C, z: &mut C) {
//!     y += ln(z);
//! }
//! // forward on plain numbers, then the inverse on gradient numbers with ∂L/∂y seeded
//! let (mut y, mut z) = (Complex::new(2.0, 3.0), Complex::new(2.0, -1.0));
//! f::<_, f64>(&mut y, &mut z);
//! let g = |x: f64, g: f64| GVar::new(x, g);
//! let mut gy = Complex::new(g(y.re, 3.0), g(y.im, 3.0));
//! let mut gz = Complex::new(g(z.re, 0.0), g(z.im, 0.0));
//! f_inv::<_, GVar<f64>>(&mut gy, &mut gz);
//! assert!((gz.re.g - 1.8).abs() < 1e-15 && (gz.im.g - 0.6).abs() < 1e-15);
//! ```
use super::{GVar, Scalar};
use crate::i;
use crate::instr::fns::*;
use crate::instr::{PlusEq1, PlusEq2};
use crate::numbers::conj;
use num_complex::Complex;

/// A trait and its blanket impl from one list of bounds (`Self` is the implementing type).
macro_rules! bound_alias {
    ($(#[$m:meta])* pub trait $name:ident<$R:ident>: $first:path $(, $bound:path)* ;) => {
        $(#[$m])*
        pub trait $name<$R>: $first $(+ $bound)* {}
        impl<C: $first, $R> $name<$R> for C where $(Self: $bound),* {}
    };
}

bound_alias! {
    /// The complex instructions on `Self` with real numbers `R`, as one bound for generic
    /// programs: `C: ComplexOps<R>` holds for `Complex<f64>` (with `R = f64`) and for
    /// `Complex<GVar<f64>>` (with `R = GVar<f64>`).
    ///
    /// ```
    /// use nilang::prelude::*;
    /// use nilang::ad::ComplexOps;
    /// #[i]
    /// fn f<C: ComplexOps<R>, R>(y: &mut C, a: &mut C, r: &mut R) {
    ///     y += a * r;
    ///     y += exp(a);
    /// }
    /// ```
    pub trait ComplexOps<R>: Copy,
        PlusEq1<Identity, Self>, PlusEq1<Neg, Self>, PlusEq1<conj, Self>, PlusEq1<Exp, Self>,
        PlusEq1<Ln, Self>, PlusEq2<Add, Self, Self>, PlusEq2<Sub, Self, Self>,
        PlusEq2<Mul, Self, Self>, PlusEq2<Div, Self, Self>, PlusEq2<Add, Self, R>,
        PlusEq2<Add, R, Self>, PlusEq2<Sub, Self, R>, PlusEq2<Sub, R, Self>,
        PlusEq2<Mul, Self, R>, PlusEq2<Mul, R, Self>, PlusEq2<Div, Self, R>,
        PlusEq2<Div, R, Self>;
}

/// An operand of a complex gradient instruction: a complex gradient number, or a constant
/// (complex or real, plain or a real gradient number), promoted to `Complex<GVar<T>>`.
pub trait CPromote<T> {
    /// The operand as a complex gradient number.
    fn cpromote(&self) -> Complex<GVar<T>>;
    /// Write the (possibly updated) gradient number back.
    fn crestore(&mut self, v: Complex<GVar<T>>);
}
impl<T: Scalar> CPromote<T> for Complex<GVar<T>> {
    #[inline(always)]
    fn cpromote(&self) -> Complex<GVar<T>> {
        *self
    }
    #[inline(always)]
    fn crestore(&mut self, v: Complex<GVar<T>>) {
        *self = v;
    }
}
impl<T: Scalar> CPromote<T> for Complex<T> {
    #[inline(always)]
    fn cpromote(&self) -> Complex<GVar<T>> {
        Complex::new(GVar::from(self.re), GVar::from(self.im))
    }
    #[inline(always)]
    fn crestore(&mut self, v: Complex<GVar<T>>) {
        *self = Complex::new(v.re.x, v.im.x);
    }
}
impl<T: Scalar> CPromote<T> for GVar<T> {
    #[inline(always)]
    fn cpromote(&self) -> Complex<GVar<T>> {
        Complex::new(*self, GVar::default())
    }
    #[inline(always)]
    fn crestore(&mut self, v: Complex<GVar<T>>) {
        *self = v.re;
    }
}
impl<T: Scalar> CPromote<T> for T {
    #[inline(always)]
    fn cpromote(&self) -> Complex<GVar<T>> {
        Complex::new(GVar::from(*self), GVar::default())
    }
    #[inline(always)]
    fn crestore(&mut self, v: Complex<GVar<T>>) {
        *self = v.re.x;
    }
}

#[i(nocheck, norev)]
fn c_identity<T: Scalar>(y: &mut Complex<T>, a: &mut Complex<T>) {
    y.re += a.re;
    y.im += a.im;
}
#[i(nocheck, norev)]
fn c_neg<T: Scalar>(y: &mut Complex<T>, a: &mut Complex<T>) {
    y.re -= a.re;
    y.im -= a.im;
}
#[i(nocheck, norev)]
fn c_conj<T: Scalar>(y: &mut Complex<T>, a: &mut Complex<T>) {
    y.re += a.re;
    y.im -= a.im;
}
#[i(nocheck, norev)]
fn c_exp<T: Scalar>(y: &mut Complex<T>, a: &mut Complex<T>) {
    routine! {
        let e = T::default();
        e += exp(a.re);
        let (s, c) = (T::default(), T::default());
        s += sin(a.im);
        c += cos(a.im);
    }
    y.re += e * c;
    y.im += e * s;
    unroutine!();
}
#[i(nocheck, norev)]
fn c_ln<T: Scalar>(y: &mut Complex<T>, a: &mut Complex<T>) {
    routine! {
        let n = T::default();
        n += hypot(a.re, a.im);
    }
    y.re += ln(n);
    unroutine!();
    y.im += atan2(a.im, a.re);
}
#[i(nocheck, norev)]
fn c_add<T: Scalar>(y: &mut Complex<T>, a: &mut Complex<T>, b: &mut Complex<T>) {
    y.re += a.re + b.re;
    y.im += a.im + b.im;
}
#[i(nocheck, norev)]
fn c_sub<T: Scalar>(y: &mut Complex<T>, a: &mut Complex<T>, b: &mut Complex<T>) {
    y.re += a.re - b.re;
    y.im += a.im - b.im;
}
#[i(nocheck, norev)]
fn c_mul<T: Scalar>(y: &mut Complex<T>, a: &mut Complex<T>, b: &mut Complex<T>) {
    y.re += a.re * b.re;
    y.re -= a.im * b.im;
    y.im += a.re * b.im;
    y.im += a.im * b.re;
}
#[i(nocheck, norev)]
fn c_div<T: Scalar>(y: &mut Complex<T>, a: &mut Complex<T>, b: &mut Complex<T>) {
    // a / b = a conj(b) / |b|²
    routine! {
        let d = T::default();
        d += abs2(b.re);
        d += abs2(b.im);
        let (p, q) = (T::default(), T::default());
        p += a.re * b.re;
        p += a.im * b.im;
        q += a.im * b.re;
        q -= a.re * b.im;
    }
    y.re += p / d;
    y.im += q / d;
    unroutine!();
}
#[i(nocheck, norev)]
fn c_abs<T: Scalar>(y: &mut T, a: &mut Complex<T>) {
    y += hypot(a.re, a.im);
}
#[i(nocheck, norev)]
fn c_abs2<T: Scalar>(y: &mut T, a: &mut Complex<T>) {
    y += abs2(a.re);
    y += abs2(a.im);
}

macro_rules! complex_unary {
    ($($F:ty => $plus:ident, $minus:ident);* $(;)?) => {$(
        impl<T: Scalar, A: CPromote<T>> PlusEq1<$F, A> for Complex<GVar<T>> {
            #[inline(always)]
            fn plus_eq(&mut self, a: &mut A) {
                let mut ga = a.cpromote();
                $plus::<GVar<T>>(self, &mut ga);
                a.crestore(ga);
            }
            #[inline(always)]
            fn minus_eq(&mut self, a: &mut A) {
                let mut ga = a.cpromote();
                $minus::<GVar<T>>(self, &mut ga);
                a.crestore(ga);
            }
        }
    )*};
}
complex_unary!(
    Identity => c_identity, c_identity_inv;
    Neg => c_neg, c_neg_inv;
    conj => c_conj, c_conj_inv;
    Exp => c_exp, c_exp_inv;
    Ln => c_ln, c_ln_inv;
);
macro_rules! complex_binary {
    ($($F:ty => $plus:ident, $minus:ident);* $(;)?) => {$(
        impl<T: Scalar, A: CPromote<T>, B: CPromote<T>> PlusEq2<$F, A, B> for Complex<GVar<T>> {
            #[inline(always)]
            fn plus_eq(&mut self, a: &mut A, b: &mut B) {
                let (mut ga, mut gb) = (a.cpromote(), b.cpromote());
                $plus::<GVar<T>>(self, &mut ga, &mut gb);
                a.crestore(ga);
                b.crestore(gb);
            }
            #[inline(always)]
            fn minus_eq(&mut self, a: &mut A, b: &mut B) {
                let (mut ga, mut gb) = (a.cpromote(), b.cpromote());
                $minus::<GVar<T>>(self, &mut ga, &mut gb);
                a.crestore(ga);
                b.crestore(gb);
            }
        }
    )*};
}
complex_binary!(
    Add => c_add, c_add_inv;
    Sub => c_sub, c_sub_inv;
    Mul => c_mul, c_mul_inv;
    Div => c_div, c_div_inv;
);
macro_rules! complex_to_real {
    ($($F:ty => $plus:ident, $minus:ident);* $(;)?) => {$(
        impl<T: Scalar> PlusEq1<$F, Complex<GVar<T>>> for GVar<T> {
            #[inline(always)]
            fn plus_eq(&mut self, a: &mut Complex<GVar<T>>) {
                $plus::<GVar<T>>(self, a);
            }
            #[inline(always)]
            fn minus_eq(&mut self, a: &mut Complex<GVar<T>>) {
                $minus::<GVar<T>>(self, a);
            }
        }
    )*};
}
complex_to_real!(
    Abs => c_abs, c_abs_inv;
    Abs2 => c_abs2, c_abs2_inv;
);
