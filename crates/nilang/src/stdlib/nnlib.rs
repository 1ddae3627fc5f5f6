//! Reversible neural-network and reduction functions: ReLU, softmax cross-entropy, the running
//! maxima (`i_ascending`), log-sum-exp, filter and map-fold, and the dense layer on a batch
//! (`i_dense`, `i_dense_data`).
use crate::ad::{Ordered, Scalar};
use crate::i;
use crate::instr::fns::Mul;
use crate::instr::{PlusEq1, PlusEq2};
use crate::stdlib::blas::{gemm_loop, gemm_loop_inv};
use crate::stdlib::matmul::{self, Operand, Step};
use crate::stdlib::narrow_dense;
use crate::Reversible;

/// `out += max(x, 0)`: a branch on `x > 0` (NiLang's `i_relu`).
///
/// ```
/// use nilang::stdlib::nnlib::i_relu;
/// let (mut out, mut x) = (0.0, 2.5);
/// i_relu(&mut out, &mut x);
/// assert_eq!(out, 2.5);
/// let (mut out, mut x) = (0.0, -2.5);
/// i_relu(&mut out, &mut x);
/// assert_eq!(out, 0.0);
/// ```
#[i]
pub fn i_relu<T: Ordered>(out: &mut T, x: &mut T) {
    if (x > T::default(), _) {
        out += x;
    }
}

/// The index of the first maximum of `x` (0 for an empty slice).
pub fn argmax<T: PartialOrd>(x: &[T]) -> usize {
    let mut k = 0;
    for i in 1..x.len() {
        if x[i] > x[k] {
            k = i;
        }
    }
    k
}

/// Softmax cross-entropy `out += Σᵢ pᵢ (ln Z − (xᵢ − x_max))` with `Z = Σ exp(xᵢ − x_max)`
/// (NiLang's `i_softmax_crossentropy`). Also outputs `imax += argmax(x)`, `xmax += x[imax]`
/// and `z += Z`; unlike NiLang, `x` is restored (NiLang leaves it shifted by `x_max`).
///
/// ```
/// use nilang::stdlib::nnlib::i_softmax_crossentropy;
/// let (mut x, mut p) = (vec![1.0, 2.0, 0.5], vec![0.2, 0.7, 0.1]);
/// let (mut imax, mut xmax, mut z, mut out) = (0, 0.0, 0.0, 0.0);
/// i_softmax_crossentropy(&mut x, &mut p, &mut imax, &mut xmax, &mut z, &mut out);
/// let lse = x.iter().map(|v: &f64| v.exp()).sum::<f64>().ln();
/// let expect: f64 = x.iter().zip(&p).map(|(xi, pi)| pi * (lse - xi)).sum();
/// assert!((out - expect).abs() < 1e-14);
/// assert_eq!((imax, xmax), (1, 2.0));
/// ```
#[i]
pub fn i_softmax_crossentropy<T: Ordered>(
    x: &mut [T],
    p: &mut [T],
    imax: &mut usize,
    xmax: &mut T,
    z: &mut T,
    out: &mut T,
) {
    safe! { crate::check::equal_lengths("nilang::stdlib::nnlib::i_softmax_crossentropy", "i_softmax_crossentropy(x, p, imax, xmax, z, out)", &[("x", x.len()), ("p", p.len())]); }
    imax += cst!(argmax(&x[..]));
    xmax += x[imax];
    for i in 0..x.len() {
        x[i] -= xmax;
        z += x[i].exp();
    }
    let (logz, yi) = (T::default(), T::default());
    logz += z.ln();
    for i in 0..x.len() {
        yi += logz;
        yi -= x[i];
        out += yi * p[i];
        yi += x[i];
        yi -= logz;
    }
    logz -= z.ln();
    dealloc!((logz, yi) = (T::default(), T::default()));
    for i in 0..x.len() {
        x[i] += xmax;
    }
    // checked last too: that is first in the generated inverse
    safe! { crate::check::equal_lengths("nilang::stdlib::nnlib::i_softmax_crossentropy", "i_softmax_crossentropy(x, p, imax, xmax, z, out)", &[("x", x.len()), ("p", p.len())]); }
}

