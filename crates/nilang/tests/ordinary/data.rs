//! `#[data]` parameters: no derivative, no adjoint storage, no tape entries and no adjoint
//! arithmetic for what depends on data alone; the same gradient of the other parameters as
//! the function that differentiates everything; the gradient API, the pullback and `#[i]`
//! callers take data as `&[f64]` / `f64`.
use nilang::ad::ordinary::AdNum;
use nilang::ad::Plan;
use nilang::prelude::*;
use nilang_testkit::alloc::allocs;

/// A regularized least-squares fit of `y ≈ w0 + w1 · x` on data `(x, y)`, with the data's
/// mean and a nonlinear product of it (passive locals).
#[ad]
fn fit(w: &[f64], #[data] x: &[f64], #[data] y: &[f64], #[data] lambda: f64) -> f64 {
    let mut mean = 0.0;
    let mut prod = 1.0;
    for i in 0..x.len() {
        mean += x[i];
        prod = prod * (0.5 + x[i] * x[i]).sqrt();
    }
    mean /= x.len() as f64;
    let mut s = 0.0;
    for i in 0..x.len() {
        let r = w[0] + w[1] * (x[i] - mean) - y[i];
        s += r * r;
    }
    s + lambda * (w[0] * w[0] + w[1] * w[1]) * prod
}

/// The same program with every `f64` parameter differentiated.
#[ad]
fn fit_all(w: &[f64], x: &[f64], y: &[f64], lambda: f64) -> f64 {
    let mut mean = 0.0;
    let mut prod = 1.0;
    for i in 0..x.len() {
        mean += x[i];
        prod = prod * (0.5 + x[i] * x[i]).sqrt();
    }
    mean /= x.len() as f64;
    let mut s = 0.0;
    for i in 0..x.len() {
        let r = w[0] + w[1] * (x[i] - mean) - y[i];
        s += r * r;
    }
    s + lambda * (w[0] * w[0] + w[1] * w[1]) * prod
}

fn data(n: usize) -> (Vec<f64>, Vec<f64>) {
    let x: Vec<f64> = (0..n).map(|i| 0.1 * i as f64 - 0.3).collect();
    let y: Vec<f64> = x
        .iter()
        .map(|v| 0.7 + 1.9 * v + 0.05 * (9.0 * v).sin())
        .collect();
    (x, y)
}

#[test]
fn data_gives_the_same_gradient_of_the_rest() {
    let (x, y) = data(12);
    let mut w = [0.4, 1.3];
    let (v, (_, gw, gx, gy, lam)) =
        nilang::ad::value_and_gradient(&Fit, (&mut 0.0, &mut w[..], &x[..], &y[..], 0.1), 0);
    // data comes back as it went in
    assert_eq!((gx, gy, lam), (&x[..], &y[..], 0.1));
    assert_eq!(v, fit(&w, &x, &y, 0.1));
    let (mut xa, mut ya) = (x.clone(), y.clone());
    let (va, (_, ga, _, _, _)) = nilang::ad::value_and_gradient(
        &FitAll,
        (&mut 0.0, &mut w[..], &mut xa[..], &mut ya[..], &mut 0.1),
        0,
    );
    assert_eq!(v, va);
    for (a, b) in gw.iter().zip(ga.iter()) {
        assert!((a.g - b.g).abs() <= 1e-14 * b.g.abs(), "{} vs {}", a.g, b.g);
    }
    // and finite differences (5-point stencil)
    for j in 0..2 {
        let h = 1e-4;
        let at = |d: f64| {
            let mut u = w;
            u[j] += d;
            fit(&u, &x, &y, 0.1)
        };
        let fd = (at(-2.0 * h) - 8.0 * at(-h) + 8.0 * at(h) - at(2.0 * h)) / (12.0 * h);
        assert!(
            (gw[j].g - fd).abs() <= 1e-9 * fd.abs(),
            "{} vs {fd}",
            gw[j].g
        );
    }
}

