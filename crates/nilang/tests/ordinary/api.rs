//! `#[ad]` functions through the gradient API, and `#[i]` functions called from them.
use nilang::ad::Plan;
use nilang::prelude::*;

#[ad]
fn rosenbrock(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() - 1 {
        s += 100.0 * (x[i + 1] - x[i] * x[i]).powi(2) + (1.0 - x[i]).powi(2);
    }
    s
}

fn rosenbrock_grad(x: &[f64]) -> Vec<f64> {
    let n = x.len();
    let mut g = vec![0.0; n];
    for i in 0..n - 1 {
        g[i] += -400.0 * x[i] * (x[i + 1] - x[i] * x[i]) - 2.0 * (1.0 - x[i]);
        g[i + 1] += 200.0 * (x[i + 1] - x[i] * x[i]);
    }
    g
}

#[test]
fn gradient_value_and_gradient_and_plan() {
    let mut x = vec![0.5, -1.2, 0.8, 1.1];
    let want = rosenbrock_grad(&x);
    let (gy, gx) = nilang::gradient(&Rosenbrock, (&mut 0.0, &mut x[..]), 0);
    assert_eq!(gy.g, 1.0);
    for (g, w) in gx.iter().zip(&want) {
        assert!(
            (g.g - w).abs() <= 1e-12 * w.abs().max(1.0),
            "{} vs {w}",
            g.g
        );
    }
    let (v, _) = nilang::ad::value_and_gradient(&Rosenbrock, (&mut 0.0, &mut x[..]), 0);
    assert_eq!(v, rosenbrock(&x));
    let mut plan = Plan::new();
    for step in 0..3 {
        x[0] = 0.1 * step as f64;
        let want = rosenbrock_grad(&x);
        let (v, (_, gx)) = plan.value_and_gradient(&Rosenbrock, (&mut 0.0, &mut x[..]), 0);
        assert_eq!(v, rosenbrock(&x));
        for (g, w) in gx.iter().zip(&want) {
            assert!((g.g - w).abs() <= 1e-12 * w.abs().max(1.0));
        }
    }
    // the caller's arguments are unchanged
    assert_eq!(x[1], -1.2);
}

#[ad]
fn weighted(a: f64, x: &[f64; 2], n: usize) -> f64 {
    (a * x[0]).sin() * x[1] + n as f64
}

#[test]
fn scalar_array_and_integer_arguments() {
    let (mut out, mut a, mut x) = (0.0, 0.7, [1.5, -2.0]);
    let (gout, ga, gx, n) = nilang::gradient(&Weighted, (&mut out, &mut a, &mut x, 3usize), 0);
    assert_eq!((gout.g, n), (1.0, 3));
    assert!((ga.g - 1.5 * (0.7f64 * 1.5).cos() * -2.0).abs() < 1e-14);
    assert!((gx[0].g - 0.7 * (0.7f64 * 1.5).cos() * -2.0).abs() < 1e-14);
    assert!((gx[1].g - (0.7f64 * 1.5).sin()).abs() < 1e-14);
    // running the struct forward and backward on plain numbers adds and removes the value
    let mut y = 1.0;
    Weighted.call((&mut y, &mut a, &mut x, 3));
    assert_eq!(y, 1.0 + weighted(0.7, &[1.5, -2.0], 3));
    Weighted.uncall((&mut y, &mut a, &mut x, 3));
    assert!((y - 1.0).abs() < 1e-15);
}

#[test]
fn numeric_check_of_the_gradient_api() {
    let mut x = [0.3, 0.9, -0.4];
    let r = nilang::ad::check_grad(&Rosenbrock, (&mut 0.0, &mut x[..]), 0, 1, 1e-5, 1e-6);
    assert!(r.is_ok(), "{r:?}");
}

/// A reversible step: its inverse restores its arguments, so `#[ad]` callers record nothing
/// for it.
#[i]
fn step<T: Scalar>(a: &mut T, b: &mut T) {
    a += sin(b);
    b += exp(a);
}

#[ad]
fn mixes(x: &[f64]) -> f64 {
    let mut a = x[0];
    let mut b = x[1];
    for _i in 0..3 {
        step(&mut a, &mut b);
        a = a * 0.9 + x[2];
    }
    a * b
}

fn mixes_plain(x: &[f64]) -> f64 {
    let (mut a, mut b) = (x[0], x[1]);
    for _ in 0..3 {
        a += b.sin();
        b += a.exp();
        a = a * 0.9 + x[2];
    }
    a * b
}

