//! The value tape holds what the adjoint cannot recompute: O(N) numbers for a loop that
//! overwrites an accumulator the adjoint reads N times, O(1) for a loop that only reads (or
//! only accumulates); and a `Plan` allocates nothing per call after the first.
use nilang::ad::ordinary::ValueTape;
use nilang::ad::Plan;
use nilang::prelude::*;
use nilang_testkit::alloc::{allocs, measure};

#[ad]
fn overwrite(x: &[f64]) -> f64 {
    let mut p = 1.0;
    for i in 0..x.len() {
        p = (p * x[i]).sin();
    }
    p
}

#[ad]
fn read_only(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        s += x[i].sin() * x[i];
    }
    s
}

/// The value tape's peak bytes and the heap's peak bytes of one forward-and-adjoint run.
fn run(f: fn(&[f64], &mut ValueTape, f64, &mut [f64]) -> f64, n: usize) -> (usize, usize) {
    assert_eq!(read_only(&[1.0]), 1.0f64.sin());
    let x: Vec<f64> = (0..n).map(|k| 0.5 + 1e-3 * k as f64).collect();
    let mut g = vec![0.0; n];
    let (tape, heap) = measure(|| {
        let mut tape = ValueTape::new();
        f(&x, &mut tape, 1.0, &mut g);
        tape
    });
    assert!(tape.is_empty(), "the adjoint takes back all it recorded");
    (tape.peak_bytes(), heap.peak_bytes)
}

#[test]
fn overwriting_loop_tapes_n_numbers() {
    for n in [10, 1000, 10_000] {
        let (bytes, heap) = run(overwrite__ad_vjp, n);
        // one f64 per overwrite of `p` (the loop's bounds are evaluated again)
        assert_eq!(bytes, 8 * n);
        assert!(heap >= 8 * n, "n = {n}: heap peak {heap}");
    }
}

#[test]
fn read_only_loop_tapes_a_constant() {
    for n in [10, 1000, 10_000] {
        let (bytes, heap) = run(read_only__ad_vjp, n);
        assert_eq!(bytes, 0, "n = {n}");
        assert!(heap <= 64, "n = {n}: heap peak {heap}");
    }
}

#[test]
fn plan_allocates_nothing_after_the_first_call() {
    let mut x: Vec<f64> = (0..200).map(|k| 0.5 + 1e-3 * k as f64).collect();
    let mut plan = Plan::new();
    let (v0, _) = plan.value_and_gradient(&Overwrite, (&mut 0.0, &mut x[..]), 0);
    assert_eq!(v0, overwrite(&x));
    let before = allocs();
    for step in 0..5 {
        x[0] = 0.4 + 0.01 * step as f64;
        let (v, (_, gx)) = plan.value_and_gradient(&Overwrite, (&mut 0.0, &mut x[..]), 0);
        assert_eq!(v, overwrite(&x));
        assert!(gx[0].g.is_finite());
    }
    assert_eq!(allocs() - before, 0, "heap allocations per Plan call");
    assert_eq!(nilang::ad::ordinary::last_tape_bytes(), 8 * 200);
}

/// A bound read from a local variable assigned twice: the loop's start and trip count are
/// recorded.
#[ad]
fn local_bound(x: &[f64]) -> f64 {
    let mut m = x.len();
    m -= 1;
    let mut s = 0.0;
    for i in 0..m {
        s += x[i] * x[i + 1];
    }
    s
}

/// Bounds of parameters and of an enclosing loop's variable: evaluated again, nothing recorded.
#[ad]
fn triangle(x: &[f64], n: usize) -> f64 {
    let mut s = 0.0;
    for i in 0..n {
        for j in 0..=i {
            s += x[i] * x[j].sin();
        }
    }
    s
}

#[test]
fn loop_bounds_are_recorded_only_when_they_read_changing_variables() {
    let x = [0.3, -0.8, 1.1, 0.5];
    let mut g = [0.0; 4];
    let mut tape = ValueTape::new();
    let v = local_bound__ad_vjp(&x, &mut tape, 1.0, &mut g);
    assert_eq!(v, local_bound(&x));
    assert_eq!(tape.peak_bytes(), 16);
    assert_eq!(g, [x[1], x[0] + x[2], x[1] + x[3], x[2]]);
    let (mut g, mut tape) = ([0.0; 4], ValueTape::new());
    let v = triangle__ad_vjp(&x, 4, &mut tape, 1.0, &mut g);
    assert_eq!(v, triangle(&x, 4));
    assert_eq!(tape.peak_bytes(), 0);
    // ∂/∂x_k of Σ_{j ≤ i} x_i sin x_j
    for k in 0..4 {
        let want = (0..=k).map(|j| x[j].sin()).sum::<f64>()
            + (k..4).map(|i| x[i]).sum::<f64>() * x[k].cos();
        assert!((g[k] - want).abs() < 1e-15, "d/dx{k}: {} vs {want}", g[k]);
    }
}

/// Integer variables assigned once (`let o = c * k;` in a loop, `let w = 2 * k;`): executed
/// again in the adjoint, not recorded; and `t`, a sum of parameters' values, is computed again
/// at the start of each block's adjoint instead of recorded.
#[ad]
fn blocks(x: &[f64], n: usize, k: usize) -> f64 {
    let w = 2 * k;
    let mut s = 0.0;
    for c in 0..n {
        let o = c * k;
        let mut t = 0.0;
        for j in 0..k {
            t += x[o + j] * x[o + j];
        }
        s += (t + w as f64).ln();
    }
    s
}

#[test]
fn integer_variables_assigned_once_are_evaluated_again() {
    let x: Vec<f64> = (0..12).map(|i| 0.2 + 0.1 * i as f64).collect();
    let (n, k) = (4, 3);
    let mut g = vec![0.0; 12];
    let mut tape = ValueTape::new();
    blocks__ad_vjp(&x, n, k, &mut tape, 1.0, &mut g);
    // nothing: `t = 0.0; for j .. { t += x[o + j] * x[o + j] }` is executed again
    assert_eq!(tape.peak_bytes(), 0);
    assert!(
        Blocks::SSA.contains("t = t0    [executed again in the adjoint]"),
        "{}",
        Blocks::SSA
    );
    assert!(
        Blocks::SSA.contains("o = c * k    [evaluated again in the adjoint]"),
        "{}",
        Blocks::SSA
    );
    for c in 0..n {
        let t: f64 = (0..k).map(|j| x[c * k + j] * x[c * k + j]).sum();
        for j in 0..k {
            let want = 2.0 * x[c * k + j] / (t + 6.0);
            assert!(
                (g[c * k + j] - want).abs() < 1e-15,
                "{} vs {want}",
                g[c * k + j]
            );
        }
    }
}
