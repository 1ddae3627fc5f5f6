//! The Lorenz RK4 gradient through Treeverse against a tape (store-all) and finite
//! differences.
use nilang_apps::lorenz::*;

#[test]
fn treeverse_equals_the_tape_for_several_budgets() {
    let n = 5_000;
    let tape = gradient_store_all(&START, n);
    for delta in [1, 3, 5, 20, n + 1] {
        if delta == 1 {
            // recompute-all on a shorter run (quadratic in n)
            let (g, log) = gradient(&START, 500, 1);
            assert_eq!(g, gradient_store_all(&START, 500));
            assert_eq!(log.steps, 500 * 501 / 2);
            continue;
        }
        let (g, log) = gradient(&START, n, delta);
        assert_eq!(g, tape, "δ = {delta}");
        assert!(log.peak_states <= delta + 1);
        assert_eq!(
            log.steps as u128,
            nilang::stdlib::treeverse::optimal_steps(n, delta)
        );
    }
}

#[test]
fn gradient_matches_finite_differences() {
    // 10⁵ steps = one time unit: the sensitivities have grown but stay well conditioned
    let n = 100_000;
    let (g, log) = gradient(&START, n, 8);
    let fd = gradient_fd(&START, n, 1e-6);
    for k in 0..4 {
        let scale = fd[k].abs().max(1.0);
        assert!(
            (g[k] - fd[k]).abs() < 1e-5 * scale,
            "component {k}: {} vs {}",
            g[k],
            fd[k]
        );
    }
    // ∂z/∂ρ is the largest sensitivity here and clearly nonzero
    assert!(g[3].abs() > 1.0, "{g:?}");
    assert!(log.peak_states <= 9);
}

#[test]
fn split_mode_steps_give_the_joint_gradient() {
    nilang::tape::clear();
    let (g, s) = gradient_store_all_split(&START, 2_000);
    assert_eq!(g, gradient_store_all(&START, 2_000));
    // one step's stages at a time: 24 numbers, none left behind. The typed tape keeps them
    // as 24 f64 (8 bytes each) in one run of the routine (one header, at most 64 bytes)
    assert_eq!(s.len, 0);
    assert_eq!(s.pushes, 2_000 * 24);
    let peak = s.peak_bytes;
    assert!((24 * 8 + 8..=24 * 8 + 64).contains(&peak), "{peak}");
    // all on the run's own tape: the thread's was not touched
    assert_eq!(nilang::tape::stats(), nilang::tape::TapeStats::default());
}
