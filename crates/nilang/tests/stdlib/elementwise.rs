//! `i_map` (`y[i] += f(x[i])` over slices): the lane path on `f64` and `GVar<f64>` against
//! the scalar instruction (values within two ulps, every position and tail length, the
//! inverse), gradients through `#[i]` programs against the scalar loop's, the scalar path of
//! the other functions and numbers (bit for bit the loop), and the length error.
use nilang::ad::value_and_gradient;
use nilang::check::{catch, ErrorKind};
use nilang::instr::fns::{Exp, ExpM1, Ln, Ln1p, Sin, Sinh, Tanh};
use nilang::instr::PlusEq1;
use nilang::numbers::Dual;
use nilang::numbers::F64x4;
use nilang::prelude::*;
use nilang::stdlib::elementwise::{i_map, i_map_inv};
use nilang_testkit::rnd;

/// `|a − b|` in units of the last place of `b`.
fn ulps(a: f64, b: f64) -> f64 {
    if a == b || (a.is_nan() && b.is_nan()) {
        return 0.0;
    }
    let ulp = f64::from_bits(b.abs().to_bits() + 1) - b.abs();
    (a - b).abs() / ulp
}

/// `i_map` of `F` on `xs` into zeros against `f` one element at a time, every length 0..=11
/// (full vectors of four and each tail); the inverse gives the zeros back.
fn lanes_match<F: Copy + 'static>(f: F, scalar: fn(f64) -> f64, xs: &[f64])
where
    f64: PlusEq1<F, f64>,
{
    for n in 0..=11 {
        let mut x = xs[..n].to_vec();
        let mut y = vec![0.0; n];
        i_map(&mut y, f, &mut x);
        for (i, (&yi, &xi)) in y.iter().zip(&x).enumerate() {
            let u = ulps(yi, scalar(xi));
            assert!(
                u <= 2.0,
                "{xi}: {yi} vs {} ({u} ulps, element {i} of {n})",
                scalar(xi)
            );
        }
        i_map_inv(&mut y, f, &mut x);
        assert!(y.iter().all(|&v| v == 0.0), "{y:?}");
    }
}

#[test]
fn lane_functions_agree_with_std_at_every_position() {
    let xs: Vec<f64> = rnd(11, 1).iter().map(|v| 3.0 * v).collect();
    lanes_match(Tanh, f64::tanh, &xs);
    lanes_match(Exp, f64::exp, &xs);
    lanes_match(ExpM1, f64::exp_m1, &xs);
    lanes_match(Sin, f64::sin, &xs);
    let pos: Vec<f64> = xs.iter().map(|v| v + 3.5).collect();
    lanes_match(Ln, f64::ln, &pos);
    lanes_match(Ln1p, f64::ln_1p, &pos);
    // an element's result does not depend on where it is (a tail lane or a full vector)
    let mut x = vec![0.37; 7];
    let mut y = vec![0.0_f64; 7];
    i_map(&mut y, Tanh, &mut x);
    assert!(
        y.iter().all(|&v: &f64| v.to_bits() == y[0].to_bits()),
        "{y:?}"
    );
    // special values as std
    let mut x = vec![0.0, -0.0, f64::INFINITY, f64::NEG_INFINITY, f64::NAN];
    let mut y = vec![0.0; 5];
    i_map(&mut y, Tanh, &mut x);
    assert_eq!(&y[..4], &[0.0, 0.0, 1.0, -1.0]);
    assert!(y[4].is_nan());
}

#[test]
fn accumulates_into_what_is_there() {
    let (mut x, mut y) = (
        vec![0.5, 1.0, 1.5, 2.0, 2.5],
        vec![1.0, -1.0, 2.0, 0.25, 3.0],
    );
    let y0 = y.clone();
    i_map(&mut y, Exp, &mut x);
    for i in 0..5 {
        assert!(
            ulps(y[i], y0[i] + x[i].exp()) <= 2.0,
            "{} vs {}",
            y[i],
            y0[i] + x[i].exp()
        );
    }
    i_map_inv(&mut y, Exp, &mut x);
    for (a, b) in y.iter().zip(&y0) {
        assert!((a - b).abs() <= 1e-15 * b.abs().max(1.0), "{a} vs {b}");
    }
}

