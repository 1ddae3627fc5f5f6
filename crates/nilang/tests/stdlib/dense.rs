//! Standard library, dense part: blas, linalg, statistics, base. For every function: its
//! value, that the inverse restores the inputs, and its gradient (finite differences through
//! `nilang::ad::check_grad`, or a hand-written gradient).
use nilang::ad::{check_grad, gradient};
use nilang::prelude::*;
use nilang::stdlib::base::*;
use nilang::stdlib::blas::*;
use nilang::stdlib::linalg::*;
use nilang::stdlib::statistics::*;
use nilang_testkit::{close, rnd};
use num_complex::Complex64 as C;

const ATOL: f64 = 1e-6;
const RTOL: f64 = 1e-6;

// ---------------------------------------------------------------- blas

#[test]
fn sum_dot_norm2_values_inverse_gradients() {
    let (mut out, mut x) = (0.0, vec![1.0, 2.0, 3.0]);
    i_sum(&mut out, &mut x);
    assert_eq!(out, 6.0);
    i_sum_inv(&mut out, &mut x);
    assert_eq!(out, 0.0);
    let mut x = rnd(7, 1);
    check_grad(&ISum, (&mut 0.0, &mut x[..]), 0, 1, ATOL, RTOL).unwrap();

    let (mut out, mut x, mut y) = (0.0, vec![1.0, 2.0, 3.0], vec![1.0, 2.0, 5.0]);
    i_dot(&mut out, &mut x, &mut y);
    assert_eq!(out, 20.0);
    i_dot_inv(&mut out, &mut x, &mut y);
    assert_eq!(
        (out, &x[..], &y[..]),
        (0.0, &[1.0, 2.0, 3.0][..], &[1.0, 2.0, 5.0][..])
    );
    check_grad(&IDot, (&mut 0.0, &mut x[..], &mut y[..]), 0, 1, ATOL, RTOL).unwrap();
    check_grad(&IDot, (&mut 0.0, &mut x[..], &mut y[..]), 0, 2, ATOL, RTOL).unwrap();

    let (mut out, mut x) = (0.0, vec![1.0, 2.0, 3.0]);
    i_norm2(&mut out, &mut x);
    assert_eq!(out, 14.0);
    i_norm2_inv(&mut out, &mut x);
    assert_eq!(out, 0.0);
    let g = gradient(&INorm2, (&mut 0.0, &mut x[..]), 0);
    assert_eq!(g.1.iter().map(|v| v.g).collect::<Vec<_>>(), [2.0, 4.0, 6.0]);
}

#[i]
fn sum_exp<T: Scalar>(out: &mut T, x: &mut [T]) {
    i_sum_map(out, nilang::instr::fns::Exp, x);
}

#[test]
fn sum_map_value_inverse_gradient() {
    let x0 = rnd(6, 30);
    let (mut out, mut x) = (0.0, x0.clone());
    sum_exp(&mut out, &mut x);
    assert!((out - x0.iter().map(|v| v.exp()).sum::<f64>()).abs() < 1e-14);
    sum_exp_inv(&mut out, &mut x);
    assert!(out.abs() < 1e-15);
    let g = gradient(&SumExp, (&mut 0.0, &mut x[..]), 0);
    let gx: Vec<f64> = g.1.iter().map(|v| v.g).collect();
    assert!(close(
        &gx,
        &x0.iter().map(|v| v.exp()).collect::<Vec<_>>(),
        1e-15
    ));
}

