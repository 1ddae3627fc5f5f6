//! Issue 21: the `mlp` suite's gradient cell (`nilang-G`: the guide's program through a
//! `Plan`) alone, in a loop, for a profiler (`perf record`) or a quick time.
//!
//! `cargo run --release -p nilang-bench --example mlp_grad [-- B CALLS]` (default B = 4096,
//! 2000 calls): prints the minimum and median time per call of `nilang-G` and of `nilang-O`
//! (the same program on `f64`, as a reference within the same run).
use nilang_bench::suites::mlp::{nilang::kernels, MlpCase};
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
    let b: usize = args.next().map_or(4096, |a| a.parse().expect("B"));
    let calls: usize = args.next().map_or(2000, |a| a.parse().expect("CALLS"));
    let case = MlpCase::new(b);
    let mut ks = kernels(&case);
    // the suite's kernels: O, then G
    let (first, rest) = ks.split_at_mut(1);
    let (o, g) = (&mut first[0], &mut rest[0]);
    let (gm, gd) = time(calls, || g.run());
    let (om, od) = time(calls, || o.run());
    println!(
        "B={b}: nilang-G {gm:.3e} / {gd:.3e} s per call (min / median), nilang-O {om:.3e} / {od:.3e} s ({:.2}x by the minima)",
        gm / om
    );
}
