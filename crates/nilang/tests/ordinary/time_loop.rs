//! `#[ad]` functions in the time-loop schedules (`nilang::ad::time_loop`): a step written as
//! an ordinary function with an output (`next`) and no result, the loss as an ordinary
//! function; gradients bit-identical across schedules, equal to the `#[i]` version's and to
//! finite differences; `#[ad]` and `#[i]` steps and losses mixed; no allocation per call
//! through a `Plan` after the first.
// a time loop's state is a sized value (`Vec<f64>`, `[f64; N]`), passed as such
#![allow(clippy::ptr_arg)]
use nilang::ad::time_loop::{Schedule, TimeLoop};
use nilang::ad::{value_and_gradient, Plan};
use nilang::prelude::*;
use nilang_testkit::alloc::measure;

/// One explicit step of `u_t = ν u_xx − u³ + f` on a ring (`p = [ν·dt/h², f·dt]`), as
/// ordinary code: `next[i] = prev[i] + p₀ Δprev[i] − 0.001 prev[i]³ + p₁`.
#[ad]
fn heat(next: &mut Vec<f64>, prev: &Vec<f64>, p: &[f64; 2]) {
    let m = prev.len();
    for i in 0..m {
        let lap = prev[(i + 1) % m] + prev[(i + m - 1) % m] - prev[i] * 2.0;
        next[i] = prev[i] + lap * p[0] - prev[i].powi(3) * 0.001 + p[1];
    }
}

/// `Σ u²`.
#[ad]
fn sumsq(u: &Vec<f64>) -> f64 {
    let mut s = 0.0;
    for i in 0..u.len() {
        s += u[i].powi(2);
    }
    s
}

/// [`heat`] written reversibly.
#[i]
fn heat_i<T: Scalar>(next: &mut Vec<T>, prev: &mut Vec<T>, p: &mut [T; 2]) {
    for i in 0..prev.len() {
        routine! {
            let (lap, cube) = (T::default(), T::default());
            lap += prev[(i + 1) % prev.len()] + prev[(i + prev.len() - 1) % prev.len()];
            lap -= prev[i] * 2.0;
            cube += prev[i].powi(3);
        }
        next[i] += prev[i];
        next[i] += lap * p[0];
        next[i] -= cube * 0.001;
        next[i] += p[1];
        unroutine!();
    }
}

/// [`sumsq`] written reversibly.
#[i]
fn sumsq_i<T: Scalar>(out: &mut T, u: &mut Vec<T>) {
    for i in 0..u.len() {
        out += u[i].powi(2);
    }
}

/// A predator–prey step on a fixed-size state (`p = [a, b, dt]`), the state read through
/// locals and written twice.
#[ad]
fn prey(next: &mut [f64; 2], prev: &[f64; 2], p: &[f64]) {
    let u = prev[0];
    let v = prev[1];
    next[0] = u + p[2] * (p[0] * u - u * v);
    next[1] = v + p[2] * (u * v - p[1] * v);
    next[1] = next[1] + p[2] * next[0].sin() * 0.01;
}

/// `u₀² + u₀ u₁`.
#[ad]
fn energy(x: &[f64; 2]) -> f64 {
    x[0] * x[0] + x[0] * x[1]
}

const CELLS: usize = 8;
const STEPS: usize = 20;
const P: [f64; 2] = [0.2, 0.003];

fn u0() -> Vec<f64> {
    (0..CELLS)
        .map(|i| (2.0 * core::f64::consts::PI * i as f64 / CELLS as f64).sin() + 0.5)
        .collect()
}

const SCHEDULES: [Schedule; 6] = [
    Schedule::StoreAll,
    Schedule::Treeverse { delta: 6 },
    Schedule::Treeverse { delta: 2 },
    Schedule::Treeverse { delta: 1 },
    Schedule::RecomputeAll,
    Schedule::Bennett { k: 3 },
];