#[test]
fn complex_dot_and_norm2_case_38() {
    // i_norm2(0.0im, [1.0im, 2.0, 3.0]) -> 14; i_dot(0.0im, [1im, 2, 3], [1, 2im, 5]) -> 15 + 3im
    let mut x = vec![C::new(0.0, 1.0), C::new(2.0, 0.0), C::new(3.0, 0.0)];
    let mut y = vec![C::new(1.0, 0.0), C::new(0.0, 2.0), C::new(5.0, 0.0)];
    let mut n2 = 0.0;
    i_norm2_complex(&mut n2, &mut x);
    assert_eq!(n2, 14.0);
    i_norm2_complex_inv(&mut n2, &mut x);
    assert_eq!(n2, 0.0);
    let mut out = C::new(0.0, 0.0);
    i_dot_complex(&mut out, &mut x, &mut y);
    assert_eq!(out, C::new(15.0, 3.0));
    i_dot_complex_inv(&mut out, &mut x, &mut y);
    assert_eq!(out, C::new(0.0, 0.0));
    // gradient of Re(out) and Im(out) with respect to the parts of x: re/im are independent
    // real variables (NiLang's convention). d Re/d x.re = y.re, d Re/d x.im = y.im,
    // d Im/d x.re = y.im, d Im/d x.im = -y.re.
    for (part, expect) in [
        (0, [1.0, 0.0, 0.0, 2.0, 5.0, 0.0]),
        (1, [0.0, -1.0, 2.0, 0.0, 0.0, -5.0]),
    ] {
        let lift = |v: &C| num_complex::Complex::new(GVar::from(v.re), GVar::from(v.im));
        let mut gx: Vec<num_complex::Complex<GVar<f64>>> = x.iter().map(lift).collect();
        let mut gy: Vec<num_complex::Complex<GVar<f64>>> = y.iter().map(lift).collect();
        let mut o = num_complex::Complex::new(GVar::from(0.0), GVar::from(0.0));
        i_dot_complex(&mut o, &mut gx, &mut gy);
        if part == 0 {
            o.re.g = 1.0;
        } else {
            o.im.g = 1.0;
        }
        i_dot_complex_inv(&mut o, &mut gx, &mut gy);
        let got: Vec<f64> = gx.iter().flat_map(|v| [v.re.g, v.im.g]).collect();
        assert_eq!(got, expect, "part {part}");
        assert_eq!((o.re.x, o.im.x), (0.0, 0.0));
    }
}

#[test]
fn axpy_value_inverse_gradient() {
    let (mut a, mut x, mut y) = (2.0, vec![1.0, 2.0], vec![10.0, 20.0]);
    i_axpy(&mut a, &mut x, &mut y);
    assert_eq!(y, [12.0, 24.0]);
    i_axpy_inv(&mut a, &mut x, &mut y);
    assert_eq!(y, [10.0, 20.0]);
    // Jacobian of y with respect to a is x, with respect to x is a·I
    let j = nilang::ad::jacobian_repeat(&IAxpy, (&mut a, &mut x[..], &mut y[..]), 1, 2);
    assert_eq!(j, vec![vec![2.0, 0.0], vec![0.0, 2.0]]);
    let j = nilang::ad::jacobian_repeat(&IAxpy, (&mut a, &mut x[..], &mut y[..]), 0, 2);
    assert_eq!(j, vec![vec![1.0], vec![2.0]]);
}

#[i]
fn gemv_loss<T: Scalar>(
    l: &mut T,
    y: &mut [T],
    a: &mut [T],
    x: &mut [T],
    w: &mut [T],
    m: usize,
    n: usize,
) {
    i_gemv(y, a, x, m, n);
    i_dot(l, y, w);
}

#[i]
fn gemm_loss<T: Scalar>(
    l: &mut T,
    c: &mut [T],
    a: &mut [T],
    b: &mut [T],
    w: &mut [T],
    m: usize,
    k: usize,
    n: usize,
) {
    i_gemm(c, a, b, m, k, n);
    i_dot(l, c, w);
}

fn matmul(a: &[f64], b: &[f64], m: usize, k: usize, n: usize) -> Vec<f64> {
    let mut c = vec![0.0; m * n];
    for i in 0..m {
        for j in 0..n {
            c[i * n + j] = (0..k).map(|l| a[i * k + l] * b[l * n + j]).sum();
        }
    }
    c
}

