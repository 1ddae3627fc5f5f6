//! Batch numbers (`F64x4`, `F64x8`): a generic program run on lanes gives, lane by lane, what it
//! gives on `f64`; its inverse restores the lanes; its gradient through the gradient API (on
//! `GVar<F64x4>`) is the per-lane gradient, with the kinks of `abs`, `min`, `max`, `sqrt`
//! handled by lane masks.
use nilang::ad::{Plan, Scalar};
use nilang::numbers::{Batch, F64x4, F64x8};
use nilang::prelude::*;

/// A program over every kind of instruction with a kink or an elementary function, without
/// data-dependent branches (integer loop bound `n`).
#[i]
fn mix<T: Scalar>(y: &mut T, a: &mut T, b: &mut T, n: usize) {
    routine! {
        let s = T::default();
        s += sin(a);
        s += b * a;
        let u = T::default();
        u += min(a, b);
        u += max(a, b);
        let q = T::default();
        q += abs2(a);
        let r = T::default();
        r += sqrt(q);
        r += abs(s);
        r += exp(b);
        r += a.powi(3);
        r += abs2(u);
    }
    for _ in 0..n {
        y += r * b;
        y += ln(r);
    }
    y += abs(a);
    unroutine!();
}

/// Lanes: `a` with mixed signs, `b` with `a < b` in some lanes, `a > b` in others, `a = b`
/// in one, `s = 0` (the kink of `sqrt` and `abs`) in one.
fn inputs() -> ([f64; 4], [f64; 4]) {
    ([0.7, -0.4, 1.3, 0.0], [0.2, 0.9, 1.3, -2.0])
}

fn scalar(a: f64, b: f64, n: usize) -> f64 {
    let (mut y, mut a, mut b) = (0.0, a, b);
    mix(&mut y, &mut a, &mut b, n);
    y
}

fn close(x: f64, y: f64, tol: f64) -> bool {
    (x - y).abs() <= tol * (1.0 + y.abs())
}

#[test]
fn a_program_on_lanes_is_the_program_on_each_lane() {
    let (a, b) = inputs();
    let (mut y, mut xa, mut xb) = (F64x4::splat(0.0), F64x4::new(a), F64x4::new(b));
    mix(&mut y, &mut xa, &mut xb, 2);
    for k in 0..4 {
        let want = scalar(a[k], b[k], 2);
        assert!(
            close(y.lane(k), want, 1e-14),
            "lane {k}: {} vs {want}",
            y.lane(k)
        );
    }
    // the inputs are untouched and the inverse takes the output back to zero
    assert_eq!((xa.to_array(), xb.to_array()), (a, b));
    mix_inv(&mut y, &mut xa, &mut xb, 2);
    assert!(y.to_array().iter().all(|v| v.abs() < 1e-13), "{y:?}");
    assert_eq!((xa.to_array(), xb.to_array()), (a, b));
}

#[test]
fn eight_lanes_match_too() {
    let a: [f64; 8] = core::array::from_fn(|k| 0.3 * k as f64 + 0.1);
    let b: [f64; 8] = core::array::from_fn(|k| 1.5 - 0.2 * k as f64);
    let (mut y, mut xa, mut xb) = (F64x8::splat(0.0), F64x8::new(a), F64x8::new(b));
    mix(&mut y, &mut xa, &mut xb, 1);
    for k in 0..8 {
        assert!(close(y.lane(k), scalar(a[k], b[k], 1), 1e-14), "lane {k}");
    }
}

