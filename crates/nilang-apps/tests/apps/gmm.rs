//! The reversible GMM objective (`nilang_apps::gmm`): objective and one-pass gradient against
//! ADBench's golden values and the JAX oracle; the inverse restores every input; the
//! generic program agrees with `nilang::gradient` on gradient numbers.
use crate::assert_all_close;
use nilang::GVar;
use nilang_apps::adbench::gmm::{gmm_generate, gmm_objective_and_gradient, GmmInput};
use nilang_apps::adbench::oracle::{
    adbench_close, data_dir, load_expected, load_gmm_oracle, GMM_ORACLES,
};
use nilang_apps::gmm::{gmm_value_grad, objective, value_and_gradient, GmmGradWork, GmmWork};

fn load(rel: &str) -> GmmInput {
    GmmInput::from_file(data_dir().join("adbench/gmm").join(rel)).unwrap()
}

fn check_oracle(name: &str, file: &str) {
    let oracle = load_gmm_oracle(name).unwrap();
    let g = load(file);
    let f = objective(&g);
    assert!(
        adbench_close(f, oracle.objective),
        "{name}: objective {f} vs {}",
        oracle.objective
    );
    let (f2, grad) = value_and_gradient(&g);
    assert!(
        adbench_close(f2, oracle.objective),
        "{name}: value from the gradient pass {f2} vs {}",
        oracle.objective
    );
    assert_all_close(name, &grad, &oracle.gradient);
}

#[test]
fn test_instance_matches_adbench_golden_values() {
    let expected = load_expected().unwrap().gmm_test;
    let g = GmmInput::from_file(data_dir().join("adbench").join(&expected.input)).unwrap();
    let f = objective(&g);
    assert!(adbench_close(f, expected.objective), "objective {f}");
    let (f2, grad) = value_and_gradient(&g);
    assert!(adbench_close(f2, expected.objective), "objective {f2}");
    assert_all_close("gradient", &grad, &expected.gradient);
}

#[test]
fn gmm_instances_match_the_oracle() {
    for (name, file) in GMM_ORACLES {
        check_oracle(name, file);
    }
}

/// Generated instances with gamma != 1 and m != 0 against the hand-written gradient.
#[test]
fn generated_instances_with_prior_match_hand_gradient() {
    for (d, k, n, seed) in [(1, 1, 3, 0), (3, 4, 17, 1), (5, 2, 9, 2), (4, 7, 5, 3)] {
        let mut g = gmm_generate(d, k, n, seed);
        g.gamma = 1.7;
        g.m = 2;
        let (f0, g0) = gmm_objective_and_gradient(&g);
        let (f, grad) = value_and_gradient(&g);
        assert!(adbench_close(f, f0), "d={d} k={k}: {f} vs {f0}");
        assert_all_close(&format!("d={d} k={k}"), &grad, &g0);
        assert!(adbench_close(objective(&g), f0));
    }
}

/// The buffers are reusable: a second call gives the same result, bit for bit.
#[test]
fn gradient_work_is_reusable() {
    let g = gmm_generate(3, 4, 30, 5);
    let mut work = GmmGradWork::new(3, 4);
    let mut a = vec![0.0; g.n_params()];
    let mut b = vec![0.0; g.n_params()];
    let fa = gmm_value_grad(&g, &mut work, &mut a);
    let fb = gmm_value_grad(&g, &mut work, &mut b);
    assert_eq!(fa, fb);
    assert_eq!(a, b);
}

/// Forward then inverse restores the parameters exactly and the workspace and output up to
/// rounding.
#[test]
fn inverse_restores_inputs() {
    let g = load("1k/gmm_d2_K5.txt");
    let p0 = g.params();
    let mut p = p0.clone();
    let mut w = GmmWork::<f64>::new(g.d, g.k);
    let mut out = 0.0;
    w.objective(&mut out, &mut p, &g);
    assert!(adbench_close(out, nilang_apps::adbench::gmm_objective(&g)));
    assert_eq!(p, p0);
    w.objective_inv(&mut out, &mut p, &g);
    assert_eq!(p, p0);
    assert!(out.abs() < 1e-9, "out = {out}");
    for v in
        w.qd.iter()
            .chain(&w.base)
            .chain(&w.xc)
            .chain(&w.y)
            .chain(&w.sq)
            .chain(&w.main)
            .chain(&w.t)
            .chain(&w.lse)
            .chain(&w.s)
            .chain(&w.mx)
            .chain([&w.sa, &w.la, &w.mxa, &w.fro])
    {
        assert!(v.abs() < 1e-9);
    }
}

/// The split pass (routine on `f64`, inverse on `GVar`) equals the plain one-reverse-pass
/// trick on gradient numbers (the whole inverse run on `GVar`s).
#[test]
fn split_pass_equals_plain_reverse_pass() {
    let g = gmm_generate(3, 3, 8, 9);
    let (f, grad) = value_and_gradient(&g);
    let mut p: Vec<GVar<f64>> = g.params().into_iter().map(GVar::from).collect();
    let mut w = GmmWork::<GVar<f64>>::new(g.d, g.k);
    let mut out = GVar::new(0.0, 1.0);
    w.objective_inv(&mut out, &mut p, &g);
    assert!(adbench_close(-out.x, f));
    let g2: Vec<f64> = p.iter().map(|v| v.g).collect();
    assert_all_close("one-pass", &g2, &grad);
}

/// Any block size (1, a partial last block, one block larger than n) gives the same value
/// and gradient, for the program and its one-pass gradient.
#[test]
fn block_sizes_agree() {
    let g = gmm_generate(4, 3, 11, 4);
    let (f0, g0) = gmm_objective_and_gradient(&g);
    for bs in [1, 2, 3, 4, 11, 64] {
        let mut work = GmmGradWork::with_block(g.d, g.k, bs);
        let mut grad = vec![0.0; g.n_params()];
        let f = gmm_value_grad(&g, &mut work, &mut grad);
        assert!(adbench_close(f, f0), "bs={bs}: {f} vs {f0}");
        assert_all_close(&format!("bs={bs}"), &grad, &g0);
        let mut p = g.params();
        let mut w = GmmWork::<f64>::with_block(g.d, g.k, bs);
        let mut out = 0.0;
        w.objective(&mut out, &mut p, &g);
        assert!(adbench_close(out, f0), "bs={bs}: objective {out} vs {f0}");
    }
}
