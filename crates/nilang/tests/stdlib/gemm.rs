//! The dense primitives on a real GEMM (`i_gemm`, `i_gemv`, `i_affine`, `i_dense`,
//! `i_dense_data`): values against a plain triple loop, inverses, the backward rules on
//! gradient numbers against the matrix formulas (`Ā = C̄ Bᵀ`, `B̄ = Aᵀ C̄`), gradients through
//! `#[i]` programs against finite differences, the instruction-loop path of the other number
//! types (`Dual`, batches, `GVar<GVar<f64>>`), and the length errors.
use crate::blas::matmul;
use nilang::ad::{check_grad, gradient};
use nilang::check::{catch, ErrorKind};
use nilang::numbers::F64x4;
use nilang::prelude::*;
use nilang::stdlib::blas::*;
use nilang::stdlib::nnlib::*;
use nilang_testkit::{close, rnd};

fn gvars(v: &[f64], g: &[f64]) -> Vec<GVar<f64>> {
    v.iter().zip(g).map(|(&x, &g)| GVar::new(x, g)).collect()
}
fn values(v: &[GVar<f64>]) -> Vec<f64> {
    v.iter().map(|v| v.x).collect()
}
fn adjoints(v: &[GVar<f64>]) -> Vec<f64> {
    v.iter().map(|v| v.g).collect()
}
fn transpose(a: &[f64], rows: usize, cols: usize) -> Vec<f64> {
    (0..cols * rows)
        .map(|i| a[(i % rows) * cols + i / rows])
        .collect()
}

#[test]
fn gemm_values_and_inverse_on_f64_and_f32() {
    // sizes past one kernel block (matrixmultiply packs 8×4 / 4×8 tiles, 256 deep)
    for &(m, k, n) in &[(1, 1, 1), (3, 5, 2), (17, 300, 9), (33, 16, 32)] {
        let (mut a, mut b, c0) = (rnd(m * k, 1), rnd(k * n, 2), rnd(m * n, 3));
        let mut c = c0.clone();
        i_gemm(&mut c, &mut a, &mut b, m, k, n);
        let want: Vec<f64> = matmul(&a, &b, m, k, n)
            .iter()
            .zip(&c0)
            .map(|(p, q)| p + q)
            .collect();
        assert!(close(&c, &want, 1e-13), "{m}x{k}x{n}");
        i_gemm_inv(&mut c, &mut a, &mut b, m, k, n);
        assert!(close(&c, &c0, 1e-13));

        let f = |v: &[f64]| v.iter().map(|&x| x as f32).collect::<Vec<f32>>();
        let (mut a32, mut b32, mut c32) = (f(&a), f(&b), f(&c0));
        i_gemm(&mut c32, &mut a32, &mut b32, m, k, n);
        let got: Vec<f64> = c32.iter().map(|&x| x as f64).collect();
        assert!(close(&got, &want, 1e-4), "f32 {m}x{k}x{n}");
    }
}

#[test]
fn gemm_backward_rule_is_the_matrix_formula() {
    let (m, k, n) = (7, 11, 5);
    let (a, b, c, cbar) = (rnd(m * k, 4), rnd(k * n, 5), rnd(m * n, 6), rnd(m * n, 7));
    let (a0, b0) = (rnd(m * k, 8), rnd(k * n, 9)); // adjoints already there are accumulated into
    let (mut ga, mut gb, mut gc) = (gvars(&a, &a0), gvars(&b, &b0), gvars(&c, &cbar));
    // the inverse (`C -= A B`) is the backward pass: Ā += C̄ Bᵀ, B̄ += Aᵀ C̄
    i_gemm_inv(&mut gc, &mut ga, &mut gb, m, k, n);
    let da = matmul(&cbar, &transpose(&b, k, n), m, n, k);
    let db = matmul(&transpose(&a, m, k), &cbar, k, m, n);
    let add = |x: &[f64], y: &[f64]| x.iter().zip(y).map(|(p, q)| p + q).collect::<Vec<_>>();
    assert!(close(&adjoints(&ga), &add(&a0, &da), 1e-13));
    assert!(close(&adjoints(&gb), &add(&b0, &db), 1e-13));
    assert_eq!(adjoints(&gc), cbar, "C̄ is read, not changed");
    let want_c: Vec<f64> = c
        .iter()
        .zip(matmul(&a, &b, m, k, n))
        .map(|(p, q)| p - q)
        .collect();
    assert!(close(&values(&gc), &want_c, 1e-13));
    assert_eq!((values(&ga), values(&gb)), (a.clone(), b.clone()));
    // the forward direction undoes both
    i_gemm(&mut gc, &mut ga, &mut gb, m, k, n);
    assert!(close(&adjoints(&ga), &a0, 1e-13) && close(&adjoints(&gb), &b0, 1e-13));
    assert!(close(&values(&gc), &c, 1e-13));
}

