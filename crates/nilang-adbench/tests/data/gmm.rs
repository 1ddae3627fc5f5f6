//! GMM: objective and hand-written gradient against ADBench's golden values and the
//! JAX oracle, finite-difference checks, generator and writer round trips.
use crate::assert_all_close;

use nilang_adbench::gmm::{
    gmm_generate, gmm_gradient, gmm_objective, gmm_objective_and_gradient, GmmInput,
};
use nilang_adbench::oracle::{
    adbench_close, data_dir, load_expected, load_gmm_oracle, GMM_ORACLES,
};
use nilang_adbench::special::{lgamma, log_gamma_d, logsumexp};
use rand::{Rng, SeedableRng};

#[test]
fn gmm_test_instance_matches_adbench_golden_values() {
    let expected = load_expected().unwrap().gmm_test;
    let g = GmmInput::from_file(data_dir().join("adbench").join(&expected.input)).unwrap();
    assert_eq!((g.d, g.k, g.n, g.gamma, g.m), (2, 3, 1, 1.0, 0));
    let (f, grad) = gmm_objective_and_gradient(&g);
    assert!(adbench_close(f, 8.073_804_080_049_758), "objective {f}");
    assert!(adbench_close(gmm_objective(&g), expected.objective));
    assert!(adbench_close(f, expected.objective));
    assert_all_close("gradient", &grad, &expected.gradient);
    assert_all_close("gmm_gradient", &gmm_gradient(&g), &expected.gradient);
}

fn check_oracle(name: &str, file: &str) {
    let oracle = load_gmm_oracle(name).unwrap();
    let g = GmmInput::from_file(data_dir().join("adbench/gmm").join(file)).unwrap();
    assert_eq!((g.d, g.k, g.n), (oracle.d, oracle.k, oracle.n), "{name}");
    assert_eq!((g.gamma, g.m), (oracle.gamma, oracle.m));
    let f = gmm_objective(&g);
    assert!(
        adbench_close(f, oracle.objective),
        "{name}: objective {f} vs {}",
        oracle.objective
    );
    let (f2, grad) = gmm_objective_and_gradient(&g);
    assert!(
        adbench_close(f2, oracle.objective),
        "{name}: objective from gradient pass"
    );
    assert_all_close(name, &grad, &oracle.gradient);
}

#[test]
fn gmm_instances_match_the_oracle() {
    for (name, file) in GMM_ORACLES {
        check_oracle(name, file);
    }
}

/// Central differences of the objective at a random point (not a data file), with
/// non-trivial Wishart parameters so that every term of the gradient is exercised.
#[test]
fn gmm_gradient_matches_central_differences() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(12345);
    for &(d, k, n) in &[(1, 2, 5), (3, 4, 20), (4, 3, 7)] {
        let mut g = gmm_generate(d, k, n, rng.gen());
        g.gamma = 0.7;
        g.m = 2;
        let mut p = g.params();
        for v in p.iter_mut() {
            *v += rng.gen_range(-0.3..0.3);
        }
        g.set_params(&p);
        let grad = gmm_gradient(&g);
        let mut work = g.clone();
        for i in 0..p.len() {
            let h = 1e-5 * p[i].abs().max(1.0);
            let mut q = p.clone();
            q[i] = p[i] + h;
            work.set_params(&q);
            let fp = gmm_objective(&work);
            q[i] = p[i] - h;
            work.set_params(&q);
            let fm = gmm_objective(&work);
            let fd = (fp - fm) / (2.0 * h);
            let tol = 1e-6 * (1.0 + fd.abs().max(grad[i].abs()));
            assert!(
                (fd - grad[i]).abs() < tol,
                "d={d} K={k} n={n} param {i}: analytic {} vs fd {fd}",
                grad[i]
            );
        }
    }
}

#[test]
fn objective_and_gradient_pass_agree() {
    let g = gmm_generate(5, 6, 50, 3);
    let f = gmm_objective(&g);
    let (f2, _) = gmm_objective_and_gradient(&g);
    assert!((f - f2).abs() <= 1e-12 * f.abs().max(1.0), "{f} vs {f2}");
}

