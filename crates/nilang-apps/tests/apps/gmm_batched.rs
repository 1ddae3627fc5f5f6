//! The GMM program on batches (`F64x4`, `F64x8`: several points per instruction): objective
//! equal to the one-point-at-a-time program's within 1e-14, gradient equal to its gradient,
//! every `n mod L` tail, reusable work, and the oracle instance.
use nilang::numbers::{Batch, F64x4, F64x8};
use nilang_apps::adbench::gmm::{gmm_generate, GmmInput};
use nilang_apps::adbench::oracle::{adbench_close, data_dir, load_gmm_oracle};
use nilang_apps::gmm::{
    gmm_points_in_lanes, gmm_value_grad, gmm_value_grad_batched, objective, objective_batched,
    GmmBatchWork, GmmGradWork,
};

fn rel(a: f64, b: f64) -> f64 {
    (a - b).abs() / b.abs().max(1e-300)
}

fn scalar_grad(g: &GmmInput) -> (f64, Vec<f64>) {
    let mut grad = vec![0.0; g.n_params()];
    let f = gmm_value_grad(g, &mut GmmGradWork::new(g.d, g.k), &mut grad);
    (f, grad)
}

fn check<B>(g: &GmmInput)
where
    B: Batch + nilang::instr::PlusEq2<nilang::instr::fns::Sub, B, B>,
    nilang::GVar<B>: nilang::instr::PlusEq2<nilang::instr::fns::Sub, B, nilang::GVar<B>>,
{
    let what = format!("{}x d={} K={} n={}", B::LANES, g.d, g.k, g.n);
    let (f0, g0) = scalar_grad(g);
    let fo = objective_batched::<B>(g);
    assert!(
        rel(fo, objective(g)) <= 1e-14,
        "{what}: objective {fo} vs {}",
        objective(g)
    );
    let mut work = GmmBatchWork::<B>::new(g.d, g.k);
    let mut grad = vec![0.0; g.n_params()];
    let f = gmm_value_grad_batched(g, &mut work, &mut grad);
    assert!(rel(f, f0) <= 1e-14, "{what}: value {f} vs {f0}");
    let scale = g0.iter().fold(0.0_f64, |m, v| m.max(v.abs()));
    for (i, (a, b)) in grad.iter().zip(&g0).enumerate() {
        assert!(
            (a - b).abs() <= 1e-12 * scale,
            "{what}: grad[{i}] {a} vs {b}"
        );
    }
}

#[test]
fn every_tail_length_gives_the_scalar_objective_and_gradient() {
    for n in [1, 3, 4, 5, 7, 8, 9, 64, 67, 131, 260] {
        let g = gmm_generate(2, 3, n, 7);
        check::<F64x4>(&g);
        check::<F64x8>(&g);
    }
}

#[test]
fn larger_dimensions_and_components() {
    // odd d (the last column of L alone), several blocks of lane groups
    for (d, k) in [(3, 4), (5, 2), (10, 6)] {
        let g = gmm_generate(d, k, 203, 11);
        check::<F64x4>(&g);
        check::<F64x8>(&g);
    }
}

#[test]
fn work_is_reusable_across_instances() {
    let gs: Vec<GmmInput> = [(100, 1), (37, 2), (100, 3)]
        .iter()
        .map(|&(n, seed)| gmm_generate(2, 5, n, seed))
        .collect();
    let mut work = GmmBatchWork::<F64x4>::new(2, 5);
    for g in &gs {
        let mut grad = vec![0.0; g.n_params()];
        let f = gmm_value_grad_batched(g, &mut work, &mut grad);
        let (f0, g0) = scalar_grad(g);
        assert!(rel(f, f0) <= 1e-14);
        assert!(grad
            .iter()
            .zip(&g0)
            .all(|(a, b)| (a - b).abs() <= 1e-12 * (1.0 + b.abs())));
    }
}

#[test]
fn points_are_laid_out_lane_by_lane() {
    let g = gmm_generate(2, 1, 9, 1);
    let mut xb = Vec::new();
    gmm_points_in_lanes::<F64x4>(&g, &mut xb);
    assert_eq!(xb.len(), 2 * 2); // two groups of 4 points, 2 coordinates each
    for j in 0..2 {
        for r in 0..2 {
            for l in 0..4 {
                assert_eq!(xb[j * 2 + r].lane(l), g.x[(j * 4 + l) * 2 + r]);
            }
        }
    }
}

#[test]
fn gmm_10k_d2_k5_batched_matches_oracle_and_scalar() {
    let g = GmmInput::from_file(data_dir().join("adbench/gmm/10k/gmm_d2_K5.txt")).unwrap();
    let oracle = load_gmm_oracle("gmm_10k_d2_K5").unwrap();
    let mut work = GmmBatchWork::<F64x4>::new(g.d, g.k);
    let mut grad = vec![0.0; g.n_params()];
    let f = gmm_value_grad_batched(&g, &mut work, &mut grad);
    assert!(
        adbench_close(f, oracle.objective),
        "{f} vs {}",
        oracle.objective
    );
    for (a, b) in grad.iter().zip(&oracle.gradient) {
        assert!(adbench_close(*a, *b), "{a} vs {b}");
    }
    let (f0, g0) = scalar_grad(&g);
    assert!(rel(f, f0) <= 1e-14, "{f} vs {f0}");
    assert!(rel(objective_batched::<F64x4>(&g), objective(&g)) <= 1e-14);
    let scale = g0.iter().fold(0.0_f64, |m, v| m.max(v.abs()));
    assert!(grad
        .iter()
        .zip(&g0)
        .all(|(a, b)| (a - b).abs() <= 1e-12 * scale));
}