/// Push the running maxima of `arr` onto `xs` and their indices onto `inds` (NiLang's
/// `i_ascending!`): afterwards `xs.last()` is the maximum of `arr` and `inds.last()` its
/// first index. `xs` and `inds` are usually empty on entry.
///
/// ```
/// use nilang::stdlib::nnlib::{i_ascending, i_ascending_inv};
/// let (mut xs, mut inds, mut arr) = (vec![], vec![], vec![1.0, 3.0, 2.0, 5.0, 4.0]);
/// i_ascending(&mut xs, &mut inds, &mut arr);
/// assert_eq!((xs.clone(), inds.clone()), (vec![1.0, 3.0, 5.0], vec![0, 1, 3]));
/// i_ascending_inv(&mut xs, &mut inds, &mut arr);
/// assert!(xs.is_empty() && inds.is_empty());
/// ```
#[i]
pub fn i_ascending<T: Ordered>(xs: &mut Vec<T>, inds: &mut Vec<usize>, arr: &mut [T]) {
    if (arr.len() > 0, _) {
        let y = T::default();
        y += arr[0];
        push!(xs, y);
        dealloc!(y = T::default());
        let anc = 0_usize;
        push!(inds, anc);
        dealloc!(anc = 0_usize);
        for i in 1..arr.len() {
            if (arr[i] > xs[xs.len() - 1], i == inds[inds.len() - 1]) {
                let (ind, v) = (i, T::default());
                v += arr[i];
                push!(xs, v);
                push!(inds, ind);
                dealloc!((ind, v) = (0_usize, T::default()));
            }
        }
    }
}

/// `out += Σ exp(xᵢ − m)`, `logout += ln(out) + m` with `m = max(x)` found by
/// [`i_ascending`] (the running maxima are pushed onto `xs`, `inds`, usually empty on entry):
/// `logout` is `ln Σ exp(xᵢ)` computed without overflow.
///
/// ```
/// use nilang::stdlib::nnlib::i_logsumexp;
/// let (mut logout, mut out, mut xs, mut inds) = (0.0, 0.0, vec![], vec![]);
/// let mut x = vec![1000.0, 999.0, 998.0];
/// i_logsumexp(&mut logout, &mut out, &mut xs, &mut inds, &mut x);
/// let expect = 1000.0 + (1.0 + (-1.0_f64).exp() + (-2.0_f64).exp()).ln();
/// assert!((logout - expect).abs() < 1e-12);
/// ```
#[i]
pub fn i_logsumexp<T: Ordered>(
    logout: &mut T,
    out: &mut T,
    xs: &mut Vec<T>,
    inds: &mut Vec<usize>,
    x: &mut [T],
) {
    let mx = T::default();
    i_ascending(xs, inds, x);
    mx += xs[xs.len() - 1];
    for i in 0..x.len() {
        x[i] -= mx;
        out += x[i].exp();
        x[i] += mx;
    }
    logout += out.ln();
    logout += mx;
    mx -= xs[xs.len() - 1];
    dealloc!(mx = T::default());
}

/// Push a copy of every element of `x` with `f(xᵢ)` onto `out` (NiLang's `i_filter!`).
/// The copies are made by accumulation (`y += xᵢ`), so gradients flow back to `x`.
///
/// ```
/// use nilang::stdlib::nnlib::{i_filter, i_filter_inv};
/// let (mut out, mut x) = (vec![], vec![-1.0, 2.0, -0.5, 3.0]);
/// i_filter(&|v: &f64| *v < 0.0, &mut out, &mut x);
/// assert_eq!(out, [-1.0, -0.5]);
/// i_filter_inv(&|v: &f64| *v < 0.0, &mut out, &mut x);
/// assert!(out.is_empty());
/// ```
#[i]
pub fn i_filter<T: Scalar, F: Fn(&T) -> bool>(f: &F, out: &mut Vec<T>, x: &mut [T]) {
    for i in 0..x.len() {
        if (f(&x[i]), _) {
            let y = T::default();
            y += x[i];
            push!(out, y);
            dealloc!(y = T::default());
        }
    }
}

