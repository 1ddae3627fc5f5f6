//! Time loops in the gradient API (`nilang::ad::time_loop`): a PDE stepper with parameters
//! outside the state, every schedule, joint and split steps, Vec states, and memory as the
//! binary's counting allocator measures it.
use nilang::ad::time_loop::{Schedule, TimeLoop};
use nilang::ad::{value_and_gradient, Plan};
use nilang::prelude::*;
use nilang_testkit::alloc::measure;

/// One explicit step of `u_t = ν u_xx − u³ + f` on a ring (`p = [ν·dt/h², f·dt]`):
/// `next += prev + p₀ Δprev − 0.001 prev³ + p₁`, the Laplacian an ancilla of a routine
/// (joint reversal: uncomputed, recomputed backwards).
#[i]
fn heat<T: Scalar>(next: &mut Vec<T>, prev: &mut Vec<T>, p: &mut [T; 2]) {
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

/// [`heat`] in split mode: the Laplacian and the cube stored on the tape, not recomputed
/// (`#[store(always)]`: with `#[store]` this cheap routine is recomputed, see [`heat_store`]).
#[i]
fn heat_split<T: Scalar>(next: &mut Vec<T>, prev: &mut Vec<T>, p: &mut [T; 2]) {
    for i in 0..prev.len() {
        #[store(always)]
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

/// [`heat_split`] with `#[store]`: three instructions of additions, multiplications and a cube
/// for two ancillas, a routine cheap to recompute, so it stays in joint mode.
#[i]
fn heat_store<T: Scalar>(next: &mut Vec<T>, prev: &mut Vec<T>, p: &mut [T; 2]) {
    for i in 0..prev.len() {
        #[store]
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

/// `out += Σ u²`.
#[i]
fn sumsq<T: Scalar>(out: &mut T, u: &mut Vec<T>) {
    for i in 0..u.len() {
        out += u[i].powi(2);
    }
}

const CELLS: usize = 16;
const STEPS: usize = 60;

fn u0() -> Vec<f64> {
    (0..CELLS)
        .map(|i| (2.0 * core::f64::consts::PI * i as f64 / CELLS as f64).sin() + 0.5)
        .collect()
}
const P: [f64; 2] = [0.2, 0.003];

/// The plain loss, by hand (no nilang): for finite differences.
fn loss_plain(u: &[f64], p: [f64; 2], n: usize, summed: bool) -> f64 {
    let mut u = u.to_vec();
    let mut total = 0.0;
    for _ in 0..n {
        let m = u.len();
        let next: Vec<f64> = (0..m)
            .map(|i| {
                let lap = u[(i + 1) % m] + u[(i + m - 1) % m] - 2.0 * u[i];
                u[i] + lap * p[0] - u[i].powi(3) * 0.001 + p[1]
            })
            .collect();
        u = next;
        if summed {
            total += u.iter().map(|v| v * v).sum::<f64>();
        }
    }
    if summed {
        total
    } else {
        u.iter().map(|v| v * v).sum()
    }
}

const SCHEDULES: [Schedule; 6] = [
    Schedule::StoreAll,
    Schedule::Treeverse { delta: 10 },
    Schedule::Treeverse { delta: 3 },
    Schedule::Treeverse { delta: 1 },
    Schedule::RecomputeAll,
    Schedule::Bennett { k: 4 },
];

/// The value, the state's and the parameters' adjoints of a time loop, through
/// `value_and_gradient`.
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

#[test]
fn every_schedule_gives_the_same_gradient_bit_for_bit() {
    let reference = grad!(&TimeLoop::new(Heat, Sumsq, STEPS, Schedule::StoreAll));
    assert_eq!(reference.0, loss_plain(&u0(), P, STEPS, false));
    for s in SCHEDULES {
        assert_eq!(
            grad!(&TimeLoop::new(Heat, Sumsq, STEPS, s)),
            reference,
            "{s:?}"
        );
        // split mode: the same, bit for bit
        assert_eq!(
            grad!(&TimeLoop::new(HeatSplit, Sumsq, STEPS, s)),
            reference,
            "split {s:?}"
        );
        // `#[store]` on the cheap routine: recomputed (nothing on the tape), the same
        let cheap = TimeLoop::new(HeatStore, Sumsq, STEPS, s);
        assert_eq!(grad!(&cheap), reference, "cheap {s:?}");
        assert_eq!(cheap.log().tape_pushes, 0, "cheap {s:?}");
        let stored = TimeLoop::new(HeatSplit, Sumsq, STEPS, s);
        let _ = grad!(&stored);
        assert!(stored.log().tape_pushes >= 2 * CELLS * STEPS, "split {s:?}");
    }
    // finite differences of the plain loss, for the state and both parameters
    let (_, gu, gp) = reference;
    let h = 1e-6;
    for k in [0, 5, CELLS - 1] {
        let (mut a, mut b) = (u0(), u0());
        a[k] += h;
        b[k] -= h;
        let fd = (loss_plain(&a, P, STEPS, false) - loss_plain(&b, P, STEPS, false)) / (2.0 * h);
        assert!(
            (gu[k] - fd).abs() < 1e-6 * fd.abs().max(1.0),
            "u{k}: {} vs {fd}",
            gu[k]
        );
    }
    for k in 0..2 {
        let (mut a, mut b) = (P, P);
        a[k] += h;
        b[k] -= h;
        let fd =
            (loss_plain(&u0(), a, STEPS, false) - loss_plain(&u0(), b, STEPS, false)) / (2.0 * h);
        assert!(
            (gp[k] - fd).abs() < 1e-6 * fd.abs().max(1.0),
            "p{k}: {} vs {fd}",
            gp[k]
        );
        assert!(gp[k].abs() > 1.0, "p{k}: {}", gp[k]);
    }
}

#[test]
fn a_loss_summed_over_steps() {
    let reference = grad!(&TimeLoop::new(Heat, Sumsq, STEPS, Schedule::StoreAll).summed());
    assert!((reference.0 - loss_plain(&u0(), P, STEPS, true)).abs() < 1e-12 * reference.0);
    for s in SCHEDULES
        .into_iter()
        .filter(|s| !matches!(s, Schedule::Bennett { .. }))
    {
        assert_eq!(
            grad!(&TimeLoop::new(Heat, Sumsq, STEPS, s).summed()),
            reference,
            "{s:?}"
        );
        assert_eq!(
            grad!(&TimeLoop::new(HeatSplit, Sumsq, STEPS, s).summed()),
            reference
        );
    }
    let h = 1e-6;
    let (mut a, mut b) = (P, P);
    a[0] += h;
    b[0] -= h;
    let fd = (loss_plain(&u0(), a, STEPS, true) - loss_plain(&u0(), b, STEPS, true)) / (2.0 * h);
    assert!(
        (reference.2[0] - fd).abs() < 1e-6 * fd.abs(),
        "{} vs {fd}",
        reference.2[0]
    );
    // Bennett keeps only the final state: a typed error before anything runs
    let e =
        nilang::check::catch(|| TimeLoop::new(Heat, Sumsq, 5, Schedule::Bennett { k: 2 }).summed())
            .err()
            .expect("rejected");
    assert_eq!(e.kind, nilang::check::ErrorKind::Argument);
}

#[test]
fn schedule_sizes_are_checked_when_the_loop_is_made() {
    use nilang::check::{catch, ErrorKind};
    for (n, s) in [
        (0, Schedule::StoreAll),
        (usize::MAX, Schedule::StoreAll),
        (10, Schedule::Treeverse { delta: 0 }),
        (10, Schedule::Bennett { k: 1 }),
    ] {
        let e = catch(|| TimeLoop::new(Heat, Sumsq, n, s))
            .err()
            .expect("rejected");
        assert_eq!(e.kind, ErrorKind::Argument, "{n} {s:?}");
        assert!(e.location.contains("time_loop.rs"), "{e}");
    }
}

#[test]
fn a_plan_reuses_its_storage_and_the_loop_its_tape() {
    let tl = TimeLoop::new(HeatSplit, Sumsq, STEPS, Schedule::Treeverse { delta: 5 });
    let mut plan = Plan::new();
    let first = {
        let (v, (_, gu, _)) =
            plan.value_and_gradient(&tl, (&mut 0.0, &mut u0(), &mut P.clone()), 0);
        (v, gu.iter().map(|x| x.g).collect::<Vec<_>>())
    };
    let log = tl.log();
    assert!(
        log.tape_pushes > 0 && log.tape_reserved_bytes > 0,
        "{log:?}"
    );
    let (mut u, mut p) = (u0(), P);
    let ((), heap) = measure(|| {
        let (v, (_, gu, _)) = plan.value_and_gradient(&tl, (&mut 0.0, &mut u, &mut p), 0);
        assert_eq!(v, first.0);
        assert!(gu.iter().map(|x| x.g).eq(first.1.iter().copied()));
    });
    // the second call retains nothing (the tape's buffers were sized by the first)
    assert_eq!(heap.retained_bytes, 0, "{heap:?}");
    assert_eq!(tl.log(), log);
}

/// The log's stored-state bytes are what the allocator sees: the peak heap of a gradient call
/// is the peak stored states plus a few working states (the adjoint carried back, the state
/// being reversed, its step's result) and the schedule's bookkeeping.
#[test]
fn logged_state_memory_matches_the_allocator() {
    for s in [
        Schedule::StoreAll,
        Schedule::Treeverse { delta: 10 },
        Schedule::Treeverse { delta: 4 },
    ] {
        let tl = TimeLoop::new(Heat, Sumsq, STEPS, s);
        let (mut out, mut u, mut p) = (0.0, u0(), P);
        let (_, heap) = measure(|| {
            let st = value_and_gradient(&tl, (&mut out, &mut u, &mut p), 0);
            drop(st);
        });
        let log = tl.log();
        // one state: a Vec of CELLS gradient numbers
        assert_eq!(log.state_bytes, 24 + CELLS * 16, "{s:?}");
        let logged = log.peak_state_bytes();
        let extra = heap.peak_bytes as isize - logged as isize;
        // the gradient storage (three arguments, one state's heap), the carry and two
        // working states, the checkpoint list and the treeverse frames
        let working = 4 * CELLS * 16 + 8 * (log.peak_states + 1) * 24 + 1024;
        assert!(
            extra >= 0 && extra <= working as isize,
            "{s:?}: heap {heap:?}, logged {logged}, extra {extra}"
        );
    }
}

/// The store tape's bytes in the log are what the allocator sees: the first gradient of a
/// split-mode loop leaves exactly the loop's tape buffers (and, storing all states, the
/// states) allocated, kept for the next call.
#[test]
fn logged_tape_bytes_match_the_allocator() {
    for s in [Schedule::StoreAll, Schedule::Treeverse { delta: 4 }] {
        let tl = TimeLoop::new(HeatSplit, Sumsq, STEPS, s);
        let (mut out, mut u, mut p) = (0.0, u0(), P);
        let ((), heap) = measure(|| {
            let st = value_and_gradient(&tl, (&mut out, &mut u, &mut p), 0);
            drop(st);
        });
        let log = tl.log();
        assert!(log.tape_pushes > 0, "{s:?}");
        assert_eq!(
            heap.retained_bytes,
            (log.tape_reserved_bytes + log.states_reserved_bytes) as isize,
            "{s:?}: {log:?}"
        );
        // the states kept: the list of STEPS + 1 and each one's numbers
        let states = if s == Schedule::StoreAll {
            24 + (STEPS + 1) * (24 + CELLS * 16)
        } else {
            0
        };
        assert_eq!(log.states_reserved_bytes, states, "{s:?}: {log:?}");
        assert!(log.tape_peak_bytes <= log.tape_reserved_bytes, "{log:?}");
        // the numbers stored at the peak: two gradient numbers per cell and step kept, each
        // with a zero adjoint, so as its value alone (8 bytes)
        let per_step = 2 * CELLS * 8;
        let steps_held = if s == Schedule::StoreAll { STEPS } else { 1 };
        assert!(log.tape_peak_bytes >= steps_held * per_step, "{log:?}");
        assert!(
            log.tape_peak_bytes <= steps_held * per_step + 256,
            "{log:?}"
        );
    }
}

/// Storing all states, the loop keeps them for the next call and refills them in place: a
/// second gradient (joint or split) allocates nothing but its result, and gives the same
/// numbers.
#[test]
fn store_all_allocates_its_states_once() {
    for split in [false, true] {
        let run = |tl: &dyn Fn() -> (f64, Vec<f64>, [f64; 2])| {
            let first = tl();
            let (again, heap) = measure(tl);
            assert_eq!(again, first, "split {split}");
            heap
        };
        let heap = if split {
            let tl = TimeLoop::new(HeatSplit, Sumsq, STEPS, Schedule::StoreAll);
            run(&|| grad!(&tl))
        } else {
            let tl = TimeLoop::new(Heat, Sumsq, STEPS, Schedule::StoreAll);
            run(&|| grad!(&tl))
        };
        // u0, the gradient's state argument and the returned adjoints: not one per step
        assert_eq!(heap.allocs, 3, "split {split}: {heap:?}");
        // only the returned adjoints of u0 are left
        assert_eq!(
            heap.retained_bytes,
            (CELLS * 8) as isize,
            "split {split}: {heap:?}"
        );
    }
}

/// Bennett's schedule reuses the buffers of the states it uncomputes for the ones it computes
/// next (and the split step's storing runs reuse two scratch states): a gradient's allocations
/// grow with the peak stored states, not with the step calls.
#[test]
fn bennett_reuses_its_state_buffers() {
    let n = 200;
    for split in [false, true] {
        let k = 4;
        // the second call (the loop's store tape has its capacity from the first)
        let measured = |tl: &dyn Fn() -> (f64, Vec<f64>, [f64; 2])| {
            let first = tl();
            let (again, heap) = measure(tl);
            assert_eq!(again, first);
            heap
        };
        let (heap, log) = if split {
            let tl = TimeLoop::new(HeatSplit, Sumsq, n, Schedule::Bennett { k });
            (measured(&|| grad!(&tl)), tl.log())
        } else {
            let tl = TimeLoop::new(Heat, Sumsq, n, Schedule::Bennett { k });
            (measured(&|| grad!(&tl)), tl.log())
        };
        // the gradient's arguments and result; per run of the schedule (forward, then
        // backward) its table of slots, one buffer per state alive at its peak, the zero it
        // checks against and the states handed in and out; the split step's two scratch states
        let most = 8 + 2 * (log.peak_states + 4) + 2;
        assert!(
            heap.allocs <= most && 10 * heap.allocs < log.steps,
            "split {split}: {} allocations for {} step calls, peak {} states",
            heap.allocs,
            log.steps,
            log.peak_states
        );
    }
}

/// A forward call of a split-mode loop (never inverted) leaves nothing on any tape: its
/// steps run inside `discarding`.
#[test]
fn a_forward_call_that_is_never_inverted_leaves_nothing_behind() {
    let tl = TimeLoop::new(HeatSplit, Sumsq, STEPS, Schedule::Treeverse { delta: 4 });
    let before = nilang::tape::stats();
    let (mut out, mut u, mut p) = (0.0, u0(), P);
    tl.call((&mut out, &mut u, &mut p));
    assert_eq!(out, loss_plain(&u0(), P, STEPS, false));
    assert_eq!(nilang::tape::stats(), before);
    // and a gradient afterwards is the joint one, bit for bit
    let joint = grad!(&TimeLoop::new(Heat, Sumsq, STEPS, Schedule::StoreAll));
    assert_eq!(grad!(&tl), joint);
}

/// Two threads running split-mode time-loop gradients at once, each through its own plan and
/// loop, get the serial result every time: their tapes never meet.
#[test]
fn split_time_loops_on_two_threads_do_not_share_a_tape() {
    let want = grad!(&TimeLoop::new(Heat, Sumsq, STEPS, Schedule::StoreAll));
    std::thread::scope(|s| {
        for schedule in [Schedule::StoreAll, Schedule::Treeverse { delta: 3 }] {
            let want = &want;
            s.spawn(move || {
                let tl = TimeLoop::new(HeatSplit, Sumsq, STEPS, schedule);
                let mut plan = Plan::new();
                for _ in 0..20 {
                    let (mut out, mut u, mut p) = (0.0, u0(), P);
                    let (v, (_, gu, gp)) =
                        plan.value_and_gradient(&tl, (&mut out, &mut u, &mut p), 0);
                    let got = (
                        v,
                        gu.iter().map(|x| x.g).collect::<Vec<_>>(),
                        [gp[0].g, gp[1].g],
                    );
                    assert_eq!(&got, want, "{schedule:?}");
                }
            });
        }
    });
}

/// A step that reads `next` while it writes it: its inverse needs `next`'s values, so running
/// it adjoint-only on `next` (what the schedules do with a state whose adjoint was carried
/// back) must still restore them where they are read.
#[i]
fn coupled<T: Scalar>(next: &mut [T; 2], prev: &mut [T; 2], a: &mut T) {
    next[0] += prev[0];
    next[1] += prev[1];
    next[1] += next[0] * a;
    next[0] += prev[1] * 0.1;
}

/// `out += x₀² + x₁²`.
#[i]
fn sumsq2<T: Scalar>(out: &mut T, x: &mut [T; 2]) {
    out += x[0].powi(2);
    out += x[1].powi(2);
}

#[test]
fn a_step_that_reads_its_next_state_gets_the_same_gradient_on_every_schedule() {
    let n = 12;
    let plain = |x: [f64; 2], a: f64| {
        let mut x = x;
        for _ in 0..n {
            let y0 = x[0];
            let y1 = x[1] + y0 * a;
            x = [y0 + x[1] * 0.1, y1];
        }
        x[0] * x[0] + x[1] * x[1]
    };
    let (x0, a0) = ([0.7, -0.4], 0.3);
    let run = |s: Schedule| {
        let tl = TimeLoop::new(Coupled, Sumsq2, n, s);
        let (mut x, mut a) = (x0, a0);
        let (v, (_, gx, ga)) = value_and_gradient(&tl, (&mut 0.0, &mut x, &mut a), 0);
        (v, [gx[0].g, gx[1].g], ga.g)
    };
    let reference = run(Schedule::Bennett { k: 3 });
    assert!((reference.0 - plain(x0, a0)).abs() < 1e-12 * plain(x0, a0).abs());
    for s in SCHEDULES {
        assert_eq!(run(s), reference, "{s:?}");
    }
    // against central differences
    let h = 1e-6;
    let fd = |f: &dyn Fn(f64) -> f64| (f(h) - f(-h)) / (2.0 * h);
    let fd_x0 = fd(&|e| plain([x0[0] + e, x0[1]], a0));
    let fd_x1 = fd(&|e| plain([x0[0], x0[1] + e], a0));
    let fd_a = fd(&|e| plain(x0, a0 + e));
    for (g, want) in [
        (reference.1[0], fd_x0),
        (reference.1[1], fd_x1),
        (reference.2, fd_a),
    ] {
        assert!(
            (g - want).abs() < 1e-6 * want.abs().max(1.0),
            "{g} vs {want}"
        );
    }
}
