//! The rules generated from the table of elementary functions (`nilang_functions`), bit for
//! bit against the expressions written by hand before the table: reverse mode unchanged for
//! every row; forward mode unchanged except where the expression changed (`asin`, `acos`,
//! `atan`: `eps / d` for `eps · (1 / d)`; `exp_m1`: `r + 1` for `exp x`, as the reverse rule).
use nilang::instr::fns::*;
use nilang::instr::PlusEq1;
use nilang::{Dual, GVar};

/// `(ȳ ∘ d)`-part of `y -= f(x)` on gradient numbers: the adjoint of `x` after the rule, with
/// `x̄ = 0.25` before, `ȳ = 1.5`; and the value of `y` (from 0.5).
fn reverse<F>(x: f64) -> (f64, f64)
where
    GVar<f64>: PlusEq1<F, GVar<f64>>,
{
    let mut y = GVar { x: 0.5, g: 1.5 };
    let mut a = GVar { x, g: 0.25 };
    <GVar<f64> as PlusEq1<F, GVar<f64>>>::minus_eq(&mut y, &mut a);
    (y.x, a.g)
}

const POINTS: [f64; 5] = [0.3, 0.7, -0.4, 0.05, -0.85];

#[test]
fn reverse_rules_are_the_hand_written_expressions() {
    let gy = 1.5;
    let one = 1.0_f64;
    for x in POINTS {
        let want = |fx: f64, ga: f64| (0.5 - fx, ga);
        assert_eq!(reverse::<Sin>(x), want(x.sin(), 0.25 + gy * x.cos()));
        assert_eq!(reverse::<Cos>(x), want(x.cos(), 0.25 - gy * x.sin()));
        let t = x.tan();
        assert_eq!(reverse::<Tan>(x), want(t, 0.25 + gy * (t * t + one)));
        let s = (one - x * x).sqrt();
        assert_eq!(reverse::<Asin>(x), want(x.asin(), 0.25 + gy / s));
        assert_eq!(reverse::<Acos>(x), want(x.acos(), 0.25 - gy / s));
        assert_eq!(
            reverse::<Atan>(x),
            want(x.atan(), 0.25 + gy / (x * x + one))
        );
        assert_eq!(reverse::<Sinh>(x), want(x.sinh(), 0.25 + gy * x.cosh()));
        assert_eq!(reverse::<Cosh>(x), want(x.cosh(), 0.25 + gy * x.sinh()));
        let t = x.tanh();
        assert_eq!(reverse::<Tanh>(x), want(t, 0.25 + gy * (one - t * t)));
        let e = x.exp();
        assert_eq!(reverse::<Exp>(x), want(e, 0.25 + gy * e));
        let e = x.exp_m1();
        assert_eq!(reverse::<ExpM1>(x), want(e, 0.25 + gy * (e + one)));
        assert_eq!(reverse::<Ln1p>(x), want(x.ln_1p(), 0.25 + gy / (x + one)));
        let s = (x * x + one).sqrt();
        assert_eq!(reverse::<Asinh>(x), want(x.asinh(), 0.25 + gy / s));
        let q = one - x * x;
        assert_eq!(reverse::<Atanh>(x), want(x.atanh(), 0.25 + gy / q));
        let p = x.abs();
        assert_eq!(reverse::<Ln>(p), want(p.ln(), 0.25 + gy / p));
    }
}

#[test]
fn forward_rules_are_the_hand_written_expressions() {
    use nilang::Real;
    let one = 1.0_f64;
    for x in POINTS {
        let d = Dual::new(x, 0.75);
        let e = 0.75;
        let is = |got: Dual<f64>, v: f64, eps: f64| {
            assert_eq!((got.x, got.eps), (v, eps), "at {x}");
        };
        is(d.sin(), x.sin(), e * x.cos());
        is(d.cos(), x.cos(), e * -x.sin());
        let t = x.tan();
        is(d.tan(), t, e * (one + t * t));
        let s = (one - x * x).sqrt();
        is(d.asin(), x.asin(), e / s);
        is(d.acos(), x.acos(), -(e / s));
        is(d.atan(), x.atan(), e / (one + x * x));
        is(d.sinh(), x.sinh(), e * x.cosh());
        is(d.cosh(), x.cosh(), e * x.sinh());
        let t = x.tanh();
        is(d.tanh(), t, e * (one - t * t));
        is(d.exp(), x.exp(), e * x.exp());
        is(d.exp_m1(), x.exp_m1(), e * (x.exp_m1() + one));
        is(d.ln_1p(), x.ln_1p(), e / (one + x));
        is(d.asinh(), x.asinh(), e / (x * x + one).sqrt());
        is(d.atanh(), x.atanh(), e / (one - x * x));
        let p = Dual::new(x.abs(), 0.75);
        is(p.ln(), x.abs().ln(), e / x.abs());
    }
}

