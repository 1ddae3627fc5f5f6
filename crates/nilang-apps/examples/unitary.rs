//! Unitary matrix multiplication by Givens rotations: build U(θ) from m(m−1)/2 angles, check
//! UᵀU = I, take the gradient of Σ U(θ)x with `Grad` and erase it with `~Grad`.
//!
//! `cargo run --release -p nilang-apps --example unitary`
use nilang::ad::Grad;
use nilang::prelude::*;
use nilang_apps::unitary::*;
use rand::{Rng, SeedableRng};

fn main() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(0);
    let m = 4;
    let theta: Vec<f64> = (0..n_angles(m)).map(|_| rng.gen_range(-3.0..3.0)).collect();
    let x0: Vec<f64> = (0..m).map(|_| rng.gen_range(-1.0..1.0)).collect();
    let u = unitary_matrix(&theta, m);
    let mut err: f64 = 0.0;
    for i in 0..m {
        for j in 0..m {
            let d: f64 = (0..m).map(|k| u[k * m + i] * u[k * m + j]).sum();
            err = err.max((d - if i == j { 1.0 } else { 0.0 }).abs());
        }
    }
    println!(
        "U(θ) from {} rotations of a {m}-vector: max |UᵀU − I| = {err:.1e}",
        theta.len()
    );
    let mut out = GVar::from(0.0);
    let mut x: Vec<GVar<f64>> = x0.iter().map(|&v| GVar::from(v)).collect();
    let mut t: Vec<GVar<f64>> = theta.iter().map(|&v| GVar::from(v)).collect();
    Grad::new(UmmSum, 0).call((&mut out, &mut x[..], &mut t[..], m, 1));
    println!("Grad(test!): x with gradients of Σ U(θ)x");
    for v in &x {
        println!("  GVar({:.15}, {:.15})", v.x, v.g);
    }
    println!(
        "  ∂/∂θ = {:?}",
        t.iter()
            .map(|v| (v.g * 1e6).round() / 1e6)
            .collect::<Vec<_>>()
    );
    Grad::new(UmmSum, 0).uncall((&mut out, &mut x[..], &mut t[..], m, 1));
    println!("~Grad(test!): gradients erased");
    for v in &x {
        println!("  GVar({:.15}, {:.1e})", v.x, v.g);
    }
    let t0 = std::time::Instant::now();
    let reps = 100_000;
    for _ in 0..reps {
        Grad::new(UmmSum, 0).call((&mut out, &mut x[..], &mut t[..], m, 1));
        Grad::new(UmmSum, 0).uncall((&mut out, &mut x[..], &mut t[..], m, 1));
    }
    println!(
        "Grad + ~Grad: {:.0} ns per pair (no heap allocation; see tests/unitary.rs)",
        t0.elapsed().as_nanos() as f64 / reps as f64
    );
}