#[test]
fn the_pullback_returns_nothing_for_data() {
    let (x, y) = data(7);
    let w = [0.2, -0.8];
    let (v, back) = fit_forward(&w, &x, &y, 0.3);
    let (gw, (), (), ()) = back(2.0);
    let (_, back_all) = fit_all_forward(&w, &x, &y, 0.3);
    let (ga, gxa, _, _) = back_all(2.0);
    assert_eq!(v, fit(&w, &x, &y, 0.3));
    assert!(gxa.iter().any(|g| *g != 0.0));
    for (a, b) in gw.iter().zip(&ga) {
        assert!((a - b).abs() <= 1e-14 * b.abs(), "{a} vs {b}");
    }
}

#[test]
fn data_has_no_adjoint_and_records_nothing() {
    // no adjoint of the data, of the passive locals `mean` and `prod`, nor of `x[i] - mean`
    for name in [
        "x__bar",
        "y__bar",
        "lambda__bar",
        "mean__bar +=",
        "prod__bar +=",
    ] {
        assert!(!Fit::VJP.contains(name), "{name} in {}", Fit::VJP);
    }
    assert!(FitAll::VJP.contains("x__bar"));
    // `prod` is overwritten by a product at each step: recorded when it carries a
    // derivative (its old value is a factor of a differentiated product), not over data
    let (x, y) = data(50);
    let mut w = [0.4, 1.3];
    let mut plan = Plan::new();
    plan.value_and_gradient(&Fit, (&mut 0.0, &mut w[..], &x[..], &y[..], 0.1), 0);
    assert_eq!(nilang::ad::ordinary::last_tape_bytes(), 0);
    let (mut xa, mut ya) = (x.clone(), y.clone());
    nilang::ad::value_and_gradient(
        &FitAll,
        (&mut 0.0, &mut w[..], &mut xa[..], &mut ya[..], &mut 0.1),
        0,
    );
    assert_eq!(nilang::ad::ordinary::last_tape_bytes(), 8 * 50);
    // and a plan allocates nothing per call after the first
    let before = allocs();
    for step in 0..3 {
        w[0] = 0.1 * step as f64;
        let (v, _) = plan.value_and_gradient(&Fit, (&mut 0.0, &mut w[..], &x[..], &y[..], 0.1), 0);
        assert_eq!(v, fit(&w, &x, &y, 0.1));
    }
    assert_eq!(allocs() - before, 0, "heap allocations per Plan call");
}

/// Loops over the elements of data, a copy of data changed by differentiated values, and a
/// call of an `#[ad]` function that takes data.
#[ad]
fn weighted_sum(a: f64, #[data] x: &[f64]) -> f64 {
    let mut s = 0.0;
    for &v in x.iter() {
        s += (a * v).sin();
    }
    s
}

#[ad]
fn uses_data(p: &[f64], #[data] x: &[f64; 3]) -> f64 {
    let mut c = x.to_vec();
    c[1] = c[1] * p[1];
    let mut t = 0.0;
    for v in x {
        t += v * p[0];
    }
    t + c[0] * c[1] * c[2] + weighted_sum(p[2], x)
}

#[test]
fn element_loops_copies_and_calls_over_data() {
    let (x, p) = ([0.5, -1.5, 2.0], [0.3, 1.7, 0.9]);
    let mut pm = p;
    let (v, (_, gp, gx)) =
        nilang::ad::value_and_gradient(&UsesData, (&mut 0.0, &mut pm[..], &x), 0);
    assert_eq!(gx, &x);
    assert_eq!(v, uses_data(&p, &x));
    let want = [
        x.iter().sum::<f64>(),
        x[0] * x[1] * x[2],
        x.iter().map(|v| v * (p[2] * v).cos()).sum::<f64>(),
    ];
    for (g, w) in gp.iter().zip(want) {
        assert!((g.g - w).abs() <= 1e-14 * w.abs(), "{} vs {w}", g.g);
    }
}

