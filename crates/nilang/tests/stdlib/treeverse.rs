//! Treeverse (binomial checkpointing): its step counts against an independent brute-force
//! optimum, its storage bound, and its gradients against a tape, a reversible step and finite
//! differences.
use nilang::prelude::*;
use nilang::stdlib::bennett::Bennett;
use nilang::stdlib::treeverse::*;

/// The fewest step calls that make the states of positions `l − 1, …, 0` of a chain available
/// in that order, starting from a checkpoint at position 0 with `c` slots (its own included):
/// the brute-force minimum over every first checkpoint position `m`, computed by a DP over
/// Griewank's recurrence `P(l, c) = min_m m + P(l − m, c − 1) + P(m, c)`, with `P(1, c) = 0`
/// and `P(l, 1) = l(l − 1)/2` (recompute from the start every time).
#[allow(clippy::needless_range_loop)]
fn brute_force_table(lmax: usize, cmax: usize) -> Vec<Vec<u64>> {
    let mut p = vec![vec![0u64; cmax + 1]; lmax + 1];
    for l in 1..=lmax {
        for c in 1..=cmax {
            p[l][c] = if l == 1 {
                0
            } else if c == 1 {
                (l * (l - 1) / 2) as u64
            } else {
                let mut best = p[l][c - 1];
                for m in 1..l {
                    best = best.min(m as u64 + p[l - m][c - 1] + p[m][c]);
                }
                best
            };
        }
    }
    p
}

fn count(n: usize, delta: usize) -> TreeverseLog {
    let mut log = TreeverseLog::default();
    // a chain of counters: the state is the position, the gradient checks the order
    let mut expect = n;
    let g = treeverse(
        &0usize,
        n,
        delta,
        |x: &usize| x + 1,
        |x: &usize, g: usize| {
            expect -= 1;
            assert_eq!(*x, expect, "vjps must come in reverse order");
            g + 1
        },
        |x| {
            assert_eq!(*x, n);
            0usize
        },
        Some(&mut log),
    );
    assert_eq!(g, n);
    assert_eq!(expect, 0);
    log
}

#[test]
#[allow(clippy::needless_range_loop)] // the DP table is indexed by (positions, slots)
fn step_counts_equal_the_brute_force_optimum() {
    let table = brute_force_table(81, 7);
    for delta in 1..=7 {
        for n in 0..=80 {
            let log = count(n, delta);
            assert_eq!(
                log.steps as u64,
                table[n + 1][delta],
                "n = {n}, δ = {delta}"
            );
            assert_eq!(optimal_steps(n, delta), table[n + 1][delta] as u128);
            assert!(log.peak_states <= delta + 1, "n = {n}, δ = {delta}");
            assert!(log.peak_checkpoints <= delta);
            assert_eq!(log.vjps, n + 1);
        }
    }
}

#[test]
fn known_table_values() {
    // three slots: l = 1..14 positions (Griewank's table, also the DP above)
    let three: Vec<usize> = (0..14).map(|n| count(n, 3).steps).collect();
    assert_eq!(three, [0, 1, 2, 3, 5, 7, 9, 11, 13, 15, 18, 21, 24, 27]);
    // one slot: recompute-all, n(n + 1)/2; n + 1 slots: store-all, n steps
    assert_eq!(count(100, 1).steps, 5050);
    assert_eq!(count(100, 101).steps, 100);
    assert_eq!(count(100, 101).peak_checkpoints, 101);
    // binomial structure: l = C(δ + t, t) positions are reversed with exactly t sweeps less
    // C(δ + t, t − 1): δ = 5, t = 3 → l = 56, steps = 3·56 − C(8, 2) = 140
    assert_eq!(count(55, 5).steps, 140);
    // a long chain: δ = 10 slots, 10⁶ steps (closed form, cross-checked with the DP's
    // recurrence in an independent script): 11 647 935 calls
    assert_eq!(optimal_steps(1_000_000, 10), 11_647_935);
    let long = count(1_000_000, 10);
    assert_eq!(long.steps, 11_647_935);
    assert!(long.peak_states <= 11);
}

/// A nonlinear scalar chain and its derivative.
fn logistic(x: &f64) -> f64 {
    3.7 * x * (1.0 - x)
}
fn logistic_vjp(x: &f64, g: f64) -> f64 {
    g * 3.7 * (1.0 - 2.0 * x)
}

#[test]
fn gradient_equals_the_tape_for_every_budget() {
    let tape = store_all(&0.3, 40, logistic, logistic_vjp, |x| 2.0 * x);
    for delta in 1..=12 {
        let g = treeverse(&0.3, 40, delta, logistic, logistic_vjp, |x| 2.0 * x, None);
        assert_eq!(g, tape, "δ = {delta}");
    }
    // finite differences of x₄₀² (a short chaotic run stays differentiable)
    let run = |x0: f64| (0..40).fold(x0, |x, _| logistic(&x)).powi(2);
    let fd = (run(0.3 + 1e-9) - run(0.3 - 1e-9)) / 2e-9;
    assert!(
        (tape - fd).abs() < 1e-4 * fd.abs().max(1.0),
        "{tape} vs {fd}"
    );
}

/// A symplectic (leapfrog) step of a nonlinear pendulum, reversible in place.
#[i]
fn pendulum<T: Scalar>(dest: &mut [T; 2], src: &mut [T; 2]) {
    routine! {
        let (s0, s1) = (T::default(), T::default());
        s0 += sin(src[0]);
    }
    // p½ = p − h/2 sin q; q' = q + h p½; p' = p½ − h/2 sin q'
    dest[1] += src[1];
    dest[1] -= s0 * 0.05;
    dest[0] += src[0];
    dest[0] += dest[1] * 0.1;
    s1 += sin(dest[0]);
    dest[1] -= s1 * 0.05;
    // s1 = sin(dest[0]) is recomputed from the result on the way back
    s1 -= sin(dest[0]);
    unroutine!();
}

