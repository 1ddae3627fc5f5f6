//! Dual numbers through reversible programs: forward derivatives, nested duals, inverses.
use nilang::prelude::*;

type D = Dual<f64>;
type DD = Dual<Dual<f64>>;

/// The norm example (inventory §5.3 case 2) on dual numbers.
#[i]
fn norm(res: &mut D, y: &mut D, x: &[D]) {
    for i in 0..x.len() {
        y += x[i].powi(2);
    }
    res += y.sqrt();
}

#[test]
fn norm_directional_derivative() {
    // d/dt |x + t e₁| at x = (1, 2, 3) is x₁ / |x| = 1/√14
    let x = vec![Dual::variable(1.0), Dual::from(2.0), Dual::from(3.0)];
    let (mut res, mut y) = (D::default(), D::default());
    norm(&mut res, &mut y, &x);
    assert_eq!(res.x, 3.7416573867739413);
    assert!((res.eps - 1.0 / 14f64.sqrt()).abs() < 1e-15);
    assert_eq!(y, Dual::new(14.0, 2.0));
    norm_inv(&mut res, &mut y, &x);
    assert_eq!((res, y), (D::default(), D::default()));
}

#[i]
fn elementary(y: &mut D, x: &D) {
    y += sin(x);
    y += x.sin();
    y += exp(x);
    y += x.ln();
    y += x.powf(1.5);
    y += atan2(x, 2.0);
    y -= tanh(x);
    y += x / 3;
}

#[test]
fn elementary_derivatives() {
    let x0 = 0.7_f64;
    let mut y = D::default();
    elementary(&mut y, &Dual::variable(x0));
    let f =
        |x: f64| 2.0 * x.sin() + x.exp() + x.ln() + x.powf(1.5) + x.atan2(2.0) - x.tanh() + x / 3.0;
    let h = 1e-6;
    let num = (f(x0 + h) - f(x0 - h)) / (2.0 * h);
    assert!((y.x - f(x0)).abs() < 1e-14);
    assert!((y.eps - num).abs() < 1e-8, "{} vs {num}", y.eps);
    elementary_inv(&mut y, &Dual::variable(x0));
    assert!(y.x.abs() < 1e-14 && y.eps.abs() < 1e-14);
}

#[i]
fn cube_plus_rot(y: &mut DD, z: &mut DD, x: &mut DD) {
    y += x.powi(3);
    ROT(y, z, x);
    IROT(y, z, x);
}

#[test]
fn nested_duals_second_derivative() {
    let x0 = 1.3_f64;
    let mut x: DD = Dual::new(Dual::variable(x0), Dual::from(1.0));
    let (mut y, mut z) = (DD::default(), DD::default());
    cube_plus_rot(&mut y, &mut z, &mut x);
    assert!((y.x.x - x0.powi(3)).abs() < 1e-14);
    assert!((y.eps.x - 3.0 * x0 * x0).abs() < 1e-13);
    assert!((y.eps.eps - 6.0 * x0).abs() < 1e-13);
    cube_plus_rot_inv(&mut y, &mut z, &mut x);
    assert!(y.x.x.abs() < 1e-14 && y.eps.eps.abs() < 1e-13);
}