#[test]
fn gemv_gemm_values_inverse_gradients() {
    let (m, k, n) = (4, 3, 5);
    let (mut a, mut b) = (rnd(m * k, 2), rnd(k * n, 3));
    let c0 = rnd(m * n, 4);
    let mut c = c0.clone();
    i_gemm(&mut c, &mut a, &mut b, m, k, n);
    let expect: Vec<f64> = matmul(&a, &b, m, k, n)
        .iter()
        .zip(&c0)
        .map(|(p, q)| p + q)
        .collect();
    assert!(close(&c, &expect, 1e-14));
    i_gemm_inv(&mut c, &mut a, &mut b, m, k, n);
    assert!(close(&c, &c0, 1e-15));
    let mut w = rnd(m * n, 5);
    for iin in [2, 3] {
        check_grad(
            &GemmLoss,
            (
                &mut 0.0,
                &mut c[..],
                &mut a[..],
                &mut b[..],
                &mut w[..],
                m,
                k,
                n,
            ),
            0,
            iin,
            ATOL,
            RTOL,
        )
        .unwrap();
    }

    let (mut a, mut x) = (rnd(m * k, 6), rnd(k, 7));
    let mut y = vec![0.0; m];
    i_gemv(&mut y, &mut a, &mut x, m, k);
    assert!(close(&y, &matmul(&a, &x, m, k, 1), 1e-14));
    i_gemv_inv(&mut y, &mut a, &mut x, m, k);
    assert!(y.iter().all(|v| v.abs() < 1e-15));
    let mut w = rnd(m, 8);
    for iin in [2, 3] {
        check_grad(
            &GemvLoss,
            (
                &mut 0.0,
                &mut y[..],
                &mut a[..],
                &mut x[..],
                &mut w[..],
                m,
                k,
            ),
            0,
            iin,
            ATOL,
            RTOL,
        )
        .unwrap();
    }
    // hand gradient: dl/dx = Aᵀ w
    let g = gradient(
        &GemvLoss,
        (
            &mut 0.0,
            &mut y[..],
            &mut a[..],
            &mut x[..],
            &mut w[..],
            m,
            k,
        ),
        0,
    );
    let gx: Vec<f64> = g.3.iter().map(|v| v.g).collect();
    let atw: Vec<f64> = (0..k)
        .map(|j| (0..m).map(|i| a[i * k + j] * w[i]).sum())
        .collect();
    assert!(close(&gx, &atw, 1e-14));
}

#[test]
#[should_panic(expected = "dimension mismatch")]
fn gemv_dimension_mismatch_is_reported() {
    let (mut y, mut a, mut x) = (vec![0.0; 2], vec![0.0; 5], vec![0.0; 3]);
    i_gemv(&mut y, &mut a, &mut x, 2, 3);
}

/// NiLang's `naive_umm!` applied to each column.
fn naive_umm(x: &mut [f64], theta: &[f64], m: usize, n: usize) {
    for l in 0..n {
        let mut k = 0;
        for j in 0..m {
            for i in (j..m - 1).rev() {
                let (a, b, t) = (x[i * n + l], x[(i + 1) * n + l], theta[k]);
                x[i * n + l] = t.cos() * a - t.sin() * b;
                x[(i + 1) * n + l] = t.sin() * a + t.cos() * b;
                k += 1;
            }
        }
    }
}

#[i]
fn umm_loss<T: Scalar + nilang::instr::basic::Rotate<T>>(
    l: &mut T,
    x: &mut [T],
    theta: &mut [T],
    w: &mut [T],
    m: usize,
    n: usize,
) {
    i_umm(x, theta, m, n);
    i_dot(l, x, w);
}