/// Reversible map-fold (NiLang's `i_mapfoldl`): for each `xᵢ`, `anc += map(xᵢ)`, then the
/// reversible `fold(out, anc)`, then `anc −= map(xᵢ)`. `map` is a function marker (any `M`
/// with `T: PlusEq1<M, T>`, e.g. `nilang::instr::fns::Exp` or a `#[primitive]`), so it need
/// not be invertible and gradients flow through it; `fold` is a reversible function such as
/// [`IAddTo`] (`out += anc`).
///
/// ```
/// use nilang::instr::fns::Exp;
/// use nilang::stdlib::nnlib::{i_mapfoldl, i_mapfoldl_inv, IAddTo};
/// let (mut out, mut x) = (0.0, vec![-1.0, -0.5]);
/// i_mapfoldl(Exp, &IAddTo, &mut out, &mut x);
/// assert_eq!(out, (-1.0_f64).exp() + (-0.5_f64).exp());
/// i_mapfoldl_inv(Exp, &IAddTo, &mut out, &mut x);
/// assert_eq!(out, 0.0);
/// ```
pub fn i_mapfoldl<T, M, F>(_map: M, fold: &F, out: &mut T, x: &mut [T])
where
    T: Scalar + PlusEq1<M, T>,
    F: for<'a, 'b> Reversible<(&'a mut T, &'b mut T)>,
{
    mapfoldl::<T, M, F>(fold, out, x, false)
}

// hand-written pair: no one-pass analysis (the fold may be anything)
crate::additive!(i_mapfoldl, i_mapfoldl_inv: 0);

/// The inverse of [`i_mapfoldl`].
pub fn i_mapfoldl_inv<T, M, F>(_map: M, fold: &F, out: &mut T, x: &mut [T])
where
    T: Scalar + PlusEq1<M, T>,
    F: for<'a, 'b> Reversible<(&'a mut T, &'b mut T)>,
{
    mapfoldl::<T, M, F>(fold, out, x, true)
}

/// [`i_mapfoldl`] (`inverse` false: points in order, `fold` called) or its inverse (points in
/// reverse, `fold` uncalled).
fn mapfoldl<T, M, F>(fold: &F, out: &mut T, x: &mut [T], inverse: bool)
where
    T: Scalar + PlusEq1<M, T>,
    F: for<'a, 'b> Reversible<(&'a mut T, &'b mut T)>,
{
    let mut anc = T::default();
    let n = x.len();
    for j in 0..n {
        let xi = &mut x[if inverse { n - 1 - j } else { j }];
        PlusEq1::<M, T>::plus_eq(&mut anc, xi);
        if inverse {
            fold.uncall((&mut *out, &mut anc));
        } else {
            fold.call((&mut *out, &mut anc));
        }
        PlusEq1::<M, T>::minus_eq(&mut anc, xi);
    }
    crate::check::dealloc(
        &anc,
        &T::default(),
        concat!(file!(), ":", line!()),
        "anc -> 0",
    );
}

/// `out += x`: the usual fold of [`i_mapfoldl`] (its value is [`IAddTo`]).
///
/// ```
/// use nilang::stdlib::nnlib::i_add_to;
/// let (mut out, mut x) = (1.0, 2.0);
/// i_add_to(&mut out, &mut x);
/// assert_eq!(out, 3.0);
/// ```
#[i(rev = IAddTo)]
pub fn i_add_to<T: Scalar>(out: &mut T, x: &mut T) {
    out += x;
}

