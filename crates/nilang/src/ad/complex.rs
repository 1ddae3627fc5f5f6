//! Complex gradients: `Complex<GVar<T>>` is the gradient number of a complex variable, with
//! one adjoint per part (`z.re.g = ∂L/∂Re z`, `z.im.g = ∂L/∂Im z`; NiLang's convention, the
//! loss being real).
//!
//! As in NiLang, every complex instruction is a reversible `#[i]` program over the real parts,
//! so its inverse and its gradient follow from the real rules: `y += a + b`, `a - b`, `a * b`,
//! `a / b` (operands complex gradient numbers, plain complex constants, real gradient numbers
//! or real constants), `y += -a`, `identity(a)`, `conj(a)`, `exp(a)`, `ln(a)` into a complex
//! target, and `abs(z)`, `abs2(z)` of a complex `z` into a real target. The product
//! `y += a * b` of two complex numbers has one pairwise rule (`ā += ȳ·conj(b)`,
//! `b̄ += ȳ·conj(a)`, each formed whole and added once, and an adjoint-only variant), not four
//! real instructions. A complex slice `&mut [Complex<f64>]` is an argument of the gradient API.
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
use super::args::{Elem, GradArg, Lift, Slots};
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
    pub trait ComplexOps<R>: Copy, Default,
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
/// The adjoints of `y -= a·b` (complex, on gradient numbers), pairwise: `ā += ȳ·conj(b)` and
/// `b̄ += ȳ·conj(a)`, each increment formed whole and added once (a running sum `b̄` over a loop
/// then carries one addition per part per product, not two). The values do not move.
#[i(nocheck, norev)]
#[inline(always)] // a leaf: compiled into its caller (its SIMD width, `crate::simd`)
fn c_mul_adjoint<T: Scalar>(
    y: &mut Complex<GVar<T>>,
    a: &mut Complex<GVar<T>>,
    b: &mut Complex<GVar<T>>,
) {
    routine! {
        let (ar, ai, br, bi) = (T::lit(-0.0), T::lit(-0.0), T::lit(-0.0), T::lit(-0.0));
        ar += y.re.g * b.re.x;
        ar += y.im.g * b.im.x;
        ai += y.im.g * b.re.x;
        ai -= y.re.g * b.im.x;
        br += y.re.g * a.re.x;
        br += y.im.g * a.im.x;
        bi += y.im.g * a.re.x;
        bi -= y.re.g * a.im.x;
    }
    a.re.g += ar;
    a.im.g += ai;
    b.re.g += br;
    b.im.g += bi;
    unroutine!();
}
/// `y -= a·b` on complex gradient numbers: the adjoints ([`c_mul_adjoint`]), then the value.
/// Its inverse `c_mul_rule_inv` is `y += a·b`.
#[i(nocheck, norev)]
#[inline(always)]
fn c_mul_rule<T: Scalar>(
    y: &mut Complex<GVar<T>>,
    a: &mut Complex<GVar<T>>,
    b: &mut Complex<GVar<T>>,
) {
    c_mul_adjoint(y, a, b);
    y.re.x -= a.re.x * b.re.x;
    y.re.x += a.im.x * b.im.x;
    y.im.x -= a.re.x * b.im.x;
    y.im.x -= a.im.x * b.re.x;
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

/// `y += a·b` on complex gradient numbers by one pairwise rule (`c_mul_rule`): the product
/// as one instruction, not four real ones, so the adjoint of a product summed in a loop
/// (`y[i] += a[p] * x[j]`: `x̄[j]`) is one complex addition per product.
impl<T: Scalar, A: CPromote<T>, B: CPromote<T>> PlusEq2<Mul, A, B> for Complex<GVar<T>> {
    #[inline(always)]
    fn plus_eq(&mut self, a: &mut A, b: &mut B) {
        let (mut ga, mut gb) = (a.cpromote(), b.cpromote());
        c_mul_rule_inv::<T>(self, &mut ga, &mut gb);
        a.crestore(ga);
        b.crestore(gb);
    }
    #[inline(always)]
    fn minus_eq(&mut self, a: &mut A, b: &mut B) {
        let (mut ga, mut gb) = (a.cpromote(), b.cpromote());
        c_mul_rule::<T>(self, &mut ga, &mut gb);
        a.crestore(ga);
        b.crestore(gb);
    }
    /// The adjoints only (`self`'s value is never read again); over second-order numbers
    /// (`T` with adjoints of its own) the whole rule.
    #[inline(always)]
    fn plus_eq_adjoint(&mut self, a: &mut A, b: &mut B) {
        if T::HAS_ADJOINT {
            return <Self as PlusEq2<Mul, A, B>>::plus_eq(self, a, b);
        }
        let (mut ga, mut gb) = (a.cpromote(), b.cpromote());
        c_mul_adjoint_inv::<T>(self, &mut ga, &mut gb);
        a.crestore(ga);
        b.crestore(gb);
    }
    /// See [`Self::plus_eq_adjoint`].
    #[inline(always)]
    fn minus_eq_adjoint(&mut self, a: &mut A, b: &mut B) {
        if T::HAS_ADJOINT {
            return <Self as PlusEq2<Mul, A, B>>::minus_eq(self, a, b);
        }
        let (mut ga, mut gb) = (a.cpromote(), b.cpromote());
        c_mul_adjoint::<T>(self, &mut ga, &mut gb);
        a.crestore(ga);
        b.crestore(gb);
    }
}

/// A complex slice `&mut [Complex<E>]` as an argument of the gradient API: lifted into complex
/// gradient numbers `Complex<GVar<S>>` (the function runs on them, e.g. with `T = GVar<f64>` in
/// `fn f<T: Scalar>(y: &mut [Complex<T>], ..)`); its slots are the real parts in order
/// `[re, im, re, im, ..]` ([`Slots::Pairs`]; an output's seed has `2n` adjoints: `∂L/∂Re`, `∂L/∂Im` per number).
///
/// ```
/// use nilang::prelude::*;
/// use nilang::instr::{PlusEq2, fns::Mul};
/// use num_complex::Complex;
/// #[i]
/// fn cmul<T: Scalar>(y: &mut [Complex<T>], a: &mut [Complex<T>], b: &mut [Complex<T>])
/// where
///     Complex<T>: PlusEq2<Mul, Complex<T>, Complex<T>>,
/// {
///     for i in 0..y.len() {
///         y[i] += a[i] * b[i];
///     }
/// }
/// let (mut y, mut a, mut b) = ([Complex::new(0.0, 0.0)], [Complex::new(1.0, 2.0)], [Complex::new(3.0, 4.0)]);
/// let mut plan = nilang::ad::Plan::new();
/// // L = Re y: ā = conj(b) = 3 - 4i, b̄ = conj(a) = 1 - 2i
/// let (_, ga, gb) = plan.vjp(&Cmul, (&mut y[..], &mut a[..], &mut b[..]), 0, &[1.0, 0.0]);
/// assert_eq!((ga[0].re.g, ga[0].im.g), (3.0, -4.0));
/// assert_eq!((gb[0].re.g, gb[0].im.g), (1.0, -2.0));
/// ```
impl<E: Elem> GradArg<E> for &mut [Complex<E>] {
    type Store<S: Lift<E>> = Vec<Complex<GVar<S>>>;
    type Borrow<'b, S: Lift<E> + 'b> = &'b mut [Complex<GVar<S>>];
    #[inline]
    fn store<S: Lift<E>>(&self) -> Vec<Complex<GVar<S>>> {
        self.iter()
            .map(|z| Complex::new(GVar::from(S::lift(z.re)), GVar::from(S::lift(z.im))))
            .collect()
    }
    #[inline]
    fn fits<S: Lift<E>>(&self, st: &Vec<Complex<GVar<S>>>) -> bool {
        st.len() == self.len()
    }
    /// The parts lifted in one stream, `re` and `im` of each number in order, by
    /// [`Lift::lift_slice`] (`f64`: whole vectors of gradient numbers where the CPU has them,
    /// the bits of the element loop).
    #[inline]
    fn refresh<S: Lift<E>>(&self, st: &mut Vec<Complex<GVar<S>>>) {
        use super::gvar_slices::{complex_parts, complex_parts_mut};
        S::lift_slice(complex_parts_mut(st), complex_parts(self));
    }
    #[inline]
    fn borrow<S: Lift<E>>(s: &mut Vec<Complex<GVar<S>>>) -> &mut [Complex<GVar<S>>] {
        s
    }
    fn slots<S: Lift<E>>(s: &mut Vec<Complex<GVar<S>>>) -> Slots<'_, S> {
        Slots::Pairs(s)
    }
    #[inline]
    fn restore<S: Lift<E>>(&mut self, s: &Vec<Complex<GVar<S>>>) {
        for (d, v) in self.iter_mut().zip(s) {
            *d = Complex::new(v.re.x.lower(), v.im.x.lower());
        }
    }
}