#[test]
fn umm_equals_naive_rotations_inverts_and_differentiates() {
    let (m, n) = (6, 3);
    let x0 = rnd(m * n, 9);
    let mut theta: Vec<f64> = rnd(m * (m - 1) / 2, 10).iter().map(|t| t * 6.0).collect();
    let mut x = x0.clone();
    i_umm(&mut x, &mut theta, m, n);
    let mut xn = x0.clone();
    naive_umm(&mut xn, &theta, m, n);
    assert!(close(&x, &xn, 1e-14));
    // unitary: column norms are kept
    for l in 0..n {
        let n0: f64 = (0..m).map(|i| x0[i * n + l].powi(2)).sum();
        let n1: f64 = (0..m).map(|i| x[i * n + l].powi(2)).sum();
        assert!((n0 - n1).abs() < 1e-13);
    }
    i_umm_inv(&mut x, &mut theta, m, n);
    assert!(close(&x, &x0, 1e-14));
    let mut w = rnd(m * n, 11);
    for iin in [1, 2] {
        check_grad(
            &UmmLoss,
            (&mut 0.0, &mut x[..], &mut theta[..], &mut w[..], m, n),
            0,
            iin,
            ATOL,
            RTOL,
        )
        .unwrap();
    }
}

// ---------------------------------------------------------------- linalg

#[test]
fn affine_value_inverse_gradient() {
    let (m, n) = (5, 3);
    let (mut w, mut b, mut x) = (rnd(m * n, 12), rnd(m, 13), rnd(n, 14));
    let mut y = vec![0.0; m];
    i_affine(&mut y, &mut w, &mut b, &mut x);
    let wx = matmul(&w, &x, m, n, 1);
    let expect: Vec<f64> = wx.iter().zip(&b).map(|(p, q)| p + q).collect();
    assert!(close(&y, &expect, 1e-14));
    i_affine_inv(&mut y, &mut w, &mut b, &mut x);
    assert!(y.iter().all(|v| v.abs() < 1e-15));
    // Jacobian with respect to x is W, with respect to b is I
    let jx = nilang::ad::jacobian_repeat(
        &IAffine,
        (&mut y[..], &mut w[..], &mut b[..], &mut x[..]),
        3,
        0,
    );
    for i in 0..m {
        assert!(close(&jx[i], &w[i * n..(i + 1) * n], 1e-15));
    }
    let jb = nilang::ad::jacobian_repeat(
        &IAffine,
        (&mut y[..], &mut w[..], &mut b[..], &mut x[..]),
        2,
        0,
    );
    for (i, row) in jb.iter().enumerate() {
        for (j, v) in row.iter().enumerate() {
            assert_eq!(*v, f64::from(i == j));
        }
    }
}

fn well_conditioned(n: usize, seed: u64) -> Vec<f64> {
    let mut a = rnd(n * n, seed);
    for i in 0..n {
        a[i * n + i] += 3.0;
    }
    a
}

#[i]
fn inv_loss<T: Scalar + MatrixPrimitive>(
    l: &mut T,
    out: &mut [T],
    a: &mut [T],
    w: &mut [T],
    n: usize,
) {
    i_inv(out, a, n);
    i_dot(l, out, w);
}

#[test]
fn inverse_primitive_value_inverse_gradient() {
    let n = 4;
    let mut a = well_conditioned(n, 15);
    let mut out = vec![0.0; n * n];
    i_inv(&mut out, &mut a, n);
    let id = matmul(&a, &out, n, n, n);
    for i in 0..n {
        for j in 0..n {
            assert!((id[i * n + j] - f64::from(i == j)).abs() < 1e-13);
        }
    }
    i_inv_inv(&mut out, &mut a, n);
    assert!(out.iter().all(|v| v.abs() < 1e-15));
    let mut w = rnd(n * n, 16);
    check_grad(
        &InvLoss,
        (&mut 0.0, &mut out[..], &mut a[..], &mut w[..], n),
        0,
        2,
        ATOL,
        RTOL,
    )
    .unwrap();
    // the rule written out: dl/dA = −A⁻ᵀ W A⁻ᵀ
    let g = gradient(
        &InvLoss,
        (&mut 0.0, &mut out[..], &mut a[..], &mut w[..], n),
        0,
    );
    let ga: Vec<f64> = g.2.iter().map(|v| v.g).collect();
    let mut ai = vec![0.0; n * n];
    i_inv(&mut ai, &mut a, n);
    let ait: Vec<f64> = (0..n * n).map(|p| ai[(p % n) * n + p / n]).collect();
    let hand: Vec<f64> = matmul(&matmul(&ait, &w, n, n, n), &ait, n, n, n)
        .iter()
        .map(|v| -v)
        .collect();
    assert!(close(&ga, &hand, 1e-12));
}

