//! Reversal schedules (issue 13): the gradient of the final `z` of `T` Lorenz RK4 steps (the
//! `#[i]` step of `nilang_apps::lorenz`) with respect to the initial state and ρ, by
//!
//! - `store-all`: a tape of all `T + 1` states (`T` step calls);
//! - `treeverse-δ`: binomial checkpointing with δ slots (the optimal step count for δ);
//! - `bennett-k`: the reversible program of Bennett's k-ary schedule differentiated by running
//!   its inverse on gradient numbers (NiLang's way: no tape at all);
//! - `recompute-all`: Treeverse with one slot (`T(T + 1)/2` step calls; small `T` only).
//!
//! The PDE stepper of [`pde`] (128 cells, explicit Euler, loss `Σ u²`, two parameters outside
//! the state) goes through `value_and_gradient` as a [`TimeLoop`](nilang::ad::time_loop::TimeLoop)
//! with each schedule, with a cheap step (`heat`) and an expensive one (`implicit`: 20 Newton
//! iterations per cell), each in joint and with `#[store]` (`-split`: split mode where the
//! routine is not cheap to recompute, so the Newton solve is stored and the stencil's routine
//! is recomputed), and the cheap step in split mode all the same (`-stored`, `#[store(always)]`).
//!
//! The `rust-O` column is one forward run, so every ratio is "gradient time / forward time".
//! Step calls and peak stored states are printed as notes; the heap table has the measured
//! peak bytes. Every gradient is checked against the store-all one.

pub mod pde;

use crate::cli::Mode;
use crate::harness::{named_cases, Harness, Suite};
use crate::report::Measure;
use nilang::prelude::*;
use nilang::stdlib::bennett::{bennett, bennett_inv, Bennett, BennettLog, Direction};
use nilang::stdlib::treeverse::optimal_steps;
use nilang_apps::lorenz::{gradient, gradient_store_all, integrate, LorenzRk4, State, START};

/// The suite's name (`--suite schedules`, the `suite` of its cells).
pub const SUITE: &str = "schedules";

/// The reversal-schedules suite; a case is a number of steps `T`.
pub struct SchedulesSuite;

/// One size: `T` steps, and whether recompute-all (quadratic) runs; `pde`: the PDE stepper
/// (else Lorenz).
pub struct Size {
    /// The case's name (`T=1000`, ...).
    pub name: String,
    /// The number of time steps T.
    pub n: usize,
    /// Whether recompute-all (quadratic in T) runs.
    pub quadratic: bool,
    /// Whether this is the PDE stepper (else Lorenz).
    pub pde: bool,
}

impl Suite for SchedulesSuite {
    const NAME: &'static str = SUITE;
    const WORK: &'static str = "time steps T";
    type Case = Size;
    fn steps(mode: Mode) -> u64 {
        (sizes(mode).len() + pde_sizes(mode).len()) as u64
    }
    fn cases(h: &mut Harness) -> Vec<Size> {
        let lorenz = sizes(h.mode).into_iter().map(|(n, quadratic)| Size {
            name: format!("T={n}"),
            n,
            quadratic,
            pde: false,
        });
        let pde = pde_sizes(h.mode).into_iter().map(|(n, quadratic)| Size {
            name: format!("pde-{}x{n}", pde::CELLS),
            n,
            quadratic,
            pde: true,
        });
        lorenz.chain(pde).collect()
    }
    fn run_case(h: &mut Harness, case: &Size) {
        run_case(h, case)
    }
}
named_cases!(Size);

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

/// The PDE stepper's sizes: (steps, whether recompute-all is run).
pub fn pde_sizes(mode: Mode) -> Vec<(usize, bool)> {
    match mode {
        Mode::Smoke => vec![(40, true)],
        Mode::Quick | Mode::Full => vec![(pde::STEPS, false)],
    }
}