/// A dense layer on a batch, `Y += X W + 1 bᵀ`: `X` is `rows × n_in` (one sample a row), `W`
/// is `n_in × n_out`, `b` has `n_out` and `Y` is `rows × n_out`, all row-major.
///
/// A primitive like [`i_gemm`](crate::stdlib::blas::i_gemm): on `f64`, `f32`, `GVar<f64>` and
/// `GVar<f32>` one GEMM plus the bias (backward: `X̄ += Ȳ Wᵀ`, `W̄ += Xᵀ Ȳ`, `b̄ += Σ_rows Ȳ`,
/// GEMMs on the gradient numbers in place), the instruction loop on other numbers. When `X` is
/// data (no gradient wanted), [`i_dense_data`] saves the GEMM of `X̄`.
///
/// ```
/// use nilang::stdlib::nnlib::{i_dense, i_dense_inv};
/// // two samples of two inputs, one output
/// let (mut y, mut x) = (vec![0.0; 2], vec![1.0, 2.0, 3.0, 4.0]);
/// let (mut w, mut b) = (vec![1.0, -1.0], vec![0.5]);
/// i_dense(&mut y, &mut x, &mut w, &mut b, 2, 2, 1);
/// assert_eq!(y, [-0.5, -0.5]);
/// i_dense_inv(&mut y, &mut x, &mut w, &mut b, 2, 2, 1);
/// assert_eq!(y, [0.0, 0.0]);
/// ```
#[inline]
pub fn i_dense<T: Scalar>(
    y: &mut [T],
    x: &mut [T],
    w: &mut [T],
    b: &mut [T],
    rows: usize,
    n_in: usize,
    n_out: usize,
) {
    dense(Step::Forward, y, x, w, b, (rows, n_in, n_out))
}
/// The inverse of [`i_dense`]: `Y -= X W + 1 bᵀ`.
#[inline]
pub fn i_dense_inv<T: Scalar>(
    y: &mut [T],
    x: &mut [T],
    w: &mut [T],
    b: &mut [T],
    rows: usize,
    n_in: usize,
    n_out: usize,
) {
    dense(Step::Inverse, y, x, w, b, (rows, n_in, n_out))
}
fn dense<T: Scalar>(
    step: Step,
    y: &mut [T],
    x: &mut [T],
    w: &mut [T],
    b: &mut [T],
    dims: (usize, usize, usize),
) {
    let (rows, n_in, n_out) = dims;
    dense_dims(
        "i_dense(y, x, w, b, rows, n_in, n_out)",
        (y.len(), x.len(), w.len(), b.len()),
        dims,
    );
    if matmul::gemm(step, y, Operand::Var(x.as_mut_ptr()), w, dims) {
        matmul::add_rows(step, y, b, rows, n_out);
        return;
    }
    match step {
        // adjoint-only: the full instruction loop (its value updates are harmless)
        Step::Forward | Step::ForwardAdjoints => dense_loop(y, x, w, b, rows, n_in, n_out),
        Step::Inverse | Step::InverseAdjoints => dense_loop_inv(y, x, w, b, rows, n_in, n_out),
        Step::ForwardValues => dense_loop::__primal(dense_loop, (y, x, w, b, rows, n_in, n_out)),
    }
}
matmul::dense_markers!(
    i_dense,
    i_dense_inv,
    /// Values only (`y` carries no adjoint).
    #[doc(hidden)]
    #[inline]
    #[allow(clippy::type_complexity)]
    pub fn __primal<
        'a,
        F: crate::CallTuple<(
            &'a mut [T],
            &'a mut [T],
            &'a mut [T],
            &'a mut [T],
            usize,
            usize,
            usize,
        )>,
        T: Scalar,
    >(
        _f: F,
        (y, x, w, b, rows, n_in, n_out): (
            &'a mut [T],
            &'a mut [T],
            &'a mut [T],
            &'a mut [T],
            usize,
            usize,
            usize,
        ),
    ) {
        dense(Step::ForwardValues, y, x, w, b, (rows, n_in, n_out))
    },
    /// Adjoint-only where bit 0 of `dead` is set (`y`'s value afterwards is never read).
    #[doc(hidden)]
    #[inline]
    #[allow(clippy::type_complexity)]
    pub fn __adj<
        'a,
        F: crate::CallTuple<(
            &'a mut [T],
            &'a mut [T],
            &'a mut [T],
            &'a mut [T],
            usize,
            usize,
            usize,
        )>,
        T: Scalar,
    >(
        _f: F,
        dead: crate::abi::ParamMask,
        (y, x, w, b, rows, n_in, n_out): (
            &'a mut [T],
            &'a mut [T],
            &'a mut [T],
            &'a mut [T],
            usize,
            usize,
            usize,
        ),
    ) {
        dense(
            Step::Forward.dead_target(dead),
            y,
            x,
            w,
            b,
            (rows, n_in, n_out),
        )
    },
    /// Adjoint-only where bit 0 of `dead` is set (`y`'s value afterwards is never read).
    #[doc(hidden)]
    #[inline]
    #[allow(clippy::type_complexity)]
    pub fn __adj<
        'a,
        F: crate::CallTuple<(
            &'a mut [T],
            &'a mut [T],
            &'a mut [T],
            &'a mut [T],
            usize,
            usize,
            usize,
        )>,
        T: Scalar,
    >(
        _f: F,
        dead: crate::abi::ParamMask,
        (y, x, w, b, rows, n_in, n_out): (
            &'a mut [T],
            &'a mut [T],
            &'a mut [T],
            &'a mut [T],
            usize,
            usize,
            usize,
        ),
    ) {
        dense(
            Step::Inverse.dead_target(dead),
            y,
            x,
            w,
            b,
            (rows, n_in, n_out),
        )
    }
);
matmul::dense_reversible!(
    /// [`i_dense`] as a reversible value.
    IDense, i_dense, i_dense_inv, ['y, 'x, 'w, 'b, T: Scalar],
    (y: &'y mut [T] => &mut *y, x: &'x mut [T] => &mut *x, w: &'w mut [T] => &mut *w, b: &'b mut [T] => &mut *b,
     rows: usize => rows, n_in: usize => n_in, n_out: usize => n_out)
);

