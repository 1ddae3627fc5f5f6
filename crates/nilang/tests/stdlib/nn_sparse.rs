//! Standard library: nnlib (relu, softmax cross-entropy, running maxima, log-sum-exp, filter,
//! map-fold) and sparse (CSC Frobenius dot and mat-vec, real and complex) against `sprs`.
use nilang::ad::{check_grad, gradient};
use nilang::instr::fns::Exp;
use nilang::prelude::*;
use nilang::stdlib::nnlib::*;
use nilang::stdlib::sparse::*;
use nilang_testkit::{close, rnd};
use num_complex::{Complex, Complex64 as C};

fn lift(x: &[f64]) -> Vec<GVar<f64>> {
    x.iter().map(|&v| GVar::from(v)).collect()
}

fn grads(x: &[GVar<f64>]) -> Vec<f64> {
    x.iter().map(|v| v.g).collect()
}

// ---------------------------------------------------------------- nnlib

#[test]
fn relu_both_branches() {
    for (x, y, g) in [(2.5, 2.5, 1.0), (-2.5, 0.0, 0.0)] {
        let (mut out, mut xx) = (0.0, x);
        i_relu(&mut out, &mut xx);
        assert_eq!(out, y);
        i_relu_inv(&mut out, &mut xx);
        assert_eq!(out, 0.0);
        let st = gradient(&IRelu, (&mut 0.0, &mut xx), 0);
        assert_eq!(st.1.g, g);
    }
}

#[test]
fn softmax_crossentropy_value_inverse_gradient() {
    let mut x = rnd(6, 1).iter().map(|v| 3.0 * v).collect::<Vec<_>>();
    let mut p: Vec<f64> = rnd(6, 2).iter().map(|v| v.abs()).collect();
    let (x0, p0) = (x.clone(), p.clone());
    let (mut imax, mut xmax, mut z, mut out) = (0, 0.0, 0.0, 0.0);
    i_softmax_crossentropy(&mut x, &mut p, &mut imax, &mut xmax, &mut z, &mut out);
    let m = x0.iter().cloned().fold(f64::MIN, f64::max);
    let lse = m + x0.iter().map(|v| (v - m).exp()).sum::<f64>().ln();
    let expect: f64 = x0.iter().zip(&p0).map(|(xi, pi)| pi * (lse - xi)).sum();
    assert!((out - expect).abs() < 1e-14);
    assert_eq!((imax, xmax), (argmax(&x0), m));
    assert!(close(&x, &x0, 1e-15));
    i_softmax_crossentropy_inv(&mut x, &mut p, &mut imax, &mut xmax, &mut z, &mut out);
    assert_eq!((imax, xmax), (0, 0.0));
    assert!(z.abs() < 1e-14 && out.abs() < 1e-14);
    // d out / d xᵢ = softmax(x)ᵢ Σp − pᵢ
    let st = gradient(
        &ISoftmaxCrossentropy,
        (&mut x[..], &mut p[..], &mut 0, &mut 0.0, &mut 0.0, &mut 0.0),
        5,
    );
    let sp: f64 = p0.iter().sum();
    let hand: Vec<f64> = x0
        .iter()
        .zip(&p0)
        .map(|(xi, pi)| (xi - lse).exp() * sp - pi)
        .collect();
    assert!(close(&grads(&st.0), &hand, 1e-13));
    for iin in [0, 1] {
        check_grad(
            &ISoftmaxCrossentropy,
            (&mut x[..], &mut p[..], &mut 0, &mut 0.0, &mut 0.0, &mut 0.0),
            5,
            iin,
            1e-6,
            1e-6,
        )
        .unwrap();
    }
}

