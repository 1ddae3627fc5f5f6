//! Issue 27 item 1: a differentiable variable passed to a read-only `&T` parameter drops its
//! derivative; in a gradient program that is reported (`ErrorKind::DroppedDerivative`) unless
//! the caller declares the argument constant with `cst!(&x)`, which compiles to the same code.
use nilang::check::{catch, ErrorKind};
use nilang::prelude::*;

const ATOL: f64 = 1e-8;

/// `out *= x` with `anc` as workspace (the Bessel app's `imul`), `x` in-out: correct.
#[i]
fn imul<T: Ordered>(out: &mut T, x: &mut T, anc: &mut T) {
    anc += out * x;
    out -= anc / x;
    SWAP(out, anc);
}

/// The same, written with a read-only `x: &T` (the probe's mistake).
#[i]
fn imul_ro<T: Ordered>(out: &mut T, x: &T, anc: &mut T) {
    anc += out * x;
    out -= anc / x;
    SWAP(out, anc);
}

/// `out += J_2(z)` (`nu` = 2) by its series (the Bessel app's `ibesselj_series`); `$imul(..)` is the
/// multiplication of the running term, `$x` how the factor `$anc3` is passed.
macro_rules! bessel {
    ($name:ident, $imul:ident, $anc3:ident, $x:expr) => {
        #[i]
        fn $name<T: Ordered>(out: &mut T, z: &mut T, nu: usize) {
            let fact_nu = T::lit(2.0); // ν! for ν = 2
            let k = T::default();
            let nu_t = T::lit(nu as f64);
            let halfz = T::default();
            let halfz_power_nu = T::default();
            let halfz_power_2 = T::default();
            let out_anc = T::default();
            let anc1 = T::default();
            let anc2 = T::default();
            let $anc3 = T::default();
            let anc4 = T::default();
            let anc5 = T::default();
            routine! {
                halfz += z / 2.0;
                halfz_power_nu += powf(halfz, nu_t);
                halfz_power_2 += halfz.powi(2);
                anc1 += halfz_power_nu / fact_nu;
                out_anc += anc1;
                while (anc1.value().abs() > ATOL && anc4.value().abs() < ATOL, k.value() != 0.0) {
                    k += 1.0;
                    routine! {
                        anc5 += k;
                        anc5 += nu_t;
                        anc2 -= k * anc5;
                        $anc3 += halfz_power_2 / anc2;
                    }
                    $imul(&mut anc1, $x, &mut anc4);
                    out_anc += anc1;
                    unroutine!();
                }
            }
            out += out_anc;
            unroutine!();
            dealloc!(anc5 = T::default());
            dealloc!(anc4 = T::default());
            dealloc!($anc3 = T::default());
            dealloc!(anc2 = T::default());
            dealloc!(anc1 = T::default());
            dealloc!(out_anc = T::default());
            dealloc!(halfz_power_2 = T::default());
            dealloc!(halfz_power_nu = T::default());
            dealloc!(halfz = T::default());
            dealloc!(nu_t = T::lit(nu as f64));
            dealloc!(k = T::default());
            dealloc!(fact_nu = T::lit(2.0));
        }
    };
}
bessel!(bessel_right, imul, anc3, &mut anc3);
bessel!(bessel_read_only, imul_ro, anc3, &anc3);
bessel!(bessel_declared_constant, imul_ro, anc3, cst!(&anc3));

/// `J_2'(1) = (J_1(1) - J_3(1)) / 2`.
const DJ2_AT_1: f64 = (0.44005058574493355 - 0.019563353982668407) / 2.0;