#[test]
fn det_logdet_primitives_value_inverse_gradient() {
    let (mut d, mut a) = (0.0, vec![1.0, 2.0, 3.0, 4.0]);
    i_det(&mut d, &mut a, 2);
    assert!((d + 2.0).abs() < 1e-15);
    i_det_inv(&mut d, &mut a, 2);
    assert_eq!(d, 0.0);
    let n = 5;
    let mut a = well_conditioned(n, 17);
    check_grad(&IDet, (&mut 0.0, &mut a[..], n), 0, 1, ATOL, RTOL).unwrap();
    check_grad(&ILogdet, (&mut 0.0, &mut a[..], n), 0, 1, ATOL, RTOL).unwrap();
    // logdet of a diagonal matrix, and its gradient A⁻ᵀ
    let mut diag = vec![2.0, 0.0, 0.0, 0.0, 4.0, 0.0, 0.0, 0.0, 0.5];
    let g = gradient(&ILogdet, (&mut 0.0, &mut diag[..], 3), 0);
    let expect = [0.5, 0.0, 0.0, 0.0, 0.25, 0.0, 0.0, 0.0, 2.0];
    assert!(close(
        &g.1.iter().map(|v| v.g).collect::<Vec<_>>(),
        &expect,
        1e-15
    ));
    let mut l = 0.0;
    i_logdet(&mut l, &mut diag, 3);
    assert!((l - 4.0_f64.ln()).abs() < 1e-15);
    // a negative determinant: ln|det|
    let (mut l, mut neg) = (0.0, vec![0.0, 1.0, 1.0, 0.0]);
    i_logdet(&mut l, &mut neg, 2);
    assert!(l.abs() < 1e-15);
}

#[test]
#[should_panic(expected = "singular")]
fn inverse_of_singular_matrix_is_reported() {
    let (mut out, mut a) = (vec![0.0; 4], vec![1.0, 2.0, 2.0, 4.0]);
    i_inv(&mut out, &mut a, 2);
}

// ---------------------------------------------------------------- statistics

#[test]
fn mean_variance_values_inverse_gradients() {
    let mut x = rnd(9, 18);
    let n = x.len() as f64;
    let (mut mean, mut sum) = (0.0, 0.0);
    i_mean_sum(&mut mean, &mut sum, &mut x);
    let s: f64 = x.iter().sum();
    assert!((sum - s).abs() < 1e-15 && (mean - s / n).abs() < 1e-15);
    i_mean_sum_inv(&mut mean, &mut sum, &mut x);
    assert_eq!((mean, sum), (0.0, 0.0));
    check_grad(
        &IMeanSum,
        (&mut 0.0, &mut 0.0, &mut x[..]),
        0,
        2,
        ATOL,
        RTOL,
    )
    .unwrap();

    let (mut var, mut varsum) = (0.0, 0.0);
    let x0 = x.clone();
    i_var_mean_sum(&mut var, &mut varsum, &mut mean, &mut sum, &mut x);
    let m = s / n;
    let v: f64 = x.iter().map(|xi| (xi - m).powi(2)).sum::<f64>() / (n - 1.0);
    assert!((var - v).abs() < 1e-14);
    // x is shifted by the mean and back: restored up to rounding
    assert!(close(&x, &x0, 1e-15));
    i_var_mean_sum_inv(&mut var, &mut varsum, &mut mean, &mut sum, &mut x);
    assert!(close(&[var, varsum, mean, sum], &[0.0; 4], 1e-15));
    check_grad(
        &IVarMeanSum,
        (&mut 0.0, &mut 0.0, &mut 0.0, &mut 0.0, &mut x[..]),
        0,
        4,
        ATOL,
        RTOL,
    )
    .unwrap();
    // hand gradient of the variance: 2 (xᵢ − mean) / (n − 1)
    let g = gradient(
        &IVarMeanSum,
        (&mut 0.0, &mut 0.0, &mut 0.0, &mut 0.0, &mut x[..]),
        0,
    );
    let hand: Vec<f64> = x.iter().map(|xi| 2.0 * (xi - m) / (n - 1.0)).collect();
    assert!(close(
        &g.4.iter().map(|v| v.g).collect::<Vec<_>>(),
        &hand,
        1e-13
    ));
}