#[test]
fn ascending_case_38() {
    let mut arr = rnd(20, 3);
    let (mut xs, mut inds) = (vec![], vec![]);
    i_ascending(&mut xs, &mut inds, &mut arr);
    let max = arr.iter().cloned().fold(f64::MIN, f64::max);
    assert_eq!(*xs.last().unwrap(), max);
    assert_eq!(arr[*inds.last().unwrap()], max);
    assert!(xs.windows(2).all(|w| w[0] < w[1]));
    for (v, i) in xs.iter().zip(&inds) {
        assert_eq!(arr[*i], *v);
    }
    i_ascending_inv(&mut xs, &mut inds, &mut arr);
    assert!(xs.is_empty() && inds.is_empty());
    // empty input: nothing pushed
    let (mut xs, mut inds, mut e) = (Vec::<f64>::new(), vec![], Vec::<f64>::new());
    i_ascending(&mut xs, &mut inds, &mut e);
    assert!(xs.is_empty() && inds.is_empty());
}

#[test]
fn logsumexp_case_38_inverse_gradient() {
    let x0: Vec<f64> = rnd(10, 4).iter().map(|v| 5.0 * v).collect();
    let mut x = x0.clone();
    let (mut logout, mut out, mut xs, mut inds) = (0.0, 0.0, vec![], vec![]);
    i_logsumexp(&mut logout, &mut out, &mut xs, &mut inds, &mut x);
    let lse = x0.iter().map(|v| v.exp()).sum::<f64>().ln();
    assert!((logout - lse).abs() < 1e-14);
    assert!(close(&x, &x0, 1e-15)); // shifted by the maximum and back
    i_logsumexp_inv(&mut logout, &mut out, &mut xs, &mut inds, &mut x);
    assert!(logout.abs() < 1e-14 && out.abs() < 1e-15 && xs.is_empty() && inds.is_empty());
    // the gradient is softmax(x): forward on gradient numbers, seed, inverse
    let mut gx = lift(&x0);
    let (mut gl, mut go, mut gxs, mut ginds) = (GVar::from(0.0), GVar::from(0.0), vec![], vec![]);
    i_logsumexp(&mut gl, &mut go, &mut gxs, &mut ginds, &mut gx);
    gl.g = 1.0;
    i_logsumexp_inv(&mut gl, &mut go, &mut gxs, &mut ginds, &mut gx);
    let softmax: Vec<f64> = x0.iter().map(|v| (v - lse).exp()).collect();
    assert!(close(&grads(&gx), &softmax, 1e-13), "{:?}", grads(&gx));
    // large values do not overflow
    let mut big = vec![1000.0, 1000.0];
    let (mut logout, mut out, mut xs, mut inds) = (0.0, 0.0, vec![], vec![]);
    i_logsumexp(&mut logout, &mut out, &mut xs, &mut inds, &mut big);
    assert!((logout - (1000.0 + 2.0_f64.ln())).abs() < 1e-12);
}

fn is_neg<T: Ordered>(v: &T) -> bool {
    *v < T::default()
}

/// NiLang's filter + mapfoldl test: out += Σ exp(xᵢ) over the negative xᵢ.
#[i]
fn neg_exp_sum<T: Ordered>(out: &mut T, st: &mut Vec<T>, x: &mut [T]) {
    i_filter(&is_neg::<T>, st, x);
    i_mapfoldl(Exp, &IAddTo, out, st);
}

#[test]
fn filter_mapfoldl_case_38() {
    let (mut out, mut st, mut x) = (0.0, vec![], vec![-1.0, -0.5, 3.0]);
    neg_exp_sum(&mut out, &mut st, &mut x);
    assert_eq!(out, (-0.5_f64).exp() + (-1.0_f64).exp());
    assert_eq!(st, [-1.0, -0.5]);
    neg_exp_sum_inv(&mut out, &mut st, &mut x);
    assert_eq!(out, 0.0);
    assert!(st.is_empty());
    // gradient: exp(xᵢ) for the filtered elements, 0 for the others
    let (mut go, mut gst, mut gx) = (GVar::from(0.0), vec![], lift(&x));
    neg_exp_sum(&mut go, &mut gst, &mut gx);
    go.g = 1.0;
    neg_exp_sum_inv(&mut go, &mut gst, &mut gx);
    assert_eq!(grads(&gx), [(-1.0_f64).exp(), (-0.5_f64).exp(), 0.0]);
    assert!(gst.is_empty());
}

