//! Bijective Box–Muller: values, inverse, Jacobian and its log-determinant.
use nilang_apps::boxmuller::*;
use rand::{Rng, SeedableRng};

#[test]
fn log_det_jacobian_at_half_half() {
    let l = log_abs_det_jacobian(0.5, 0.5);
    assert!((l - 2.5310242469692907).abs() < 1e-12, "{l}");
    // equals log(1 / (φ(z1) φ(z2))), the change-of-variables identity
    let (mut x, mut y) = (0.5, 0.5);
    boxmuller(&mut x, &mut y);
    let e = (1.0 / (normal_pdf(x) * normal_pdf(y))).ln();
    assert!((l - e).abs() < 1e-12);
}

#[test]
fn values_inverse_and_jacobian_against_differences() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(9);
    for _ in 0..200 {
        let (x0, y0): (f64, f64) = (rng.gen_range(0.01..0.99), rng.gen_range(0.01..0.99));
        let (mut x, mut y) = (x0, y0);
        boxmuller(&mut x, &mut y);
        let r = (-2.0 * x0.ln()).sqrt();
        let th = core::f64::consts::TAU * y0;
        assert!((x - r * th.cos()).abs() < 1e-12 && (y - r * th.sin()).abs() < 1e-12);
        boxmuller_inv(&mut x, &mut y);
        assert!(
            (x - x0).abs() < 1e-13 && (y - y0).abs() < 1e-13,
            "{x} {x0} {y} {y0}"
        );
        let j = jacobian(x0, y0);
        let h = 1e-6;
        for c in 0..2 {
            let (mut p, mut m) = ([x0, y0], [x0, y0]);
            p[c] += h;
            m[c] -= h;
            boxmuller_pair(&mut p);
            boxmuller_pair(&mut m);
            for r in 0..2 {
                let fd = (p[r] - m[r]) / (2.0 * h);
                assert!((j[r][c] - fd).abs() < 1e-5 * (1.0 + fd.abs()));
            }
        }
    }
}

#[test]
fn samples_are_standard_normal() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(1);
    let n = 20000;
    let mut zs = Vec::with_capacity(2 * n);
    for _ in 0..n {
        let (mut x, mut y): (f64, f64) = (rng.gen_range(1e-12..1.0), rng.gen());
        boxmuller(&mut x, &mut y);
        zs.push(x);
        zs.push(y);
    }
    let mean = zs.iter().sum::<f64>() / zs.len() as f64;
    let var = zs.iter().map(|z| (z - mean).powi(2)).sum::<f64>() / (zs.len() - 1) as f64;
    assert!(
        mean.abs() < 0.03 && (var - 1.0).abs() < 0.03,
        "{mean} {var}"
    );
}
