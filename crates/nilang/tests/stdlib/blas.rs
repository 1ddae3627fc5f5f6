//! Standard library, blas: sum, dot, norm, axpy, gemv, gemm and the unitary matrix multiply.
//! For every function: its value, that the inverse restores the inputs, and its gradient
//! (finite differences through `nilang::ad::check_grad`, or a hand-written gradient).
use nilang::ad::{check_grad, gradient};
use nilang::prelude::*;
use nilang::stdlib::blas::*;
use nilang_testkit::{close, rnd};
use num_complex::Complex64 as C;
const ATOL: f64 = 1e-6;
const RTOL: f64 = 1e-6;

// ---------------------------------------------------------------- blas

/// `check_grads!(&Loss, wrt [i, j]: (args))`: `check_grad` of the loss (argument 0) with
/// respect to arguments `i` and `j`; the argument tuple is written once and built afresh for
/// each check.
macro_rules! check_grads {
    ($f:expr, wrt [$($iin:literal),*]: $args:expr) => {
        $(check_grad($f, $args, 0, $iin, ATOL, RTOL).unwrap();)*
    };
}

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

pub(crate) fn matmul(a: &[f64], b: &[f64], m: usize, k: usize, n: usize) -> Vec<f64> {
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
    check_grads!(&GemmLoss, wrt [2, 3]:
        (&mut 0.0, &mut c[..], &mut a[..], &mut b[..], &mut w[..], m, k, n));

    let (mut a, mut x) = (rnd(m * k, 6), rnd(k, 7));
    let mut y = vec![0.0; m];
    i_gemv(&mut y, &mut a, &mut x, m, k);
    assert!(close(&y, &matmul(&a, &x, m, k, 1), 1e-14));
    i_gemv_inv(&mut y, &mut a, &mut x, m, k);
    assert!(y.iter().all(|v| v.abs() < 1e-15));
    let mut w = rnd(m, 8);
    check_grads!(&GemvLoss, wrt [2, 3]:
        (&mut 0.0, &mut y[..], &mut a[..], &mut x[..], &mut w[..], m, k));
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
fn gemv_dimension_mismatch_is_reported() {
    let (mut y, mut a, mut x) = (vec![0.0; 2], vec![0.0; 5], vec![0.0; 3]);
    let e = nilang::check::catch(|| i_gemv(&mut y, &mut a, &mut x, 2, 3)).unwrap_err();
    assert_eq!(e.kind, nilang::check::ErrorKind::Length);
    assert_eq!(e.statement, "i_gemv(y, a, x, m, n)");
    assert!(e.detail.contains("A has 5"), "{}", e.detail);
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
    check_grads!(&UmmLoss, wrt [1, 2]:
        (&mut 0.0, &mut x[..], &mut theta[..], &mut w[..], m, n));
}