// ---------------------------------------------------------------- sparse

/// A random CSC matrix with about `density · m · n` entries.
fn random_csc(m: usize, n: usize, density: f64, seed: u64) -> sprs::CsMat<f64> {
    let u = rnd(m * n, seed);
    let v = rnd(m * n, seed + 1000);
    let mut tri = sprs::TriMat::new((m, n));
    for i in 0..m {
        for j in 0..n {
            if (u[i * n + j] + 1.0) / 2.0 < density {
                tri.add_triplet(i, j, v[i * n + j]);
            }
        }
    }
    tri.to_csc()
}

fn dense(a: &sprs::CsMat<f64>) -> Vec<f64> {
    let n = a.cols();
    let mut d = vec![0.0; a.rows() * n];
    for (v, (i, j)) in a.iter() {
        d[i * n + j] += v;
    }
    d
}

#[test]
fn sparse_dot_agrees_with_sprs_inverts_and_differentiates() {
    let (m, n) = (30, 20);
    let a = random_csc(m, n, 0.2, 5);
    let b = random_csc(m, n, 0.3, 6);
    // sprs reference: tr(AᵀB)
    let atb = &a.transpose_view() * &b;
    let reference: f64 = (0..n).map(|j| atb.get(j, j).copied().unwrap_or(0.0)).sum();
    let dd: f64 = dense(&a).iter().zip(dense(&b)).map(|(x, y)| x * y).sum();
    assert!((reference - dd).abs() < 1e-12);
    let (sa, sb) = (SparseView::of(&a), SparseView::of(&b));
    let (mut av, mut bv) = (a.data().to_vec(), b.data().to_vec());
    let mut r = 0.0;
    i_sparse_dot(&mut r, &sa, &mut av, &sb, &mut bv);
    assert!((r - reference).abs() < 1e-12, "{r} vs {reference}");
    i_sparse_dot_inv(&mut r, &sa, &mut av, &sb, &mut bv);
    assert!(r.abs() < 1e-12);
    // gradient with respect to A's values: B at the same positions, as a sprs matrix
    let (mut gr, mut gav, mut gbv) = (GVar::from(0.0), lift(&av), lift(&bv));
    i_sparse_dot(&mut gr, &sa, &mut gav, &sb, &mut gbv);
    gr.g = 1.0;
    i_sparse_dot_inv(&mut gr, &sa, &mut gav, &sb, &mut gbv);
    let ga = sa.to_csmat(&grads(&gav));
    let db = dense(&b);
    for (g, (i, j)) in ga.iter() {
        assert_eq!(*g, db[i * n + j]);
    }
    let gb = sb.to_csmat(&grads(&gbv));
    let da = dense(&a);
    for (g, (i, j)) in gb.iter() {
        assert_eq!(*g, da[i * n + j]);
    }
}