/// The value and the adjoints of the initial state and the parameters.
macro_rules! grad {
    ($tl:expr) => {{
        let (mut out, mut u, mut p) = (0.0, u0(), P);
        let (v, (o, gu, gp)) = value_and_gradient($tl, (&mut out, &mut u, &mut p), 0);
        assert_eq!(o.g, 1.0);
        (
            v,
            gu.iter().map(|x| x.g).collect::<Vec<f64>>(),
            [gp[0].g, gp[1].g],
        )
    }};
}

/// The plain loss, for finite differences.
fn loss_plain(u: &[f64], p: [f64; 2], n: usize) -> f64 {
    let mut u = u.to_vec();
    for _ in 0..n {
        let mut next = vec![0.0; u.len()];
        heat(&mut next, &u, &p);
        u = next;
    }
    sumsq(&u)
}

fn close(a: f64, b: f64, rtol: f64) -> bool {
    (a - b).abs() <= rtol * a.abs().max(b.abs()).max(1e-300)
}

#[test]
fn an_ordinary_step_gives_the_same_gradient_under_every_schedule_bit_for_bit() {
    let reference = grad!(&TimeLoop::new(Heat::STEP, Sumsq, STEPS, Schedule::StoreAll));
    assert_eq!(reference.0, loss_plain(&u0(), P, STEPS));
    for s in SCHEDULES {
        let tl = TimeLoop::new(Heat::STEP, Sumsq, STEPS, s);
        assert_eq!(grad!(&tl), reference, "{s:?}");
        if !matches!(s, Schedule::Bennett { .. }) {
            // one inverse per step carried the adjoint back (Bennett's also uncompute states)
            assert_eq!(tl.log().reversals, STEPS, "{s:?}");
        }
    }
    // the fewer checkpoints, the more steps run again: each inverse reran its own forward
    // code on its own tape
    let few = TimeLoop::new(Heat::STEP, Sumsq, STEPS, Schedule::Treeverse { delta: 2 });
    grad!(&few);
    assert!(few.log().steps > STEPS && few.log().peak_states <= 3);
}

#[test]
fn an_ordinary_step_equals_the_reversible_step_and_finite_differences() {
    let (v, gu, gp) = grad!(&TimeLoop::new(
        Heat::STEP,
        Sumsq,
        STEPS,
        Schedule::Treeverse { delta: 3 }
    ));
    let (vi, gui, gpi) = grad!(&TimeLoop::new(HeatI, SumsqI, STEPS, Schedule::StoreAll));
    assert!(close(v, vi, 1e-13), "{v} vs {vi}");
    for (a, b) in gu.iter().zip(&gui).chain(gp.iter().zip(&gpi)) {
        assert!(close(*a, *b, 1e-12), "{a} vs {b}");
    }
    // mixed: an ordinary step with a reversible loss, a reversible step with an ordinary loss
    for (vm, gum, gpm) in [
        grad!(&TimeLoop::new(
            Heat::STEP,
            SumsqI,
            STEPS,
            Schedule::Bennett { k: 2 }
        )),
        grad!(&TimeLoop::new(
            HeatI,
            Sumsq,
            STEPS,
            Schedule::Treeverse { delta: 2 }
        )),
    ] {
        assert!(close(vm, v, 1e-13));
        for (a, b) in gum.iter().zip(&gu).chain(gpm.iter().zip(&gp)) {
            assert!(close(*a, *b, 1e-12), "{a} vs {b}");
        }
    }
    // finite differences (5-point stencil) on every input
    let h = 1e-4;
    let fd = |f: &dyn Fn(f64) -> f64| {
        (-f(2.0 * h) + 8.0 * f(h) - 8.0 * f(-h) + f(-2.0 * h)) / (12.0 * h)
    };
    for k in 0..CELLS {
        let d = fd(&|e| {
            let mut u = u0();
            u[k] += e;
            loss_plain(&u, P, STEPS)
        });
        assert!(close(gu[k], d, 1e-9), "u[{k}]: {} vs {d}", gu[k]);
    }
    for k in 0..2 {
        let d = fd(&|e| {
            let mut p = P;
            p[k] += e * P[k];
            loss_plain(&u0(), p, STEPS)
        }) / P[k];
        assert!(close(gp[k], d, 1e-8), "p[{k}]: {} vs {d}", gp[k]);
    }
}

