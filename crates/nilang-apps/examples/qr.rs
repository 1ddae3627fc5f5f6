//! Gram–Schmidt QR in NiLang.rs: Q orthonormal, QR = A, and the gradient of Σ Q checked
//! against finite differences.
//!
//! `cargo run --release -p nilang-apps --example qr`
use nilang_apps::qr::*;
use rand::{Rng, SeedableRng};

fn main() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(0);
    let (m, n) = (5, 4);
    let a: Vec<f64> = (0..m * n).map(|_| rng.gen_range(-1.0..1.0)).collect();
    let (q, r) = qr(&a, m, n);
    let (mut e_orth, mut e_qr): (f64, f64) = (0.0, 0.0);
    for i in 0..n {
        for j in 0..n {
            let d: f64 = (0..m).map(|k| q[k * n + i] * q[k * n + j]).sum();
            e_orth = e_orth.max((d - if i == j { 1.0 } else { 0.0 }).abs());
        }
    }
    for i in 0..m {
        for j in 0..n {
            let p: f64 = (0..n).map(|k| q[i * n + k] * r[k * n + j]).sum();
            e_qr = e_qr.max((p - a[i * n + j]).abs());
        }
    }
    println!("A ({m}×{n}) = QR: max |QᵀQ − I| = {e_orth:.1e}, max |QR − A| = {e_qr:.1e}");
    println!("R =");
    for i in 0..n {
        println!(
            "  {:?}",
            (0..n)
                .map(|j| format!("{:+.4}", r[i * n + j]))
                .collect::<Vec<_>>()
        );
    }
    let g = grad_sum_q(&a, m, n);
    let h = 1e-6;
    let mut err: f64 = 0.0;
    for k in 0..m * n {
        let (mut ap, mut am) = (a.clone(), a.clone());
        ap[k] += h;
        am[k] -= h;
        let fd =
            (qr(&ap, m, n).0.iter().sum::<f64>() - qr(&am, m, n).0.iter().sum::<f64>()) / (2.0 * h);
        err = err.max((fd - g[k]).abs());
    }
    println!("∂(Σ Q)/∂A by reversible AD; max |AD − central difference| = {err:.1e}");
}
