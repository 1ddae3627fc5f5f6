//! Reversal schedules (issue 13): the gradient of the final `z` of `T` Lorenz RK4 steps (the
//! `#[i]` step of `nilang_apps::lorenz`) with respect to the initial state and ρ, by
//!
//! - `store-all`: a tape of all `T + 1` states (`T` step calls);
//! - `treeverse-δ`: binomial checkpointing with δ slots (the optimal step count for δ);
//! - `bennett-k`: the reversible program of Bennett's k-ary schedule differentiated by running
//!   its inverse on gradient numbers (NiLang's way: no tape at all);
//! - `recompute-all`: Treeverse with one slot (`T(T + 1)/2` step calls; small `T` only).
//!
//! The `rust-O` column is one forward run, so every ratio is "gradient time / forward time".
//! Step calls and peak stored states are printed as notes; the heap table has the measured
//! peak bytes. Every gradient is checked against the store-all one.

use crate::cli::Mode;
use crate::harness::{Harness, Suite};
use crate::report::Measure;
use nilang::prelude::*;
use nilang::stdlib::bennett::{bennett, bennett_inv, Bennett, BennettLog, Direction};
use nilang::stdlib::treeverse::optimal_steps;
use nilang_apps::lorenz::{gradient, gradient_store_all, integrate, LorenzRk4, State, START};

pub const SUITE: &str = "schedules";

/// The reversal-schedules suite; a case is a number of steps `T`.
pub struct SchedulesSuite;

/// One size: `T` steps, and whether recompute-all (quadratic) runs.
pub struct Size {
    pub name: String,
    pub n: usize,
    pub quadratic: bool,
}

impl Suite for SchedulesSuite {
    const NAME: &'static str = SUITE;
    type Case = Size;
    fn steps(mode: Mode) -> u64 {
        sizes(mode).len() as u64
    }
    fn cases(h: &mut Harness) -> Vec<Size> {
        sizes(h.mode)
            .into_iter()
            .map(|(n, quadratic)| Size {
                name: format!("T={n}"),
                n,
                quadratic,
            })
            .collect()
    }
    fn name(case: &Size) -> &str {
        &case.name
    }
    fn run_case(h: &mut Harness, case: &Size) {
        run_case(h, case)
    }
}

/// Bennett's segments per level.
pub const BENNETT_K: usize = 16;
/// The Treeverse budgets.
pub const DELTAS: [usize; 2] = [10, 100];

/// `out += z` of Bennett's schedule over `n` steps (the differentiated program).
#[i]
fn bennett_z<T: Scalar + nilang::stdlib::bennett::ZeroLike>(
    out: &mut T,
    y: &mut [T; 4],
    x: &mut [T; 4],
    k: usize,
    n: usize,
) {
    bennett(&LorenzRk4, y, x, k, n);
    out += y[2];
}

fn bennett_gradient(n: usize) -> State {
    let (mut out, mut y, mut x) = (0.0, [0.0; 4], START);
    let st = nilang::gradient(&BennettZ, (&mut out, &mut y, &mut x, BENNETT_K, n), 0);
    core::array::from_fn(|i| st.2[i].g)
}

/// The sizes of each mode: (T, whether recompute-all is run).
pub fn sizes(mode: Mode) -> Vec<(usize, bool)> {
    match mode {
        Mode::Smoke => vec![(200, true)],
        Mode::Quick => vec![(1_000, true), (10_000, false)],
        Mode::Full => vec![(10_000, true), (100_000, false), (1_000_000, false)],
    }
}

fn run_case(h: &mut Harness, c: &Size) {
    let (n, quadratic) = (c.n, c.quadratic);
    let case = c.name.as_str();
    let size = n as f64;
    h.time(SUITE, case, size, "rust", Measure::O, 1.0, || {
        integrate(&START, n)
    });
    let reference = gradient_store_all(&START, n);
    h.time(SUITE, case, size, "store-all", Measure::G, 1.0, || {
        gradient_store_all(&START, n)
    });
    h.note(&format!(
        "schedules {case}: store-all: {n} step calls, {} stored states",
        n + 1
    ));
    for delta in DELTAS {
        let (g, log) = gradient(&START, n, delta);
        let note = format!(
            "{} step calls (optimum {}), {} vjps, peak {} stored states",
            log.steps,
            optimal_steps(n, delta),
            log.vjps,
            log.peak_states
        );
        let tool = format!("treeverse-{delta}");
        check_and_time(
            h,
            case,
            size,
            &tool,
            (&g, &reference, 1e-12),
            || note,
            || gradient(&START, n, delta),
        );
    }
    let g = bennett_gradient(n);
    let note = || {
        let mut log = BennettLog::default();
        let (mut y, mut x) = ([0.0; 4], START);
        let schedule = Bennett {
            step: LorenzRk4,
            k: BENNETT_K,
            n,
        };
        schedule.logged(Direction::Forward, &mut y, &mut x, &mut log);
        let (f, b) = log.counts();
        format!(
            "{f} forward + {b} backward step calls per run (twice that per gradient), peak {} stored states",
            log.peak_states
        )
    };
    let tool = format!("bennett-{BENNETT_K}");
    check_and_time(h, case, size, &tool, (&g, &reference, 1e-9), note, || {
        bennett_gradient(n)
    });
    let tool = "recompute-all";
    if quadratic {
        let (g, log) = gradient(&START, n, 1);
        let note = format!(
            "{} step calls, peak {} stored states",
            log.steps, log.peak_states
        );
        check_and_time(
            h,
            case,
            size,
            tool,
            (&g, &reference, 1e-12),
            || note,
            || gradient(&START, n, 1),
        );
    } else {
        h.skip(SUITE, case, size, tool, Measure::G);
    }
}

/// If the gradient `g` agrees with the store-all `reference` (within `tol`), print `note()`
/// (its step calls and stored states) and time `run`; otherwise a "-" cell.
fn check_and_time<R>(
    h: &mut Harness,
    case: &str,
    size: f64,
    tool: &str,
    (g, reference, tol): (&[f64], &[f64], f64),
    note: impl FnOnce() -> String,
    run: impl FnMut() -> R,
) {
    if h.check(
        &format!("{SUITE}/{case}: {tool} vs store-all"),
        g,
        reference,
        tol,
    ) {
        h.note(&format!("schedules {case}: {tool}: {}", note()));
        h.time(SUITE, case, size, tool, Measure::G, 1.0, run);
    } else {
        h.skip(SUITE, case, size, tool, Measure::G);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bennett_gradient_equals_the_tape() {
        let g = bennett_gradient(300);
        let tape = gradient_store_all(&START, 300);
        for k in 0..4 {
            assert!((g[k] - tape[k]).abs() < 1e-10 * tape[k].abs().max(1.0));
        }
        assert!(tape[3] != 0.0);
    }

    #[test]
    fn smoke_run_checks_every_schedule() {
        let mut h = Harness::for_tests();
        h.run_suite::<SchedulesSuite>();
        assert!(h.failures.is_empty(), "{:?}", h.failures);
        let tools: Vec<&str> = h.cells.iter().map(|c| c.tool.as_str()).collect();
        assert_eq!(
            tools,
            [
                "rust",
                "store-all",
                "treeverse-10",
                "treeverse-100",
                "bennett-16",
                "recompute-all"
            ]
        );
        assert!(h.cells.iter().all(|c| c.median_s.is_some()));
    }
}
