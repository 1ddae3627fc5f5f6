//! The primitive reversible instructions of NiLang: `SWAP`, `NEG`, `INV`, `FLIP`, `INC`, `DEC`,
//! `ROT`, `IROT`, `HADAMARD`, `CONJ`, `ADD_CONST`, `SUB_CONST`.
//!
//! Each is an ordinary function taking `&mut` operands, with its inverse next to it under the
//! name `<NAME>_inv` (the naming convention the compiler uses for every reversible call). Type
//! dispatch goes through a small trait per instruction so that gradient numbers can attach
//! their backward rule.
#![allow(non_snake_case)]
use crate::instr::{fns::Identity, Plain, PlusEq1};
use crate::number::Real;
use core::ops::Neg;

/// Exchange two values (self-inverse).
///
/// ```
/// let (mut a, mut b) = (1, 2);
/// nilang::SWAP(&mut a, &mut b);
/// assert_eq!((a, b), (2, 1));
/// ```
#[inline(always)]
pub fn SWAP<T>(a: &mut T, b: &mut T) {
    core::mem::swap(a, b)
}
/// Inverse of [`SWAP`] (itself).
#[inline(always)]
pub fn SWAP_inv<T>(a: &mut T, b: &mut T) {
    core::mem::swap(a, b)
}

/// In-place negation, with its gradient rule for `GVar`.
pub trait Negate {
    /// `*self = -*self`.
    fn negate(&mut self);
}
impl<T: Plain + Neg<Output = T>> Negate for T {
    #[inline(always)]
    fn negate(&mut self) {
        *self = -*self;
    }
}
/// `x = -x` (self-inverse).
///
/// ```
/// let mut x = 2.0;
/// nilang::NEG(&mut x);
/// assert_eq!(x, -2.0);
/// ```
#[inline(always)]
pub fn NEG<T: Negate>(x: &mut T) {
    x.negate()
}
/// Inverse of [`NEG`] (itself).
#[inline(always)]
pub fn NEG_inv<T: Negate>(x: &mut T) {
    x.negate()
}

/// In-place reciprocal, with its gradient rule for `GVar`.
pub trait Reciprocate {
    /// `*self = 1 / *self`.
    fn reciprocate(&mut self);
}
impl<T: Real + Plain> Reciprocate for T {
    #[inline(always)]
    fn reciprocate(&mut self) {
        *self = self.recip();
    }
}
/// `x = 1 / x` (self-inverse).
///
/// ```
/// let mut x = 0.2;
/// nilang::INV(&mut x);
/// assert!((x - 5.0_f64).abs() < 1e-15);
/// ```
#[inline(always)]
pub fn INV<T: Reciprocate>(x: &mut T) {
    x.reciprocate()
}
/// Inverse of [`INV`] (itself).
#[inline(always)]
pub fn INV_inv<T: Reciprocate>(x: &mut T) {
    x.reciprocate()
}

/// `b = !b` (self-inverse).
///
/// ```
/// let mut b = false;
/// nilang::FLIP(&mut b);
/// assert!(b);
/// ```
#[inline(always)]
pub fn FLIP(b: &mut bool) {
    *b = !*b;
}
/// Inverse of [`FLIP`] (itself).
#[inline(always)]
pub fn FLIP_inv(b: &mut bool) {
    *b = !*b;
}

