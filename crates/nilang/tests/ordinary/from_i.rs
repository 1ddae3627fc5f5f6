//! `#[i]` code calling `#[ad]` functions through their additive pairs (`f_add`: `out +=
//! f(args)`, `f_sub`: `out -= f(args)`): gradients against 5-point finite differences.
use nilang::ad::ordinary::AdNum;
use nilang::prelude::*;

#[ad]
fn wave(x: &[f64], w: f64, n: usize) -> f64 {
    let mut s = 0.0;
    let mut p = 1.0;
    for i in 0..n {
        s += (w * x[i]).sin() * x[i];
        p = p * (1.0 + 0.1 * x[i] * x[i]);
    }
    s + p.ln()
}

#[ad]
fn pair(a: f64, b: f64) -> f64 {
    (a * b).exp() / (1.0 + a * a)
}

/// Reversible code around the calls: `x[0]` is moved before them and restored after.
#[i]
fn model<T: Scalar + AdNum>(out: &mut T, x: &mut [T], w: &mut T, n: usize) {
    x[0] += w * x[1];
    wave_add(out, x, w, n);
    out += sin(w);
    wave_sub(out, x, w, 1);
    x[0] -= w * x[1];
    pair_add(out, &mut x[2], w);
}

fn model_plain(v: &[f64]) -> f64 {
    let (mut x, w) = (v[..4].to_vec(), v[4]);
    x[0] += w * x[1];
    let y = wave(&x, w, 4) + w.sin() - wave(&x, w, 1);
    x[0] -= w * x[1];
    y + pair(x[2], w)
}

fn fd(f: &dyn Fn(&[f64]) -> f64, x: &[f64], k: usize) -> f64 {
    let h = 1e-3 * x[k].abs().max(1.0);
    let at = |d: f64| {
        let mut y = x.to_vec();
        y[k] += d;
        f(&y)
    };
    (-at(2.0 * h) + 8.0 * at(h) - 8.0 * at(-h) + at(-2.0 * h)) / (12.0 * h)
}

#[test]
fn gradient_through_i_code_calling_ad_functions() {
    let v = [0.4, -0.7, 1.1, 0.3, 0.9];
    let (mut x, mut w) = (v[..4].to_vec(), v[4]);
    let (val, (_, gx, gw, _)) =
        nilang::ad::value_and_gradient(&Model, (&mut 0.0, &mut x[..], &mut w, 4usize), 0);
    assert!((val - model_plain(&v)).abs() < 1e-13, "{val}");
    // the arguments are restored
    assert_eq!((&x[..], w), (&v[..4], v[4]));
    let g: Vec<f64> = gx.iter().map(|e| e.g).chain([gw.g]).collect();
    for k in 0..v.len() {
        let n = fd(&model_plain, &v, k);
        let scale = n.abs().max(g[k].abs()).max(1.0);
        assert!(
            (g[k] - n).abs() <= 1e-9 * scale,
            "d/dv{k} = {} through #[i], {n} by finite differences",
            g[k]
        );
    }
}

#[test]
fn the_pair_runs_forward_and_backward_on_plain_numbers() {
    let x = [0.4, -0.7, 1.1];
    let mut out = 2.0;
    let mut xs = x;
    let mut w = 0.9;
    wave_add(&mut out, &mut xs, &mut w, 3);
    assert!((out - (2.0 + wave(&x, 0.9, 3))).abs() < 1e-15);
    wave_add_inv(&mut out, &mut xs, &mut w, 3);
    assert!((out - 2.0).abs() < 1e-15);
    wave_sub(&mut out, &mut xs, &mut w, 3);
    assert!((out - (2.0 - wave(&x, 0.9, 3))).abs() < 1e-15);
    // the markers `#[i]` callers read: compute–copy–uncompute in `out`, the only one written
    assert_eq!((wave_add::ADDITIVE, wave_add::WRITES), (1, 1));
    assert_eq!((wave_sub_inv::ADDITIVE, wave_sub_inv::WRITES), (1, 1));
}

#[test]
fn the_inverse_applies_the_pullback_on_gradient_numbers() {
    // `out -= pair(a, b)` on gradient numbers: a.g += out.g · ∂pair/∂a
    let (a, b) = (0.3, -1.2);
    let mut out = GVar { x: 1.0, g: 2.0 };
    let mut ga = GVar { x: a, g: 0.0 };
    let mut gb = GVar { x: b, g: 0.5 };
    pair_add_inv(&mut out, &mut ga, &mut gb);
    let (_, back) = pair_forward(a, b);
    let (da, db) = back(2.0);
    assert!((out.x - (1.0 - pair(a, b))).abs() < 1e-15);
    assert!((ga.g - da).abs() < 1e-15 && (gb.g - 0.5 - db).abs() < 1e-15);
    assert_eq!(out.g, 2.0);
}
