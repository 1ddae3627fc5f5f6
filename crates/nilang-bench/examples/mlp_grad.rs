//! Issue 21: the `mlp` suite's gradient cell (`nilang-G`: the guide's program through a
//! `Plan`) alone, in a loop, for a profiler (`perf record`) or a quick time.
//!
//! `cargo run --release -p nilang-bench --example mlp_grad [-- B CALLS [g]]` (default B = 4096,
//! 2000 calls): prints the minimum and median time per call of `nilang-G` and of `nilang-O`
//! (the same program on `f64`, as a reference within the same run). With `g`, `nilang-G`
//! alone (for `perf record` of the gradient without the objective's samples).
use nilang::ad::Plan;
use nilang_bench::suites::mlp::nilang::{kernels, MlpLoss};
use nilang_bench::suites::mlp::{split, value_grad, MlpCase, PlainWs, Tanh, N_HIDDEN};
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
    let g_only = args.next().is_some_and(|a| a == "g");
    let case = MlpCase::new(b);
    let mut ks = kernels(&case);
    // the suite's kernels: O, then G
    let (first, rest) = ks.split_at_mut(1);
    let (o, g) = (&mut first[0], &mut rest[0]);
    let (gm, gd) = time(calls, || g.run());
    // the gradient against hand-written backpropagation (`manual-G`)
    let diff = {
        let (w1, b1, w2, b2) = split(&case.p);
        let (mut w1, mut b1, mut w2, mut b2) = (w1.to_vec(), b1.to_vec(), w2.to_vec(), b2.to_vec());
        let mut zs = [
            vec![0.0; b * N_HIDDEN],
            vec![0.0; b * N_HIDDEN],
            vec![0.0; b],
        ];
        let [z1, h, z2] = &mut zs;
        let args = (
            &mut 0.0,
            &mut w1[..],
            &mut b1[..],
            &mut w2[..],
            &mut b2[..],
            &mut z1[..],
            &mut h[..],
            &mut z2[..],
            &case.x[..],
            &case.t[..],
        );
        let mut plan = Plan::new();
        let (_, (_, g1, gb1, g2, gb2, ..)) = plan.value_and_gradient(&MlpLoss, args, 0);
        let ours: Vec<f64> = g1
            .iter()
            .chain(gb1.iter())
            .chain(g2.iter())
            .chain(gb2.iter())
            .map(|v| v.g)
            .collect();
        let mut want = vec![0.0; case.p.len()];
        value_grad(
            &case.p,
            &case.x,
            &case.t,
            &mut PlainWs::new(b),
            &mut want,
            Tanh::Lanes,
        );
        ours.iter()
            .zip(&want)
            .map(|(a, w)| (a - w).abs() / (1.0 + w.abs()))
            .fold(0.0, f64::max)
    };
    println!("B={b}: nilang-G vs manual-G: max |difference| / (1 + |manual-G|) = {diff:.1e}");
    if g_only {
        println!("B={b}: nilang-G {gm:.3e} / {gd:.3e} s per call (min / median)");
        return;
    }
    let (om, od) = time(calls, || o.run());
    println!(
        "B={b}: nilang-G {gm:.3e} / {gd:.3e} s per call (min / median), nilang-O {om:.3e} / {od:.3e} s ({:.2}x by the minima)",
        gm / om
    );
}
