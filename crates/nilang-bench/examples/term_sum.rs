//! Issue 21: a suite's data-parallel gradient cell (`nilang-tN-G`: the guide's program through
//! `nilang::ad::TermSum`) alone, in a loop, for a profiler (`perf record`) or a quick time,
//! next to the suite's `nilang-G` (one `Plan` over all terms) in the same run.
//!
//! `cargo run --release -p nilang-bench --example term_sum [-- SUITE SIZE CALLS THREADS [t]]`
//! (SUITE `mlp` (SIZE = B), `logistic` (n) or `pairwise` (N); default `mlp 4096 1000 1`):
//! prints the minimum and median time per call of `nilang-tN-G` and of `nilang-G`, the
//! gradients checked against each other first. With `t`, `nilang-tN-G` alone (for
//! `perf record`).
use nilang_bench::harness::{Kernel, Pool};
use nilang_bench::suites::logistic::LogisticCase;
use nilang_bench::suites::mlp::MlpCase;
use nilang_bench::suites::pairwise::PairwiseCase;
use nilang_bench::suites::{logistic, mlp, pairwise, rng};
use std::time::Instant;

/// Minimum and median seconds per call of `run` over `calls` calls.
fn time(calls: usize, mut run: impl FnMut()) -> (f64, f64) {
    run();
    let mut t: Vec<f64> = (0..calls)
        .map(|_| {
            let s = Instant::now();
            run();
            s.elapsed().as_secs_f64()
        })
        .collect();
    t.sort_by(f64::total_cmp);
    (t[0], t[t.len() / 2])
}

/// Time `term` (`nilang-tN-G`) and, unless `t_only`, `plan` (`nilang-G`), after checking
/// that their gradients agree.
fn report(
    name: &str,
    threads: usize,
    calls: usize,
    t_only: bool,
    term: &mut Kernel<'_>,
    plan: &mut Kernel<'_>,
) {
    term.run();
    plan.run();
    let diff = term
        .result()
        .iter()
        .zip(&plan.result())
        .map(|(a, w)| (a - w).abs() / (1.0 + w.abs()))
        .fold(0.0, f64::max);
    assert!(
        diff < 1e-9,
        "{name}: nilang-t{threads}-G and nilang-G differ by {diff:.1e}"
    );
    let (tm, td) = time(calls, || term.run());
    if t_only {
        println!("{name}: nilang-t{threads}-G {tm:.3e} / {td:.3e} s per call (min / median)");
        return;
    }
    let (gm, gd) = time(calls, || plan.run());
    println!(
        "{name}: nilang-t{threads}-G {tm:.3e} / {td:.3e} s per call (min / median), nilang-G {gm:.3e} / {gd:.3e} s ({:.2}x by the minima)",
        tm / gm
    );
}

fn main() {
    let mut args = std::env::args().skip(1);
    let suite = args.next().unwrap_or_else(|| "mlp".into());
    let size: usize = args.next().map_or(4096, |a| a.parse().expect("SIZE"));
    let calls: usize = args.next().map_or(1000, |a| a.parse().expect("CALLS"));
    let threads: usize = args.next().map_or(1, |a| a.parse().expect("THREADS"));
    let t_only = args.next().is_some_and(|a| a == "t");
    let pools = [Pool::new(threads)];
    match &suite[..] {
        "mlp" => {
            let case = MlpCase::new(size);
            let mut term = mlp::nilang::parallel(&case, &pools[0]);
            let mut ks = mlp::nilang::kernels(&case);
            report(
                &format!("mlp B={size}"),
                threads,
                calls,
                t_only,
                &mut term,
                &mut ks[1],
            );
        }
        "logistic" => {
            let case = LogisticCase::random(size, &mut rng(22));
            let mut cells = logistic::nilang::cells(&case, &pools);
            let (a, b) = cells.split_at_mut(1);
            report(
                &format!("logistic n={size}"),
                threads,
                calls,
                t_only,
                &mut b[0].1[0],
                &mut a[0].1[1],
            );
        }
        "pairwise" => {
            let case = PairwiseCase::random(size, &mut rng(2));
            let mut cells = pairwise::nilang::cells(&case, &pools);
            let (a, b) = cells.split_at_mut(1);
            report(
                &format!("pairwise N={size}"),
                threads,
                calls,
                t_only,
                &mut b[0].1[0],
                &mut a[0].1[1],
            );
        }
        other => panic!("unknown suite {other} (mlp, logistic, pairwise)"),
    }
}
