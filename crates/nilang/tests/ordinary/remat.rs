//! What the adjoint computes again instead of reading it back from the value tape: values of
//! parameters assigned to locals (`xc[r] = x[i·d + r] − μ[r]`), sums of them (`y = xc[r];
//! for c .. { y += .. }`), and factors that are constants (`0.5 * s` needs no `s`). Each
//! program's tape size is asserted, and its gradient against 5-point finite differences; the
//! cases the rules must refuse (a value read before it is assigned in its block, a value that
//! reads a variable the loop changes) record and still differentiate correctly.
use super::programs::check;
use nilang::ad::ordinary::ValueTape;
use nilang::prelude::*;

/// A per-point quadratic form of centred points, as GMM's is: `xc` and `y` are executed
/// again in the adjoint; `q` (overwritten per point, read by `sqrt`) is recorded.
#[ad]
fn centred(v: &[f64], n: usize, d: usize) -> f64 {
    let mut xc = vec![0.0; d];
    let mut s = 0.0;
    for i in 0..n {
        for r in 0..d {
            xc[r] = v[i * d + r] - v[n * d + r];
        }
        let mut q = 1.0;
        for r in 0..d {
            let mut y = xc[r];
            for c in 0..r {
                y += v[n * d + c] * xc[c];
            }
            q += y * y;
        }
        s += q.sqrt();
    }
    s
}

/// `0.9 * s` and `0.5 * s`: the adjoint of a product with a constant does not read `s`, so
/// overwriting `s` records nothing.
#[ad]
fn decay(x: &[f64]) -> f64 {
    let mut s = 0.0;
    let mut total = 0.0;
    for i in 0..x.len() {
        s = s * 0.9 + x[i] * x[i];
        total += 0.5 * s;
    }
    total
}

/// [`decay`] with `s * s`: `s` is read, so each overwrite records it.
#[ad]
fn decay_squared(x: &[f64]) -> f64 {
    let mut s = 0.0;
    let mut total = 0.0;
    for i in 0..x.len() {
        s = s * 0.9 + x[i] * x[i];
        total += s * s;
    }
    total
}

/// Half of an array written per iteration from parameters (bounds that never change), the
/// other half left at its start value and read.
#[ad]
fn partial(x: &[f64], n: usize) -> f64 {
    let mut w = [0.25; 4];
    let mut s = 0.0;
    for i in 0..n {
        for r in 0..2 {
            w[r] = x[i + r] * x[i + r];
        }
        s += (w[0] * w[1] + w[3]).sin();
    }
    s
}

/// `v` is read before its assignment in the block (the previous iteration's value), and `t`
/// reads `a`, which the loop changes: both are recorded.
#[ad]
fn refused(x: &[f64], n: usize) -> f64 {
    let mut a = x[0];
    let mut v = 0.0;
    let mut s = 0.0;
    for i in 0..n {
        s += (v * a).sin();
        v = x[1 + i % 2].cos();
        let t = a * x[1];
        a = a + t.tanh() * 0.1;
    }
    s + v * a
}

/// The tape's peak bytes of one forward-and-adjoint run, and the gradient.
fn run(f: &dyn Fn(&mut ValueTape, &mut [f64]) -> f64, len: usize) -> (usize, Vec<f64>) {
    let mut tape = ValueTape::new();
    let mut g = vec![0.0; len];
    f(&mut tape, &mut g);
    assert!(tape.is_empty(), "the adjoint takes back all it recorded");
    (tape.peak_bytes(), g)
}

#[test]
fn centred_points_record_one_number_per_point() {
    let (n, d) = (7, 4);
    let v: Vec<f64> = (0..(n + 1) * d)
        .map(|k| (0.37 * k as f64).sin() + 0.1)
        .collect();
    let (bytes, g) = run(&|t, g| centred__ad_vjp(&v, n, d, t, 1.0, g), v.len());
    // `q` per point; nothing for `xc` (d per point and component before) or `y`
    assert_eq!(bytes, 8 * n);
    assert!(
        Centred::SSA.contains("executed again in the adjoint"),
        "{}",
        Centred::SSA
    );
    assert!(
        !Centred::TAPE.contains("xc") && !Centred::TAPE.contains("y:"),
        "{}",
        Centred::TAPE
    );
    check("centred", &|v| centred(v, n, d), &g, &v);
}

#[test]
fn a_constant_factor_needs_no_record() {
    let x: Vec<f64> = (0..50).map(|k| 0.3 + 0.01 * k as f64).collect();
    let (bytes, g) = run(&|t, g| decay__ad_vjp(&x, t, 1.0, g), x.len());
    assert_eq!(bytes, 0, "{}", Decay::SSA);
    check("decay", &|x| decay(x), &g, &x);
    let (bytes, g) = run(&|t, g| decay_squared__ad_vjp(&x, t, 1.0, g), x.len());
    assert_eq!(bytes, 8 * x.len());
    check("decay_squared", &|x| decay_squared(x), &g, &x);
}

#[test]
fn elements_left_at_their_start_value() {
    let n = 9;
    let x: Vec<f64> = (0..n + 1).map(|k| 0.2 + 0.13 * k as f64).collect();
    let (bytes, g) = run(&|t, g| partial__ad_vjp(&x, n, t, 1.0, g), x.len());
    assert_eq!(bytes, 0, "{}", Partial::SSA);
    check("partial", &|x| partial(x, n), &g, &x);
}

#[test]
fn values_that_change_before_their_use_are_recorded() {
    let n = 12;
    let x = [0.7, -0.4, 1.1];
    let (bytes, g) = run(&|t, g| refused__ad_vjp(&x, n, t, 1.0, g), x.len());
    assert!(
        Refused::TAPE.contains("v:") && Refused::TAPE.contains("a:"),
        "{}",
        Refused::TAPE
    );
    assert!(bytes >= 8 * 2 * n, "{bytes}");
    check("refused", &|x| refused(x, n), &g, &x);
}