#[test]
fn correlation_covariance_values_inverse_gradients() {
    let (mut a, mut b) = (rnd(8, 19), rnd(8, 20));
    let n = a.len() as f64;
    let (ma, mb) = (a.iter().sum::<f64>() / n, b.iter().sum::<f64>() / n);
    let sab: f64 = a.iter().zip(&b).map(|(x, y)| (x - ma) * (y - mb)).sum();
    let saa: f64 = a.iter().map(|x| (x - ma).powi(2)).sum();
    let sbb: f64 = b.iter().map(|y| (y - mb).powi(2)).sum();
    let (mut rho, mut cov) = (0.0, 0.0);
    let (a0, b0) = (a.clone(), b.clone());
    i_cor_cov(&mut rho, &mut cov, &mut a, &mut b);
    assert!((cov - sab / (n - 1.0)).abs() < 1e-14);
    assert!((rho - sab / (saa * sbb).sqrt()).abs() < 1e-14);
    assert!(close(&a, &a0, 1e-15) && close(&b, &b0, 1e-15));
    i_cor_cov_inv(&mut rho, &mut cov, &mut a, &mut b);
    assert!(rho.abs() < 1e-15 && cov.abs() < 1e-15);
    for (loss, iin) in [(0, 2), (0, 3), (1, 2), (1, 3)] {
        check_grad(
            &ICorCov,
            (&mut 0.0, &mut 0.0, &mut a[..], &mut b[..]),
            loss,
            iin,
            ATOL,
            RTOL,
        )
        .unwrap();
    }
    // perfectly correlated
    let (mut rho, mut cov, mut a, mut b) = (0.0, 0.0, vec![1.0, 2.0, 3.0], vec![2.0, 4.0, 6.0]);
    i_cor_cov(&mut rho, &mut cov, &mut a, &mut b);
    assert!((rho - 1.0).abs() < 1e-15 && (cov - 2.0).abs() < 1e-15);
}

