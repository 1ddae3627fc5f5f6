//! Complex numbers (`num_complex::Complex<f32>` / `Complex<f64>`) in instructions.
//!
//! `y += a * b`, `a / b`, `a + b`, `a - b`, `-a` (complex or mixed with a real) work through
//! the standard operators of `num_complex`. This module adds the elementary functions on a
//! complex argument (`exp ln sqrt inv sin cos tan sinh cosh tanh asin acos atan`, `powf` with a
//! real or complex exponent, `powi`), the real-valued `abs`, `abs2` and [`arg`] (into a real
//! target), [`conj`] and the constructor [`complex`]`(re, im)`.
//!
//! ```
//! use nilang::instr::{PlusEq1, PlusEq2, fns::{Exp, Abs2}};
//! use nilang::numbers::complex;
//! use num_complex::Complex64;
//! let (mut y, mut z) = (Complex64::new(0.0, 0.0), Complex64::new(1.0, 2.0));
//! PlusEq1::<Exp, _>::plus_eq(&mut y, &mut z);
//! assert_eq!(y, z.exp());
//! let mut r = 0.0;
//! PlusEq1::<Abs2, _>::plus_eq(&mut r, &mut z);
//! assert_eq!(r, 5.0);
//! PlusEq2::<complex, _, _>::plus_eq(&mut y, &mut 2.0, &mut 3.0);
//! assert_eq!(y, z.exp() + Complex64::new(2.0, 3.0));
//! ```
use crate::instr::fns::*;
use crate::instr::Func;
use crate::numbers::Real;
use num_complex::Complex;
use num_traits::Float;

/// Marker of `arg(z)`: the argument (phase angle) of a complex number, into a real target
/// (NiLang's `angle`).
#[allow(non_camel_case_types)]
#[derive(Clone, Copy, Debug, Default)]
pub struct arg {}
/// Marker of `conj(z)`: the complex conjugate.
#[allow(non_camel_case_types)]
#[derive(Clone, Copy, Debug, Default)]
pub struct conj {}
/// Marker of `complex(re, im)`: a complex number from two reals.
#[allow(non_camel_case_types)]
#[derive(Clone, Copy, Debug, Default)]
pub struct complex {}

macro_rules! complex_unary {
    ($($m:ty => $f:ident),*) => {$(
        impl<T: Float> Func<(Complex<T>,)> for $m {
            type Out = Complex<T>;
            #[inline(always)]
            fn eval(a: (Complex<T>,)) -> Complex<T> {
                a.0.$f()
            }
        }
    )*};
}
complex_unary!(Exp => exp, Ln => ln, Sqrt => sqrt, Recip => inv, Sin => sin, Cos => cos,
    Tan => tan, Sinh => sinh, Cosh => cosh, Tanh => tanh, Asin => asin, Acos => acos,
    Atan => atan, conj => conj);
