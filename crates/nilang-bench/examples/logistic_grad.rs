//! Issue 21: the `logistic` suite's gradient cell (`nilang-G`: the guide's program through
//! `Plan::gradient`) alone, in a loop, for a profiler (`perf record`) or a quick time.
//!
//! `cargo run --release -p nilang-bench --example logistic_grad [-- N CALLS [g]]` (default
//! N = 10000, 2000 calls): prints the minimum and median time per call of `nilang-G` and of
//! `rust-G` (the best plain gradient, as a reference within the same run), and checks the
//! gradient against the plain one first. With `g`, `nilang-G` alone (for `perf record` of the
//! gradient without the plain code's samples).
use nilang_bench::suites::logistic::{nilang, nll_gradient_lanes, LogisticCase, D};
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

fn main() {
    let mut args = std::env::args().skip(1);
    let n: usize = args.next().map_or(10_000, |a| a.parse().expect("N"));
    let calls: usize = args.next().map_or(2000, |a| a.parse().expect("CALLS"));
    let g_only = args.next().is_some_and(|a| a == "g");
    let c = LogisticCase::random(n, &mut nilang_bench::suites::rng(22));
    let mut cells = nilang::cells(&c, &[]);
    // the suite's kernels of `nilang`: O, then G
    let g = &mut cells[0].1[1];
    let mut want = vec![0.0; D + 1];
    nll_gradient_lanes(&c.w, &c.x, &c.y, &mut want);
    g.run();
    let diff = g
        .result()
        .iter()
        .zip(&want)
        .map(|(a, w)| (a - w).abs() / (1.0 + w.abs()))
        .fold(0.0, f64::max);
    println!("n={n}: nilang-G vs rust-G: max |difference| / (1 + |rust-G|) = {diff:.1e}");
    assert!(diff < 1e-12, "the gradient is wrong");
    let (gm, gd) = time(calls, || g.run());
    if g_only {
        println!("n={n}: nilang-G {gm:.3e} / {gd:.3e} s per call (min / median)");
        return;
    }
    let mut gl = vec![0.0; D + 1];
    let (rm, rd) = time(calls, || {
        nll_gradient_lanes(std::hint::black_box(&c.w), &c.x, &c.y, &mut gl);
    });
    println!(
        "n={n}: nilang-G {gm:.3e} / {gd:.3e} s per call (min / median), rust-G {rm:.3e} / {rd:.3e} s ({:.2}x by the minima)",
        gm / rm
    );
}