#[test]
fn gemm_backward_rule_on_f32_gradient_numbers() {
    let (m, k, n) = (6, 4, 3);
    let (a, b, cbar) = (rnd(m * k, 10), rnd(k * n, 11), rnd(m * n, 12));
    let g32 = |v: &[f64], g: &[f64]| -> Vec<GVar<f32>> {
        v.iter()
            .zip(g)
            .map(|(&x, &g)| GVar::new(x as f32, g as f32))
            .collect()
    };
    let (mut ga, mut gb, mut gc) = (
        g32(&a, &vec![0.0; m * k]),
        g32(&b, &vec![0.0; k * n]),
        g32(&vec![0.0; m * n], &cbar),
    );
    i_gemm_inv(&mut gc, &mut ga, &mut gb, m, k, n);
    let da = matmul(&cbar, &transpose(&b, k, n), m, n, k);
    let got: Vec<f64> = ga.iter().map(|v| v.g as f64).collect();
    assert!(close(&got, &da, 1e-5));
}

#[test]
fn gemm_gradient_api_matches_finite_differences() {
    // `gemm_loss` (tests/stdlib/blas.rs) is `c += a b; l += c·w`: check it at a size that
    // runs the GEMM path, and the one-pass program below (GEMM in a routine)
    let (m, k, n) = (5, 4, 3);
    #[i]
    fn loss<T: Scalar>(
        l: &mut T,
        c: &mut [T],
        a: &mut [T],
        b: &mut [T],
        w: &mut [T],
        m: usize,
        k: usize,
        n: usize,
    ) {
        routine! {
            i_gemm(c, a, b, m, k, n);
        }
        i_dot(l, c, w);
        unroutine!();
    }
    assert_eq!(loss::ADDITIVE & 1, 1, "compute–copy–uncompute in the loss");
    for iin in [2, 3] {
        let (mut c, mut a, mut b, mut w) = (
            vec![0.0; m * n],
            rnd(m * k, 13),
            rnd(k * n, 14),
            rnd(m * n, 15),
        );
        let args = (
            &mut 0.0,
            &mut c[..],
            &mut a[..],
            &mut b[..],
            &mut w[..],
            m,
            k,
            n,
        );
        check_grad(&Loss, args, 0, iin, 1e-7, 1e-7).unwrap();
    }
    let (mut l, mut c, mut a, mut b, mut w) = (
        0.0,
        vec![0.0; m * n],
        rnd(m * k, 13),
        rnd(k * n, 14),
        rnd(m * n, 15),
    );
    let (_, gc, ga, ..) = gradient(&Loss, (&mut l, &mut c, &mut a, &mut b, &mut w, m, k, n), 0);
    // ∂l/∂A = W Bᵀ
    let want = matmul(&w, &transpose(&b, k, n), m, n, k);
    assert!(close(
        &ga.iter().map(|v| v.g).collect::<Vec<_>>(),
        &want,
        1e-13
    ));
    assert!(gc.iter().all(|v| v.x == 0.0), "the routine is undone");
}

#[test]
fn gemv_and_affine_gradients() {
    let (m, n) = (6, 4);
    #[i]
    fn loss<T: Scalar>(l: &mut T, y: &mut [T], a: &mut [T], b: &mut [T], x: &mut [T], w: &mut [T]) {
        routine! {
            nilang::stdlib::linalg::i_affine(y, a, b, x);
            i_gemv(y, a, x, y.len(), x.len());
        }
        i_dot(l, y, w);
        unroutine!();
    }
    for iin in [2, 3, 4] {
        let (mut y, mut a, mut b, mut x, mut w) = (
            vec![0.0; m],
            rnd(m * n, 16),
            rnd(m, 17),
            rnd(n, 18),
            rnd(m, 19),
        );
        let args = (
            &mut 0.0,
            &mut y[..],
            &mut a[..],
            &mut b[..],
            &mut x[..],
            &mut w[..],
        );
        check_grad(&Loss, args, 0, iin, 1e-7, 1e-7).unwrap();
    }
}

