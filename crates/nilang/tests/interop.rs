//! The types users hold (features `nalgebra`, `ndarray`): gradients through `nalgebra` and
//! `ndarray` arguments equal those through `Vec`s, and read-only matrices reach the function
//! without a copy.
//!
//! `cargo test -p nilang --features nalgebra,ndarray --test interop`
use nalgebra::{DMatrix, DVector, RowDVector, SMatrix, SVector};
use ndarray::{Array1, Array2};
use nilang::ad::interop_nalgebra::{self, grad_matrix};
use nilang::ad::interop_ndarray::grads_of;
use nilang::prelude::*;
use std::cell::Cell;

#[global_allocator]
static ALLOC: nilang_testkit::alloc::CountingAlloc = nilang_testkit::alloc::CountingAlloc;

thread_local! {
    /// The address of the data matrix as the function saw it.
    static SEEN: Cell<usize> = const { Cell::new(0) };
}

/// `y += A x` (A row-major, `m × n`), `out += Σ wᵢ sin(yᵢ)`.
#[i]
fn model_vec<T: Scalar>(out: &mut T, w: &mut [T], a: &[f64], x: &mut [T], y: &mut [T]) {
    for i in 0..y.len() {
        for j in 0..x.len() {
            y[i] += a[i * x.len() + j] * x[j];
        }
        let s = T::default();
        s += sin(y[i]);
        out += w[i] * s;
        s -= sin(y[i]);
        dealloc!(s = T::default());
    }
}

/// The same model with `A` a `nalgebra` matrix.
#[i]
fn model_nalgebra<T: Scalar>(out: &mut T, w: &mut [T], a: &DMatrix<f64>, x: &mut [T], y: &mut [T]) {
    safe! {
        SEEN.with(|s| s.set(a.as_ptr() as usize));
    }
    for i in 0..y.len() {
        for j in 0..x.len() {
            y[i] += a[(i, j)] * x[j];
        }
        let s = T::default();
        s += sin(y[i]);
        out += w[i] * s;
        s -= sin(y[i]);
        dealloc!(s = T::default());
    }
}

/// The same model with every vector an in-out `nalgebra` vector (`w[i]`, linear indexing of
/// a vector, is nalgebra's `Index<usize>`, which asks for `nalgebra::Scalar`).
#[i]
fn model_nalgebra_in_out<T: Scalar + nalgebra::Scalar>(
    out: &mut T,
    w: &mut DVector<T>,
    a: &DMatrix<f64>,
    x: &mut DVector<T>,
    y: &mut DVector<T>,
) {
    for i in 0..y.len() {
        for j in 0..x.len() {
            y[i] += a[(i, j)] * x[j];
        }
        let s = T::default();
        s += sin(y[i]);
        out += w[i] * s;
        s -= sin(y[i]);
        dealloc!(s = T::default());
    }
}

/// The same model on `ndarray` arrays.
#[i]
fn model_ndarray<T: Scalar>(
    out: &mut T,
    w: &mut Array1<T>,
    a: &Array2<f64>,
    x: &mut Array1<T>,
    y: &mut Array1<T>,
) {
    safe! {
        SEEN.with(|s| s.set(a.as_ptr() as usize));
    }
    for i in 0..y.len() {
        for j in 0..x.len() {
            y[i] += a[[i, j]] * x[j];
        }
        let s = T::default();
        s += sin(y[i]);
        out += w[i] * s;
        s -= sin(y[i]);
        dealloc!(s = T::default());
    }
}

/// `out += Σᵢⱼ W[i][j] · xⱼ` with the weights in-out: `W` row-major in a `Vec`.
#[i]
fn weights_vec<T: Scalar>(out: &mut T, wm: &mut [T], x: &[f64]) {
    for i in 0..wm.len() / x.len() {
        for j in 0..x.len() {
            out += wm[i * x.len() + j] * x[j];
        }
    }
}

/// The same with `W` an in-out `ndarray` matrix.
#[i]
fn weights_ndarray<T: Scalar>(out: &mut T, wm: &mut Array2<T>, x: &[f64]) {
    for i in 0..wm.nrows() {
        for j in 0..x.len() {
            out += wm[[i, j]] * x[j];
        }
    }
}

