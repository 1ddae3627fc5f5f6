//! Elementwise functions over slices, computed in SIMD lanes: `y[i] += f(x[i])` for every `i`
//! ([`i_map`]) and its inverse `y[i] -= f(x[i])` ([`i_map_inv`]), like `jax.numpy`'s
//! elementwise functions.
//!
//! On `f64` and `GVar<f64>` slices, the functions of the table of elementary functions that
//! have a vector implementation (`exp`, `exp_m1`, `ln`, `ln_1p`, `tanh`, `sin`, `cos`: their
//! row's `lanes` slot, see [`nilang_functions`]) run four elements at a time on
//! [`F64x4`](crate::numbers::F64x4): the values by the lane implementation, and on gradient
//! numbers the function's backward rule on `GVar<F64x4>` (the same rule the scalar
//! instruction runs, written once). The last `len mod 4` elements run in a vector padded
//! with zeros, so every element gets the same function whatever its position. Where the
//! adjoints of four targets are exactly zero (the forward pass of a gradient, a recomputed
//! routine) only the values move. Every other function and number type (`Dual`, batches,
//! `GVar<GVar<f64>>`, a `#[primitive]` of your own) runs the instruction `y[i] += f(x[i])`
//! one element at a time.
use crate::ad::{GVar, Rule1, Scalar};
use crate::instr::{fns, PlusEq1};
use crate::numbers::F64x4;
use crate::stdlib::matmul;
use core::any::TypeId;

/// `y[i] += f(x[i])` for every `i` (`f` a function marker of [`crate::instr::fns`], e.g.
/// `Tanh`, `Exp`, `Ln1p`); its inverse [`i_map_inv`] is `y[i] -= f(x[i])`.
///
/// A primitive: on `f64` and `GVar<f64>` slices the table's functions with a vector
/// implementation run in SIMD lanes, values and backward rule (each value within two ulps
/// of `f64`'s function, as the lane versions of the table are, so it may differ in the last
/// bits from the scalar loop `y[i] += tanh(x[i])`); other functions and numbers run that loop.
/// `y` and `x` must have one length (a typed [`ErrorKind::Length`](crate::ErrorKind) error
/// otherwise, before anything changes). Called from `#[i]` code like any reversible function;
/// additive in `y` (compute–copy–uncompute).
///
/// ```
/// use nilang::instr::fns::Tanh;
/// use nilang::prelude::*;
/// use nilang::stdlib::elementwise::{i_map, i_map_inv};
///
/// let (mut h, mut z) = (vec![0.0; 5], vec![-2.0, -0.5, 0.0, 0.5, 2.0]);
/// i_map(&mut h, Tanh, &mut z);
/// assert!((h[4] - 2.0_f64.tanh()).abs() <= 2.0 * f64::EPSILON);
/// i_map_inv(&mut h, Tanh, &mut z);
/// assert_eq!(h, [0.0; 5]);
///
/// // in a program, and under the gradient API: Σ tanh(zᵢ), ∂/∂zᵢ = 1 − tanh²(zᵢ)
/// #[i]
/// fn act<T: Scalar>(loss: &mut T, h: &mut [T], z: &mut [T]) {
///     routine! {
///         i_map(h, Tanh, z);
///     }
///     for i in 0..h.len() {
///         loss += h[i];
///     }
///     unroutine!();
/// }
/// let (mut l, mut h) = (0.0, vec![0.0; 5]);
/// let (_, _, gz) = nilang::gradient(&Act, (&mut l, &mut h[..], &mut z[..]), 0);
/// assert!((gz[1].g - (1.0 - 0.5_f64.tanh().powi(2))).abs() < 1e-15);
/// ```
#[inline]
pub fn i_map<T: Scalar + PlusEq1<F, T>, F: Copy + 'static>(y: &mut [T], f: F, x: &mut [T]) {
    map(Step::Plus, y, f, x)
}

/// The inverse of [`i_map`]: `y[i] -= f(x[i])`.
#[inline]
pub fn i_map_inv<T: Scalar + PlusEq1<F, T>, F: Copy + 'static>(y: &mut [T], f: F, x: &mut [T]) {
    map(Step::Minus, y, f, x)
}

matmul::dense_markers!(
    i_map,
    i_map_inv,
    /// Values only (`y` carries no adjoint).
    #[doc(hidden)]
    #[inline]
    pub fn __primal<
        Fun: Fn(&mut [T], F, &mut [T]),
        T: Scalar + PlusEq1<F, T>,
        F: Copy + 'static,
    >(
        _f: Fun,
        (y, f, x): (&mut [T], F, &mut [T]),
    ) {
        map(Step::PlusValues, y, f, x)
    }
);

/// Which direction runs, and whether adjoints move.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Step {
    /// `y += f(x)`.
    Plus,
    /// `y -= f(x)`.
    Minus,
    /// `y += f(x)` on the values only (`ȳ` is known to be zero).
    PlusValues,
}

#[inline]
fn map<T: Scalar + PlusEq1<F, T>, F: Copy + 'static>(step: Step, y: &mut [T], _f: F, x: &mut [T]) {
    crate::check::equal_lengths(
        "nilang::stdlib::elementwise::i_map",
        "i_map(y, f, x)",
        &[("y", y.len()), ("x", x.len())],
    );
    if table_lanes::<T, F>(step, y, x) {
        return;
    }
    for (y, x) in y.iter_mut().zip(x.iter_mut()) {
        match step {
            Step::Plus => <T as PlusEq1<F, T>>::plus_eq(y, x),
            Step::Minus => <T as PlusEq1<F, T>>::minus_eq(y, x),
            Step::PlusValues => <T as PlusEq1<F, T>>::plus_eq_primal(y, x),
        }
    }
}