#[test]
fn an_array_state_with_slice_parameters_and_a_summed_loss() {
    let p = [1.1, 0.4, 0.05];
    let x0 = [1.0, 0.5];
    let run = |s: Schedule| {
        let tl = TimeLoop::new(Prey::STEP, Energy, 30, s).summed();
        let (mut x, mut q) = (x0, p);
        let (v, (_, gx, gq)) = value_and_gradient(&tl, (&mut 0.0, &mut x, &mut q[..]), 0);
        (v, [gx[0].g, gx[1].g], [gq[0].g, gq[1].g, gq[2].g])
    };
    let reference = run(Schedule::StoreAll);
    for s in [
        Schedule::Treeverse { delta: 4 },
        Schedule::Treeverse { delta: 1 },
        Schedule::RecomputeAll,
    ] {
        assert_eq!(run(s), reference, "{s:?}");
    }
    let plain = |x: [f64; 2], p: [f64; 3]| {
        let (mut x, mut total) = (x, 0.0);
        for _ in 0..30 {
            let mut n = [0.0; 2];
            prey(&mut n, &x, &p);
            x = n;
            total += energy(&x);
        }
        total
    };
    assert_eq!(reference.0, plain(x0, p));
    let h = 1e-5;
    let fd = |f: &dyn Fn(f64) -> f64| {
        (-f(2.0 * h) + 8.0 * f(h) - 8.0 * f(-h) + f(-2.0 * h)) / (12.0 * h)
    };
    for k in 0..2 {
        let d = fd(&|e| {
            let mut x = x0;
            x[k] += e;
            plain(x, p)
        });
        assert!(
            close(reference.1[k], d, 1e-9),
            "x[{k}]: {} vs {d}",
            reference.1[k]
        );
    }
    for k in 0..3 {
        let d = fd(&|e| {
            let mut q = p;
            q[k] += e;
            plain(x0, q)
        });
        assert!(
            close(reference.2[k], d, 1e-9),
            "p[{k}]: {} vs {d}",
            reference.2[k]
        );
    }
}

/// The heap a second gradient call through a `Plan` uses: allocations and retained bytes.
macro_rules! second_call_heap {
    ($tl:expr) => {{
        let tl = $tl;
        let mut plan = Plan::new();
        let (mut u, mut p) = (u0(), P);
        let first = plan
            .value_and_gradient(&tl, (&mut 0.0, &mut u, &mut p), 0)
            .0;
        let (second, heap) = measure(|| {
            plan.value_and_gradient(&tl, (&mut 0.0, &mut u, &mut p), 0)
                .0
        });
        assert_eq!(first, second);
        (heap.allocs, heap.retained_bytes)
    }};
}

#[test]
fn an_ordinary_step_allocates_no_more_than_a_reversible_one_per_call() {
    for s in [Schedule::StoreAll, Schedule::Treeverse { delta: 3 }] {
        let ordinary = second_call_heap!(TimeLoop::new(Heat::STEP, Sumsq, STEPS, s));
        let reversible = second_call_heap!(TimeLoop::new(HeatI, SumsqI, STEPS, s));
        assert_eq!(ordinary.1, 0, "{s:?}");
        assert!(
            ordinary.0 <= reversible.0,
            "{s:?}: {ordinary:?} vs {reversible:?}"
        );
    }
    // storing every state, nothing is allocated after the first call
    assert_eq!(
        second_call_heap!(TimeLoop::new(Heat::STEP, Sumsq, STEPS, Schedule::StoreAll)).0,
        0
    );
}