/// The same with `W` an in-out `nalgebra` matrix (`(i, j)` indexing needs no extra bound).
#[i]
fn weights_nalgebra<T: Scalar>(out: &mut T, wm: &mut DMatrix<T>, x: &[f64]) {
    safe! {
        SEEN.with(|s| s.set(wm.as_ptr() as usize));
    }
    for i in 0..wm.nrows() {
        for j in 0..x.len() {
            out += wm[(i, j)] * x[j];
        }
    }
}

/// The same with `W` a static `2 × 3` matrix.
#[i]
fn weights_static<T: Scalar>(out: &mut T, wm: &mut SMatrix<T, 2, 3>, x: &[f64]) {
    for i in 0..2 {
        for j in 0..3 {
            out += wm[(i, j)] * x[j];
        }
    }
}

/// `out += Σ (wᵢ · rᵢ)` with `w` a column and `r` a row vector, both in-out and static/heap.
#[i]
fn column_times_row<T: Scalar>(out: &mut T, w: &mut SVector<T, 3>, r: &mut RowDVector<T>) {
    for i in 0..3 {
        out += w[(i, 0)] * r[(0, i)];
    }
}

const M: usize = 3;
const N: usize = 4;

fn data() -> (Vec<f64>, Vec<f64>, Vec<f64>) {
    let a: Vec<f64> = (0..M * N)
        .map(|k| ((k * 7 % 11) as f64 - 5.0) / 4.0)
        .collect();
    let w: Vec<f64> = (0..M).map(|k| 0.5 + k as f64 / 3.0).collect();
    let x: Vec<f64> = (0..N).map(|k| (k as f64 - 1.5) / 2.0).collect();
    (a, w, x)
}

/// The reference: values and gradients (w, x) through `Vec`s.
fn through_vecs() -> (f64, Vec<f64>, Vec<f64>) {
    let (a, mut w, mut x) = data();
    let mut y = vec![0.0; M];
    let (v, (_, gw, _, gx, _)) =
        nilang::ad::value_and_gradient(&ModelVec, (&mut 0.0, &mut w, &a[..], &mut x, &mut y), 0);
    let g = |s: &[GVar<f64>]| s.iter().map(|v| v.g).collect::<Vec<_>>();
    assert!(v.abs() > 0.1, "a loss worth differentiating: {v}");
    (v, g(&gw), g(&gx))
}

#[test]
fn nalgebra_gradients_equal_the_vec_gradients_and_the_matrix_is_not_copied() {
    let (v_ref, gw_ref, gx_ref) = through_vecs();
    let (a, w, x) = data();
    let a = DMatrix::from_row_slice(M, N, &a);
    let (mut w, mut x) = (DVector::from_vec(w), DVector::from_vec(x));
    let mut y = DVector::<f64>::zeros(M);
    let args = (
        &mut 0.0,
        w.as_mut_slice(),
        &a,
        x.as_mut_slice(),
        y.as_mut_slice(),
    );
    let (v, (_, gw, _, gx, _)) = nilang::ad::value_and_gradient(&ModelNalgebra, args, 0);
    assert_eq!(v, v_ref);
    assert_eq!(grad_matrix(&gw, &w), DVector::from_vec(gw_ref));
    assert_eq!(grad_matrix(&gx, &x), DVector::from_vec(gx_ref));
    // the function read the caller's matrix itself
    assert_eq!(SEEN.with(|s| s.get()), a.as_ptr() as usize);
}

#[test]
fn nalgebra_static_matrices_in_and_out() {
    let (a, w, x) = data();
    let a = SMatrix::<f64, M, N>::from_row_slice(&a);
    let mut w = SMatrix::<f64, M, 1>::from_column_slice(&w);
    let mut x = SMatrix::<f64, N, 1>::from_column_slice(&x);
    let mut y = SMatrix::<f64, M, 1>::zeros();
    let (_, gw_ref, gx_ref) = through_vecs();
    let dyn_a = DMatrix::from_column_slice(M, N, a.as_slice());
    let args = (
        &mut 0.0,
        w.as_mut_slice(),
        &dyn_a,
        x.as_mut_slice(),
        y.as_mut_slice(),
    );
    let (_, (_, gw, _, gx, _)) = nilang::ad::value_and_gradient(&ModelNalgebra, args, 0);
    assert_eq!(grad_matrix(&gw, &w).as_slice(), &gw_ref[..]);
    assert_eq!(grad_matrix(&gx, &x).as_slice(), &gx_ref[..]);
}