#[test]
fn generator_has_adbench_shape_and_rounding() {
    let g = gmm_generate(3, 4, 200, 9);
    assert_eq!((g.d, g.k, g.n, g.gamma, g.m), (3, 4, 200, 1.0, 0));
    assert_eq!(g.alphas.len(), 4);
    assert_eq!(g.means.len(), 12);
    assert_eq!(g.icf.len(), 24);
    assert_eq!(g.x.len(), 600);
    g.validate().unwrap();
    for &v in g.alphas.iter().chain(&g.means).chain(&g.icf).chain(&g.x) {
        assert_eq!(format!("{v:.6}").parse::<f64>().unwrap(), v);
    }
    assert!(g.means.iter().all(|&v| (0.0..=1.0).contains(&v)));
    // N(0,1) draws: sample mean and variance of the points are plausible.
    let mean = g.x.iter().sum::<f64>() / g.x.len() as f64;
    let var = g.x.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / g.x.len() as f64;
    assert!(mean.abs() < 0.15 && (var - 1.0).abs() < 0.2, "{mean} {var}");
    assert_eq!(g, gmm_generate(3, 4, 200, 9));
    assert_ne!(g, gmm_generate(3, 4, 200, 10));
}

#[test]
fn write_round_trips_including_shipped_files() {
    let g = gmm_generate(2, 3, 10, 1);
    let text = g.write();
    assert!(text.starts_with("2 3 10\n"));
    assert!(text.trim_end().ends_with("1.000000 0"));
    assert_eq!(GmmInput::parse(&text).unwrap(), g);

    // The shipped test file is reproduced token by token.
    let path = data_dir().join("adbench/gmm/test.txt");
    let src = std::fs::read_to_string(&path).unwrap();
    let t = GmmInput::parse(&src).unwrap();
    let written = t.write();
    let ours: Vec<&str> = written.split_whitespace().collect();
    let theirs: Vec<&str> = src.split_whitespace().collect();
    assert_eq!(ours, theirs);

    // Values that need more than 6 decimals survive too.
    let mut h = g.clone();
    h.alphas[0] = std::f64::consts::PI;
    h.x[3] = -1.234_567_890_123e-9;
    assert_eq!(GmmInput::parse(&h.write()).unwrap(), h);
}

#[test]
fn replicated_point_mode() {
    let src = "1 1 3\n0.5\n0.1\n0.2\n0.7\n1 0\n";
    let g = GmmInput::parse_replicated(src).unwrap();
    assert_eq!(g.x, vec![0.7, 0.7, 0.7]);
}

#[test]
fn lgamma_is_precise() {
    let sqrt_pi_ln = std::f64::consts::PI.sqrt().ln();
    let cases = [
        (1.0, 0.0),
        (2.0, 0.0),
        (0.5, sqrt_pi_ln),
        (1.5, sqrt_pi_ln - 2f64.ln()),
        (3.0, 2f64.ln()),
        (10.0, 362_880f64.ln()),
        (30.5, 72.953_471_184_169_4),
        (100.0, 359.134_205_369_575_4),
        (0.1, 2.252_712_651_734_205_5),
        (-0.5, (2.0 * std::f64::consts::PI.sqrt()).ln()),
        (1e-8, 18.420_680_738_180_21),
    ];
    for (x, want) in cases {
        let got = lgamma(x);
        assert!(
            (got - want).abs() <= 1e-15 * want.abs().max(1.0),
            "lgamma({x}) = {got:e}, want {want:e}"
        );
    }
    assert_eq!(lgamma(0.0), f64::INFINITY);
    assert_eq!(lgamma(-3.0), f64::INFINITY);
    // Recurrence lgamma(x+1) = lgamma(x) + ln x across the switch points.
    for i in 1..400 {
        let x = i as f64 * 0.0731;
        let diff = lgamma(x + 1.0) - lgamma(x) - x.ln();
        assert!(
            diff.abs() < 1e-13 * lgamma(x).abs().max(1.0),
            "x={x}: {diff:e}"
        );
    }
    assert_eq!(log_gamma_d(1, 3.0), lgamma(3.0));
}

#[test]
fn logsumexp_is_stable() {
    assert_eq!(logsumexp(&[]), f64::NEG_INFINITY);
    assert!((logsumexp(&[-1000.0, -1000.0]) - (-1000.0 + 2f64.ln())).abs() < 1e-12);
    assert!((logsumexp(&[0.0, 1.0, 2.0]) - 2.407_605_964_444_38).abs() < 1e-14);
}
