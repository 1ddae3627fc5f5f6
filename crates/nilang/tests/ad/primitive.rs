//! User primitives with gradients (`#[primitive(grad = df)]`, NiLang's `primitive_grad`) and
//! non-differentiable arguments (NiLang's `NoGrad`).
use nilang::ad;
use nilang::instr::{PlusEq1, PlusEq2, PlusEq3};
use nilang::prelude::*;

/// A concrete `f64` primitive with two arguments.
#[primitive(grad = dmix)]
fn mix(x: f64, y: f64) -> f64 {
    x.exp() * y.sin()
}
fn dmix(x: f64, y: f64) -> (f64, f64) {
    (x.exp() * y.sin(), x.exp() * y.cos())
}

/// A generic one-argument primitive (works on `Dual` too).
#[primitive(grad = dcube)]
fn cube<T: Real>(x: T) -> T {
    x * x * x
}
fn dcube<T: Real>(x: T) -> T {
    T::from_f64(3.0) * x * x
}

/// A generic three-argument primitive.
#[primitive(grad = dfma3)]
fn fma3<T: Real>(a: T, b: T, c: T) -> T {
    a * b + c.sin()
}
fn dfma3<T: Real>(a: T, b: T, c: T) -> (T, T, T) {
    (b, a, c.cos())
}

// A program using a primitive is generic over its number type (so that it runs on `GVar`),
// with the primitive's instruction as a bound.
#[i]
fn uses_mix<T: Scalar>(out: &mut T, x: &mut T, y: &mut T)
where
    T: PlusEq2<mix, T, T>,
{
    out += mix(x, y);
    out -= mix(y, 0.5);
}

#[test]
fn concrete_primitive_gradient() {
    let (mut o, mut x, mut y) = (0.1, 0.7, -0.4);
    let (go, gx, gy) = nilang::gradient(&UsesMix, (&mut o, &mut x, &mut y), 0);
    assert_eq!(go.g, 1.0);
    let ex = 0.7_f64.exp() * (-0.4_f64).sin();
    let ey = 0.7_f64.exp() * (-0.4_f64).cos() - (-0.4_f64).exp() * 0.5_f64.sin();
    assert!((gx.g - ex).abs() < 1e-15 && (gy.g - ey).abs() < 1e-15);
    ad::check_grad(&UsesMix, (&mut o, &mut x, &mut y), 0, 1, 1e-9, 1e-7).unwrap();
    ad::check_grad(&UsesMix, (&mut o, &mut x, &mut y), 0, 2, 1e-9, 1e-7).unwrap();
    // restored up to rounding
    assert!((o - 0.1).abs() < 1e-15 && (x, y) == (0.7, -0.4));
}

#[i]
fn uses_generic<T: Scalar>(out: &mut T, x: &mut T, y: &mut T, z: &mut T)
where
    T: PlusEq1<cube, T> + PlusEq3<fma3, T, T, T>,
{
    out += cube(x);
    out += fma3(x, y, z);
    out -= fma3(z, 2.0, y);
}

fn uses_generic_value(x: f64, y: f64, z: f64) -> f64 {
    x * x * x + x * y + z.sin() - (z * 2.0 + y.sin())
}

#[test]
fn generic_primitive_gradient_and_hessian_fwd_rev() {
    let (mut o, mut x, mut y, mut z) = (0.0_f64, 0.9_f64, -0.3_f64, 1.2_f64);
    for k in 1..4 {
        ad::check_grad(
            &UsesGeneric,
            (&mut o, &mut x, &mut y, &mut z),
            0,
            k,
            1e-9,
            1e-7,
        )
        .unwrap();
    }
    // the Hessian in x by forward-over-reverse: d²/dx² = 6x
    let h = ad::hessian_fwd_rev(&UsesGeneric, (&mut o, &mut x, &mut y, &mut z), 0, 1);
    assert!((h[0][0] - 6.0 * 0.9).abs() < 1e-13, "{h:?}");
    // and in y: d²/dy² = sin(y)
    let h = ad::hessian_fwd_rev(&UsesGeneric, (&mut o, &mut x, &mut y, &mut z), 0, 2);
    assert!((h[0][0] - (-0.3_f64).sin()).abs() < 1e-13, "{h:?}");
    let v = ad::loss_value::<_, (&mut f64, &mut f64, &mut f64, &mut f64), f64>(
        &UsesGeneric,
        (&mut o, &mut x, &mut y, &mut z),
        0,
    );
    assert!((v - uses_generic_value(0.9, -0.3, 1.2)).abs() < 1e-15);
}

#[test]
fn primitive_rule_is_reversible() {
    // the `+=` direction of the rule undoes the `-=` direction, gradients included
    let (mut y, mut a, mut b) = (
        GVar::new(0.3, 1.5),
        GVar::new(0.7, 0.2),
        GVar::new(-0.4, 0.0),
    );
    let saved = (y, a, b);
    <mix as ad::Rule2<f64>>::minus(&mut y, &mut a, &mut b);
    assert!(a.g != 0.2 && b.g != 0.0);
    <mix as ad::Rule2<f64>>::plus(&mut y, &mut a, &mut b);
    assert!((y.x - saved.0.x).abs() < 1e-15 && (a.g - 0.2).abs() < 1e-15 && b.g.abs() < 1e-15);
}

#[i]
fn add_to<T: Scalar>(x: &mut T, y: &T) {
    x += y;
}

#[test]
fn read_only_arguments_get_no_gradient_nograd() {
    // NiLang: `Grad(PlusEq(identity))(x, NoGrad(y); iloss=1)` gives `grad(y) === 0`.
    let (mut x, y) = (3.0, 4.0);
    let (gx, gy) = nilang::gradient(&AddTo, (&mut x, &y), 0);
    assert_eq!((gx.g, gy.g), (1.0, 0.0));
}