/// Adding and subtracting one (integers and floats; value only for gradient numbers).
pub trait Increment {
    /// `self += 1`.
    fn increment(&mut self);
    /// `self -= 1`.
    fn decrement(&mut self);
}
macro_rules! incr {
    ($($t:ty),*) => {$( impl Increment for $t {
        #[inline(always)] fn increment(&mut self) { *self += 1 as $t; }
        #[inline(always)] fn decrement(&mut self) { *self -= 1 as $t; }
    } )*};
}
incr!(f32, f64, i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize);
/// `Increment` of a wrapper `$ty<T>` by its value field `$field` (gradient and dual numbers:
/// adding a constant changes neither adjoints nor derivatives).
macro_rules! increment_by_field {
    ($(#[$attr:meta])* $ty:ident . $field:tt) => {
        $(#[$attr])*
        impl<T: $crate::instr::basic::Increment> $crate::instr::basic::Increment for $ty<T> {
            #[inline(always)]
            fn increment(&mut self) {
                $crate::instr::basic::Increment::increment(&mut self.$field)
            }
            #[inline(always)]
            fn decrement(&mut self) {
                $crate::instr::basic::Increment::decrement(&mut self.$field)
            }
        }
    };
}
pub(crate) use increment_by_field;
/// Wrapping integers: `INC`/`DEC` wrap around.
impl<T> Increment for core::num::Wrapping<T>
where
    core::num::Wrapping<T>: crate::instr::FromLiteral + core::ops::AddAssign + core::ops::SubAssign,
{
    #[inline(always)]
    fn increment(&mut self) {
        *self += <Self as crate::instr::FromLiteral>::from_i64_lit(1);
    }
    #[inline(always)]
    fn decrement(&mut self) {
        *self -= <Self as crate::instr::FromLiteral>::from_i64_lit(1);
    }
}
/// `x += 1`; inverse [`DEC`].
///
/// ```
/// let mut k = 2_i32;
/// nilang::INC(&mut k);
/// assert_eq!(k, 3_i32);
/// ```
#[inline(always)]
pub fn INC<T: Increment>(x: &mut T) {
    x.increment()
}
/// Inverse of [`INC`].
#[inline(always)]
pub fn INC_inv<T: Increment>(x: &mut T) {
    x.decrement()
}
/// `x -= 1`; inverse [`INC`].
#[inline(always)]
pub fn DEC<T: Increment>(x: &mut T) {
    x.decrement()
}
/// Inverse of [`DEC`].
#[inline(always)]
pub fn DEC_inv<T: Increment>(x: &mut T) {
    x.increment()
}

/// Givens rotation of a pair by an angle, with gradient rules for `GVar`.
pub trait Rotate<Th> {
    /// `(a, b) = (a cos θ − b sin θ, a sin θ + b cos θ)`.
    fn rot(a: &mut Self, b: &mut Self, theta: &mut Th);
    /// The inverse rotation (by `−θ`).
    fn irot(a: &mut Self, b: &mut Self, theta: &mut Th);
}
impl<T: Real + Plain> Rotate<T> for T {
    #[inline(always)]
    fn rot(a: &mut T, b: &mut T, theta: &mut T) {
        let (s, c) = (theta.sin(), theta.cos());
        let (x, y) = (*a, *b);
        *a = x * c - y * s;
        *b = x * s + y * c;
    }
    #[inline(always)]
    fn irot(a: &mut T, b: &mut T, theta: &mut T) {
        let (s, c) = (theta.sin(), theta.cos());
        let (x, y) = (*a, *b);
        *a = x * c + y * s;
        *b = y * c - x * s;
    }
}
/// Rotate `(a, b)` by `θ`; inverse [`IROT`].
///
/// ```
/// let (mut a, mut b, mut t) = (1.0_f64, 0.0, std::f64::consts::FRAC_PI_2);
/// nilang::ROT(&mut a, &mut b, &mut t);
/// assert!(a.abs() < 1e-15 && (b - 1.0).abs() < 1e-15);
/// ```
#[inline(always)]
pub fn ROT<T: Rotate<Th>, Th>(a: &mut T, b: &mut T, theta: &mut Th) {
    T::rot(a, b, theta)
}
/// Inverse of [`ROT`].
#[inline(always)]
pub fn ROT_inv<T: Rotate<Th>, Th>(a: &mut T, b: &mut T, theta: &mut Th) {
    T::irot(a, b, theta)
}
/// Rotate `(a, b)` by `−θ`; inverse [`ROT`].
#[inline(always)]
pub fn IROT<T: Rotate<Th>, Th>(a: &mut T, b: &mut T, theta: &mut Th) {
    T::irot(a, b, theta)
}
/// Inverse of [`IROT`].
#[inline(always)]
pub fn IROT_inv<T: Rotate<Th>, Th>(a: &mut T, b: &mut T, theta: &mut Th) {
    T::rot(a, b, theta)
}

/// The Hadamard transform of a pair, `((x+y)/√2, (x−y)/√2)` (self-inverse).
pub trait Hadamard {
    /// Apply the transform.
    fn hadamard(x: &mut Self, y: &mut Self);
}
impl<T: Real + Plain> Hadamard for T {
    #[inline(always)]
    fn hadamard(x: &mut T, y: &mut T) {
        let h = T::from_f64(core::f64::consts::FRAC_1_SQRT_2);
        let (a, b) = (*x, *y);
        *x = (a + b) * h;
        *y = (a - b) * h;
    }
}
/// Hadamard transform of `(x, y)` (self-inverse).
///
/// ```
/// let (mut x, mut y) = (0.5_f64, 0.8);
/// nilang::HADAMARD(&mut x, &mut y);
/// nilang::HADAMARD(&mut x, &mut y);
/// assert!((x - 0.5).abs() < 1e-15 && (y - 0.8).abs() < 1e-15);
/// ```
#[inline(always)]
pub fn HADAMARD<T: Hadamard>(x: &mut T, y: &mut T) {
    T::hadamard(x, y)
}
/// Inverse of [`HADAMARD`] (itself).
#[inline(always)]
pub fn HADAMARD_inv<T: Hadamard>(x: &mut T, y: &mut T) {
    T::hadamard(x, y)
}
/// Complex conjugation in place (self-inverse).
///
/// ```
/// let mut z = num_complex::Complex::new(1.0, 2.0);
/// nilang::CONJ(&mut z);
/// assert_eq!(z.im, -2.0);
/// ```
#[inline(always)]
pub fn CONJ<T: Negate>(z: &mut num_complex::Complex<T>) {
    z.im.negate()
}
/// Inverse of [`CONJ`] (itself).
#[inline(always)]
pub fn CONJ_inv<T: Negate>(z: &mut num_complex::Complex<T>) {
    z.im.negate()
}
/// `y += c` for a constant `c`; inverse [`SUB_CONST`].
///
/// ```
/// let mut y = 0.3;
/// nilang::ADD_CONST(&mut y, 4.0);
/// assert_eq!(y, 4.3);
/// ```
#[inline(always)]
pub fn ADD_CONST<T: PlusEq1<Identity, C>, C>(y: &mut T, mut c: C) {
    y.plus_eq(&mut c)
}
/// Inverse of [`ADD_CONST`].
#[inline(always)]
pub fn ADD_CONST_inv<T: PlusEq1<Identity, C>, C>(y: &mut T, mut c: C) {
    y.minus_eq(&mut c)
}
/// `y -= c` for a constant `c`; inverse [`ADD_CONST`].
#[inline(always)]
pub fn SUB_CONST<T: PlusEq1<Identity, C>, C>(y: &mut T, mut c: C) {
    y.minus_eq(&mut c)
}
/// Inverse of [`SUB_CONST`].
#[inline(always)]
pub fn SUB_CONST_inv<T: PlusEq1<Identity, C>, C>(y: &mut T, mut c: C) {
    y.plus_eq(&mut c)
}