macro_rules! complex_real {
    ($($m:ty => $f:ident),*) => {$(
        impl<T: Float> Func<(Complex<T>,)> for $m {
            type Out = T;
            #[inline(always)]
            fn eval(a: (Complex<T>,)) -> T {
                a.0.$f()
            }
        }
    )*};
}
complex_real!(Abs => norm, Abs2 => norm_sqr, arg => arg);
impl<T: Float> Func<(Complex<T>, T)> for Powf {
    type Out = Complex<T>;
    /// `z^r` with a real exponent (polar form).
    #[inline(always)]
    fn eval((z, r): (Complex<T>, T)) -> Complex<T> {
        z.powf(r)
    }
}
impl<T: Float> Func<(Complex<T>, Complex<T>)> for Powf {
    type Out = Complex<T>;
    /// `z^w` with a complex exponent.
    #[inline(always)]
    fn eval((z, w): (Complex<T>, Complex<T>)) -> Complex<T> {
        z.powc(w)
    }
}
impl<T: Float> Func<(Complex<T>, i32)> for Powi {
    type Out = Complex<T>;
    #[inline(always)]
    fn eval((z, n): (Complex<T>, i32)) -> Complex<T> {
        z.powi(n)
    }
}
impl<T: Float, const N: i32> Func<(Complex<T>,)> for PowiN<N> {
    type Out = Complex<T>;
    #[inline(always)]
    fn eval((z,): (Complex<T>,)) -> Complex<T> {
        z.powi(N)
    }
}
impl<T: Real> Func<(T, T)> for complex {
    type Out = Complex<T>;
    #[inline(always)]
    fn eval((re, im): (T, T)) -> Complex<T> {
        Complex::new(re, im)
    }
}
impl<T: Float> Func<(Complex<T>, Complex<T>)> for complex {
    type Out = Complex<T>;
    /// `a + i·b`; this is what `complex(2.0, 2.0)` with literal arguments becomes (literals
    /// take the complex type of the target).
    #[inline(always)]
    fn eval((a, b): (Complex<T>, Complex<T>)) -> Complex<T> {
        Complex::new(a.re - b.im, a.im + b.re)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::AlmostSame;
    use crate::instr::{PlusEq1, PlusEq2};
    use num_complex::{Complex32, Complex64};

    fn c(re: f64, im: f64) -> Complex64 {
        Complex64::new(re, im)
    }

    #[test]
    fn std_ops() {
        let (mut y, mut a, mut b) = (c(0.0, 0.0), c(1.0, 2.0), c(2.0, 1.0));
        PlusEq2::<Mul, _, _>::plus_eq(&mut y, &mut a, &mut b);
        assert_eq!(y, c(0.0, 5.0));
        PlusEq2::<Div, _, _>::plus_eq(&mut y, &mut a, &mut b);
        PlusEq2::<Add, _, _>::plus_eq(&mut y, &mut a, &mut 2.0);
        PlusEq2::<Sub, _, _>::plus_eq(&mut y, &mut 2.0, &mut b);
        PlusEq2::<Sub, _, _>::minus_eq(&mut y, &mut 2.0, &mut b);
        PlusEq2::<Add, _, _>::minus_eq(&mut y, &mut a, &mut 2.0);
        PlusEq2::<Div, _, _>::minus_eq(&mut y, &mut a, &mut b);
        PlusEq2::<Mul, _, _>::minus_eq(&mut y, &mut a, &mut b);
        assert!(y.almost_same(&c(0.0, 0.0)));
        let mut y = c(0.0, 0.0);
        let mut n = crate::instr::lit_f(&y, 2.0);
        PlusEq2::<Mul, _, _>::plus_eq(&mut y, &mut a, &mut n);
        assert_eq!(y, c(2.0, 4.0));
    }

    #[test]
    fn functions() {
        let z = c(2.0, 1.0);
        let w = c(0.5, 0.2);
        macro_rules! un {
            ($($m:ty => $want:expr),*) => {$({
                let (mut y, mut x) = (w, z);
                PlusEq1::<$m, _>::plus_eq(&mut y, &mut x);
                assert_eq!(y, w + $want, stringify!($m));
                PlusEq1::<$m, _>::minus_eq(&mut y, &mut x);
                assert!(y.almost_same(&w));
            })*};
        }
        un!(Exp => z.exp(), Ln => z.ln(), Identity => z, Sqrt => z.sqrt(), Recip => z.inv(),
            Sin => z.sin(), Cos => z.cos(), Tan => z.tan(), Sinh => z.sinh(), Cosh => z.cosh(),
            Tanh => z.tanh(), Asin => z.asin(), Acos => z.acos(), Atan => z.atan(),
            conj => z.conj(), Neg => -z, PowiN<3> => z * z * z);
        let mut r = 1.0;
        PlusEq1::<Abs, _>::plus_eq(&mut r, &mut z.clone());
        assert_eq!(r, 1.0 + 5f64.sqrt());
        PlusEq1::<arg, _>::plus_eq(&mut r, &mut z.clone());
        assert_eq!(r, 1.0 + 5f64.sqrt() + 0.5f64.atan());
        let mut y = c(0.0, 0.0);
        PlusEq2::<Powf, _, _>::plus_eq(&mut y, &mut z.clone(), &mut 2.5);
        assert!(y.almost_same(&z.powf(2.5)));
        PlusEq2::<Powf, _, _>::minus_eq(&mut y, &mut z.clone(), &mut 2.5);
        PlusEq2::<Powf, _, _>::plus_eq(&mut y, &mut z.clone(), &mut w.clone());
        assert_eq!(y, z.powc(w));
        let mut y = Complex32::new(1.0, 0.0);
        PlusEq2::<complex, _, _>::plus_eq(&mut y, &mut 2.0_f32, &mut 2.0_f32);
        assert_eq!(y, Complex32::new(3.0, 2.0));
        let (mut a, mut b) = (Complex32::new(2.0, 0.0), Complex32::new(2.0, 0.0));
        PlusEq2::<complex, _, _>::minus_eq(&mut y, &mut a, &mut b);
        assert_eq!(y, Complex32::new(1.0, 0.0));
        PlusEq2::<Powi, _, _>::plus_eq(&mut y, &mut Complex32::new(0.0, 1.0), &mut 2);
        assert_eq!(y, Complex32::new(0.0, 0.0));
    }
}
