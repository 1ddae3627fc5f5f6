//! NiLang's AD acceptance cases (inventory §5.3) not in `ad_api.rs`: 28 (rest), 29, 30
//! (notebook), 31 (NiLang's exact points), 34, 36, 37. Case 33 is in `ad_complex.rs`, case 35
//! (Bessel) in `nilang-apps`.
use nilang::ad::{self, Grad};
use nilang::prelude::*;

#[i]
fn plus_identity<T: Scalar>(x: &mut T, y: &mut T) {
    x += y;
}
#[i]
fn plus_identity_nograd<T: Scalar>(x: &mut T, y: &T) {
    x += y;
}

#[test]
fn case_28_identity_and_nograd() {
    let (mut x, mut y) = (GVar::from(3.0), GVar::from(4.0));
    Grad::new(PlusIdentity, 0).call((&mut x, &mut y));
    assert_eq!((x.g, y.g), (1.0, 1.0));
    // check_inv: ~Grad restores everything
    Grad::new(PlusIdentity, 0).uncall((&mut x, &mut y));
    assert_eq!((x, y), (GVar::from(3.0), GVar::from(4.0)));
    // NoGrad(y): a read-only argument gets no gradient
    let (mut x, y) = (3.0, 4.0);
    let (gx, gy) = nilang::gradient(&PlusIdentityNograd, (&mut x, &y), 0);
    assert_eq!((gx.g, gy.g), (1.0, 0.0));
}

#[i]
fn test2<T: Scalar>(a: &mut T, b: &mut T, out: &mut T) {
    a += b;
    out += a * b;
}

#[test]
fn case_29_backward_pass_on_given_adjoints() {
    // (~test2).(GVar([3,1.0]), GVar([4,2.0]), GVar.([0.0,1.0], [0.0,2.0]))
    let (xs, ys, outs, gouts) = ([3.0, 1.0], [4.0, 2.0], [0.0, 1.0], [0.0, 2.0]);
    let mut got = vec![];
    for k in 0..2 {
        let (mut a, mut b, mut o) = (
            GVar::from(xs[k]),
            GVar::from(ys[k]),
            GVar::new(outs[k], gouts[k]),
        );
        test2_inv(&mut a, &mut b, &mut o);
        got.push((o.g, a.g, b.g));
    }
    assert_eq!(got, vec![(0.0, 0.0, 0.0), (2.0, 4.0, 6.0)]);
}

#[i]
fn f1<T: Scalar>(x: &mut T, y: &mut T, constant: &T) {
    x += y * constant;
}

#[test]
fn case_30_constant_operand() {
    let (mut x, mut y) = (1.0, 2.0);
    f1(&mut x, &mut y, &5.0);
    assert_eq!((x, y), (11.0, 2.0));
    let (mut x, mut y) = (1.0, 2.0);
    let (gx, gy, _) = nilang::gradient(&F1, (&mut x, &mut y, &5.0), 0);
    assert_eq!((gx.g, gy.g), (1.0, 5.0));
}

// Case 31 at NiLang's exact points (every rule is also checked at random points in
// `ad_rules.rs`): `check_grad` of `y ±= f(args)` with the loss `y`.
#[i]
fn c1<T: Scalar>(y: &mut T, a: &mut T, sign: bool) {
    if sign {
        y += sqrt(a);
        y += exp(a);
        y += ln(a);
        y += sin(a);
        y += sinh(a);
        y += cos(a);
        y += cosh(a);
        y += tan(a);
        y += tanh(a);
        y += inv(a);
    } else {
        y -= sqrt(a);
        y -= exp(a);
        y -= ln(a);
        y -= sin(a);
        y -= sinh(a);
        y -= cos(a);
        y -= cosh(a);
        y -= tan(a);
        y -= tanh(a);
        y -= inv(a);
    }
}
#[i]
fn c2<T: Scalar>(y: &mut T, a: &mut T, b: &mut T) {
    y += a * b;
    y -= a + b;
    y += a - b;
    y -= a / b;
    y += powf(a, b);
    y -= atan2(a, b);
    y += min(a, b);
    y -= max(a, b);
}

#[test]
fn case_31_check_grad_at_nilang_points() {
    for sign in [true, false] {
        let (mut y, mut a) = (1.0, 2.0);
        ad::check_grad(&C1, (&mut y, &mut a, sign), 0, 1, 1e-8, 1e-6).unwrap();
    }
    for (a0, b0) in [(2.0, 2.0), (2.0, 3.0), (3.0, 2.0)] {
        let (mut y, mut a, mut b) = (1.0, a0, b0);
        if a0 == b0 {
            // min/max are not differentiable at a tie: check the rest by the gradient values
            let (_, ga, gb) = nilang::gradient(&C2, (&mut y, &mut a, &mut b), 0);
            let (pa, pb) = (b0 * a0.powf(b0 - 1.0), a0.powf(b0) * a0.ln());
            let (ta, tb) = (b0 / (a0 * a0 + b0 * b0), -a0 / (a0 * a0 + b0 * b0));
            // min(a,b) takes a, max(a,b) takes a at a tie
            let ea = b0 - 1.0 + 1.0 - 1.0 / b0 + pa - ta + 1.0 - 1.0;
            let eb = a0 - 1.0 - 1.0 + a0 / (b0 * b0) + pb - tb;
            assert!((ga.g - ea).abs() < 1e-14 && (gb.g - eb).abs() < 1e-14);
        } else {
            ad::check_grad(&C2, (&mut y, &mut a, &mut b), 0, 1, 1e-8, 1e-6).unwrap();
            ad::check_grad(&C2, (&mut y, &mut a, &mut b), 0, 2, 1e-8, 1e-6).unwrap();
        }
    }
    for x0 in [0.2, -0.2] {
        let (mut y, mut a) = (1.0, x0);
        ad::check_grad(&C3, (&mut y, &mut a), 0, 1, 1e-8, 1e-6).unwrap();
    }
    // gradient(opm(sqrt), (1.0, 0.0); iloss=1)[2] == 0
    let (mut y, mut a) = (1.0, 0.0);
    let (_, ga) = nilang::gradient(&Sqrt0, (&mut y, &mut a), 0);
    assert_eq!(ga.g, 0.0);
}
#[i]
fn c3<T: Scalar>(y: &mut T, a: &mut T) {
    y += asin(a);
    y -= acos(a);
    y += abs(a);
    y -= abs2(a);
    y += atan(a);
}
#[i]
fn sqrt0<T: Scalar>(y: &mut T, a: &mut T) {
    y += sqrt(a);
}