/// `#[i]` code passes its own data to an `#[ad]` function's `#[data]` parameter.
#[i]
fn model<T: Scalar + AdNum>(out: &mut T, a: &mut T, x: &[f64]) {
    weighted_sum_add(out, a, x);
}

#[test]
fn reversible_callers_pass_data() {
    let x = [0.2, 0.9, -0.4];
    let (v, (_, ga, _)) = nilang::ad::value_and_gradient(&Model, (&mut 0.0, &mut 1.1, &x[..]), 0);
    assert_eq!(v, weighted_sum(1.1, &x));
    let want: f64 = x.iter().map(|v| v * (1.1 * v).cos()).sum();
    assert!((ga.g - want).abs() <= 1e-14 * want.abs());
}

/// A value of data kept from one step to the next (two assignments: recorded, as an `f64`),
/// and an integer converted to `f64` the same way.
#[ad]
fn lagged(w: &[f64], #[data] x: &[f64]) -> f64 {
    let mut v = x[0];
    let mut u = 0 as f64;
    let mut s = 0.0;
    for i in 1..x.len() {
        s += (v * w[i]).sin() + (u * w[i]).cos();
        v = x[i];
        u = i as f64 * 0.5;
    }
    s
}

#[test]
fn data_values_overwritten_in_a_loop_are_restored_exactly() {
    let x: Vec<f64> = (0..6).map(|i| 0.3 + 0.77 * i as f64).collect();
    let mut w: Vec<f64> = (0..6).map(|i| 0.2 - 0.1 * i as f64).collect();
    let (_, (_, gw, _)) =
        nilang::ad::value_and_gradient(&Lagged, (&mut 0.0, &mut w[..], &x[..]), 0);
    for (i, g) in gw.iter().enumerate().skip(1) {
        let (v, u) = (x[i - 1], (i - 1) as f64 * 0.5);
        let want = v * (v * w[i]).cos() - u * (u * w[i]).sin();
        assert!(
            (g.g - want).abs() <= 1e-14 * want.abs().max(1.0),
            "d/dw{i}: {} vs {want}",
            g.g
        );
    }
}

#[ad]
fn scaled(a: f64, v: &[f64], #[data] c: f64) -> f64 {
    a * v[0] * c
}

/// Calls of `#[ad]` functions with data, an element of data and an integer converted to
/// `f64` passed to differentiated scalar parameters, data to `#[data]` ones, and a copy of
/// data to a differentiated array parameter.
#[ad]
fn mixes(w: &[f64], #[data] x: &[f64], #[data] c: f64) -> f64 {
    let xv = x.to_vec();
    let mut s = scaled(w[0], &xv, c);
    for i in 0..x.len() {
        s += scaled(x[i], w, c) + scaled(i as f64, w, x[i]) + weighted_sum(w[i], x);
    }
    s
}

#[test]
fn calls_pass_data_and_constants_to_any_parameter() {
    let x = [0.4, -1.1, 2.3];
    let (w, c) = ([0.7, -0.2, 1.3], 1.9);
    let mut wm = w;
    let (v, (_, gw, _, _)) =
        nilang::ad::value_and_gradient(&Mixes, (&mut 0.0, &mut wm[..], &x[..], c), 0);
    assert_eq!(v, mixes(&w, &x, c));
    let sum_cos = |a: f64| x.iter().map(|v| v * (a * v).cos()).sum::<f64>();
    let mut want = [sum_cos(w[0]), sum_cos(w[1]), sum_cos(w[2])];
    want[0] += (0..3).map(|i| x[i] * c + i as f64 * x[i]).sum::<f64>() + x[0] * c;
    for (g, w) in gw.iter().zip(want) {
        assert!((g.g - w).abs() <= 1e-13 * w.abs(), "{} vs {w}", g.g);
    }
}