#[test]
fn reversible_step_gradient_matches_the_tape_and_finite_differences() {
    let x0 = [1.2, 0.3];
    let n = 300;
    let energy = |x: &[f64; 2]| [x[0].sin(), x[1]]; // d/dx of (1 − cos q + p²/2)
    let tape = store_all(
        &x0,
        n,
        |x| apply_step(&Pendulum, x),
        |x, g| step_vjp(&Pendulum, x, g),
        energy,
    );
    let mut log = TreeverseLog::default();
    let g = treeverse_reversible(&Pendulum, &x0, n, 4, energy, Some(&mut log));
    assert_eq!(g, tape);
    assert_eq!(log.steps as u128, optimal_steps(n, 4));
    assert!(log.peak_states <= 5);
    assert_eq!(log.peak_bytes(), log.peak_states * 16);
    let e = |x0: [f64; 2]| {
        let mut x = x0;
        for _ in 0..n {
            x = apply_step(&Pendulum, &x);
        }
        1.0 - x[0].cos() + x[1] * x[1] / 2.0
    };
    for k in 0..2 {
        let (mut a, mut b) = (x0, x0);
        a[k] += 1e-6;
        b[k] -= 1e-6;
        let fd = (e(a) - e(b)) / 2e-6;
        assert!((g[k] - fd).abs() < 1e-6, "component {k}: {} vs {fd}", g[k]);
    }
}

#[test]
fn a_bennett_block_is_a_step_too() {
    // Treeverse over 20 blocks of 15 leapfrog steps, each block run by Bennett's schedule
    let block = Bennett {
        step: Pendulum,
        k: 3,
        n: 15,
    };
    let x0 = [0.4, -0.7];
    let seed = |x: &[f64; 2]| [1.0, x[1]];
    let nested = treeverse_reversible(&block, &x0, 20, 3, seed, None);
    let flat = treeverse_reversible(&Pendulum, &x0, 300, 6, seed, None);
    for k in 0..2 {
        assert!(
            (nested[k] - flat[k]).abs() < 1e-11,
            "{nested:?} vs {flat:?}"
        );
    }
}

#[test]
fn vector_states_work() {
    let x0 = vec![0.1, 0.2, 0.3];
    let f = |x: &Vec<f64>| x.iter().map(|v| v * 1.5).collect::<Vec<_>>();
    let vjp = |_: &Vec<f64>, g: Vec<f64>| g.iter().map(|v| v * 1.5).collect::<Vec<_>>();
    let g = treeverse(&x0, 10, 2, f, vjp, |_| vec![1.0, 0.0, 2.0], None);
    let s = 1.5f64.powi(10);
    assert_eq!(g, vec![s, 0.0, 2.0 * s]);
}

#[test]
fn zero_slots_is_a_clear_error() {
    let e =
        nilang::check::catch(|| treeverse(&0.0, 10, 0, |x: &f64| *x, |_, g: f64| g, |_| 1.0, None))
            .unwrap_err();
    assert_eq!(e.kind, nilang::check::ErrorKind::Argument);
    assert!(e.detail.contains("at least one checkpoint slot"), "{e}");
    assert!(e.location.contains("treeverse.rs"), "{e}");
}

/// Issue 27: schedule sizes are checked before anything runs or is allocated, and the step
/// count is a closed form, not a loop over `n`.
#[test]
fn schedule_sizes_are_bounded() {
    use nilang::check::{catch, ErrorKind};
    let step = |x: &f64| *x;
    let vjp = |_: &f64, g: f64| g;
    // n = usize::MAX: n + 1 positions do not fit (it used to run forever)
    let e = catch(|| treeverse(&0.0, usize::MAX, 3, step, vjp, |_| 1.0, None)).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Argument);
    assert!(e.detail.contains("do not fit"), "{e}");
    // δ = usize::MAX: clamped to n + 1 (store-all), no allocation of δ slots
    let mut log = TreeverseLog::default();
    let g = treeverse(
        &2.0,
        50,
        usize::MAX,
        |x: &f64| 1.01 * x,
        |_, g: f64| 1.01 * g,
        |_| 1.0,
        Some(&mut log),
    );
    assert_eq!(g, (0..50).fold(1.0, |g, _| 1.01 * g));
    assert_eq!((log.steps, log.peak_checkpoints), (50, 51));
    // optimal_steps: no wrap of n + 1, closed form for one slot
    let n = usize::MAX as u128;
    // two slots: t(t+1)/2 ≥ n... the count is t·l − C(t + 3, t − 1), positive and ≥ n
    assert!(optimal_steps(usize::MAX, 2) >= n);
    assert_eq!(
        optimal_steps(1_000_000_000, 1),
        1_000_000_000u128 * 1_000_000_001 / 2
    );
    assert_eq!(optimal_steps(usize::MAX, usize::MAX), n);
    assert_eq!(optimal_steps(10, usize::MAX), 10);
    let e = catch(|| optimal_steps(10, 0)).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Argument);
    // store-all with n = usize::MAX: a typed error, not a capacity-overflow abort
    let e = catch(|| store_all(&0.0, usize::MAX, step, vjp, |_| 1.0)).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Argument);
    assert!(e.detail.contains("cannot be allocated"), "{e}");
}