#[test]
fn inverse_is_exact_on_lanes() {
    // a program that changes its input in place: ROT, NEG, INV, HADAMARD, INC and `+=`
    #[i]
    fn shuffle<T: Scalar>(x: &mut T, y: &mut T, t: &mut T) {
        ROT(x, y, t);
        NEG(x);
        INV(y);
        HADAMARD(x, y);
        INC(t);
        x += y * t;
        y -= exp(x);
    }
    let x0 = [0.3, -1.2, 2.5, 0.01];
    let y0 = [1.5, 0.4, -0.8, 3.0];
    let t0 = [0.1, 2.0, -0.7, 1.0];
    let (mut x, mut y, mut t) = (F64x4::new(x0), F64x4::new(y0), F64x4::new(t0));
    shuffle(&mut x, &mut y, &mut t);
    for k in 0..4 {
        let (mut xs, mut ys, mut ts) = (x0[k], y0[k], t0[k]);
        shuffle(&mut xs, &mut ys, &mut ts);
        assert!(close(x.lane(k), xs, 1e-14) && close(y.lane(k), ys, 1e-14));
        assert_eq!(t.lane(k), ts);
    }
    shuffle_inv(&mut x, &mut y, &mut t);
    for k in 0..4 {
        assert!(
            close(x.lane(k), x0[k], 1e-13),
            "x lane {k}: {} vs {}",
            x.lane(k),
            x0[k]
        );
        assert!(
            close(y.lane(k), y0[k], 1e-13),
            "y lane {k}: {} vs {}",
            y.lane(k),
            y0[k]
        );
        assert!((t.lane(k) - t0[k]).abs() < 1e-15, "t lane {k}");
    }
}

#[test]
fn gradient_on_lanes_is_the_gradient_of_each_lane() {
    let (a, b) = inputs();
    let mut plan = Plan::new();
    let (v, (gy, ga, gb, _)) = plan.value_and_gradient(
        &Mix,
        (
            &mut F64x4::splat(0.0),
            &mut F64x4::new(a),
            &mut F64x4::new(b),
            2usize,
        ),
        0,
    );
    assert_eq!(gy.g.to_array(), [1.0; 4]);
    for k in 0..4 {
        let (mut y, mut sa, mut sb) = (0.0_f64, a[k], b[k]);
        let (vs, (_, sga, sgb, _)) =
            nilang::ad::value_and_gradient(&Mix, (&mut y, &mut sa, &mut sb, 2usize), 0);
        assert!(close(v.lane(k), vs, 1e-14), "value lane {k}");
        assert!(
            close(ga.g.lane(k), sga.g, 1e-13),
            "da lane {k}: {} vs {}",
            ga.g.lane(k),
            sga.g
        );
        assert!(
            close(gb.g.lane(k), sgb.g, 1e-13),
            "db lane {k}: {} vs {}",
            gb.g.lane(k),
            sgb.g
        );
    }
}

#[test]
fn kinks_take_their_branch_lane_by_lane() {
    #[i]
    fn kinks<T: Scalar>(y: &mut T, a: &mut T, b: &mut T) {
        y += abs(a);
        y += min(a, b);
        y += max(a, b);
        y += max(a, b);
        y += sqrt(b);
        y += a.powi(3);
    }
    let a = [-1.0, 2.0, 0.0, 3.0];
    let b = [0.5, 4.0, 0.0, 1.0];
    let st = nilang::gradient(
        &Kinks,
        (
            &mut F64x4::splat(0.0),
            &mut F64x4::new(a),
            &mut F64x4::new(b),
        ),
        0,
    );
    // d/da: sign(a) (+1 at 0) + [a <= b] + 2 [a >= b] + 3a²
    assert_eq!(
        st.1.g.to_array(),
        [
            -1.0 + 1.0 + 3.0,
            1.0 + 1.0 + 12.0,
            1.0 + 1.0 + 2.0,
            1.0 + 2.0 + 27.0
        ]
    );
    // d/db: [b < a] + 2 [a < b] + 1/(2 sqrt b) (0 at b = 0)
    let db = st.2.g.to_array();
    let want = [2.0 + 0.5 / 0.5_f64.sqrt(), 2.0 + 0.25, 0.0, 1.0 + 0.5];
    for k in 0..4 {
        assert!(
            (db[k] - want[k]).abs() < 1e-15,
            "lane {k}: {} vs {}",
            db[k],
            want[k]
        );
    }
}

