//! Logarithmic numbers in reversible programs: NiLang's `examples/lognumber.jl` (`i_power`,
//! `i_exp` on `Fixed43` through `ULog`, inventory §5.3 case 26) and the `ULog` instructions of
//! case 25.
use nilang::prelude::*;

/// `y += x^n`, computed as a product of log numbers.
#[i]
fn i_power(y: &mut Fixed43, x: &Fixed43, n: i32) {
    routine! {
        let lx = ULog::<Fixed43>::default();
        let ly = ULog::<Fixed43>::default();
        if x != 0 {
            lx *= convert(x);
        }
        for _i in 0..n {
            ly *= lx;
        }
    }
    y += convert(ly);
    unroutine!();
}

/// `y += exp(x)` by its Taylor series, the terms `x^k / k!` kept as log numbers.
#[i(nocheck)]
fn i_exp(y: &mut Fixed43, x: &Fixed43) {
    routine! {
        let s = ULog::<Fixed43>::default();
        let lx = ULog::<Fixed43>::default();
        let k = 0_i32;
    }
    lx *= convert(x);
    y += convert(s);
    #[from(k == 0)]
    while s.log > -20 {
        k += 1;
        s *= lx / k;
        y += convert(s);
    }
    inv! {
        #[from(k == 0)]
        while s.log > -20 {
            k += 1;
            s *= x / k;
        }
    }
    lx /= convert(x);
    unroutine!();
}

#[test]
fn case26_i_power() {
    let (mut y, x) = (Fixed43::ZERO, Fixed43::from_num(0.4));
    i_power(&mut y, &x, 3);
    assert!((y.to_num::<f64>() - 0.064).abs() < 1e-11, "{y}");
    i_power_inv(&mut y, &x, 3);
    assert_eq!(y.to_bits(), 0);
    assert_eq!(x, Fixed43::from_num(0.4));
    // x^0 = 1
    let mut y = Fixed43::ZERO;
    i_power(&mut y, &Fixed43::ZERO, 0);
    assert_eq!(y, Fixed43::ONE);
}

#[test]
fn case26_i_exp() {
    let (mut y, x) = (Fixed43::ZERO, Fixed43::from_num(3.5));
    i_exp(&mut y, &x);
    assert!((y.to_num::<f64>() - 33.11545195869231).abs() < 1e-9, "{y}");
    i_exp_inv(&mut y, &x);
    assert_eq!(y.to_bits(), 0);
    let y0 = Fixed43::from_num(-1.25);
    let mut y = y0;
    i_exp(&mut y, &Fixed43::from_num(0.5));
    assert!((y.to_num::<f64>() - (0.5f64.exp() - 1.25)).abs() < 1e-9);
    i_exp_inv(&mut y, &Fixed43::from_num(0.5));
    assert_eq!(y.to_bits(), y0.to_bits());
}

/// Inventory case 25 as a reversible function on `f64` logs.
#[i]
fn ulog_ops(x: &mut ULog<f64>, y: &mut ULog<f64>, z: &mut ULog<f64>) {
    x *= y + z;
    x /= y + z;
    x *= y - z;
    x *= y.powf(3.4);
    x *= 3;
}

#[test]
fn case25_ulog_instructions() {
    let (mut x, mut y, mut z) = (
        ULog::from_log(7.0),
        ULog::from_log(5.0),
        ULog::from_log(3.0),
    );
    ulog_ops(&mut x, &mut y, &mut z);
    let want = 7.0 + (5f64.exp() - 3f64.exp()).ln() + 5.0 * 3.4 + 3f64.ln();
    assert!((x.log - want).abs() < 1e-12, "{} vs {want}", x.log);
    ulog_ops_inv(&mut x, &mut y, &mut z);
    assert!((x.log - 7.0).abs() < 1e-12);
    assert_eq!((y.log, z.log), (5.0, 3.0));
}

#[i]
fn ulog_muleq(x: &mut ULog<f64>, y: &ULog<f64>) {
    x *= y;
}
#[i]
fn power3(out: &mut ULog<f64>, x: &ULog<f64>) {
    out *= x.powi(3);
}
#[i]
fn to_real(y: &mut f64, s: &ULog<f64>) {
    y += convert(s);
}

#[test]
fn case25_notebook() {
    let mut x = ULog::from_value(1.0);
    ulog_muleq(&mut x, &ULog::from_value(3.0));
    assert_eq!(x, ULog::from_value(3.0));
    let mut out = ULog::from_value(1.0);
    power3(&mut out, &ULog::from_value(3.0));
    assert!((out.value() - 27.0).abs() < 1e-12);
    let mut y = 1.0;
    to_real(&mut y, &out);
    assert!((y - 28.0).abs() < 1e-12);
    to_real_inv(&mut y, &out);
    assert!((y - 1.0).abs() < 1e-14);
}