/// `asinh` (the function added as one row of the table) on four lanes: lane `k` of the rule
/// on `GVar<F64x4>` is the rule on `GVar<f64>` at lane `k`'s input, bit for bit; the value in
/// plain and fixed-point numbers.
#[test]
fn asinh_on_lanes_and_other_numbers() {
    use nilang::numbers::{F64x4, Fixed43};
    use nilang::Real;
    let xs = [0.3, -1.7, 2.5, -0.05];
    let mut y = GVar {
        x: F64x4::splat(0.5),
        g: F64x4::splat(1.5),
    };
    let mut a = GVar {
        x: F64x4::new(xs),
        g: F64x4::splat(0.25),
    };
    <GVar<F64x4> as PlusEq1<Asinh, GVar<F64x4>>>::minus_eq(&mut y, &mut a);
    for (k, &x) in xs.iter().enumerate() {
        assert_eq!((y.x.lane(k), a.g.lane(k)), reverse::<Asinh>(x), "lane {k}");
    }
    assert_eq!(Real::asinh(0.75_f32), 0.75_f32.asinh());
    let f = Fixed43::from_num(0.75);
    assert_eq!(Real::asinh(f), Fixed43::from_num(0.75_f64.asinh()));
}

/// `atanh` (added as one row of the table): on four and on eight lanes, lane `k` of the rule on
/// `GVar<F64x4>` (`GVar<F64x8>`) is the rule on `GVar<f64>` at lane `k`'s input, bit for bit;
/// the derivative against a central difference; the value in `f32` and fixed point.
#[test]
fn atanh_on_lanes_and_other_numbers() {
    use nilang::numbers::{F64x4, F64x8, Fixed43};
    use nilang::Real;
    let xs = [0.3, -0.7, 0.95, -0.05, 0.5, -0.99, 0.0, 0.6];
    let mut y4 = GVar {
        x: F64x4::splat(0.5),
        g: F64x4::splat(1.5),
    };
    let mut a4 = GVar {
        x: F64x4::new([xs[0], xs[1], xs[2], xs[3]]),
        g: F64x4::splat(0.25),
    };
    <GVar<F64x4> as PlusEq1<Atanh, GVar<F64x4>>>::minus_eq(&mut y4, &mut a4);
    let mut y8 = GVar {
        x: F64x8::splat(0.5),
        g: F64x8::splat(1.5),
    };
    let mut a8 = GVar {
        x: F64x8::new(xs),
        g: F64x8::splat(0.25),
    };
    <GVar<F64x8> as PlusEq1<Atanh, GVar<F64x8>>>::minus_eq(&mut y8, &mut a8);
    for (k, &x) in xs.iter().enumerate() {
        let want = reverse::<Atanh>(x);
        if k < 4 {
            assert_eq!((y4.x.lane(k), a4.g.lane(k)), want, "4 lanes, lane {k}");
        }
        assert_eq!((y8.x.lane(k), a8.g.lane(k)), want, "8 lanes, lane {k}");
        // x̄ = 0.25 + ȳ · atanh'(x), ȳ = 1.5
        let h = 1e-6;
        let fd = ((x + h).atanh() - (x - h).atanh()) / (2.0 * h);
        let d = (want.1 - 0.25) / 1.5;
        assert!((d - fd).abs() < 1e-6 * fd.abs(), "x = {x}: {d} vs {fd}");
    }
    assert_eq!(Real::atanh(0.75_f32), 0.75_f32.atanh());
    let f = Fixed43::from_num(0.75);
    assert_eq!(Real::atanh(f), Fixed43::from_num(0.75_f64.atanh()));
}

/// `softplus` (a row of the table whose derivative, the sigmoid `1 / (exp(−x) + 1)`, is a sum
/// starting with `−`): the reverse rule is the row's expression, the forward rule too; the
/// value is `ln(1 + eˣ)` without overflow; the derivative against a central difference and at
/// the infinities; `f32` and fixed point.
#[test]
fn softplus_rules_and_values() {
    use nilang::numbers::Fixed43;
    use nilang::Real;
    let gy = 1.5;
    for x in POINTS.iter().chain(&[12.0, -30.0, 700.0, 800.0, -800.0]) {
        let x = *x;
        let r = x.softplus();
        let naive = x.exp().ln_1p();
        if naive.is_finite() {
            assert!(
                (r - naive).abs() <= 4.0 * f64::EPSILON * naive.max(1e-300),
                "{x}"
            );
        } else {
            assert_eq!(r, x);
        }
        let d = (-0.0 - x).exp() + 1.0;
        assert_eq!(reverse::<Softplus>(x), (0.5 - r, 0.25 + gy / d));
        let f = Dual::new(x, 0.75).softplus();
        assert_eq!((f.x, f.eps), (r, 0.75 / d));
        // the sigmoid of `x` alone, as `exp(x − r)` computes it from the value (to rounding)
        let sigma = (x - r).exp();
        assert!(
            (1.0 / d - sigma).abs() <= 1e-15 + 1e-13 * sigma,
            "{x}: {} vs {sigma}",
            1.0 / d
        );
    }
    // `exp(x − r)` was NaN at `+∞` (`∞ − ∞`); the sigmoid is 1 there, 0 at `−∞`
    assert_eq!(reverse::<Softplus>(f64::INFINITY).1, 0.25 + gy);
    assert_eq!(reverse::<Softplus>(f64::NEG_INFINITY).1, 0.25);
    let h = 1e-6;
    for x in POINTS {
        let fd = ((x + h).softplus() - (x - h).softplus()) / (2.0 * h);
        assert!(
            (0.25 + gy * fd - reverse::<Softplus>(x).1).abs() < 1e-8,
            "{x}"
        );
    }
    assert!((Real::softplus(0.75_f32) - 0.75_f32.exp().ln_1p()).abs() <= 2.0 * f32::EPSILON);
    let f = Fixed43::from_num(0.75);
    assert_eq!(Real::softplus(f), Fixed43::from_num(0.75_f64.softplus()));
}