#[test]
fn normal_logpdf_case_38_and_hand_gradient() {
    let (mut out, mut x, mut mu, mut sigma) = (0.0, 1.0, 0.3, 1.5);
    i_normal_logpdf(&mut out, &mut x, &mut mu, &mut sigma);
    assert!((out - -1.4332925302017259).abs() < 1e-15, "{out}");
    i_normal_logpdf_inv(&mut out, &mut x, &mut mu, &mut sigma);
    assert!(out.abs() < 1e-15);
    let g = gradient(&INormalLogpdf, (&mut 0.0, &mut x, &mut mu, &mut sigma), 0);
    let (d, s2) = (x - mu, sigma * sigma);
    assert!((g.1.g - -d / s2).abs() < 1e-15);
    assert!((g.2.g - d / s2).abs() < 1e-15);
    assert!((g.3.g - (d * d / (s2 * sigma) - 1.0 / sigma)).abs() < 1e-15);
    check_grad(
        &INormalLogpdf,
        (&mut 0.0, &mut x, &mut mu, &mut sigma),
        0,
        3,
        ATOL,
        RTOL,
    )
    .unwrap();
    // second derivatives through the stdlib: ∂²/∂x² = −1/σ², ∂²/∂σ² = 1/σ² − 3(x−μ)²/σ⁴
    let args = || (0.0, 1.0, 0.3, 1.5);
    let (mut o, mut x, mut mu, mut sigma) = args();
    let hf =
        nilang::ad::hessian_fwd_rev(&INormalLogpdf, (&mut o, &mut x, &mut mu, &mut sigma), 0, 1);
    let hr =
        nilang::ad::hessian_rev_rev(&INormalLogpdf, (&mut o, &mut x, &mut mu, &mut sigma), 0, 1);
    assert!((hf[0][0] + 1.0 / s2).abs() < 1e-14 && (hr[0][0] + 1.0 / s2).abs() < 1e-14);
    let hs =
        nilang::ad::hessian_fwd_rev(&INormalLogpdf, (&mut o, &mut x, &mut mu, &mut sigma), 0, 3);
    assert!(
        (hs[0][0] - (1.0 / s2 - 3.0 * d * d / (s2 * s2))).abs() < 1e-14,
        "{hs:?}"
    );
}

// ---------------------------------------------------------------- base

#[test]
fn sqdistance_case_38_inverse_gradient() {
    let (mut d, mut x1, mut x2) = (0.0, vec![1.0, 0.0], vec![0.0, 1.0]);
    i_sqdistance(&mut d, &mut x1, &mut x2);
    assert_eq!(d, 2.0);
    assert_eq!(x1, [1.0, 0.0]);
    i_sqdistance_inv(&mut d, &mut x1, &mut x2);
    assert_eq!(d, 0.0);
    let (mut x1, mut x2) = (rnd(5, 21), rnd(5, 22));
    let g = gradient(&ISqdistance, (&mut 0.0, &mut x1[..], &mut x2[..]), 0);
    let hand: Vec<f64> = x1.iter().zip(&x2).map(|(a, b)| 2.0 * (a - b)).collect();
    assert!(close(
        &g.1.iter().map(|v| v.g).collect::<Vec<_>>(),
        &hand,
        1e-15
    ));
    check_grad(
        &ISqdistance,
        (&mut 0.0, &mut x1[..], &mut x2[..]),
        0,
        2,
        ATOL,
        RTOL,
    )
    .unwrap();
}

#[test]
fn dirtymul_float_and_integer() {
    let (mut out, mut x, mut anc) = (3.0, 1.7, 0.0);
    i_dirtymul(&mut out, &mut x, &mut anc);
    assert_eq!(out, 3.0 * 1.7);
    assert!(anc.abs() < 1e-15);
    i_dirtymul_inv(&mut out, &mut x, &mut anc);
    assert!((out - 3.0).abs() < 1e-15 && anc.abs() < 1e-15);
    // d(out·x)/dx = out, d/dout = x
    let g = gradient(&IDirtymul, (&mut 3.0, &mut 1.7, &mut 0.0), 0);
    assert!(
        (g.0.g - 1.7).abs() < 1e-12 && (g.1.g - 3.0).abs() < 1e-12,
        "{g:?}"
    );
    for (o, x) in [(6_i64, 7_i64), (-5, 3), (0, 9), (123456, -17)] {
        let (mut out, mut anc) = (o, 0_i64);
        i_dirtymul_int(&mut out, x, &mut anc);
        assert_eq!((out, anc), (o * x, 0));
        i_dirtymul_int_inv(&mut out, x, &mut anc);
        assert_eq!((out, anc), (o, 0));
    }
}

#[test]
fn factorial_values_and_inverse() {
    let mut f = 1_i64;
    for n in 0..=20 {
        if n > 0 {
            f *= n;
        }
        let mut out = 0_i64;
        i_factorial(&mut out, n);
        assert_eq!(out, f, "{n}!");
        i_factorial_inv(&mut out, n);
        assert_eq!(out, 0);
    }
}