#[test]
fn ndarray_gradients_equal_the_vec_gradients_and_the_array_is_not_copied() {
    let (v_ref, gw_ref, gx_ref) = through_vecs();
    let (a, w, x) = data();
    let a = Array2::from_shape_vec((M, N), a).unwrap();
    let (mut w, mut x) = (Array1::from_vec(w), Array1::from_vec(x));
    let (w0, x0) = (w.clone(), x.clone());
    let mut y = Array1::<f64>::zeros(M);
    let args = (&mut 0.0, &mut w, &a, &mut x, &mut y);
    let (v, (_, gw, _, gx, _)) = nilang::ad::value_and_gradient(&ModelNdarray, args, 0);
    assert_eq!(v, v_ref);
    assert_eq!(grads_of(&gw).to_vec(), gw_ref);
    assert_eq!(grads_of(&gx).to_vec(), gx_ref);
    assert_eq!((w, x), (w0, x0), "the arguments are left unchanged");
    assert_eq!(SEEN.with(|s| s.get()), a.as_ptr() as usize);
}

#[test]
fn ndarray_in_out_matrices_in_any_layout_match_the_vec() {
    let x = [0.25, -0.5, 1.0];
    let wv: Vec<f64> = (0..2 * 3).map(|k| k as f64 - 2.0).collect();
    let (_, (_, g_ref, _)) =
        nilang::ad::value_and_gradient(&WeightsVec, (&mut 0.0, &mut wv.clone(), &x[..]), 0);
    let g_ref: Vec<f64> = g_ref.iter().map(|v| v.g).collect();
    assert_eq!(g_ref, [0.25, -0.5, 1.0, 0.25, -0.5, 1.0]);
    // standard layout, and the same matrix stored column by column (a transposed array)
    let standard = Array2::from_shape_vec((2, 3), wv.clone()).unwrap();
    let column_major =
        Array2::from_shape_vec((3, 2), (0..6).map(|k| wv[(k % 2) * 3 + k / 2]).collect())
            .unwrap()
            .reversed_axes();
    assert!(column_major.as_slice().is_none() && column_major == standard);
    for mut wm in [standard, column_major] {
        let before = wm.clone();
        let (v, (_, g, _)) =
            nilang::ad::value_and_gradient(&WeightsNdarray, (&mut 0.0, &mut wm, &x[..]), 0);
        assert!(v != 0.0);
        assert_eq!(grads_of(&g).iter().copied().collect::<Vec<_>>(), g_ref);
        assert_eq!(wm, before);
    }
}

/// `W` (2 × 3, row-major) and `x` for the weights functions, and the reference gradient
/// through a `Vec`.
fn weights_data() -> (Vec<f64>, [f64; 3], Vec<f64>) {
    let x = [0.25, -0.5, 1.0];
    let wv: Vec<f64> = (0..2 * 3).map(|k| k as f64 - 2.0).collect();
    let (_, (_, g_ref, _)) =
        nilang::ad::value_and_gradient(&WeightsVec, (&mut 0.0, &mut wv.clone(), &x[..]), 0);
    let g_ref: Vec<f64> = g_ref.iter().map(|v| v.g).collect();
    assert_eq!(g_ref, [0.25, -0.5, 1.0, 0.25, -0.5, 1.0]);
    (wv, x, g_ref)
}

#[test]
fn nalgebra_in_out_vectors_give_the_vec_gradients() {
    let (v_ref, gw_ref, gx_ref) = through_vecs();
    let (a, w, x) = data();
    let a = DMatrix::from_row_slice(M, N, &a);
    let (mut w, mut x) = (DVector::from_vec(w), DVector::from_vec(x));
    let (w0, x0) = (w.clone(), x.clone());
    let mut y = DVector::<f64>::zeros(M);
    let args = (&mut 0.0, &mut w, &a, &mut x, &mut y);
    let (v, (_, gw, _, gx, gy)) = nilang::ad::value_and_gradient(&ModelNalgebraInOut, args, 0);
    assert_eq!(v, v_ref);
    assert_eq!(interop_nalgebra::grads_of(&gw), DVector::from_vec(gw_ref));
    assert_eq!(interop_nalgebra::grads_of(&gx), DVector::from_vec(gx_ref));
    assert_eq!(gy.len(), M);
    assert_eq!((w, x), (w0, x0), "the arguments are left unchanged");
    assert_eq!(y, DVector::zeros(M));
}

