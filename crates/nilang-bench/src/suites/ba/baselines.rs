//! The BA baselines: the reprojection residual generic over the scalar, its Jacobian by
//! num-dual (forward, 15 directions) and echidna (tape reverse), and the JAX peer's inputs.

use crate::harness::{jax, Harness};
use crate::real::Real;
use echidna::tape::{Tape, TapeGuard};
use echidna::Reverse;
use nilang_adbench::ba::{BaInput, BLOCK_LEN};
use num_dual::DualSVec64;
use serde_json::json;

use super::BaCase;

/// Rodrigues rotation of `pt` by the angle-axis vector `r` (ADBench's `rodrigues_rotate_point`).
#[inline]
fn rotate<T: Real>(r: [T; 3], pt: [T; 3]) -> [T; 3] {
    let sqtheta = r[0] * r[0] + r[1] * r[1] + r[2] * r[2];
    if sqtheta.val() != 0.0 {
        let theta = sqtheta.sqrt();
        let (c, s) = (theta.cos(), theta.sin());
        let inv = T::cst(1.0) / theta;
        let w = [r[0] * inv, r[1] * inv, r[2] * inv];
        let wx = cross(w, pt);
        let tmp = (w[0] * pt[0] + w[1] * pt[1] + w[2] * pt[2]) * (T::cst(1.0) - c);
        [
            pt[0] * c + wx[0] * s + w[0] * tmp,
            pt[1] * c + wx[1] * s + w[1] * tmp,
            pt[2] * c + wx[2] * s + w[2] * tmp,
        ]
    } else {
        let rx = cross(r, pt);
        [pt[0] + rx[0], pt[1] + rx[1], pt[2] + rx[2]]
    }
}

#[inline]
fn cross<T: Real>(a: [T; 3], b: [T; 3]) -> [T; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

/// The reprojection residual `w (proj − m)` of one observation from its 15 inputs
/// `[r (3) | c (3) | f | u0 v0 | k1 k2 | X (3) | w]`.
#[inline]
pub fn reproj<T: Real>(v: &[T; BLOCK_LEN], feat: [f64; 2]) -> [T; 2] {
    let p = [v[11] - v[3], v[12] - v[4], v[13] - v[5]];
    let y = rotate([v[0], v[1], v[2]], p);
    let u = [y[0] / y[2], y[1] / y[2]];
    let rsq = u[0] * u[0] + u[1] * u[1];
    let l = T::cst(1.0) + v[9] * rsq + v[10] * rsq * rsq;
    let w = v[14];
    [
        w * (v[6] * (u[0] * l) + v[7] - T::cst(feat[0])),
        w * (v[6] * (u[1] * l) + v[8] - T::cst(feat[1])),
    ]
}

/// The plain objective: `[reprojection errors (2p) | weight errors 1 − w² (p)]`.
pub fn objective(b: &BaInput, out: &mut [f64]) {
    let p = b.p;
    let (re, we) = out.split_at_mut(2 * p);
    for i in 0..p {
        let v = b.block_inputs(i);
        let e = reproj(&v, [b.feats[2 * i], b.feats[2 * i + 1]]);
        re[2 * i] = e[0];
        re[2 * i + 1] = e[1];
        we[i] = 1.0 - b.w[i] * b.w[i];
    }
}

/// The Jacobian values by num-dual forward mode (15 directions per observation).
pub fn jacobian_num_dual(b: &BaInput, vals: &mut [f64]) {
    let p = b.p;
    for i in 0..p {
        let v = b.block_inputs(i);
        let d: [DualSVec64<BLOCK_LEN>; BLOCK_LEN] =
            std::array::from_fn(|j| DualSVec64::<BLOCK_LEN>::from_re(v[j]).derivative(j));
        let e = reproj(&d, [b.feats[2 * i], b.feats[2 * i + 1]]);
        let blk = &mut vals[30 * i..30 * i + 30];
        for (r, er) in e.iter().enumerate() {
            match er.eps.0.as_ref() {
                Some(m) => (0..BLOCK_LEN).for_each(|j| blk[15 * r + j] = m[j]),
                None => blk[15 * r..15 * r + 15].iter_mut().for_each(|x| *x = 0.0),
            }
        }
    }
    weight_rows(b, vals);
}

/// The Jacobian values by echidna's tape reverse mode: one tape per observation (reused),
/// two reverse sweeps.
pub fn jacobian_echidna(b: &BaInput, vals: &mut [f64]) {
    let mut tape: Tape<f64> = Tape::with_capacity(256);
    for i in 0..b.p {
        let v = b.block_inputs(i);
        tape.clear();
        let x: [Reverse<f64>; BLOCK_LEN] = std::array::from_fn(|j| {
            let (idx, val) = tape.new_variable(v[j]);
            Reverse::from_tape(val, idx)
        });
        let e = {
            let _guard = TapeGuard::new(&mut tape);
            reproj(&x, [b.feats[2 * i], b.feats[2 * i + 1]])
        };
        for (r, er) in e.iter().enumerate() {
            let adj = tape.reverse(er.index());
            vals[30 * i + 15 * r..30 * i + 15 * r + 15].copy_from_slice(&adj[..BLOCK_LEN]);
        }
    }
    weight_rows(b, vals);
}

fn weight_rows(b: &BaInput, vals: &mut [f64]) {
    for i in 0..b.p {
        vals[30 * b.p + i] = -2.0 * b.w[i];
    }
}

/// The JAX peer: O (residuals) and J (the CSR values).
pub fn jax(h: &mut Harness, c: &BaCase, reference: jax::Reference<'_, '_>) {
    if !h.jax.active() {
        return;
    }
    let b = &c.inst;
    let obs: Vec<f64> = b
        .obs
        .iter()
        .flat_map(|o| [o.0 as f64, o.1 as f64])
        .collect();
    let scalars = json!({"n": b.n, "m": b.m, "p": b.p});
    let arrays: [(&str, &[f64]); 5] = [
        ("cams", &b.cams),
        ("x", &b.x),
        ("w", &b.w),
        ("feats", &b.feats),
        ("obs", &obs),
    ];
    jax::run_case(
        h,
        super::SUITE,
        &c.name,
        b.p as f64,
        1.0,
        scalars,
        &arrays,
        reference,
        None,
        1e-8,
    );
}