#[test]
fn sparse_mul_agrees_with_sprs_inverts_and_differentiates() {
    let (m, n, k) = (25, 15, 2);
    let a = random_csc(m, n, 0.2, 7);
    let sa = SparseView::of(&a);
    let mut av = a.data().to_vec();
    let x0 = rnd(n * k, 8);
    let c0 = rnd(m * k, 9);
    let (mut x, mut c, mut alpha) = (x0.clone(), c0.clone(), 0.5);
    i_sparse_mul(&mut c, &sa, &mut av, &mut x, &mut alpha, k);
    // sprs reference: C + α A X, column by column through sprs' sparse × dense vector
    for l in 0..k {
        let xl: Vec<f64> = (0..n).map(|j| x0[j * k + l]).collect();
        let xs = sprs::CsVec::new(n, (0..n).collect(), xl);
        let ax = &a * &xs;
        let mut axd = vec![0.0; m];
        for (i, v) in ax.iter() {
            axd[i] = *v;
        }
        for i in 0..m {
            assert!((c[i * k + l] - (c0[i * k + l] + 0.5 * axd[i])).abs() < 1e-14);
        }
    }
    i_sparse_mul_inv(&mut c, &sa, &mut av, &mut x, &mut alpha, k);
    assert!(close(&c, &c0, 1e-15));
    // gradient of Σ wᵢ Cᵢ with respect to x: α Aᵀ w, and to α: wᵀ A X
    let w = rnd(m * k, 10);
    let (mut gc, mut gav, mut gx, mut galpha) = (lift(&c0), lift(&av), lift(&x0), GVar::from(0.5));
    i_sparse_mul(&mut gc, &sa, &mut gav, &mut gx, &mut galpha, k);
    for (ci, wi) in gc.iter_mut().zip(&w) {
        ci.g = *wi;
    }
    i_sparse_mul_inv(&mut gc, &sa, &mut gav, &mut gx, &mut galpha, k);
    let da = dense(&a);
    let mut hand = vec![0.0; n * k];
    let mut halpha = 0.0;
    for i in 0..m {
        for j in 0..n {
            for l in 0..k {
                hand[j * k + l] += 0.5 * da[i * n + j] * w[i * k + l];
                halpha += w[i * k + l] * da[i * n + j] * x0[j * k + l];
            }
        }
    }
    assert!(close(&grads(&gx), &hand, 1e-13));
    assert!((galpha.g - halpha).abs() < 1e-12);
}

fn random_complex_csc(m: usize, n: usize, density: f64, seed: u64) -> sprs::CsMat<C> {
    let re = random_csc(m, n, density, seed);
    let im = rnd(re.nnz(), seed + 7);
    let data: Vec<C> = re
        .data()
        .iter()
        .zip(&im)
        .map(|(r, i)| C::new(*r, *i))
        .collect();
    sprs::CsMat::new_csc(
        (m, n),
        re.indptr().raw_storage().to_vec(),
        re.indices().to_vec(),
        data,
    )
}

fn lift_c(x: &[C]) -> Vec<Complex<GVar<f64>>> {
    x.iter()
        .map(|v| Complex::new(GVar::from(v.re), GVar::from(v.im)))
        .collect()
}

