//! `#[ad]` functions with vector outputs (`&mut [f64]`, `&mut [f64; N]` parameters written
//! element by element): seeded pullbacks against finite differences, and the one-pass
//! `jacobian` (one forward and one backward pass on all adjoint lanes).
use nilang::prelude::*;

#[ad]
fn polar(rt: &[f64], xy: &mut [f64; 2]) {
    xy[0] = rt[0] * rt[1].cos();
    xy[1] = rt[0] * rt[1].sin();
}

#[ad]
fn residuals(p: &[f64], w: f64, r: &mut [f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..r.len() {
        r[i] = w * (p[i] * p[i + 1]).sin();
        s += r[i] * r[i];
    }
    s
}

#[test]
fn jacobian_of_a_vector_output_in_one_pass() {
    let (mut rt, mut xy) = ([2.0, 0.3], [0.0; 2]);
    let j = nilang::ad::jacobian::<_, _, 2>(&Polar, (&mut 0.0, &mut rt[..], &mut xy), 1, 2);
    let (c, s) = (0.3f64.cos(), 0.3f64.sin());
    let want = [[c, -2.0 * s], [s, 2.0 * c]];
    for r in 0..2 {
        for k in 0..2 {
            assert!(
                (j[r][k] - want[r][k]).abs() < 1e-15,
                "J[{r}][{k}] = {}",
                j[r][k]
            );
        }
    }
    // the outputs are accumulated into, then restored by the inverse: unchanged
    assert_eq!(xy, [0.0; 2]);
    let mut out = [1.0, -1.0];
    polar(&rt, &mut out);
    assert!((out[0] - 2.0 * c).abs() < 1e-15 && (out[1] - 2.0 * s).abs() < 1e-15);
}

/// `residuals` on fixed-size arrays (whose adjoint lanes live on the stack: one pass).
#[ad]
fn residuals3(p: &[f64; 4], w: f64, r: &mut [f64; 3]) -> f64 {
    let mut s = 0.0;
    for i in 0..3 {
        r[i] = w * (p[i] * p[i + 1]).sin();
        s += r[i] * r[i];
    }
    s
}

#[test]
fn jacobian_lanes_equal_one_pullback_per_output_bit_for_bit() {
    // three lanes in one pass (fixed-size arrays, a scalar input, a loop), and one pullback per
    // lane (slices), against the `f64` pullback seeded with each output in turn
    let (p, w) = ([0.4, -0.9, 1.3, 0.2], 1.7);
    let (mut pp, mut ww, mut r) = (p, w, [0.0; 3]);
    let args = (&mut 0.0, &mut pp[..], &mut ww, &mut r[..]);
    let j = nilang::ad::jacobian::<_, _, 3>(&Residuals, args, 1, 3);
    let (mut pp, mut ww, mut r) = (p, w, [0.0; 3]);
    let j3 =
        nilang::ad::jacobian::<_, _, 3>(&Residuals3, (&mut 0.0, &mut pp, &mut ww, &mut r), 1, 3);
    assert_eq!(j3, j);
    for (row, jr) in j.iter().enumerate() {
        let mut dr = [0.0; 3];
        dr[row] = 1.0;
        let mut r0 = [0.0; 3];
        let (_, back) = residuals_forward(&p, w, &mut r0);
        let (gp, _, ()) = back(0.0, &dr);
        assert_eq!(jr.len(), 4);
        for k in 0..4 {
            assert_eq!(jr[k].to_bits(), gp[k].to_bits(), "J[{row}][{k}]");
        }
        assert!(gp[row] != 0.0 && gp[row + 1] != 0.0);
    }
}

#[test]
fn seeded_pullback_against_finite_differences() {
    let p = [0.4, -0.9, 1.3, 0.2];
    let w = 1.7;
    let (dy, dr) = (0.6, [0.5, -1.5, 2.0]);
    let mut r = [0.0; 3];
    let (y, back) = residuals_forward(&p, w, &mut r);
    let (gp, gw, ()) = back(dy, &dr);
    // the scalar `dy · s + dr · r` of all inputs
    let f = |v: &[f64]| {
        let mut r = [0.0; 3];
        let s = residuals(&v[..4], v[4], &mut r);
        dy * s + r.iter().zip(&dr).map(|(a, b)| a * b).sum::<f64>()
    };
    let mut v = p.to_vec();
    v.push(w);
    let mut rr = [0.0; 3];
    assert_eq!(y, residuals(&p, w, &mut rr));
    assert_eq!(r, rr);
    let g: Vec<f64> = gp.iter().copied().chain([gw]).collect();
    for k in 0..v.len() {
        let h = 1e-3;
        let at = |d: f64| {
            let mut u = v.clone();
            u[k] += d;
            f(&u)
        };
        let n = (-at(2.0 * h) + 8.0 * at(h) - 8.0 * at(-h) + at(-2.0 * h)) / (12.0 * h);
        assert!(
            (g[k] - n).abs() <= 1e-9 * n.abs().max(1.0),
            "d/dv{k}: {} vs {n}",
            g[k]
        );
    }
    // through the gradient API with the loss `out` and the outputs seeded zero: dy = 1
    let (mut pp, mut ww, mut r2) = (p, w, [0.0; 3]);
    let (v2, (_, gp2, gw2, _)) = nilang::ad::value_and_gradient(
        &Residuals,
        (&mut 0.0, &mut pp[..], &mut ww, &mut r2[..]),
        0,
    );
    assert_eq!(v2, y);
    let (_, back) = residuals_forward(&p, w, &mut rr);
    let (gp1, gw1, ()) = back(1.0, &[0.0; 3]);
    assert!(
        gp2.iter().zip(&gp1).all(|(a, b)| (a.g - b).abs() < 1e-15) && (gw2.g - gw1).abs() < 1e-15
    );
}

#[test]
fn a_seed_of_the_wrong_length_is_named_before_anything_runs() {
    let p = [0.4, -0.9, 1.3, 0.2];
    let mut r = [0.0; 3];
    let (_, back) = residuals_forward(&p, 1.0, &mut r);
    let e = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| back(1.0, &[1.0, 2.0])))
        .expect_err("rejected");
    let msg = e.downcast_ref::<String>().cloned().unwrap_or_default();
    assert_eq!(
        msg,
        "nilang: the adjoint passed for output `r` has 2 numbers; `r` has 3"
    );
}

