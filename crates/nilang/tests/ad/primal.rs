//! Value-only ("primal") recomputation: routines whose writes all go to fresh ancillas or
//! `fresh!` workspaces run value-only instructions on gradient numbers, callees run their
//! value-only variant `f::__primal`, and the gradient API's forward pass uses
//! `Reversible::call_primal`. The results are those of the ordinary instructions, bit for bit.
use nilang::ad;
use nilang::prelude::*;

/// `out += Σ (x_i² + w·x_i)²`: a routine into fresh ancillas (one-pass in `out`).
#[i]
fn sq_sum<T: Scalar>(out: &mut T, x: &mut [T], w: &mut T) {
    for i in 0..x.len() {
        routine! {
            let t = T::default();
            t += abs2(x[i]);
            t += w * x[i];
            let u = T::default();
            u += exp(t);
        }
        out += t * u;
        unroutine!();
    }
}

/// A helper writing only its first parameter.
#[i]
fn scaled<T: Scalar>(y: &mut T, a: &mut T, s: &mut T) {
    y += a * s;
    y += sin(a);
}

/// Calls `scaled` inside a routine into an ancilla (the callee's value-only variant runs) and
/// with a parameter target outside any routine (its ordinary form).
#[i]
fn caller<T: Scalar>(out: &mut T, a: &mut T, s: &mut T, z: &mut T) {
    routine! {
        let t = T::default();
        scaled(&mut t, a, s);
    }
    out += abs2(t);
    unroutine!();
    scaled(z, a, s);
}

/// A hand-written pair (declared with `additive!`) called in a routine: `y += 2a`.
pub fn twice<T: Scalar>(y: &mut T, a: &mut T) {
    use nilang::instr::{fns::Identity, PlusEq1};
    <T as PlusEq1<Identity, T>>::plus_eq(y, a);
    <T as PlusEq1<Identity, T>>::plus_eq(y, a);
}
pub fn twice_inv<T: Scalar>(y: &mut T, a: &mut T) {
    use nilang::instr::{fns::Identity, PlusEq1};
    <T as PlusEq1<Identity, T>>::minus_eq(y, a);
    <T as PlusEq1<Identity, T>>::minus_eq(y, a);
}
nilang::additive!(twice, twice_inv: 0b1);

#[i]
fn uses_pair<T: Scalar>(out: &mut T, a: &mut T) {
    routine! {
        let t = T::default();
        twice(&mut t, a);
    }
    out += abs2(t);
    unroutine!();
}

/// A routine that writes a parameter (restored by its unroutine): not value-only.
#[i]
fn writes_param<T: Scalar>(out: &mut T, x: &mut T) {
    routine! {
        x += 1.0;
    }
    out += abs2(x);
    unroutine!();
}

/// A workspace made fresh after each use: its routine is value-only in the inverse.
#[i]
fn with_workspace<T: Scalar>(out: &mut T, x: &mut [T], ws: &mut [T]) {
    for i in 0..x.len() {
        routine! {
            ws[0] += abs2(x[i]);
            ws[1] += sqrt(ws[0]);
        }
        out += ws[1];
        unroutine!();
        fresh!(ws);
    }
}

#[test]
fn writes_masks_name_the_written_parameters() {
    assert_eq!(sq_sum::WRITES, 0b001);
    assert_eq!(scaled::WRITES, 0b001);
    assert_eq!(caller::WRITES, 0b1001);
    assert_eq!(writes_param::WRITES, 0b11);
    assert_eq!(with_workspace::WRITES, 0b101);
    assert_eq!(twice::WRITES, u64::MAX);
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-7 * (1.0 + a.abs().max(b.abs()))
}