#[test]
fn complex_sparse_dot_and_mul_agree_with_sprs() {
    let (m, n) = (20, 12);
    let a = random_complex_csc(m, n, 0.3, 11);
    let b = random_complex_csc(m, n, 0.3, 12);
    let (sa, sb) = (SparseView::of(&a), SparseView::of(&b));
    let (mut av, mut bv) = (a.data().to_vec(), b.data().to_vec());
    // reference tr(AᴴB) through sprs: conj(A)ᵀ B
    let mut ac = a.clone();
    ac.data_mut().iter_mut().for_each(|v| *v = v.conj());
    let ahb = &ac.transpose_view() * &b;
    let reference: C = (0..n)
        .map(|j| ahb.get(j, j).copied().unwrap_or_default())
        .sum();
    let mut r = C::new(0.0, 0.0);
    i_sparse_dot_complex(&mut r, &sa, &mut av, &sb, &mut bv);
    assert!((r - reference).norm() < 1e-12, "{r} vs {reference}");
    i_sparse_dot_complex_inv(&mut r, &sa, &mut av, &sb, &mut bv);
    assert!(r.norm() < 1e-12);

    // C += α A x against sprs' complex sparse × vector
    let x0: Vec<C> = rnd(n, 13)
        .iter()
        .zip(rnd(n, 14))
        .map(|(r, i)| C::new(*r, i))
        .collect();
    let mut alpha = C::new(0.5, -0.25);
    let (mut x, mut c) = (x0.clone(), vec![C::new(0.0, 0.0); m]);
    i_sparse_mul_complex(&mut c, &sa, &mut av, &mut x, &mut alpha, 1);
    let ax = &a * &sprs::CsVec::new(n, (0..n).collect(), x0.clone());
    let mut axd = vec![C::new(0.0, 0.0); m];
    for (i, v) in ax.iter() {
        axd[i] = *v * alpha;
    }
    for i in 0..m {
        assert!((c[i] - axd[i]).norm() < 1e-13);
    }
    i_sparse_mul_complex_inv(&mut c, &sa, &mut av, &mut x, &mut alpha, 1);
    assert!(c.iter().all(|v| v.norm() < 1e-14));

    // gradient of Re(r) for the dot: ∂/∂Re(aₚ) = Re(bₚ'), ∂/∂Im(aₚ) = Im(bₚ') at matched entries
    let (mut gav, mut gbv) = (lift_c(&av), lift_c(&bv));
    let mut gr = Complex::new(GVar::from(0.0), GVar::from(0.0));
    i_sparse_dot_complex(&mut gr, &sa, &mut gav, &sb, &mut gbv);
    gr.re.g = 1.0;
    i_sparse_dot_complex_inv(&mut gr, &sa, &mut gav, &sb, &mut gbv);
    for j in 0..n {
        let range = sa.indptr[j]..sa.indptr[j + 1];
        for (g, row) in gav[range.clone()].iter().zip(&sa.indices[range]) {
            let q = sb.find(*row, j);
            let expect = if q == usize::MAX {
                C::new(0.0, 0.0)
            } else {
                bv[q]
            };
            assert_eq!((g.re.g, g.im.g), (expect.re, expect.im));
        }
    }
    // and a finite-difference check of Im(C) with respect to Im(x)
    let w: Vec<f64> = rnd(m, 15);
    let loss = |x: &[C]| -> f64 {
        let (mut xx, mut cc, mut aa, mut al) =
            (x.to_vec(), vec![C::new(0.0, 0.0); m], av.clone(), alpha);
        i_sparse_mul_complex(&mut cc, &sa, &mut aa, &mut xx, &mut al, 1);
        cc.iter().zip(&w).map(|(c, w)| c.im * w).sum()
    };
    let (mut gc, mut gav, mut gx) = (lift_c(&vec![C::new(0.0, 0.0); m]), lift_c(&av), lift_c(&x0));
    let mut galpha = Complex::new(GVar::from(alpha.re), GVar::from(alpha.im));
    i_sparse_mul_complex(&mut gc, &sa, &mut gav, &mut gx, &mut galpha, 1);
    for (ci, wi) in gc.iter_mut().zip(&w) {
        ci.im.g = *wi;
    }
    i_sparse_mul_complex_inv(&mut gc, &sa, &mut gav, &mut gx, &mut galpha, 1);
    for j in 0..n {
        let (mut xp, mut xm) = (x0.clone(), x0.clone());
        xp[j].im += 1e-6;
        xm[j].im -= 1e-6;
        let fd = (loss(&xp) - loss(&xm)) / 2e-6;
        assert!(
            (gx[j].im.g - fd).abs() < 1e-8,
            "{j}: {} vs {fd}",
            gx[j].im.g
        );
    }
}

#[test]
#[should_panic(expected = "same dimensions")]
fn sparse_dot_shape_mismatch_is_reported() {
    let a = random_csc(4, 3, 0.5, 16);
    let b = random_csc(3, 4, 0.5, 17);
    let (mut av, mut bv, mut r) = (a.data().to_vec(), b.data().to_vec(), 0.0);
    i_sparse_dot(
        &mut r,
        &SparseView::of(&a),
        &mut av,
        &SparseView::of(&b),
        &mut bv,
    );
}
