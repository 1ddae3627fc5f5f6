//! The GMM objective and its inverse (the `nilang-O` and `nilang-U` cells of 1k d=10 K=25, or
//! of `d K` given as arguments) run
//! `REPS` times each, in functions of their own, for an instruction count of each under
//! callgrind (issue 28: what the uncall costs against the call):
//!
//! ```text
//! cargo build --release -p nilang-bench --example uncall_cost
//! valgrind --tool=callgrind --callgrind-out-file=/tmp/uncall.out target/release/examples/uncall_cost
//! callgrind_annotate --inclusive=yes /tmp/uncall.out | grep -E 'run_call|run_uncall'
//! ```
//!
//! Line by line, one direction at a time (a build with line tables; `call`, then `uncall`):
//!
//! ```text
//! CARGO_PROFILE_RELEASE_DEBUG=line-tables-only cargo build --release -p nilang-bench --example uncall_cost
//! valgrind --tool=callgrind --collect-atstart=no --toggle-collect='*run_uncall' \
//!     --callgrind-out-file=/tmp/uncall.out target/release/examples/uncall_cost
//! callgrind_annotate --auto=yes /tmp/uncall.out
//! ```
use nilang_apps::adbench::gmm::gmm_generate;
use nilang_apps::gmm::GmmWork;

const REPS: usize = 5;

#[inline(never)]
fn run_call(
    w: &mut GmmWork<f64>,
    out: &mut f64,
    p: &mut [f64],
    g: &nilang_apps::adbench::gmm::GmmInput,
) {
    for _ in 0..REPS {
        *out = 0.0;
        w.objective(out, p, g);
    }
}

#[inline(never)]
fn run_uncall(
    w: &mut GmmWork<f64>,
    out: &mut f64,
    p: &mut [f64],
    g: &nilang_apps::adbench::gmm::GmmInput,
    out0: f64,
) {
    for _ in 0..REPS {
        *out = out0;
        w.objective_inv(out, p, g);
    }
}

fn main() {
    // `uncall_cost D K` for another case (the quick cells: 2 5, 10 5, 2 25, 10 25)
    let arg = |i: usize, v: usize| {
        std::env::args()
            .nth(i)
            .map_or(v, |a| a.parse().expect("a size"))
    };
    let (d, k, n) = (arg(1, 10), arg(2, 25), 1000);
    let g = gmm_generate(d, k, n, 1);
    let mut p = g.params();
    let mut w = GmmWork::new(d, k);
    let mut out = 0.0;
    run_call(&mut w, &mut out, &mut p, &g);
    let out0 = out;
    run_uncall(&mut w, &mut out, &mut p, &g, out0);
    // minimum over alternating timed runs (per call)
    let (mut tc, mut tu) = (f64::INFINITY, f64::INFINITY);
    for _ in 0..40 {
        let t = std::time::Instant::now();
        run_call(&mut w, &mut out, &mut p, &g);
        tc = tc.min(t.elapsed().as_secs_f64() / REPS as f64);
        let t = std::time::Instant::now();
        run_uncall(&mut w, &mut out, &mut p, &g, out0);
        tu = tu.min(t.elapsed().as_secs_f64() / REPS as f64);
    }
    println!(
        "d={d} K={k}: objective {out0:.6e}; minimum per call: call {tc:.3e} s, uncall {tu:.3e} s ({:.3}x)",
        tu / tc
    );
}
