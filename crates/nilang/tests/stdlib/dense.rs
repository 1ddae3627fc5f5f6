//! Standard library, dense part: linalg, statistics, base (blas: `blas.rs`). For every function: its
//! value, that the inverse restores the inputs, and its gradient (finite differences through
//! `nilang::ad::check_grad`, or a hand-written gradient).
use crate::blas::matmul;
use nilang::ad::{check_grad, gradient};
use nilang::prelude::*;
use nilang::stdlib::base::*;
use nilang::stdlib::blas::*;
use nilang::stdlib::linalg::*;
use nilang::stdlib::statistics::*;
use nilang_testkit::{close, rnd};

const ATOL: f64 = 1e-6;
const RTOL: f64 = 1e-6;

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