/// `loss += Σ ln_1p(exp(z_i)) · w_i` through `i_map` (the vector path)...
#[i]
fn softplus_mapped<T: Scalar>(loss: &mut T, z: &mut [T], e: &mut [T], s: &mut [T], w: &[f64]) {
    routine! {
        i_map(e, Exp, z);
        i_map(s, Ln1p, e);
    }
    for i in 0..s.len() {
        loss += s[i] * w[i];
    }
    unroutine!();
}
/// ... and through the scalar instructions.
#[i]
fn softplus_loop<T: Scalar>(loss: &mut T, z: &mut [T], e: &mut [T], s: &mut [T], w: &[f64]) {
    routine! {
        for i in 0..z.len() {
            e[i] += exp(z[i]);
            s[i] += ln_1p(e[i]);
        }
    }
    for i in 0..s.len() {
        loss += s[i] * w[i];
    }
    unroutine!();
}

#[test]
fn gradient_through_the_lanes_is_the_scalar_loops() {
    for n in [1, 4, 6, 13] {
        let z0: Vec<f64> = rnd(n, 3).iter().map(|v| 2.0 * v).collect();
        let w = rnd(n, 4);
        let run = |mapped: bool| {
            let (mut l, mut z, mut e, mut s) = (0.0, z0.clone(), vec![0.0; n], vec![0.0; n]);
            let args = (&mut l, &mut z[..], &mut e[..], &mut s[..], &w[..]);
            let (v, (_, gz, ge, gs, _)) = if mapped {
                value_and_gradient(&SoftplusMapped, args, 0)
            } else {
                value_and_gradient(&SoftplusLoop, args, 0)
            };
            // the workspaces are zero again (their adjoints: the gradient at their inputs)
            assert!(ge.iter().chain(gs.iter()).all(|v| v.x == 0.0), "{ge:?}");
            let g = |v: &[GVar<f64>]| v.iter().map(|v| v.g).collect::<Vec<_>>();
            (v, [g(&gz), g(&ge), g(&gs)].concat())
        };
        let ((lm, gm), (ll, gl)) = (run(true), run(false));
        assert!((lm - ll).abs() <= 1e-14 * ll.abs(), "{lm} vs {ll}");
        for (i, (a, b)) in gm.iter().zip(&gl).enumerate() {
            assert!(
                (a - b).abs() <= 1e-14 * b.abs().max(1e-3),
                "{i}: {a} vs {b}"
            );
        }
        for (i, a) in gm[..n].iter().enumerate() {
            // ∂/∂zᵢ = wᵢ σ(zᵢ)
            let want = w[i] / (1.0 + (-z0[i]).exp());
            assert!(
                (a - want).abs() <= 1e-14 * want.abs().max(1e-3),
                "{i}: {a} vs {want}"
            );
        }
        // the programs on f64, forward and value-only (`call_primal`), give the value too
        let want: f64 = (0..n).map(|i| z0[i].exp().ln_1p() * w[i]).sum();
        assert!((ll - want).abs() <= 1e-14 * want.abs(), "{ll} vs {want}");
        for primal in [false, true] {
            let (mut l, mut z, mut e, mut s) = (0.0, z0.clone(), vec![0.0; n], vec![0.0; n]);
            let args = (&mut l, &mut z[..], &mut e[..], &mut s[..], &w[..]);
            if primal {
                SoftplusMapped.call_primal(args);
            } else {
                SoftplusMapped.call(args);
            }
            assert!((l - want).abs() <= 1e-14 * want.abs(), "{l} vs {want}");
            assert!(e.iter().chain(&s).all(|&v| v == 0.0));
        }
    }
}

