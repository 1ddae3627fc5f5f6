//! NICE: the flow inverts, the NLL is consistent with the flow, its gradient checks, and a few
//! Adam steps lower it.
use nilang::ad::check_grad;
use nilang_apps::nice::*;
use rand::SeedableRng;

#[test]
fn flow_is_invertible_and_volume_preserving() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(1);
    let m = Nice::random(2, 8, 4, 0.5, &mut rng);
    let xs = two_moons(20, 0.05, &mut rng);
    for k in 0..20 {
        let x0 = [xs[2 * k], xs[2 * k + 1]];
        let mut x = x0;
        m.forward(&mut x);
        m.inverse(&mut x);
        assert!((x[0] - x0[0]).abs() < 1e-14 && (x[1] - x0[1]).abs() < 1e-14);
        // the raw coupling program and its generated inverse
        let (mut y, mut w) = (x0.to_vec(), m.w.clone());
        nice_flow(&mut y, &mut w, 0, 2, 8, 4);
        nice_flow_inv(&mut y, &mut w, 0, 2, 8, 4);
        assert!((y[0] - x0[0]).abs() < 1e-14 && (y[1] - x0[1]).abs() < 1e-14);
    }
    // det J = 1 for the couplings: check by finite differences at one point
    let mut w = m.w.clone();
    let f = |p: [f64; 2], w: &mut Vec<f64>| {
        let mut y = p.to_vec();
        nice_flow(&mut y, w, 0, 2, 8, 4);
        y
    };
    let (p, h) = ([0.3, -0.2], 1e-6);
    let mut j = [[0.0; 2]; 2];
    for c in 0..2 {
        let (mut a, mut b) = (p, p);
        a[c] += h;
        b[c] -= h;
        let (fa, fb) = (f(a, &mut w), f(b, &mut w));
        for r in 0..2 {
            j[r][c] = (fa[r] - fb[r]) / (2.0 * h);
        }
    }
    assert!((j[0][0] * j[1][1] - j[0][1] * j[1][0] - 1.0).abs() < 1e-6);
}

#[test]
fn nll_matches_a_direct_evaluation_and_gradient_checks() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(2);
    let mut m = Nice::random(2, 6, 3, 0.5, &mut rng);
    for (i, v) in m.w.iter_mut().rev().take(2).enumerate() {
        *v = 0.1 * (i as f64 + 1.0);
    }
    let xs = two_moons(16, 0.05, &mut rng);
    let mut direct = 0.0;
    for k in 0..16 {
        let mut z = [xs[2 * k], xs[2 * k + 1]];
        m.forward(&mut z);
        let s = &m.w[m.w.len() - 2..];
        direct +=
            0.5 * (z[0] * z[0] + z[1] * z[1]) - s[0] - s[1] + (2.0 * std::f64::consts::PI).ln();
    }
    direct /= 16.0;
    let (l, g) = m.nll_and_gradient(&xs);
    assert!((l - direct).abs() < 1e-12, "{l} vs {direct}");
    assert_eq!(g.len(), m.w.len());
    let (mut out, mut x, mut w) = (0.0, xs.clone(), m.w.clone());
    check_grad(
        &NiceNll,
        (&mut out, &mut x[..], &mut w[..], 2, 6, 3),
        0,
        2,
        1e-7,
        1e-5,
    )
    .unwrap();
    // the same gradient as the generic API
    let st = nilang::gradient(&NiceNll, (&mut out, &mut x[..], &mut w[..], 2, 6, 3), 0);
    for (a, b) in st.2.iter().zip(&g) {
        assert!((a.g - b).abs() < 1e-12);
    }
}

#[test]
fn a_few_adam_steps_lower_the_nll() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(3);
    let xs = two_moons(128, 0.05, &mut rng);
    let mut m = Nice::random(2, 8, 4, 0.1, &mut rng);
    let hist = m.train_adam(&xs, 0.01, 30, |_, _| {});
    assert_eq!(hist.len(), 31);
    assert!(hist[30] < hist[0] - 0.05, "{} -> {}", hist[0], hist[30]);
    let s = m.sample(10, &mut rng);
    assert_eq!(s.len(), 20);
    assert!(s.iter().all(|v| v.is_finite()));
}
