//! The time–space trade-off of a million-step gradient: the Lorenz system integrated with RK4
//! (an `#[i]` step) over 10⁶ steps, differentiated with respect to the initial state and ρ by
//! Treeverse with several checkpoint budgets δ, and by a tape of all states. Prints step calls,
//! peak stored states, peak heap and time relative to one forward run, checks the gradient
//! against central finite differences, and draws time against memory.
//!
//! `cargo run --release -p nilang-apps --example lorenz -- [OUT_DIR] [--steps N]
//!  [--deltas 5,10,...]`; the picture goes to `OUT_DIR/lorenz_tradeoff.svg` (default
//! `target/`).
use nilang_apps::lorenz::*;
use nilang_testkit::alloc::CountingAlloc;
use std::path::PathBuf;
use std::time::Instant;

/// The system allocator, counting live and peak heap bytes (of the measuring thread).
#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

/// Run `f`, returning its result, its seconds and the peak heap it added.
fn measure<R>(f: impl FnOnce() -> R) -> (R, f64, usize) {
    let t = Instant::now();
    let (r, heap) = nilang_testkit::alloc::measure(f);
    let s = t.elapsed().as_secs_f64();
    (r, s, heap.peak_bytes)
}

fn main() {
    let mut out_dir = PathBuf::from("target");
    let mut n = 1_000_000usize;
    let mut deltas = vec![5usize, 10, 20, 50, 200, 1000];
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--steps" => {
                n = args
                    .next()
                    .and_then(|v| v.parse().ok())
                    .filter(|&v| v >= 1)
                    .unwrap_or_else(|| panic!("--steps needs a positive number"))
            }
            "--deltas" => {
                deltas = args
                    .next()
                    .map(|v| v.split(',').map(|d| d.trim().parse::<usize>()).collect())
                    .and_then(|r: Result<Vec<_>, _>| r.ok())
                    .filter(|d: &Vec<usize>| !d.is_empty() && d.iter().all(|&v| v >= 1))
                    .unwrap_or_else(|| panic!("--deltas needs a list like 5,10,20 (each ≥ 1)"))
            }
            "-h" | "--help" => {
                println!("usage: lorenz [OUT_DIR] [--steps N] [--deltas 5,10,...]");
                return;
            }
            _ => out_dir = PathBuf::from(a),
        }
    }
    println!(
        "Lorenz (σ = {SIGMA}, β = 8/3, ρ = {}), RK4 with h = {H}, {n} steps (t = {}); loss = z_n; state [x, y, z, ρ] ({} bytes)",
        START[3],
        n as f64 * H,
        std::mem::size_of::<State>()
    );
    // one forward run (best of three)
    let mut t_fwd = f64::MAX;
    let mut last = START;
    for _ in 0..3 {
        let (x, s, _) = measure(|| integrate(&START, n));
        t_fwd = t_fwd.min(s);
        last = x;
    }
    println!("forward run: {:.3} s, z_n = {:.6}", t_fwd, last[2]);

    let mut points = Vec::new();
    let mut reference: Option<State> = None;
    println!(
        "{:>10} {:>14} {:>10} {:>12} {:>14} {:>10} {:>10}",
        "δ", "step calls", "calls/n", "peak states", "peak heap (B)", "time (s)", "/ forward"
    );
    let mut rows: Vec<(String, Option<usize>)> =
        deltas.iter().map(|&d| (format!("{d}"), Some(d))).collect();
    rows.push(("store-all".into(), None));
    for (label, delta) in rows {
        let ((g, calls, peak_states), secs, heap) = measure(|| match delta {
            Some(d) => {
                let (g, log) = gradient(&START, n, d);
                (g, log.steps, log.peak_states)
            }
            None => (gradient_store_all(&START, n), n, n + 1),
        });
        println!(
            "{:>10} {:>14} {:>10.2} {:>12} {:>14} {:>10.3} {:>10.1}",
            label,
            calls,
            calls as f64 / n as f64,
            peak_states,
            heap,
            secs,
            secs / t_fwd
        );
        if let Some(r) = reference {
            assert_eq!(g, r, "every schedule computes the same gradient");
        }
        reference = Some(g);
        points.push(TradeOff {
            label: if delta.is_some() {
                format!("δ = {label}")
            } else {
                label
            },
            peak_bytes: heap as f64,
            time_ratio: secs / t_fwd,
        });
    }
    let g = reference.expect("at least one schedule");
    println!(
        "∂z_n/∂(x₀, y₀, z₀, ρ) = [{:.6e}, {:.6e}, {:.6e}, {:.6e}] (identical for every schedule)",
        g[0], g[1], g[2], g[3]
    );
    let (fd, secs, _) = measure(|| gradient_fd(&START, n, 1e-6));
    let worst = (0..4)
        .map(|k| (g[k] - fd[k]).abs() / fd[k].abs().max(1.0))
        .fold(0.0, f64::max);
    println!(
        "central finite differences ({:.1} s): [{:.6e}, {:.6e}, {:.6e}, {:.6e}], largest relative difference {worst:.1e}",
        secs, fd[0], fd[1], fd[2], fd[3]
    );
    // split vs joint reversal of the RK4 step's routine (the stages), on a tape of states
    let m = n.min(100_000);
    let (gj, tj, _) = measure(|| gradient_store_all(&START, m));
    let ((gs, tape), ts, _) = measure(|| gradient_store_all_split(&START, m));
    let tape_peak = tape.peak_bytes;
    assert_eq!(gj, gs, "split and joint reversal give the same gradient");
    println!(
        "per-step reversal, store-all over {m} steps: joint (recompute the stages) {tj:.3} s, split (#[store]: keep the stages) {ts:.3} s; identical gradients; split-mode tape peak {tape_peak} B"
    );
    if let Err(e) = std::fs::create_dir_all(&out_dir) {
        eprintln!("cannot create {}: {e}", out_dir.display());
        std::process::exit(1);
    }
    let svg = out_dir.join("lorenz_tradeoff.svg");
    let title = format!("Lorenz RK4, {n} steps: gradient time vs memory");
    match plot_time_memory(&svg, &title, &points) {
        Ok(()) => println!("time–memory plot written to {}", svg.display()),
        Err(e) => {
            eprintln!("cannot write the picture: {e}");
            std::process::exit(1);
        }
    }
}