/// The PDE stepper: a forward run, then every schedule with the cheap step in joint mode, with
/// `#[store]` (recomputed: cheap) and with `#[store(always)]` (split mode), and the expensive step (Newton per cell) in both modes with store-all and
/// Treeverse δ = 10. Every gradient is checked bit for bit against the joint store-all one of
/// its step.
fn run_pde_case(h: &mut Harness, c: &Size) {
    use nilang::ad::time_loop::{Schedule, TimeLoop};
    use pde::*;
    let (n, case, size) = (c.n, c.name.as_str(), c.n as f64);
    let plain = TimeLoop::new(Heat, Sumsq, n, Schedule::StoreAll);
    h.time(SUITE, case, size, "rust", Measure::O, 1.0, || {
        pde_forward(&plain)
    });
    let reference = pde_gradient(&plain);
    let implicit = pde_gradient(&TimeLoop::new(Implicit, Sumsq, n, Schedule::StoreAll));
    let flat = |g: &(f64, Vec<f64>, [f64; 2])| {
        let mut v = vec![g.0];
        v.extend(&g.1);
        v.extend(g.2);
        v
    };
    let cell = |h: &mut Harness,
                tool: String,
                g: (f64, Vec<f64>, [f64; 2]),
                want: &(f64, Vec<f64>, [f64; 2]),
                log: nilang::ad::time_loop::TimeLoopLog,
                run: &mut dyn FnMut()| {
        let note = format!(
            "{} step calls, peak {} stored states of {} bytes ({} bytes), store tape peak {} bytes ({} numbers pushed)",
            log.steps,
            log.peak_states,
            log.state_bytes,
            log.peak_state_bytes(),
            log.tape_peak_bytes,
            log.tape_pushes
        );
        check_and_time(
            h,
            case,
            size,
            &tool,
            (&flat(&g), &flat(want), 0.0),
            || note,
            run,
        );
    };
    macro_rules! schedule_cells {
        ($step:expr, $label:expr, $sched:expr, $want:expr) => {{
            let tl = TimeLoop::new($step, Sumsq, n, $sched);
            let g = pde_gradient(&tl);
            cell(h, $label, g, $want, tl.log(), &mut || {
                std::hint::black_box(pde_gradient(&tl));
            });
        }};
    }
    for (label, s) in schedules(c.quadratic) {
        schedule_cells!(Heat, label.to_string(), s, &reference);
        schedule_cells!(HeatSplit, format!("{label}-split"), s, &reference);
        schedule_cells!(HeatStored, format!("{label}-stored"), s, &reference);
    }
    for (label, s) in [
        ("store-all", Schedule::StoreAll),
        ("treeverse-10", Schedule::Treeverse { delta: 10 }),
    ] {
        schedule_cells!(Implicit, format!("implicit-{label}"), s, &implicit);
        schedule_cells!(
            ImplicitSplit,
            format!("implicit-{label}-split"),
            s,
            &implicit
        );
    }
    if h.jax.active() {
        // JAX's grad of the same stepper (full storage; peers/jax/peer.py), on the same inputs
        let want = |m: Measure| match m {
            Measure::O => Some(std::borrow::Cow::Owned(vec![reference.0])),
            Measure::G => {
                let mut g = reference.1.clone();
                g.extend(reference.2);
                Some(std::borrow::Cow::Owned(g))
            }
            _ => None,
        };
        let scalars = serde_json::json!({"steps": n, "checkpoint": "none"});
        let (u, p) = (u0(), PARAMS);
        let arrays: [(&str, &[f64]); 2] = [("u0", &u), ("p", &p)];
        crate::harness::jax::run_case(
            h, SUITE, case, size, 1.0, scalars, &arrays, &want, None, 1e-10,
        );
    }
}

fn run_case(h: &mut Harness, c: &Size) {
    if c.pde {
        return run_pde_case(h, c);
    }
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
    if h.jax.active() {
        // Enzyme's store-all gradient of the same RK4 loop (peers/enzyme/schedules.cpp)
        let fin = integrate(&START, n);
        let want = |m: Measure| match m {
            Measure::O => Some(std::borrow::Cow::Owned(vec![fin[2]])),
            Measure::G => Some(std::borrow::Cow::Borrowed(&reference[..])),
            _ => None,
        };
        let scalars = serde_json::json!({"steps": n});
        let arrays: [(&str, &[f64]); 1] = [("x0", &START)];
        crate::harness::jax::run_case(
            h, SUITE, case, size, 1.0, scalars, &arrays, &want, None, 1e-10,
        );
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
            tools[..6],
            [
                "rust",
                "store-all",
                "treeverse-10",
                "treeverse-100",
                "bennett-16",
                "recompute-all"
            ]
        );
        // the PDE stepper: every schedule joint and split, the expensive step in both modes
        assert_eq!(
            tools[6..],
            [
                "rust",
                "store-all",
                "store-all-split",
                "store-all-stored",
                "treeverse-10",
                "treeverse-10-split",
                "treeverse-10-stored",
                "bennett-16",
                "bennett-16-split",
                "bennett-16-stored",
                "recompute-all",
                "recompute-all-split",
                "recompute-all-stored",
                "implicit-store-all",
                "implicit-store-all-split",
                "implicit-treeverse-10",
                "implicit-treeverse-10-split",
            ]
        );
        assert!(h.cells.iter().all(|c| c.median_s.is_some()));
    }
}
