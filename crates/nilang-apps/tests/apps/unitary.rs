//! Unitary matrix multiplication by rotations: orthogonality, inverse, gradient with `Grad`,
//! erasing with `~Grad`, zero allocation.
use nilang::ad::{check_grad, Grad};
use nilang::prelude::*;
use nilang_apps::unitary::*;
use rand::{Rng, SeedableRng};
// this thread's allocations (the binary's counting allocator; tests run on several threads)
use nilang_testkit::alloc::allocs;

fn randn(n: usize, rng: &mut impl Rng) -> Vec<f64> {
    (0..n).map(|_| rng.gen_range(-1.0..1.0)).collect()
}

#[test]
fn umm_is_orthogonal_and_inverts() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(1);
    let m = 5;
    let theta = randn(n_angles(m), &mut rng);
    let u = unitary_matrix(&theta, m);
    for i in 0..m {
        for j in 0..m {
            let d: f64 = (0..m).map(|k| u[k * m + i] * u[k * m + j]).sum();
            assert!((d - if i == j { 1.0 } else { 0.0 }).abs() < 1e-14);
        }
    }
    let x0 = randn(m * 3, &mut rng);
    let (mut x, mut th) = (x0.clone(), theta.clone());
    nilang::stdlib::blas::i_umm(&mut x, &mut th, m, 3);
    // U x agrees with the matrix product
    for r in 0..m {
        for c in 0..3 {
            let e: f64 = (0..m).map(|k| u[r * m + k] * x0[k * 3 + c]).sum();
            assert!((x[r * 3 + c] - e).abs() < 1e-14);
        }
    }
    nilang::stdlib::blas::i_umm_inv(&mut x, &mut th, m, 3);
    for (a, b) in x.iter().zip(&x0) {
        assert!((a - b).abs() < 1e-14);
    }
}

#[test]
fn gradient_with_grad_and_erase_with_inverse_grad_without_allocation() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(2);
    let m = 4;
    let x0 = randn(m, &mut rng);
    let t0 = randn(n_angles(m), &mut rng);
    let mut out = GVar::from(0.0);
    let mut x: Vec<GVar<f64>> = x0.iter().map(|&v| GVar::from(v)).collect();
    let mut t: Vec<GVar<f64>> = t0.iter().map(|&v| GVar::from(v)).collect();
    let before = allocs();
    Grad::new(UmmSum, 0).call((&mut out, &mut x[..], &mut t[..], m, 1));
    let mid = allocs();
    // inputs restored, gradients attached: d(Σ Ux)/dx = Uᵀ 1
    let u = unitary_matrix(&t0, m);
    for (i, v) in x.iter().enumerate() {
        assert!((v.x - x0[i]).abs() < 1e-14);
        let e: f64 = (0..m).map(|r| u[r * m + i]).sum();
        assert!((v.g - e).abs() < 1e-13, "{} vs {e}", v.g);
    }
    let mid2 = allocs();
    Grad::new(UmmSum, 0).uncall((&mut out, &mut x[..], &mut t[..], m, 1));
    let after = allocs();
    assert_eq!(
        (mid - before, after - mid2),
        (0, 0),
        "Grad / ~Grad allocate nothing"
    );
    assert!(x.iter().chain(&t).all(|v| v.g.abs() < 1e-14));
    assert!(out.g.abs() < 1e-15 && out.x.abs() < 1e-15);
    // the wrapper agrees, and the gradient passes the checker
    let (gx, gt) = umm_sum_gradient(&x0, &t0, m);
    assert_eq!(gx.len(), m);
    assert_eq!(gt.len(), n_angles(m));
    let (mut o, mut xx, mut tt) = (0.0, x0.clone(), t0.clone());
    for iin in [1, 2] {
        check_grad(
            &UmmSum,
            (&mut o, &mut xx[..], &mut tt[..], m, 1),
            0,
            iin,
            1e-8,
            1e-6,
        )
        .unwrap();
    }
}
