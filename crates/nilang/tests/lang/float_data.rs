//! Read-only float data in generic functions: `z += w * x[i]` with `x: &[f64]` (converted to
//! the target's number type, no gradient), against the same program written with
//! `cst!(T::lit(x[i]))`.
use nilang::prelude::*;

/// `z += w·Σ x_i − Σ(−x_i)·c + s` with data `x: &[f64]`, `c: f64`, `s: f32`.
#[i]
fn weighted<T: Scalar>(z: &mut T, w: &mut T, x: &[f64], c: f64, s: f32) {
    for i in 0..x.len() {
        z += w * x[i];
        z -= -x[i] * w;
        z += exp(x[i]);
    }
    z += c;
    z += s;
}

/// The same with the ceremony that was needed before.
#[i]
fn weighted_cst<T: Scalar>(z: &mut T, w: &mut T, x: &[f64], c: f64, s: f32) {
    for i in 0..x.len() {
        z += w * cst!(T::lit(x[i]));
        z -= cst!(T::lit(-x[i])) * w;
        z += exp(cst!(T::lit(x[i])));
    }
    z += cst!(T::lit(c));
    z += cst!(T::lit(s as f64));
}

/// Data in arrays and `Vec`s, on a slice target.
#[i]
fn scale_into<T: Scalar>(y: &mut [T], x: &mut [T], a: &[f64; 2], b: &Vec<f32>) {
    for i in 0..y.len() {
        y[i] += x[i] * a[i];
        y[i] += b[i];
    }
}

#[test]
fn float_data_runs_inverts_and_matches_the_cst_form() {
    let x = [0.5, -1.0, 2.0];
    let (mut z, mut w) = (1.0, 3.0);
    weighted(&mut z, &mut w, &x, 0.25, 0.5);
    let expected = 1.0 + 2.0 * 3.0 * 1.5 + x.iter().map(|v: &f64| v.exp()).sum::<f64>() + 0.75;
    assert!((z - expected).abs() < 1e-12, "{z} vs {expected}");
    let (mut z2, mut w2) = (1.0, 3.0);
    weighted_cst(&mut z2, &mut w2, &x, 0.25, 0.5);
    assert_eq!(z, z2);
    weighted_inv(&mut z, &mut w, &x, 0.25, 0.5);
    assert!((z - 1.0).abs() < 1e-12 && w == 3.0);
}

#[test]
fn float_data_gradients_equal_the_cst_form_and_carry_no_gradient() {
    let x = [0.5, -1.0, 2.0];
    let (v, (gz, gw, _, _, _)) =
        nilang::ad::value_and_gradient(&Weighted, (&mut 0.0, &mut 3.0, &x[..], 0.25, 0.5f32), 0);
    let (cv, (_, cw, _, _, _)) =
        nilang::ad::value_and_gradient(&WeightedCst, (&mut 0.0, &mut 3.0, &x[..], 0.25, 0.5f32), 0);
    // d z / d w = 2 Σ x_i = 3
    assert_eq!((gz.g, gw.g), (1.0, 3.0));
    assert!(v > 9.0, "{v}");
    assert_eq!((v, gw.g), (cv, cw.g));
    // second order: the data stays data in a gradient of a gradient
    let h =
        nilang::ad::hessian_fwd_rev(&Weighted, (&mut 0.0, &mut 3.0, &x[..], 0.25, 0.5f32), 0, 2);
    assert!(h.iter().flatten().all(|v| *v == 0.0), "linear in w: {h:?}");
}

#[test]
fn float_data_in_arrays_and_vecs_on_f32_and_gradient_numbers() {
    let (a, b) = ([2.0, -3.0], vec![0.5f32, 0.25]);
    let (mut y, mut x) = ([1.0f32, 1.0], [4.0f32, 5.0]);
    scale_into(&mut y, &mut x, &a, &b);
    assert_eq!(y, [1.0 + 8.0 + 0.5, 1.0 - 15.0 + 0.25]);
    scale_into_inv(&mut y, &mut x, &a, &b);
    assert_eq!(y, [1.0, 1.0]);
    let mut yg = [GVar::from(0.0), GVar::from(0.0)];
    let mut xg = [GVar::from(4.0), GVar::from(5.0)];
    scale_into(&mut yg, &mut xg, &a, &b);
    yg[0].g = 1.0;
    yg[1].g = 1.0;
    scale_into_inv(&mut yg, &mut xg, &a, &b);
    assert_eq!((xg[0].g, xg[1].g), (2.0, -3.0));
    assert_eq!((xg[0].x, xg[1].x, yg[0].x), (4.0, 5.0, 0.0));
}

/// The guide's first-screen example (keep in sync with docs/guide.md).
#[i]
fn predict<T: Scalar>(z: &mut T, w: &mut [T], x: &[f64]) {
    for i in 0..x.len() {
        z += w[i] * x[i];
    }
}

#[test]
fn the_guide_example_gives_the_data_as_gradient() {
    let x = [1.5, -2.0];
    let (v, (_, gw, _)) =
        nilang::ad::value_and_gradient(&Predict, (&mut 0.0, &mut [0.5, 4.0][..], &x[..]), 0);
    assert_eq!(v, 0.75 - 8.0);
    assert_eq!((gw[0].g, gw[1].g), (1.5, -2.0));
}