#[test]
fn reversible_callee() {
    let x = [0.3, -0.2, 0.1];
    assert_eq!(mixes(&x), mixes_plain(&x));
    let (_, back) = mixes_forward(&x);
    let (g,) = back(1.0);
    for k in 0..3 {
        let h = 1e-4;
        let at = |d: f64| {
            let mut y = x;
            y[k] += d;
            mixes_plain(&y)
        };
        let fd = (-at(2.0 * h) + 8.0 * at(h) - 8.0 * at(-h) + at(-2.0 * h)) / (12.0 * h);
        assert!(
            (g[k] - fd).abs() < 1e-9 * fd.abs().max(1.0),
            "{k}: {} vs {fd}",
            g[k]
        );
    }
}

#[ad]
fn only_steps(x: &[f64]) -> f64 {
    let mut a = x[0];
    let mut b = x[1];
    for _i in 0..100 {
        step(&mut a, &mut b);
    }
    b
}

#[test]
fn reversible_callee_records_nothing() {
    let x = [0.01, 0.02];
    let mut tape = nilang::ad::ordinary::ValueTape::new();
    let mut g = [0.0; 2];
    only_steps__ad_vjp(&x, &mut tape, 1.0, &mut g);
    // nothing: no value of `a` or `b` for 100 calls, and the loop's bounds are constants
    assert_eq!(tape.peak_bytes(), 0);
    assert!(tape.is_empty());
    assert!(
        OnlySteps::TAPE.starts_with("decisions"),
        "{}",
        OnlySteps::TAPE
    );
}

#[test]
fn introspection() {
    assert!(Rosenbrock::SSA.contains("powi"), "{}", Rosenbrock::SSA);
    // `0..x.len() - 1` reads a parameter only: evaluated again in the adjoint
    assert!(Rosenbrock::SSA.contains("[bounds evaluated again]"));
    // `s` only accumulates: never recorded
    assert!(
        !Rosenbrock::SSA.contains("old value"),
        "{}",
        Rosenbrock::SSA
    );
    assert!(
        Mixes::SSA.contains("#[i]: adjoint by its inverse"),
        "{}",
        Mixes::SSA
    );
    assert!(
        Mixes::TAPE.contains("a: f64 per overwrite"),
        "{}",
        Mixes::TAPE
    );
    assert!(Rosenbrock::VJP.contains("rosenbrock__ad_vjp"));
}

#[ad]
fn orbit(x: &[f64], n: usize) -> f64 {
    let mut a = x[0];
    let mut b = x[1];
    let dt = x[2];
    for _s in 0..n {
        a = a + dt * b.sin();
        b = b - dt * a;
    }
    a * a + b * b
}

#[i]
fn leap<T: Scalar>(a: &mut T, b: &mut T, dt: &mut T) {
    let s = T::default();
    s += sin(b);
    a += dt * s;
    s -= sin(b);
    dealloc!(s = T::default());
    b -= dt * a;
}

#[ad]
fn orbit_rev(x: &[f64], n: usize) -> f64 {
    let mut a = x[0];
    let mut b = x[1];
    let mut dt = x[2];
    for _s in 0..n {
        leap(&mut a, &mut b, &mut dt);
    }
    a * a + b * b
}

/// The guide's example: the hot loop's body made reversible removes the tape.
#[test]
fn reversible_hot_loop_removes_the_tape() {
    let n = 500;
    let mut x = [0.3, 0.1, 1e-3];
    let (v, (_, g, _)) = nilang::ad::value_and_gradient(&Orbit, (&mut 0.0, &mut x[..], n), 0);
    let g: Vec<f64> = g.iter().map(|e| e.g).collect();
    // two values per step (`a` and `b`); the loop's bounds are evaluated again
    assert_eq!(nilang::ad::ordinary::last_tape_bytes(), 8 * (2 * n));
    let (vr, (_, gr, _)) = nilang::ad::value_and_gradient(&OrbitRev, (&mut 0.0, &mut x[..], n), 0);
    assert_eq!(nilang::ad::ordinary::last_tape_bytes(), 0);
    assert!((v - vr).abs() <= 1e-14 * v.abs());
    for (a, b) in g.iter().zip(gr.iter()) {
        assert!(
            (a - b.g).abs() <= 1e-10 * a.abs().max(1e-3),
            "{a} vs {}",
            b.g
        );
    }
}

#[ad]
#[allow(clippy::ptr_arg)]
fn vec_param(v: &Vec<f64>, a: f64) -> f64 {
    v[0] * a + v[1].sin()
}

#[test]
fn vec_parameter() {
    let (mut v, mut a) = (vec![0.5, 1.5], 2.0);
    let (_, gv, ga) = nilang::gradient(&VecParam, (&mut 0.0, &mut v, &mut a), 0);
    assert_eq!((gv[0].g, gv[1].g, ga.g), (2.0, 1.5f64.cos(), 0.5));
    let (_, back) = vec_param_forward(&v, a);
    assert_eq!(back(1.0), (vec![2.0, 1.5f64.cos()], 0.5));
}