#[test]
fn nalgebra_in_out_matrices_dynamic_and_static_give_the_vec_gradients() {
    let (wv, x, g_ref) = weights_data();
    // row-major data, nalgebra stores column by column: the gradient is compared by (i, j)
    let g_ref = DMatrix::from_row_slice(2, 3, &g_ref);
    let mut wm = DMatrix::from_row_slice(2, 3, &wv);
    let before = wm.clone();
    let (v, (_, g, _)) =
        nilang::ad::value_and_gradient(&WeightsNalgebra, (&mut 0.0, &mut wm, &x[..]), 0);
    let expected: f64 = (0..2)
        .map(|i| (0..3).map(|j| before[(i, j)] * x[j]).sum::<f64>())
        .sum();
    assert_eq!(v, expected);
    assert_eq!(interop_nalgebra::grads_of(&g), g_ref);
    assert_eq!(wm, before);

    let mut ws = SMatrix::<f64, 2, 3>::from_row_slice(&wv);
    let (vs, (_, gs, _)) =
        nilang::ad::value_and_gradient(&WeightsStatic, (&mut 0.0, &mut ws, &x[..]), 0);
    assert_eq!(vs, expected);
    assert_eq!(
        interop_nalgebra::grads_of(&gs),
        g_ref.fixed_view::<2, 3>(0, 0)
    );
    assert_eq!(ws, SMatrix::<f64, 2, 3>::from_row_slice(&wv));
}

#[test]
fn nalgebra_static_column_and_heap_row_vectors_in_out() {
    let mut w = SVector::<f64, 3>::new(1.0, -2.0, 0.5);
    let mut r = RowDVector::from_vec(vec![4.0, 3.0, -1.0]);
    let (v, (_, gw, gr)) =
        nilang::ad::value_and_gradient(&ColumnTimesRow, (&mut 0.0, &mut w, &mut r), 0);
    assert_eq!(v, 4.0 - 6.0 - 0.5);
    assert_eq!(
        interop_nalgebra::grads_of(&gw),
        r.transpose().fixed_rows::<3>(0)
    );
    assert_eq!(interop_nalgebra::grads_of(&gr), w.transpose());
}

/// Where the layouts match there is no copy: the plain (value) call runs on the caller's own
/// matrix; the gradient writes the values back into the caller's own buffer (same address),
/// and a `Plan` refreshes its lifted matrix in place, so a second gradient call allocates
/// nothing at all.
#[test]
fn nalgebra_in_out_matrix_no_copy_where_the_layout_matches() {
    let (wv, x, _) = weights_data();
    let mut wm = DMatrix::from_row_slice(2, 3, &wv);
    let address = wm.as_ptr() as usize;
    let mut out = 0.0;
    weights_nalgebra(&mut out, &mut wm, &x);
    assert_eq!(
        SEEN.with(|s| s.get()),
        address,
        "the plain call reads the caller's matrix"
    );
    weights_nalgebra_inv(&mut out, &mut wm, &x);
    assert_eq!(out, 0.0);

    let mut plan = nilang::ad::Plan::new();
    let first = plan
        .value_and_gradient(&WeightsNalgebra, (&mut 0.0, &mut wm, &x[..]), 0)
        .0;
    let lifted = SEEN.with(|s| s.get());
    let before = nilang_testkit::alloc::allocs();
    let (second, (_, g, _)) =
        plan.value_and_gradient(&WeightsNalgebra, (&mut 0.0, &mut wm, &x[..]), 0);
    let allocated = nilang_testkit::alloc::allocs() - before;
    assert_eq!(second, first);
    assert_eq!(g[(1, 2)].g, x[2]);
    assert_eq!(allocated, 0, "the second gradient call allocates nothing");
    assert_eq!(
        SEEN.with(|s| s.get()),
        lifted,
        "the plan's lifted matrix is reused"
    );
    assert_eq!(
        wm.as_ptr() as usize,
        address,
        "the values went back into the same buffer"
    );
    assert_eq!(wm, DMatrix::from_row_slice(2, 3, &wv));
}
