//! The BA baselines: the reprojection residual generic over the scalar, its Jacobian by
//! num-dual (forward, 15 directions) and echidna (tape reverse), and the JAX peer's inputs.

use crate::harness::{jax, Harness};
use crate::real::Real;
use echidna::tape::{Tape, TapeGuard};
use echidna::Reverse;
use nilang_adbench::ba::{rodrigues_rotate_in, BaInput, RotationOps, BLOCK_LEN};
use num_dual::DualSVec64;
use serde_json::json;

use super::BaCase;

/// The data crate's Rodrigues rotation ([`rodrigues_rotate_in`]) on any [`Real`].
struct RealOps;

impl<T: Real> RotationOps<T> for RealOps {
    #[inline]
    fn is_zero(&self, x: T) -> bool {
        x.val() == 0.0
    }
    #[inline]
    fn sqrt(&self, x: T) -> T {
        x.sqrt()
    }
    #[inline]
    fn sin_cos(&self, x: T) -> (T, T) {
        (x.sin(), x.cos())
    }
    #[inline]
    fn one(&self) -> T {
        T::cst(1.0)
    }
}

/// The reprojection residual `w (proj − m)` of one observation from its 15 inputs
/// `[r (3) | c (3) | f | u0 v0 | k1 k2 | X (3) | w]`.
#[inline]
pub fn reproj<T: Real>(v: &[T; BLOCK_LEN], feat: [f64; 2]) -> [T; 2] {
    let p = [v[11] - v[3], v[12] - v[4], v[13] - v[5]];
    let y = rodrigues_rotate_in(&RealOps, &[v[0], v[1], v[2]], &p);
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