#[test]
fn masks_and_lane_maximum() {
    use nilang::ad::LaneOrd;
    let a = F64x4::new([1.0, f64::NAN, -3.0, 2.0]);
    let b = F64x4::splat(1.0);
    assert_eq!(a.le_mask(&b).to_array(), [1.0, 0.0, 1.0, 0.0]);
    assert_eq!(a.lt_mask(&b).to_array(), [0.0, 0.0, 1.0, 0.0]);
    let m = nilang::ad::max_of(&[a, F64x4::new([0.0, 5.0, -4.0, 7.0])]);
    assert_eq!(m.to_array(), [1.0, 5.0, -3.0, 7.0]);
    let g = GVar::new(a, b).le_mask(&GVar::from(b));
    assert_eq!(
        (g.x.to_array(), g.g.to_array()),
        ([1.0, 0.0, 1.0, 0.0], [0.0; 4])
    );
}

#[test]
fn lanes_fill_and_reduce() {
    fn total<B: Batch>(v: &[f64]) -> f64 {
        B::from_fn(|k| v[k]).sum()
    }
    let v: Vec<f64> = (1..=8).map(f64::from).collect();
    assert_eq!(total::<F64x4>(&v), 10.0);
    assert_eq!(total::<F64x8>(&v), 36.0);
    assert_eq!(F64x4::LANES, 4);
    assert_eq!(<F64x8 as Batch>::LANES, 8);
    assert_eq!(
        format!("{:?}", F64x4::splat(1.5)),
        "F64x4([1.5, 1.5, 1.5, 1.5])"
    );
}

#[test]
fn elementary_functions_agree_with_f64() {
    // exp, ln, sqrt are SIMD; the others run lane by lane
    let xs = [1e-300, 0.3, 2.5, 700.0];
    let v = F64x4::new(xs);
    type B = F64x4;
    let one = |f: fn(f64) -> f64, g: fn(B) -> B| {
        let r = g(v);
        for (k, &x) in xs.iter().enumerate() {
            assert!(
                close(r.lane(k), f(x), 5e-16),
                "lane {k}: {} vs {}",
                r.lane(k),
                f(x)
            );
        }
    };
    use nilang::instr::{fns, Func};
    one(f64::exp, |x| <fns::Exp as Func<(B,)>>::eval((x,)));
    one(f64::ln, |x| <fns::Ln as Func<(B,)>>::eval((x,)));
    one(f64::sqrt, |x| <fns::Sqrt as Func<(B,)>>::eval((x,)));
    one(f64::tanh, |x| <fns::Tanh as Func<(B,)>>::eval((x,)));
    one(f64::asinh, |x| <fns::Asinh as Func<(B,)>>::eval((x,)));
    let _ = <B as Scalar>::lit(1.0);
}

#[test]
fn simd_exp_is_within_two_ulps_of_f64_exp() {
    use nilang::instr::{fns, Func};
    let ulps = |a: f64, b: f64| (a.to_bits() as i64 - b.to_bits() as i64).unsigned_abs();
    let mut worst = 0;
    // a dense sweep of the whole range, subnormal results included
    let n = 400_000;
    for i in 0..n {
        let x0 = -745.0 + 1455.0 * (i as f64 + 0.37) / n as f64;
        let xs = [x0, x0 * 1e-3, x0 * 1e-7, -x0 * 0.01];
        let e = <fns::Exp as Func<(F64x8,)>>::eval((F64x8::from_fn(|k| xs[k % 4]),));
        for (k, x) in xs.iter().enumerate() {
            let want = x.exp();
            worst = worst.max(ulps(e.lane(k), want));
        }
    }
    assert!(worst <= 2, "worst error {worst} ulps");
    let special = [
        0.0,
        -0.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
        709.78,
        709.79,
        -745.2,
        -800.0,
    ];
    let e = <fns::Exp as Func<(F64x8,)>>::eval((F64x8::new(special),));
    for (k, x) in special.iter().enumerate() {
        let (got, want) = (e.lane(k), x.exp());
        assert!(
            got == want || ulps(got, want) <= 2,
            "exp({x}) = {got}, want {want}"
        );
    }
    let e = <fns::Exp as Func<(F64x4,)>>::eval((F64x4::splat(f64::NAN),));
    assert!(e.lane(0).is_nan());
}
