//! Gram–Schmidt QR: orthonormal Q, upper-triangular R, QR = A, inverse, gradient checks.
use nilang::ad::check_grad;
use nilang_apps::qr::*;
use rand::{Rng, SeedableRng};

fn random(m: usize, n: usize, seed: u64) -> Vec<f64> {
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    (0..m * n).map(|_| rng.gen_range(-1.0..1.0)).collect()
}

#[test]
fn q_orthonormal_r_triangular_qr_equals_a() {
    for (m, n) in [(4, 4), (6, 3), (10, 10)] {
        let a = random(m, n, (m * 10 + n) as u64);
        let (q, r) = qr(&a, m, n);
        for i in 0..n {
            for j in 0..n {
                let d: f64 = (0..m).map(|k| q[k * n + i] * q[k * n + j]).sum();
                let e = if i == j { 1.0 } else { 0.0 };
                assert!((d - e).abs() < 1e-12, "QᵀQ[{i}{j}] = {d}");
                if i > j {
                    assert_eq!(r[i * n + j], 0.0);
                }
            }
        }
        for i in 0..m {
            for j in 0..n {
                let p: f64 = (0..n).map(|k| q[i * n + k] * r[k * n + j]).sum();
                assert!((p - a[i * n + j]).abs() < 1e-13, "(QR - A)[{i}{j}]");
            }
        }
        // the inverse uncomputes Q and R
        let (mut q2, mut r2, mut a2) = (q.clone(), r.clone(), a.clone());
        i_qr_inv(&mut q2, &mut r2, &mut a2, m, n);
        assert!(q2.iter().chain(&r2).all(|v| v.abs() < 1e-13));
        assert_eq!(a2, a);
    }
}

#[test]
fn gradient_of_sum_q_and_of_a_loss_of_q_and_r() {
    let (m, n) = (5, 4);
    let a = random(m, n, 3);
    let (mut out, mut q, mut r, mut aa) = (0.0, vec![0.0; m * n], vec![0.0; n * n], a.clone());
    check_grad(
        &QrSumQ,
        (&mut out, &mut q[..], &mut r[..], &mut aa[..], m, n),
        0,
        3,
        1e-8,
        1e-6,
    )
    .unwrap();
    check_grad(
        &QrLoss,
        (&mut out, &mut q[..], &mut r[..], &mut aa[..], m, n),
        0,
        3,
        1e-8,
        1e-6,
    )
    .unwrap();
    let g = grad_sum_q(&a, m, n);
    assert_eq!(g.len(), m * n);
    // the arguments were restored
    assert_eq!(aa, a);
    assert!(q.iter().chain(&r).all(|v| v.abs() < 1e-13));
}