/// [`i_dense`] with read-only data `X` (`&[f64]` for `f64` or `GVar<f64>` numbers, `&[f32]`
/// for `f32` or `GVar<f32>`; any `D` with `T: PlusEq2<Mul, D, T>` by the instruction loop):
/// `Y += X W + 1 bᵀ`, no adjoint for `X`.
///
/// ```
/// use nilang::stdlib::nnlib::i_dense_data;
/// use nilang::GVar;
/// let x = [1.0, 2.0, 3.0, 4.0];
/// let (mut y, mut w, mut b) = (vec![GVar::from(0.0); 2], vec![GVar::from(1.0), GVar::from(-1.0)], vec![GVar::from(0.5)]);
/// i_dense_data(&mut y, &x, &mut w, &mut b, 2, 2, 1);
/// assert_eq!((y[0].x, y[1].x), (-0.5, -0.5));
/// ```
#[inline]
pub fn i_dense_data<T: Scalar + PlusEq2<Mul, D, T>, D: Copy + 'static>(
    y: &mut [T],
    x: &[D],
    w: &mut [T],
    b: &mut [T],
    rows: usize,
    n_in: usize,
    n_out: usize,
) {
    dense_data(Step::Forward, y, x, w, b, (rows, n_in, n_out))
}
/// The inverse of [`i_dense_data`]: `Y -= X W + 1 bᵀ`.
#[inline]
pub fn i_dense_data_inv<T: Scalar + PlusEq2<Mul, D, T>, D: Copy + 'static>(
    y: &mut [T],
    x: &[D],
    w: &mut [T],
    b: &mut [T],
    rows: usize,
    n_in: usize,
    n_out: usize,
) {
    dense_data(Step::Inverse, y, x, w, b, (rows, n_in, n_out))
}
fn dense_data<T: Scalar + PlusEq2<Mul, D, T>, D: Copy + 'static>(
    step: Step,
    y: &mut [T],
    x: &[D],
    w: &mut [T],
    b: &mut [T],
    dims: (usize, usize, usize),
) {
    let (rows, n_in, n_out) = dims;
    dense_dims(
        "i_dense_data(y, x, w, b, rows, n_in, n_out)",
        (y.len(), x.len(), w.len(), b.len()),
        dims,
    );
    if narrow_dense::dense_data(step, y, x, w, b, dims) {
        return;
    }
    if matmul::gemm(step, y, Operand::Data(x.as_ptr()), w, dims) {
        matmul::add_rows(step, y, b, rows, n_out);
        return;
    }
    match step {
        // adjoint-only: the full instruction loop (its value updates are harmless)
        Step::Forward | Step::ForwardAdjoints => dense_data_loop(y, x, w, b, rows, n_in, n_out),
        Step::Inverse | Step::InverseAdjoints => dense_data_loop_inv(y, x, w, b, rows, n_in, n_out),
        Step::ForwardValues => {
            dense_data_loop::__primal(dense_data_loop, (y, x, w, b, rows, n_in, n_out))
        }
    }
}
matmul::dense_markers!(
    i_dense_data,
    i_dense_data_inv,
    /// Values only (`y` carries no adjoint).
    #[doc(hidden)]
    #[inline]
    #[allow(clippy::type_complexity)]
    pub fn __primal<
        'a,
        F: crate::CallTuple<(
            &'a mut [T],
            &'a [D],
            &'a mut [T],
            &'a mut [T],
            usize,
            usize,
            usize,
        )>,
        T: Scalar + PlusEq2<Mul, D, T>,
        D: Copy + 'static,
    >(
        _f: F,
        (y, x, w, b, rows, n_in, n_out): (
            &'a mut [T],
            &'a [D],
            &'a mut [T],
            &'a mut [T],
            usize,
            usize,
            usize,
        ),
    ) {
        dense_data(Step::ForwardValues, y, x, w, b, (rows, n_in, n_out))
    },
    /// Adjoint-only where bit 0 of `dead` is set (`y`'s value afterwards is never read).
    #[doc(hidden)]
    #[inline]
    #[allow(clippy::type_complexity)]
    pub fn __adj<
        'a,
        F: crate::CallTuple<(
            &'a mut [T],
            &'a [D],
            &'a mut [T],
            &'a mut [T],
            usize,
            usize,
            usize,
        )>,
        T: Scalar + PlusEq2<Mul, D, T>,
        D: Copy + 'static,
    >(
        _f: F,
        dead: crate::abi::ParamMask,
        (y, x, w, b, rows, n_in, n_out): (
            &'a mut [T],
            &'a [D],
            &'a mut [T],
            &'a mut [T],
            usize,
            usize,
            usize,
        ),
    ) {
        dense_data(
            Step::Forward.dead_target(dead),
            y,
            x,
            w,
            b,
            (rows, n_in, n_out),
        )
    },
    /// Adjoint-only where bit 0 of `dead` is set (`y`'s value afterwards is never read).
    #[doc(hidden)]
    #[inline]
    #[allow(clippy::type_complexity)]
    pub fn __adj<
        'a,
        F: crate::CallTuple<(
            &'a mut [T],
            &'a [D],
            &'a mut [T],
            &'a mut [T],
            usize,
            usize,
            usize,
        )>,
        T: Scalar + PlusEq2<Mul, D, T>,
        D: Copy + 'static,
    >(
        _f: F,
        dead: crate::abi::ParamMask,
        (y, x, w, b, rows, n_in, n_out): (
            &'a mut [T],
            &'a [D],
            &'a mut [T],
            &'a mut [T],
            usize,
            usize,
            usize,
        ),
    ) {
        dense_data(
            Step::Inverse.dead_target(dead),
            y,
            x,
            w,
            b,
            (rows, n_in, n_out),
        )
    }
);
matmul::dense_reversible!(
    /// [`i_dense_data`] as a reversible value.
    IDenseData, i_dense_data, i_dense_data_inv, ['y, 'x, 'w, 'b, T: Scalar + PlusEq2<Mul, D, T>, D: Copy + 'static],
    (y: &'y mut [T] => &mut *y, x: &'x [D] => x, w: &'w mut [T] => &mut *w, b: &'b mut [T] => &mut *b,
     rows: usize => rows, n_in: usize => n_in, n_out: usize => n_out)
);

/// The lengths of a dense layer: `Y` is `rows × n_out`, `X` is `rows × n_in`, `W` is
/// `n_in × n_out`, `b` has `n_out`.
fn dense_dims(
    call: &'static str,
    (ly, lx, lw, lb): (usize, usize, usize, usize),
    (rows, n_in, n_out): (usize, usize, usize),
) {
    crate::check::dimensions(
        Some(ly) == rows.checked_mul(n_out)
            && Some(lx) == rows.checked_mul(n_in)
            && Some(lw) == n_in.checked_mul(n_out)
            && lb == n_out,
        "nilang::stdlib::nnlib::i_dense",
        call,
        || {
            format!("dimension mismatch: Y has {ly}, X has {lx}, W has {lw}, b has {lb} elements for rows={rows}, n_in={n_in}, n_out={n_out}")
        },
    );
}

/// The instruction loop of [`i_dense`] (lengths checked by the caller).
#[i(nocheck)]
fn dense_loop<T: Scalar>(
    y: &mut [T],
    x: &mut [T],
    w: &mut [T],
    b: &mut [T],
    rows: usize,
    n_in: usize,
    n_out: usize,
) {
    gemm_loop(y, x, w, rows, n_in, n_out);
    for r in 0..rows {
        for j in 0..n_out {
            y[r * n_out + j] += b[j];
        }
    }
}

/// The instruction loop of [`i_dense_data`] (lengths checked by the caller).
#[i(nocheck)]
fn dense_data_loop<T: Scalar + PlusEq2<Mul, D, T>, D: Copy>(
    y: &mut [T],
    x: &[D],
    w: &mut [T],
    b: &mut [T],
    rows: usize,
    n_in: usize,
    n_out: usize,
) {
    for r in 0..rows {
        for l in 0..n_in {
            for j in 0..n_out {
                y[r * n_out + j] += x[r * n_in + l] * w[l * n_out + j];
            }
        }
        for j in 0..n_out {
            y[r * n_out + j] += b[j];
        }
    }
}