#[test]
fn dense_layers_values_inverse_and_gradients() {
    let (rows, n_in, n_out) = (9, 4, 3);
    let (x, w, b) = (rnd(rows * n_in, 20), rnd(n_in * n_out, 21), rnd(n_out, 22));
    let mut want = matmul(&x, &w, rows, n_in, n_out);
    for (i, v) in want.iter_mut().enumerate() {
        *v += b[i % n_out];
    }
    let (mut y, mut xm, mut wm, mut bm) =
        (vec![0.0; rows * n_out], x.clone(), w.clone(), b.clone());
    i_dense(&mut y, &mut xm, &mut wm, &mut bm, rows, n_in, n_out);
    assert!(close(&y, &want, 1e-14));
    i_dense_inv(&mut y, &mut xm, &mut wm, &mut bm, rows, n_in, n_out);
    assert!(y.iter().all(|v| v.abs() < 1e-14));
    let mut y = vec![0.0; rows * n_out];
    i_dense_data(&mut y, &x, &mut wm, &mut bm, rows, n_in, n_out);
    assert!(close(&y, &want, 1e-14));

    #[i]
    fn loss<T: Scalar + nilang::instr::PlusEq2<nilang::instr::fns::Mul, f64, T>>(
        l: &mut T,
        y: &mut [T],
        h: &mut [T],
        x: &mut [T],
        w: &mut [T],
        b: &mut [T],
        xd: &[f64],
        rows: usize,
    ) {
        routine! {
            i_dense(y, x, w, b, rows, 4, 3);
            i_dense_data(y, xd, w, b, rows, 4, 3);
            for i in 0..y.len() {
                h[i] += tanh(y[i]);
            }
        }
        i_sum(l, h);
        unroutine!();
    }
    let xd = rnd(rows * n_in, 23);
    for iin in [3, 4, 5] {
        let (mut y, mut h) = (vec![0.0; rows * n_out], vec![0.0; rows * n_out]);
        let (mut x, mut w, mut b) = (x.clone(), w.clone(), b.clone());
        let args = (
            &mut 0.0,
            &mut y[..],
            &mut h[..],
            &mut x[..],
            &mut w[..],
            &mut b[..],
            &xd[..],
            rows,
        );
        check_grad(&Loss, args, 0, iin, 1e-7, 1e-7).unwrap();
    }
}

#[test]
fn other_numbers_run_the_instruction_loop() {
    let (m, k, n) = (3, 4, 2);
    let (a, b) = (rnd(m * k, 24), rnd(k * n, 25));
    let want = matmul(&a, &b, m, k, n);
    // forward mode: the tangent of C = A B along (Ȧ, 0) is Ȧ B
    let da = rnd(m * k, 26);
    let mut ad: Vec<Dual<f64>> = a.iter().zip(&da).map(|(&x, &e)| Dual::new(x, e)).collect();
    let mut bd: Vec<Dual<f64>> = b.iter().map(|&x| Dual::new(x, 0.0)).collect();
    let mut cd = vec![Dual::new(0.0, 0.0); m * n];
    i_gemm(&mut cd, &mut ad, &mut bd, m, k, n);
    assert!(close(
        &cd.iter().map(|v| v.x).collect::<Vec<_>>(),
        &want,
        1e-14
    ));
    let dc = matmul(&da, &b, m, k, n);
    assert!(close(
        &cd.iter().map(|v| v.eps).collect::<Vec<_>>(),
        &dc,
        1e-14
    ));
    // batches: lane l of the result is the product of lane l's inputs
    let lanes = |v: &[f64], s: f64| {
        v.iter()
            .map(|&x| F64x4::new([x, s * x, 0.0, -x]))
            .collect::<Vec<_>>()
    };
    let (mut a4, mut b4, mut c4) = (
        lanes(&a, 2.0),
        lanes(&b, 1.0),
        vec![F64x4::splat(0.0); m * n],
    );
    i_gemm(&mut c4, &mut a4, &mut b4, m, k, n);
    let lane = |l: usize| c4.iter().map(|v| v.lane(l)).collect::<Vec<_>>();
    assert!(close(&lane(0), &want, 1e-14) && close(&lane(3), &want, 1e-14));
    assert!(close(
        &lane(1),
        &want.iter().map(|v| 2.0 * v).collect::<Vec<_>>(),
        1e-14
    ));
    // second order: GVar<GVar<f64>> values
    let gg = |v: &[f64]| {
        v.iter()
            .map(|&x| GVar::from(GVar::from(x)))
            .collect::<Vec<GVar<GVar<f64>>>>()
    };
    let (mut a2, mut b2, mut c2) = (gg(&a), gg(&b), gg(&vec![0.0; m * n]));
    i_gemm(&mut c2, &mut a2, &mut b2, m, k, n);
    assert!(close(
        &c2.iter().map(|v| v.x.x).collect::<Vec<_>>(),
        &want,
        1e-14
    ));
}