/// The rows of the table of elementary functions with a vector implementation: `F` one of
/// them and `T` `f64` or `GVar<f64>` runs [`by_lanes`] and returns `true`; otherwise `false`
/// (nothing done). The conditions are on types only: rustc folds them.
macro_rules! table_lanes {
    ($($F:ident { names: [$f:ident $(, $alias:ident)*], c: $c:ident, domain: $dom:literal, d: $s:tt $op:tt $d:tt, lanes: $l:ident },)*) => {
        #[inline(always)]
        fn table_lanes<T: 'static, F: 'static>(step: Step, y: &mut [T], x: &mut [T]) -> bool {
            $(
                if table_lanes!(@vector $l) && TypeId::of::<F>() == TypeId::of::<fns::$F>() {
                    return by_lanes::<fns::$F, T>(step, y, x);
                }
            )*
            false
        }
    };
    (@vector each) => { false };
    (@vector $l:ident) => { true };
}
nilang_functions::elementary_functions!(table_lanes! {});

/// `y ±= f(x)` in lanes of four when `T` is `f64` or `GVar<f64>` (returns `false` otherwise).
#[inline(always)]
fn by_lanes<F: Rule1<F64x4>, T: 'static>(step: Step, y: &mut [T], x: &mut [T]) -> bool
where
    F64x4: PlusEq1<F, F64x4>,
{
    if TypeId::of::<T>() == TypeId::of::<f64>() {
        // SAFETY: `T` is `f64`
        let (y, x) = unsafe { (cast::<T, f64>(y), cast::<T, f64>(x)) };
        values::<F>(step, y, x);
        return true;
    }
    if TypeId::of::<T>() == TypeId::of::<GVar<f64>>() {
        // SAFETY: `T` is `GVar<f64>`
        let (y, x) = unsafe { (cast::<T, GVar<f64>>(y), cast::<T, GVar<f64>>(x)) };
        gradients::<F>(step, y, x);
        return true;
    }
    false
}

/// `v` as a slice of `U`.
///
/// # Safety
/// `T` and `U` must be the same type.
#[inline(always)]
unsafe fn cast<T, U>(v: &mut [T]) -> &mut [U] {
    // SAFETY: the same type (the caller's promise): same layout and length
    unsafe { core::slice::from_raw_parts_mut(v.as_mut_ptr().cast::<U>(), v.len()) }
}

/// Four elements of `v` from `i` (zeros past its end).
#[inline(always)]
fn load(v: impl Fn(usize) -> f64, i: usize, n: usize) -> F64x4 {
    F64x4::from_fn(|l| if i + l < n { v(i + l) } else { 0.0 })
}

/// `y ±= f(x)` on values, four at a time.
#[inline(always)]
fn values<F>(step: Step, y: &mut [f64], x: &[f64])
where
    F64x4: PlusEq1<F, F64x4>,
{
    let mut chunks = y.chunks_exact_mut(4).zip(x.chunks_exact(4));
    for (y, x) in &mut chunks {
        let mut xv = F64x4::new([x[0], x[1], x[2], x[3]]);
        let mut yv = F64x4::new([y[0], y[1], y[2], y[3]]);
        values_step::<F>(step, &mut yv, &mut xv);
        y.copy_from_slice(&yv.to_array());
    }
    let (n, i) = (y.len(), y.len() - y.len() % 4);
    if i < n {
        let mut xv = load(|k| x[k], i, n);
        let mut yv = load(|k| y[k], i, n);
        values_step::<F>(step, &mut yv, &mut xv);
        y[i..].copy_from_slice(&yv.to_array()[..n - i]);
    }
}

#[inline(always)]
fn values_step<F>(step: Step, y: &mut F64x4, x: &mut F64x4)
where
    F64x4: PlusEq1<F, F64x4>,
{
    match step {
        Step::Plus | Step::PlusValues => <F64x4 as PlusEq1<F, F64x4>>::plus_eq(y, x),
        Step::Minus => <F64x4 as PlusEq1<F, F64x4>>::minus_eq(y, x),
    }
}

/// `y ±= f(x)` on gradient numbers, four at a time: the backward rule on `GVar<F64x4>`, or
/// the values alone where the four `ȳ` are zero.
#[inline(always)]
fn gradients<F: Rule1<F64x4>>(step: Step, y: &mut [GVar<f64>], x: &mut [GVar<f64>]) {
    let n = y.len();
    for i in (0..n).step_by(4) {
        let m = (n - i).min(4);
        let mut yv = GVar {
            x: load(|k| y[k].x, i, n),
            g: load(|k| y[k].g, i, n),
        };
        let mut xv = GVar {
            x: load(|k| x[k].x, i, n),
            g: load(|k| x[k].g, i, n),
        };
        let values_only = step == Step::PlusValues || yv.g.to_array() == [0.0; 4];
        match (step, values_only) {
            (Step::Minus, true) => F::minus_value(&mut yv.x, &mut xv.x),
            (_, true) => F::plus_value(&mut yv.x, &mut xv.x),
            (Step::Minus, false) => F::minus(&mut yv, &mut xv),
            (_, false) => F::plus(&mut yv, &mut xv),
        }
        let (yx, xg) = (yv.x.to_array(), xv.g.to_array());
        for l in 0..m {
            y[i + l].x = yx[l];
            x[i + l].g = xg[l];
        }
    }
}
