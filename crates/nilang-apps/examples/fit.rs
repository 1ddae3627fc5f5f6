//! Fitting through argmin: a GMM (ADBench-style, generated) with L-BFGS and the Petersen graph
//! embedding with trust-region Newton on exact Hessians, each with a progress bar and its loss
//! curve drawn as an SVG (`nilang_apps::fit`).
//!
//! `cargo run --release -p nilang-apps --example fit -- [OUT_DIR] [--d D] [--k K] [--n N]
//!  [--dim DIM]`; the pictures go to `OUT_DIR/fit-gmm.svg` and `OUT_DIR/fit-embedding.svg`
//! (default `target/`).
use argmin::core::{observers::ObserverMode, Executor, State};
use argmin::solver::linesearch::MoreThuenteLineSearch;
use argmin::solver::quasinewton::LBFGS;
use argmin::solver::trustregion::{Steihaug, TrustRegion};
use nilang_apps::adbench::gmm::gmm_generate;
use nilang_apps::embedding::{loss, mean_distances, random_positions};
use nilang_apps::fit::*;
use rand::SeedableRng;
use std::path::PathBuf;

fn main() {
    let mut out_dir = PathBuf::from("target");
    let (mut d, mut k, mut n, mut dim) = (2, 5, 1000, 5);
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut num = |name: &str| -> usize {
            args.next()
                .and_then(|v| v.parse().ok())
                .unwrap_or_else(|| panic!("{name} needs a number"))
        };
        match a.as_str() {
            "--d" => d = num("--d").max(1),
            "--k" => k = num("--k").max(1),
            "--n" => n = num("--n").max(1),
            "--dim" => dim = num("--dim").clamp(1, 10),
            "-h" | "--help" => {
                println!("usage: fit [OUT_DIR] [--d D] [--k K] [--n N] [--dim DIM]");
                return;
            }
            _ => out_dir = PathBuf::from(a),
        }
    }
    if let Err(e) = std::fs::create_dir_all(&out_dir) {
        eprintln!("cannot create {}: {e}", out_dir.display());
        std::process::exit(1);
    }

    // GMM, L-BFGS
    let g = gmm_generate(d, k, n, 1);
    let max_iters = 1000;
    let curve = LossCurve::default();
    let solver = LBFGS::new(MoreThuenteLineSearch::new(), 10)
        .with_tolerance_grad(1e-6)
        .expect("a valid tolerance");
    println!(
        "GMM d={d} K={k} n={n} ({} parameters), L-BFGS (memory 10, More-Thuente), gradient-norm tolerance 1e-6",
        g.n_params()
    );
    let res = Executor::new(gmm_problem(&g), solver)
        .configure(|s| s.param(g.params()).max_iters(max_iters))
        .add_observer(curve.clone(), ObserverMode::Always)
        .add_observer(Progress::new("GMM", max_iters), ObserverMode::Always)
        .run()
        .unwrap_or_else(|e| {
            eprintln!("L-BFGS failed: {e}");
            std::process::exit(1);
        });
    let state = res.state();
    let norm = state
        .get_gradient()
        .map(|g| g.iter().map(|v| v * v).sum::<f64>().sqrt())
        .unwrap_or(f64::NAN);
    println!(
        "  loss (prior - log-likelihood) {:.10e} -> {:.10e} in {} iterations, gradient norm {norm:.2e} ({})",
        curve.curve().losses[0].1,
        state.get_best_cost(),
        state.get_iter(),
        state.get_termination_status()
    );
    let svg = out_dir.join("fit-gmm.svg");
    write(&curve, &svg, &format!("GMM d={d} K={k} n={n}, L-BFGS"));

    // embedding, trust-region Newton
    let fixed = [0, 1];
    let max_iters = 200;
    println!(
        "\nPetersen graph embedding in {dim} dimensions, vertices {fixed:?} fixed: trust-region Newton (Steihaug) on exact Hessians, up to 10 random starts"
    );
    let mut best = None;
    for start_no in 0..10u64 {
        let mut rng = rand::rngs::StdRng::seed_from_u64(1000 * dim as u64 + start_no);
        let x0 = random_positions(dim, &mut rng);
        let (problem, start) = embedding_problem(&x0, dim, &fixed);
        let curve = LossCurve::default();
        let res = Executor::new(
            problem,
            TrustRegion::new(Steihaug::new().with_max_iters(100)),
        )
        .configure(|s| s.param(start).max_iters(max_iters))
        .add_observer(curve.clone(), ObserverMode::Always)
        .add_observer(Progress::new("embedding", max_iters), ObserverMode::Always)
        .run()
        .unwrap_or_else(|e| {
            eprintln!("trust region failed: {e}");
            std::process::exit(1);
        });
        let state = res.state();
        let cost = state.get_best_cost();
        if best.as_ref().is_none_or(|b: &Best| cost < b.0) {
            let p = state.get_best_param().expect("a best point").clone();
            let status = format!("{}", state.get_termination_status());
            best = Some((cost, p, state.get_iter(), status, x0, curve));
        }
        if cost < 1e-12 {
            break;
        }
    }
    let (_, p, iters, status, x0, curve) = best.expect("at least one start");
    let x = embedding_positions(&x0, dim, &fixed, &p);
    let (l1, l2) = mean_distances(&x, dim);
    println!(
        "  loss {:.3e} -> {:.3e} in {} iterations ({}); l2/l1 = {:.7} (sqrt(2) = {:.7})",
        loss(&x0, dim),
        loss(&x, dim),
        iters,
        status,
        l2 / l1,
        2f64.sqrt()
    );
    let svg = out_dir.join("fit-embedding.svg");
    write(
        &curve,
        &svg,
        &format!("Petersen embedding, {dim} dimensions, trust-region Newton"),
    );
}

/// The best embedding run: loss, free coordinates, iterations, termination, start, curve.
type Best = (f64, Vec<f64>, u64, String, Vec<f64>, LossCurve);

fn write(curve: &LossCurve, svg: &std::path::Path, title: &str) {
    match curve.curve().write_svg(svg, title, true) {
        Ok(()) => println!("  loss curve written to {}", svg.display()),
        Err(e) => {
            eprintln!("cannot write the picture: {e}");
            std::process::exit(1);
        }
    }
}