#[test]
fn wrong_shapes_are_typed_errors_before_anything_changes() {
    let (mut y, mut x, mut w, mut b) = (vec![1.0; 6], vec![1.0; 8], vec![1.0; 6], vec![0.0; 3]);
    let e = catch(|| i_dense(&mut y, &mut x, &mut w, &mut b, 2, 4, 3)).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Length, "{e}");
    assert!(e.to_string().contains("W has 6"), "{e}");
    assert_eq!(y, [1.0; 6]);
    // sizes whose product overflows are a length error too, not a wrap-around
    let (mut c, mut a, mut bb) = (vec![0.0; 0], vec![0.0; 0], vec![0.0; 0]);
    let e = catch(|| i_gemm(&mut c, &mut a, &mut bb, usize::MAX, 2, 0)).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Length, "{e}");
}

#[test]
fn value_only_variant_moves_values_only() {
    // `call_primal` is what the gradient API's forward pass runs (no adjoint anywhere yet)
    let (m, k, n) = (4, 3, 2);
    let (a, b) = (rnd(m * k, 27), rnd(k * n, 28));
    let (mut ga, mut gb) = (gvars(&a, &vec![0.5; m * k]), gvars(&b, &vec![0.0; k * n]));
    let mut gc = gvars(&vec![0.0; m * n], &vec![1.0; m * n]);
    IGemm.call_primal((&mut gc[..], &mut ga[..], &mut gb[..], m, k, n));
    assert!(close(&values(&gc), &matmul(&a, &b, m, k, n), 1e-14));
    assert_eq!(adjoints(&ga), vec![0.5; m * k], "no adjoint moved");
    assert_eq!(adjoints(&gb), vec![0.0; k * n]);
}

#[test]
fn matrix_vector_backward_rules_past_a_block_of_eight() {
    // x̄ += Aᵀ ȳ with 13 columns (a block of eight and a tail), and ȳ·xᵀ into Ā; values
    // through the dot products at stride 1 (f64) and 2 (GVar)
    let (m, n) = (21, 13);
    let (a, x, y0, ybar) = (rnd(m * n, 30), rnd(n, 31), rnd(m, 32), rnd(m, 33));
    let (mut gy, mut ga, mut gx) = (
        gvars(&y0, &ybar),
        gvars(&a, &vec![0.0; m * n]),
        gvars(&x, &vec![0.0; n]),
    );
    i_gemv_inv(&mut gy, &mut ga, &mut gx, m, n);
    let ax = matmul(&a, &x, m, n, 1);
    let want_y: Vec<f64> = y0.iter().zip(&ax).map(|(y, v)| y - v).collect();
    assert!(close(&values(&gy), &want_y, 1e-14));
    assert!(close(
        &adjoints(&gx),
        &matmul(&transpose(&a, m, n), &ybar, n, m, 1),
        1e-14
    ));
    assert!(close(&adjoints(&ga), &matmul(&ybar, &x, m, 1, n), 1e-14));
    let (mut yf, mut af, mut xf) = (y0.clone(), a.clone(), x.clone());
    i_gemv(&mut yf, &mut af, &mut xf, m, n);
    let want: Vec<f64> = y0.iter().zip(&ax).map(|(y, v)| y + v).collect();
    assert!(close(&yf, &want, 1e-14));
}