#[test]
fn gradients_match_finite_differences() {
    let x = [0.3, -0.7, 1.1];
    let (v, (_, gx, gw)) =
        ad::value_and_gradient(&SqSum, (&mut 0.0, &mut x.to_vec()[..], &mut 0.4), 0);
    let f = |x: &[f64], w: f64| {
        x.iter()
            .map(|&xi| {
                let t = xi * xi + w * xi;
                t * t.exp()
            })
            .sum::<f64>()
    };
    assert!(close(v, f(&x, 0.4)));
    let h = 1e-6;
    for i in 0..3 {
        let (mut xp, mut xm) = (x, x);
        xp[i] += h;
        xm[i] -= h;
        assert!(
            close(gx[i].g, (f(&xp, 0.4) - f(&xm, 0.4)) / (2.0 * h)),
            "{i}"
        );
    }
    assert!(close(gw.g, (f(&x, 0.4 + h) - f(&x, 0.4 - h)) / (2.0 * h)));

    // the callee's value-only variant in a routine, its ordinary form outside
    let g = ad::gradient(&Caller, (&mut 0.0, &mut 0.5, &mut 1.5, &mut 0.0), 0);
    let fa = |a: f64, s: f64| (a * s + a.sin()).powi(2);
    assert!(close(
        g.1.g,
        (fa(0.5 + h, 1.5) - fa(0.5 - h, 1.5)) / (2.0 * h)
    ));
    assert!(close(
        g.2.g,
        (fa(0.5, 1.5 + h) - fa(0.5, 1.5 - h)) / (2.0 * h)
    ));

    // a hand-written pair: its value-only variant is the function itself
    let g = ad::gradient(&UsesPair, (&mut 0.0, &mut 0.75), 0);
    assert!(close(g.1.g, 8.0 * 0.75));

    // a routine writing a parameter (not value-only)
    let g = ad::gradient(&WritesParam, (&mut 0.0, &mut 2.0), 0);
    assert!(close(g.1.g, 2.0 * 3.0));

    // a `fresh!` workspace
    let x = [0.5, 2.0, 3.0];
    let g = ad::gradient(
        &WithWorkspace,
        (&mut 0.0, &mut x.to_vec()[..], &mut [0.0; 2][..]),
        0,
    );
    for i in 0..3 {
        // d|x|/dx = sign(x)
        assert!(close(g.1[i].g, 1.0), "{i}: {}", g.1[i].g);
    }
}

#[test]
fn value_only_forward_equals_the_forward_bit_for_bit() {
    // on gradient numbers with zero adjoints: the same values, the adjoints untouched
    let xs: Vec<GVar<f64>> = [0.3, -0.7, 1.1].iter().map(|&v| GVar::from(v)).collect();
    let (mut o1, mut x1, mut w1) = (GVar::from(0.25), xs.clone(), GVar::from(0.4));
    let (mut o2, mut x2, mut w2) = (GVar::from(0.25), xs.clone(), GVar::from(0.4));
    SqSum.call((&mut o1, &mut x1[..], &mut w1));
    SqSum.call_primal((&mut o2, &mut x2[..], &mut w2));
    assert_eq!(o1.x.to_bits(), o2.x.to_bits());
    assert_eq!((o1.g, o2.g, w1.g, w2.g), (0.0, 0.0, 0.0, 0.0));
    assert_eq!(x1, x2);
    // and back: the inverse restores what the value-only forward computed
    SqSum.uncall((&mut o2, &mut x2[..], &mut w2));
    assert!((o2.x - 0.25).abs() < 1e-15);
}

#[test]
fn second_order_numbers_keep_the_full_rules() {
    // reverse-over-reverse (`GVar<GVar<f64>>`: value-only instructions fall back to the full
    // rule there) and forward-over-reverse agree with the analytic Hessian of Σ (x² + w x)·exp(x² + w x)
    let x = vec![0.3, -0.7];
    let mut o = 0.0;
    let mut w = 0.4;
    let hrr = ad::hessian_rev_rev(&SqSum, (&mut o, &mut x.clone()[..], &mut w), 0, 1);
    let hfr = ad::hessian_fwd_rev(&SqSum, (&mut o, &mut x.clone()[..], &mut w), 0, 1);
    for i in 0..2 {
        let xi = x[i];
        let t = xi * xi + 0.4 * xi;
        let dt = 2.0 * xi + 0.4;
        // d²/dx² [t e^t] = e^t ((t + 2) dt² + (t + 1) · 2)
        let want = t.exp() * ((t + 2.0) * dt * dt + (t + 1.0) * 2.0);
        assert!(close(hrr[i][i], want), "{} {want}", hrr[i][i]);
        assert!(close(hfr[i][i], want), "{} {want}", hfr[i][i]);
        assert_eq!(hrr[i][1 - i], 0.0);
    }
}