#[test]
fn other_functions_and_numbers_run_the_instruction_bit_for_bit() {
    let x0 = rnd(7, 5);
    // a function without a vector implementation, on f64
    let (mut x, mut y) = (x0.clone(), vec![0.0; 7]);
    i_map(&mut y, Sinh, &mut x);
    assert!(y
        .iter()
        .zip(&x0)
        .all(|(a, b)| a.to_bits() == b.sinh().to_bits()));
    // forward-mode numbers
    let mut xd: Vec<Dual<f64>> = x0.iter().map(|&v| Dual::new(v, 1.0)).collect();
    let mut yd = vec![Dual::new(0.0, 0.0); 7];
    i_map(&mut yd, Tanh, &mut xd);
    for (d, &v) in yd.iter().zip(&x0) {
        assert_eq!(d.x.to_bits(), v.tanh().to_bits());
        assert!((d.eps - (1.0 - v.tanh() * v.tanh())).abs() < 1e-15);
    }
    // batches: the lanes' own function, as the instruction
    let mut xb = vec![F64x4::new([0.1, -0.2, 0.3, 5.0]); 3];
    let mut yb = vec![F64x4::splat(0.0); 3];
    i_map(&mut yb, Tanh, &mut xb);
    let mut want = F64x4::splat(0.0);
    <F64x4 as PlusEq1<Tanh, F64x4>>::plus_eq(&mut want, &mut F64x4::new([0.1, -0.2, 0.3, 5.0]));
    assert!(yb.iter().all(|v| v.to_array() == want.to_array()));
}

#[test]
fn wrong_lengths_are_a_typed_error_before_anything_changes() {
    let (mut x, mut y) = (vec![1.0; 3], vec![0.0; 4]);
    let e = catch(|| i_map(&mut y, Exp, &mut x)).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Length);
    assert_eq!(e.detail, "lengths differ: y.len() = 4, x.len() = 3");
    assert_eq!(y, [0.0; 4]);
}

/// Inputs over the domain of every lane function, and its special values.
fn inputs(n: usize) -> Vec<f64> {
    let mut v: Vec<f64> = rnd(n, 11)
        .iter()
        .zip(rnd(n, 12))
        .map(|(m, e)| m * 10f64.powf(3.0 * e))
        .collect();
    v.extend([
        0.0,
        -0.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        f64::MIN_POSITIVE / 8.0,
        -f64::MIN_POSITIVE / 8.0,
        709.9,
        -745.0,
        -1.0,
        -0.999,
        22.5,
        1e300,
    ]);
    v
}

/// `i_map` of `F` on `f64` and on `GVar<f64>` against the batch instruction `y ± f(x)` on
/// `F64x4` and `GVar<F64x4>` (the same lane code and rule): the same bits.
fn same_bits_as_batches<F: Copy + Default + 'static>(f: F)
where
    f64: PlusEq1<F, f64>,
    F64x4: PlusEq1<F, F64x4>,
    GVar<f64>: PlusEq1<F, GVar<f64>>,
    GVar<F64x4>: PlusEq1<F, GVar<F64x4>>,
{
    let xs = inputs(4000);
    let n = xs.len() - xs.len() % 4;
    let (xs, y0, gy) = (&xs[..n], rnd(n, 13), rnd(n, 14));
    let gx0 = rnd(n, 15);
    let (mut x, mut y) = (xs.to_vec(), y0.clone());
    i_map(&mut y, f, &mut x);
    let mut gxs: Vec<GVar<f64>> = (0..n).map(|i| GVar::new(xs[i], gx0[i])).collect();
    let mut gys: Vec<GVar<f64>> = (0..n).map(|i| GVar::new(y0[i], gy[i])).collect();
    i_map_inv(&mut gys, f, &mut gxs); // the backward direction: x̄ += ȳ f'(x)
    for c in 0..n / 4 {
        let q = |v: &[f64]| F64x4::from_fn(|l| v[4 * c + l]);
        let mut want = q(&y0);
        <F64x4 as PlusEq1<F, F64x4>>::plus_eq(&mut want, &mut q(xs));
        let mut gyb = GVar::new(q(&y0), q(&gy));
        let mut gxb = GVar::new(q(xs), q(&gx0));
        <GVar<F64x4> as PlusEq1<F, GVar<F64x4>>>::minus_eq(&mut gyb, &mut gxb);
        for l in 0..4 {
            let i = 4 * c + l;
            let same = |a: f64, b: f64| a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan());
            assert!(
                same(y[i], want.lane(l)),
                "{}: {} vs {}",
                xs[i],
                y[i],
                want.lane(l)
            );
            assert!(
                same(gys[i].x, gyb.x.lane(l)),
                "{}: {} vs {}",
                xs[i],
                gys[i].x,
                gyb.x.lane(l)
            );
            assert!(
                same(gxs[i].g, gxb.g.lane(l)),
                "{}: {} vs {}",
                xs[i],
                gxs[i].g,
                gxb.g.lane(l)
            );
        }
    }
}

