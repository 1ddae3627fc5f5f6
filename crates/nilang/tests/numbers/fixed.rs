//! Fixed-point numbers in reversible programs: `+=`/`-=` are exact, so inverses restore
//! inputs bit for bit (inventory §2.2 "Fixed point", §5.3 case 23).
use nilang::prelude::*;

#[i]
fn half(out: &mut Fixed43, x: &Fixed43) {
    out += x / 2;
}

#[i]
fn div_int(out: &mut Fixed43, x: &Fixed43, k: i64) {
    out += x / k;
}

#[test]
fn case23_fixed_half() {
    let mut out = Fixed43::ZERO;
    half(&mut out, &Fixed43::ONE);
    assert_eq!(out, Fixed43::from_num(0.5));
    half_inv(&mut out, &Fixed43::ONE);
    assert_eq!(out, Fixed43::ZERO);
    div_int(&mut out, &Fixed43::from_num(3), 4);
    assert_eq!(out, Fixed43::from_num(0.75));
    div_int_inv(&mut out, &Fixed43::from_num(3), 4);
    assert_eq!(out, Fixed43::ZERO);
}

/// A mix of products, elementary functions and conversions (accumulating instructions only:
/// `ROT`, `HADAMARD` and `INV` round and are not bit-exact on fixed point).
#[i]
fn mixed(y: &mut Fixed43, z: &mut Fixed43, w: &mut f64, x: &mut Fixed43, f: &f64, n: usize) {
    for _k in 0..n {
        y += x * z;
        y -= exp(x);
        z += sin(y);
        z -= y / 7;
        y += abs(z);
        y -= hypot(x, z);
        y += x.powi(3);
        y += atan2(z, x);
        z += convert(f);
        w += convert(y);
        y += x * 0.25;
    }
}

#[test]
fn mixed_program_inverts_bit_exactly() {
    let mut x = Fixed43::from_num(0.7);
    let (y0, z0, w0) = (Fixed43::from_num(0.1), Fixed43::from_num(-0.3), 2.5);
    let (mut y, mut z, mut w) = (y0, z0, w0);
    mixed(&mut y, &mut z, &mut w, &mut x, &0.3, 50);
    assert_ne!(y, y0);
    mixed_inv(&mut y, &mut z, &mut w, &mut x, &0.3, 50);
    assert_eq!((y.to_bits(), z.to_bits()), (y0.to_bits(), z0.to_bits()));
    assert!((w - w0).abs() < 1e-9);
}

#[i]
fn fixed32_ops(y: &mut Fixed32, x: &mut Fixed32) {
    y += ln(x);
    INC(x);
    y += abs2(x);
    NEG(y);
}

#[test]
fn fixed32_program() {
    let (mut y, mut x) = (Fixed32::ZERO, Fixed32::from_num(2));
    fixed32_ops(&mut y, &mut x);
    assert!((y.to_num::<f64>() + 2f64.ln() + 9.0).abs() < 1e-8);
    assert_eq!(x, Fixed32::from_num(3));
    fixed32_ops_inv(&mut y, &mut x);
    assert_eq!((y, x), (Fixed32::ZERO, Fixed32::from_num(2)));
}

#[i]
fn to_fixed(y: &mut Fixed43, x: &f64) {
    let t = Fixed43::ZERO;
    t += convert(x);
    y += t.powi(2);
    t -= convert(x);
    dealloc!(t = Fixed43::ZERO);
}

#[test]
fn float_fixed_conversion() {
    let mut y = Fixed43::ZERO;
    to_fixed(&mut y, &1.5);
    assert_eq!(y, Fixed43::from_num(2.25));
    to_fixed_inv(&mut y, &1.5);
    assert_eq!(y, Fixed43::ZERO);
}

#[i]
fn rotate(a: &mut Fixed43, b: &mut Fixed43, t: &mut Fixed43) {
    ROT(a, b, t);
}

#[test]
fn rotation_inverts_up_to_rounding() {
    let (mut a, mut b, mut t) = (Fixed43::ONE, Fixed43::ZERO, Fixed43::from_num(0.5));
    rotate(&mut a, &mut b, &mut t);
    assert!((a.to_num::<f64>() - 0.5f64.cos()).abs() < 1e-12);
    assert!((b.to_num::<f64>() - 0.5f64.sin()).abs() < 1e-12);
    rotate_inv(&mut a, &mut b, &mut t);
    assert!((a - Fixed43::ONE).abs() <= 4 * Fixed43::DELTA && b.abs() <= 4 * Fixed43::DELTA);
}
