//! Issue 22's measurements: time and memory of every schedule of a [`TimeLoop`] gradient on
//! the PDE stepper (128 cells, 1000 steps, loss Σu², one thread), the expensive PDE step
//! (20 Newton iterations per cell), joint and with `#[store]` (the cheap step's routine
//! recomputed, the Newton solve stored; `stored`: the cheap step with `#[store(always)]`), and
//! Lorenz at 10⁶ steps.
//!
//! `cargo run --release -p nilang-bench --example time_loops [-- ROUNDS [LORENZ_STEPS]]`
//!
//! The closures of one table run interleaved (round-robin, the first rotating); the table
//! gives the minimum and the median seconds of one gradient over the rounds, the ratio of the
//! minimum to the table's first row, the peak stored states (the log), the state and store-tape
//! bytes (the log) and the peak heap of one call (the counting allocator).
use nilang::ad::time_loop::{Schedule, TimeLoop, TimeLoopLog};
use nilang_bench::suites::schedules::pde::*;
use nilang_testkit::alloc::{measure, CountingAlloc};
use std::time::Instant;

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

struct Row<'a> {
    label: String,
    run: Box<dyn FnMut() -> TimeLoopLog + 'a>,
}

fn table(title: &str, rounds: usize, rows: &mut Vec<Row<'_>>) {
    // `TIME_LOOPS_ROWS=text`: only the row with this label (for profiling)
    if let Ok(only) = std::env::var("TIME_LOOPS_ROWS") {
        rows.retain(|r| r.label == only);
        if rows.is_empty() {
            return;
        }
    }
    println!("\n{title}");
    println!(
        "| {:<28} | {:>10} | {:>10} | {:>6} | {:>8} | {:>6} | {:>10} | {:>12} | {:>12} |",
        "schedule",
        "min s",
        "median s",
        "ratio",
        "steps",
        "states",
        "state B",
        "tape peak B",
        "heap peak B"
    );
    let n = rows.len();
    let mut samples = vec![Vec::new(); n];
    let mut logs = vec![TimeLoopLog::default(); n];
    let mut heap = vec![0usize; n];
    for (k, r) in rows.iter_mut().enumerate() {
        let (log, h) = measure(&mut r.run);
        logs[k] = log;
        heap[k] = h.peak_bytes;
    }
    for round in 0..rounds {
        for j in 0..n {
            let k = (round + j) % n;
            let t = Instant::now();
            std::hint::black_box((rows[k].run)());
            samples[k].push(t.elapsed().as_secs_f64());
        }
    }
    let stat = |s: &mut Vec<f64>| {
        s.sort_by(f64::total_cmp);
        (s[0], s[s.len() / 2])
    };
    let base = stat(&mut samples[0].clone()).0;
    for k in 0..n {
        let (min, med) = stat(&mut samples[k]);
        let l = &logs[k];
        println!(
            "| {:<28} | {:>10.6} | {:>10.6} | {:>6.2} | {:>8} | {:>6} | {:>10} | {:>12} | {:>12} |",
            rows[k].label,
            min,
            med,
            min / base,
            l.steps,
            l.peak_states,
            l.state_bytes,
            l.tape_peak_bytes,
            heap[k]
        );
    }
}

fn pde_row<F: PdeStep + 'static>(label: &str, tl: TimeLoop<F, Sumsq>) -> Row<'static> {
    Row {
        label: label.into(),
        run: Box::new(move || {
            std::hint::black_box(pde_gradient(&tl));
            tl.log()
        }),
    }
}

fn main() {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let rounds = args.first().copied().unwrap_or(15);
    let lorenz_n = args.get(1).copied().unwrap_or(1_000_000);
    let n = STEPS;
    let tv = Schedule::Treeverse { delta: 10 };
    let (v, gu, gp) = pde_gradient(&TimeLoop::new(Heat, Sumsq, n, Schedule::StoreAll));
    println!(
        "PDE value {v:?}, ∂u0[0] {:?}, ∂u0[5] {:?}, ∂p {:?} {:?}",
        gu[0], gu[5], gp[0], gp[1]
    );
    let fwd = TimeLoop::new(Heat, Sumsq, n, Schedule::StoreAll);
    let fwd_split = TimeLoop::new(HeatStored, Sumsq, n, Schedule::StoreAll);
    let mut rows = vec![
        pde_row(
            "store-all",
            TimeLoop::new(Heat, Sumsq, n, Schedule::StoreAll),
        ),
        pde_row(
            "store-all split",
            TimeLoop::new(HeatSplit, Sumsq, n, Schedule::StoreAll),
        ),
        pde_row(
            "store-all stored",
            TimeLoop::new(HeatStored, Sumsq, n, Schedule::StoreAll),
        ),
        pde_row("treeverse-10", TimeLoop::new(Heat, Sumsq, n, tv)),
        pde_row("treeverse-10 split", TimeLoop::new(HeatSplit, Sumsq, n, tv)),
        pde_row(
            "treeverse-10 stored",
            TimeLoop::new(HeatStored, Sumsq, n, tv),
        ),
        pde_row(
            "bennett-16",
            TimeLoop::new(Heat, Sumsq, n, Schedule::Bennett { k: 16 }),
        ),
        Row {
            label: "forward only".into(),
            run: Box::new(move || {
                std::hint::black_box(pde_forward(&fwd));
                TimeLoopLog::default()
            }),
        },
        Row {
            label: "forward only, stored step".into(),
            run: Box::new(move || {
                std::hint::black_box(pde_forward(&fwd_split));
                TimeLoopLog::default()
            }),
        },
    ];
    table(
        &format!("PDE stepper, {CELLS} cells, {n} steps, loss Σu² (cheap step)"),
        rounds,
        &mut rows,
    );
    let mut rows = vec![
        pde_row(
            "implicit store-all",
            TimeLoop::new(Implicit, Sumsq, n, Schedule::StoreAll),
        ),
        pde_row(
            "implicit store-all split",
            TimeLoop::new(ImplicitSplit, Sumsq, n, Schedule::StoreAll),
        ),
        pde_row(
            "implicit treeverse-10",
            TimeLoop::new(Implicit, Sumsq, n, tv),
        ),
        pde_row(
            "implicit treeverse-10 split",
            TimeLoop::new(ImplicitSplit, Sumsq, n, tv),
        ),
    ];
    table(
        &format!("PDE stepper, implicit reaction ({NEWTON} Newton iterations per cell), {CELLS} cells, {n} steps"),
        rounds.div_ceil(3),
        &mut rows,
    );
    let x0 = nilang_apps::lorenz::START;
    let lrow = |label: &str, s: Schedule| Row {
        label: label.into(),
        run: Box::new(move || {
            let (g, tl) = lorenz_gradient(&x0, lorenz_n, s);
            std::hint::black_box(g);
            tl.log()
        }),
    };
    let mut rows = vec![
        lrow("store-all", Schedule::StoreAll),
        lrow("treeverse-10", tv),
        lrow("bennett-16", Schedule::Bennett { k: 16 }),
    ];
    table(
        &format!("Lorenz RK4, {lorenz_n} steps, loss z"),
        3,
        &mut rows,
    );
}
