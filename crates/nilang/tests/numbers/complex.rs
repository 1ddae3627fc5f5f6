//! Complex numbers in reversible programs (inventory §2.2 "Complex numbers", §5.3 case 24).
use nilang::prelude::*;
use num_complex::Complex64 as C;

#[i]
fn add_complex(a: &mut C) {
    a += complex(2.0, 2.0);
}
#[i]
fn add_parts(a: &mut C, re: &f64, im: &f64) {
    a += complex(re, im);
}

/// `|a * b|` through a routine.
#[i]
fn abs_prod(out: &mut f64, a: &C, b: &C) {
    routine! {
        let p = C::default();
        p += a * b;
    }
    out += abs(p);
    unroutine!();
}

#[i]
fn funcs(x: &mut C, y: &C) {
    x += exp(y);
    x += ln(y);
    x += y;
    x += y.sqrt();
    x += inv(y);
    x += conj(y);
    x += y.powf(0.5);
    x += y * 2.0;
}

#[i]
fn real_parts(r: &mut f64, z: &C) {
    r += abs2(z);
    r += arg(z);
    r += abs(z);
}

#[test]
fn case24_complex() {
    let mut a = C::new(1.0, 2.0);
    add_complex(&mut a);
    assert_eq!(a, C::new(3.0, 4.0));
    add_complex_inv(&mut a);
    assert_eq!(a, C::new(1.0, 2.0));
    add_parts(&mut a, &2.0, &2.0);
    assert_eq!(a, C::new(3.0, 4.0));

    let mut out = 0.0;
    abs_prod(&mut out, &C::new(1.0, 2.0), &C::new(2.0, 1.0));
    assert_eq!(out, 5.0);
    abs_prod_inv(&mut out, &C::new(1.0, 2.0), &C::new(2.0, 1.0));
    assert_eq!(out, 0.0);

    let (x0, y) = (C::new(0.5, 0.2), C::new(2.0, 1.0));
    let mut x = x0;
    funcs(&mut x, &y);
    let want = x0 + y.exp() + y.ln() + y + y.sqrt() + y.inv() + y.conj() + y.sqrt() + 2.0 * y;
    assert!((x - want).norm() < 1e-13, "{x} vs {want}");
    funcs_inv(&mut x, &y);
    assert!((x - x0).norm() < 1e-13);

    let mut r = 1.0;
    real_parts(&mut r, &C::new(3.0, 4.0));
    assert!((r - (1.0 + 25.0 + 4f64.atan2(3.0) + 5.0)).abs() < 1e-14);
    real_parts_inv(&mut r, &C::new(3.0, 4.0));
    assert!((r - 1.0).abs() < 1e-14);
}

/// Notebook: `complex_log(0.0im, 3.0+2.0im)[1] ≈ log(3+2im)`.
#[i]
fn complex_log(y: &mut C, x: &C) {
    y += ln(x);
}

#[test]
fn complex_log_and_conj() {
    let mut y = C::default();
    complex_log(&mut y, &C::new(3.0, 2.0));
    assert_eq!(y, C::new(3.0, 2.0).ln());
    let mut z = C::new(1.0, 2.0);
    CONJ(&mut z);
    assert_eq!(z, C::new(1.0, -2.0));
}