/// A Jacobian through a `Plan` allocates nothing per call after the first, in one pass
/// (fixed-size arrays) and one pullback per lane (slices).
#[test]
fn a_jacobian_through_a_plan_allocates_nothing_after_the_first_call() {
    use nilang_testkit::alloc::allocs;
    let (p, w) = ([0.4, -0.9, 1.3, 0.2], 1.7);
    let (mut one, mut lanes) = (nilang::ad::Plan::new(), nilang::ad::Plan::new());
    let mut run = |k: usize| {
        let (mut pp, mut ww, mut r) = (p, w + 0.1 * k as f64, [0.0; 3]);
        let args = (&mut 0.0, &mut pp, &mut ww, &mut r);
        let a = one.jacobian::<_, _, 3>(&Residuals3, args, 3).1[0].g.0;
        let (mut pp, mut ww, mut r) = (p, w + 0.1 * k as f64, [0.0; 3]);
        let args = (&mut 0.0, &mut pp[..], &mut ww, &mut r[..]);
        let b = lanes.jacobian::<_, _, 3>(&Residuals, args, 3).1[0].g.0;
        assert_eq!(a.map(f64::to_bits), b.map(f64::to_bits));
    };
    run(0);
    let before = allocs();
    for k in 1..4 {
        run(k);
    }
    assert_eq!(
        allocs() - before,
        0,
        "heap allocations per Plan::jacobian call"
    );
}
