//! argmin on the applications (`nilang_apps::fit`): L-BFGS on a small generated GMM reaches the
//! gradient-norm tolerance 1e-6 (the loss curve recorded and drawn); trust-region Newton with
//! our Hessian embeds the Petersen graph in 5 dimensions. (Not checked: the GMM optimum against
//! a reference within 1e-8; on these instances runs with other memories or tolerances end at
//! different points, the fit being flat along some directions.)
use argmin::core::CostFunction;
use argmin::core::{observers::ObserverMode, Executor, State, TerminationReason};
use argmin::solver::linesearch::MoreThuenteLineSearch;
use argmin::solver::quasinewton::LBFGS;
use argmin::solver::trustregion::{Steihaug, TrustRegion};
use nilang_apps::adbench::gmm::gmm_generate;
use nilang_apps::embedding::{loss, mean_distances, random_positions};
use nilang_apps::fit::{embedding_positions, embedding_problem, gmm_problem, LossCurve};
use rand::SeedableRng;

#[test]
fn lbfgs_fits_a_gmm_to_the_gradient_tolerance() {
    let (d, k, n) = (2, 3, 40);
    let g = gmm_generate(d, k, n, 1);
    let tol = 1e-6;
    let curve = LossCurve::default();
    let solver = LBFGS::new(MoreThuenteLineSearch::new(), 7)
        .with_tolerance_grad(tol)
        .unwrap()
        .with_tolerance_cost(0.0)
        .unwrap();
    let res = Executor::new(gmm_problem(&g), solver)
        .configure(|s| s.param(g.params()).max_iters(1000))
        .add_observer(curve.clone(), ObserverMode::Always)
        .run()
        .unwrap();
    let state = res.state();
    assert_eq!(
        state.get_termination_reason(),
        Some(&TerminationReason::SolverConverged),
        "{:?}",
        state.get_termination_status()
    );
    let norm = state
        .get_gradient()
        .unwrap()
        .iter()
        .map(|v| v * v)
        .sum::<f64>()
        .sqrt();
    assert!(norm < tol, "gradient norm {norm}");
    // the curve starts at the generated parameters' objective and ends at the optimum
    let curve = curve.curve();
    assert_eq!(
        curve.losses[0].1,
        gmm_problem(&g).cost(&g.params()).unwrap()
    );
    let last = curve.losses.last().unwrap().1;
    assert!((last - state.get_best_cost()).abs() <= 1e-12 * last.abs());
    assert!(last < curve.losses[0].1);
    let svg = std::env::temp_dir().join(format!("nilang-fit-test-{}.svg", std::process::id()));
    curve.write_svg(&svg, "GMM, L-BFGS", true).unwrap();
    let text = std::fs::read_to_string(&svg).unwrap();
    std::fs::remove_file(&svg).ok();
    assert!(
        text.starts_with("<svg") && text.contains("<polyline"),
        "{}",
        &text[..text.len().min(200)]
    );
}

#[test]
fn trust_region_newton_embeds_the_petersen_graph_in_five_dimensions() {
    let (k, fixed) = (5, [0, 1]);
    // the loss has local minima: random starts until one reaches zero (the example's seeds)
    let mut found = None;
    for start_no in 0..10 {
        let mut rng = rand::rngs::StdRng::seed_from_u64(5000 + start_no);
        let x0 = random_positions(k, &mut rng);
        let (problem, start) = embedding_problem(&x0, k, &fixed);
        let solver = TrustRegion::new(Steihaug::new().with_max_iters(100));
        let res = Executor::new(problem, solver)
            .configure(|s| s.param(start).max_iters(200))
            .run()
            .unwrap();
        if res.state().get_best_cost() < 1e-12 {
            found = Some(embedding_positions(
                &x0,
                k,
                &fixed,
                res.state().get_best_param().unwrap(),
            ));
            break;
        }
    }
    let x = found.expect("no start of 10 reached a loss below 1e-12");
    let l = loss(&x, k);
    let (l1, l2) = mean_distances(&x, k);
    assert!(l < 1e-12, "loss {l:e}");
    assert!((l2 / l1 - 2f64.sqrt()).abs() < 1e-6, "l2/l1 = {}", l2 / l1);
}