#[test]
fn the_bessel_callee_with_a_read_only_parameter_is_reported() {
    // the right program: dJ2/dz(1) = 0.2102
    let (_, gz, _) = nilang::gradient(&BesselRight, (&mut 0.0, &mut 1.0, 2usize), 0);
    assert!((gz.g - DJ2_AT_1).abs() < 1e-8, "{} vs {DJ2_AT_1}", gz.g);
    // the read-only callee: reported, not 0.2298
    let e =
        catch(|| nilang::gradient(&BesselReadOnly, (&mut 0.0, &mut 1.0, 2usize), 0)).unwrap_err();
    assert_eq!(e.kind, ErrorKind::DroppedDerivative);
    assert!(
        e.statement.starts_with("imul_ro(& mut anc1, & anc3"),
        "{}",
        e.statement
    );
    assert!(
        e.detail
            .starts_with("`&anc3` passes a differentiable variable"),
        "{}",
        e.detail
    );
    assert!(
        e.detail.contains("`&mut`") && e.detail.contains("cst!(&anc3)"),
        "{}",
        e.detail
    );
    assert!(e.location.contains("read_only.rs"), "{}", e.location);
    // the declared constant: the derivative through `anc3` is dropped on purpose (0.2298)
    let (_, gz, _) = nilang::gradient(&BesselDeclaredConstant, (&mut 0.0, &mut 1.0, 2usize), 0);
    assert!((gz.g - 0.2298).abs() < 1e-4, "{}", gz.g);
    // on plain numbers all three compute J_2(1)
    for f in [
        bessel_right::<f64>,
        bessel_read_only::<f64>,
        bessel_declared_constant::<f64>,
    ] {
        let mut out = 0.0;
        f(&mut out, &mut 1.0, 2);
        assert!((out - 0.1149034849319005).abs() < 1e-9, "{out}");
    }
}

#[i]
fn square_into<T: Scalar>(out: &mut T, h: &T) {
    out += h * h;
}

/// An `&mut` parameter and an element passed read-only.
#[i]
fn passes_param<T: Scalar>(out: &mut T, z: &mut T) {
    square_into(out, &z);
}
#[i]
fn passes_element<T: Scalar>(out: &mut T, z: &mut [T]) {
    square_into(out, &z[1]);
}
/// A read-only parameter passed on, and a constant: nothing is dropped that was not already.
#[i]
fn passes_read_only<T: Scalar>(out: &mut T, z: &T) {
    square_into(out, &z);
}
#[i]
fn passes_declared<T: Scalar>(out: &mut T, z: &mut T) {
    square_into(out, cst!(&z));
}

#[test]
fn every_writable_variable_passed_read_only_is_reported_under_gradient_only() {
    let e = catch(|| nilang::gradient(&PassesParam, (&mut 0.0, &mut 3.0), 0)).unwrap_err();
    assert_eq!(e.kind, ErrorKind::DroppedDerivative);
    let e = catch(|| {
        nilang::gradient(&PassesElement, (&mut 0.0, &mut [1.0, 3.0][..]), 0);
    })
    .unwrap_err();
    assert_eq!(e.kind, ErrorKind::DroppedDerivative);
    assert!(e.detail.starts_with("`&z [1]`"), "{}", e.detail);
    // a read-only parameter of the caller is NoGrad already (the top-level `&` argument)
    let (g, _) = nilang::gradient(&PassesReadOnly, (&mut 0.0, &3.0), 0);
    assert_eq!(g.g, 1.0);
    let (g, gz) = nilang::gradient(&PassesDeclared, (&mut 0.0, &mut 3.0), 0);
    assert_eq!((g.g, gz.g), (1.0, 0.0));
    // plain numbers run as before, in both directions
    let (mut out, mut z) = (0.0, 3.0);
    passes_param(&mut out, &mut z);
    assert_eq!(out, 9.0);
    passes_param_inv(&mut out, &mut z);
    assert_eq!(out, 0.0);
}

/// The declared constant compiles to the code of today's `&z`: on plain numbers both
/// variants are the same function of their inputs, with no allocation (the probe is a
/// constant `false` branch on `f64`), and `cst!(&z)` has no probe at all (the expansion is
/// `&(*z)` in both cases; see `nilang::ad::read_only`).
#[test]
fn the_constant_declaration_costs_nothing() {
    let before = nilang_testkit::alloc::allocs();
    let mut acc = (0.0, 0.0);
    for k in 0..1000 {
        let mut z = k as f64;
        passes_param(&mut acc.0, &mut z);
        passes_declared(&mut acc.1, &mut z);
    }
    assert_eq!(nilang_testkit::alloc::allocs(), before);
    assert_eq!(acc.0.to_bits(), acc.1.to_bits());
}