#[i]
fn ancilla_from_constant<T: Scalar>(z: &mut T, y: &mut T) {
    let x = T::default();
    x += y;
    z += x;
    x -= y;
    dealloc!(x = T::default());
}

#[test]
fn case_34_constant_allocated_ancilla() {
    // NiLang's `x ← y` version gives the wrong (1.0, 0.0) silently; ours does not compile
    // (tests/compile_fail/ad_ancilla_from_variable.rs). The constant-allocated version:
    let (mut z, mut y) = (0.0, 1.0);
    let (gz, gy) = nilang::gradient(&AncillaFromConstant, (&mut z, &mut y), 0);
    assert_eq!((gz.g, gy.g), (1.0, 1.0));
}

#[i]
fn pm<T: Scalar>(y: &mut T, x: &mut [T; 2]) {
    y += x[0] * x[1];
}
#[i]
fn longer<T: Scalar>(y: &mut T, x: &mut [T; 3]) {
    x[0] += x[1] * x[2];
    x[1] += x[0].powi(2);
    y += x[1] / x[2];
    ROT(&mut x[0], &mut x[1], &mut x[2]);
    y += powf(x[0], 3.0);
    y += x[1] * x[2];
}

#[test]
fn case_36_hessian_backback() {
    let (mut y, mut x) = (0.0, [2.0, 3.0]);
    let h = ad::hessian_rev_rev(&Pm, (&mut y, &mut x), 0, 1);
    assert_eq!(h, vec![vec![0.0, 1.0], vec![1.0, 0.0]]);
    // the longer program vs finite differences of the gradient (hessian_numeric), atol 1e-8
    let x0 = [0.6, 0.8, 1.1];
    let (mut y, mut x) = (0.0, x0);
    let hr = ad::hessian_rev_rev(&Longer, (&mut y, &mut x), 0, 1);
    let hf = ad::hessian_fwd_rev(&Longer, (&mut y, &mut x), 0, 1);
    let grad_at = |x: [f64; 3]| {
        let (mut y, mut xx) = (0.0, x);
        let (_, g) = nilang::gradient(&Longer, (&mut y, &mut xx), 0);
        g.map(|v| v.g)
    };
    for i in 0..3 {
        let e = 1e-6;
        let (mut xp, mut xm) = (x0, x0);
        xp[i] += e;
        xm[i] -= e;
        let (gp, gm) = (grad_at(xp), grad_at(xm));
        for j in 0..3 {
            let fd = (gp[j] - gm[j]) / (2.0 * e);
            assert!(
                (hr[i][j] - fd).abs() < 1e-8 * (1.0 + fd.abs()),
                "{i}{j}: {} vs {fd}",
                hr[i][j]
            );
            assert!((hr[i][j] - hf[i][j]).abs() < 1e-12 * (1.0 + fd.abs()));
        }
    }
}

// Case 37: `jacobian` (one pass with lanes) equals `jacobian_repeat` for many instructions.
#[i]
fn jac_all<T: Scalar>(out: &mut [T; 3], x: &mut [T; 3])
where
    (T, T): nilang::instr::PlusEq1<nilang::instr::fns::SinCos, T>,
{
    out[0] += x[0] * x[1];
    out[1] += x[0] / x[2];
    out[2] += x[1] - x[2];
    out[0] += exp(x[2]);
    out[1] += sin(x[0]);
    out[2] += atan2(x[0], x[1]);
    out[0] += abs2(x[1]);
    ROT(&mut out[0], &mut out[1], &mut x[2]);
    HADAMARD(&mut out[1], &mut out[2]);
    SWAP(&mut out[0], &mut out[2]);
    NEG(&mut out[1]);
    INV(&mut x[0]);
    out[2] += hypot(x[0], x[1]);
    INV(&mut x[0]);
    (out[0], out[1]) += sincos(x[1]);
}

#[test]
fn case_37_jacobian_equals_jacobian_repeat() {
    let (mut out, mut x) = ([0.1, 0.2, 0.3], [0.5, -0.7, 1.3]);
    let j1 = ad::jacobian::<_, _, 3>(&JacAll, (&mut out, &mut x), 1, 0);
    let j2 = ad::jacobian_repeat(&JacAll, (&mut out, &mut x), 1, 0);
    for r in 0..3 {
        for c in 0..3 {
            assert!((j1[r][c] - j2[r][c]).abs() < 1e-14, "{r}{c}");
        }
    }
}