#[test]
fn the_same_bits_as_the_batch_instructions_and_their_rules() {
    same_bits_as_batches(Tanh);
    same_bits_as_batches(Exp);
    same_bits_as_batches(ExpM1);
    same_bits_as_batches(Ln);
    same_bits_as_batches(Ln1p);
    same_bits_as_batches(Sin);
    same_bits_as_batches(nilang::instr::fns::Cos);
}

/// `loss += Σ softplus(z_i) · w_i` through `i_map` (the vector path, one workspace)...
#[i(zero(s))]
fn softplus_row_mapped<T: Scalar>(loss: &mut T, z: &mut [T], s: &mut [T], w: &[f64]) {
    routine! {
        i_map(s, nilang::instr::fns::Softplus, z);
    }
    for i in 0..s.len() {
        loss += s[i] * w[i];
    }
    unroutine!();
}
/// ... and through the scalar instruction `s[i] += softplus(z[i])`.
#[i]
fn softplus_row_loop<T: Scalar>(loss: &mut T, z: &mut [T], s: &mut [T], w: &[f64]) {
    routine! {
        for i in 0..z.len() {
            s[i] += softplus(z[i]);
        }
    }
    for i in 0..s.len() {
        loss += s[i] * w[i];
    }
    unroutine!();
}

/// `softplus` (a row of the table of elementary functions, `ln(1 + eᶻ)`): in lanes within
/// three ulps of the scalar function at every position; its gradient `w σ(z)` through the
/// lanes and through the scalar instruction, the same to rounding, also where `eᶻ` overflows
/// (`z = ±800`: `σ` is 1 and 0, no `NaN`); the workspace comes back zero.
#[test]
fn softplus_in_lanes_and_its_gradient() {
    use nilang::instr::fns::Softplus;
    let xs: Vec<f64> = rnd(11, 7).iter().map(|v| 12.0 * v).collect();
    for n in 0..=11 {
        let (mut x, mut y) = (xs[..n].to_vec(), vec![0.0; n]);
        i_map(&mut y, Softplus, &mut x);
        for (&yi, &xi) in y.iter().zip(&x) {
            let want = nilang::Real::softplus(xi);
            assert!(ulps(yi, want) <= 3.0, "{xi}: {yi} vs {want}");
        }
        i_map_inv(&mut y, Softplus, &mut x);
        assert!(y.iter().all(|&v| v == 0.0), "{y:?}");
    }
    for n in [1, 4, 9, 13] {
        let mut z0: Vec<f64> = rnd(n, 3).iter().map(|v| 6.0 * v).collect();
        z0[0] = 800.0;
        if n > 4 {
            z0[3] = -800.0;
        }
        let w = rnd(n, 4);
        let run = |mapped: bool| {
            let (mut l, mut z, mut s) = (0.0, z0.clone(), vec![0.0; n]);
            let args = (&mut l, &mut z[..], &mut s[..], &w[..]);
            let (v, (_, gz, gs, _)) = if mapped {
                value_and_gradient(&SoftplusRowMapped, args, 0)
            } else {
                value_and_gradient(&SoftplusRowLoop, args, 0)
            };
            assert!(gs.iter().all(|v| v.x == 0.0), "{gs:?}");
            (v, gz.iter().map(|v| v.g).collect::<Vec<_>>())
        };
        let ((lm, gm), (ll, gl)) = (run(true), run(false));
        let want: f64 = (0..n).map(|i| nilang::Real::softplus(z0[i]) * w[i]).sum();
        assert!((lm - want).abs() <= 1e-14 * want.abs(), "{lm} vs {want}");
        assert!((ll - want).abs() <= 1e-14 * want.abs(), "{ll} vs {want}");
        for i in 0..n {
            let sigma = 1.0 / (1.0 + (-z0[i]).exp());
            let want = w[i] * sigma;
            for got in [gm[i], gl[i]] {
                assert!(
                    (got - want).abs() <= 1e-13 * want.abs().max(1e-3),
                    "{i} (z = {}): {got} vs {want}",
                    z0[i]
                );
            }
        }
    }
}
