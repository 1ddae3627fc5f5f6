//! The BA baselines: the reprojection residual generic over the scalar, its Jacobian by
//! num-dual (forward, 15 directions) and echidna (tape reverse), and the JAX peer's inputs.

use crate::harness::{jax, Harness};
use crate::real::Real;
use echidna::tape::{Tape, TapeGuard};
use echidna::Reverse;
use nilang_adbench::ba::{rodrigues_rotate_in, BaInput, RotationOps, BLOCK_LEN, CAM_LEN};
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

/// The plain objective: `[reprojection errors (2p) | weight errors 1 − w² (p)]`, on `f64`:
/// one pass over the observations reading each camera and point in place (no block copy),
/// the reprojection [`reproj_f64`] inlined into the loop. (Calling the generic [`reproj`] on
/// a copied 15-value block, which rustc kept out of line, cost 2.1× the time: 60 against
/// 28 ns per observation on ba1, 325 against 266 instructions.)
pub fn objective(b: &BaInput, out: &mut [f64]) {
    let (re, we) = out.split_at_mut(2 * b.p);
    let obs = b.obs.iter().zip(&b.w).zip(b.feats.chunks_exact(2));
    for ((e, z), ((&(c, q), &w), feat)) in re.chunks_exact_mut(2).zip(we.iter_mut()).zip(obs) {
        let r = reproj_f64(b.cam(c), b.point(q), w, [feat[0], feat[1]]);
        e[0] = r[0];
        e[1] = r[1];
        *z = 1.0 - w * w;
    }
}

/// [`reproj`] on `f64`, from the camera, point and weight in place, written like the Enzyme
/// peer's C++ (`peers/enzyme/ba.cpp`): `1/θ` and `1/Y₃` taken once and multiplied, `sin θ`
/// and `cos θ` by one `sin_cos`. Equal to [`reproj`] to round-off.
///
/// ```
/// use nilang_bench::suites::ba::baselines::{reproj, reproj_f64};
/// let cam = [0.1, -0.2, 0.3, 1.0, 2.0, 3.0, 400.0, 5.0, -8.0, 0.08, 0.003];
/// let (x, w, feat) = ([7.0, 0.5, 30.0], 0.4, [270.0, 830.0]);
/// let mut v = [0.0; 15];
/// v[..11].copy_from_slice(&cam);
/// v[11..14].copy_from_slice(&x);
/// v[14] = w;
/// let (a, b) = (reproj(&v, feat), reproj_f64(&cam, &x, w, feat));
/// assert!((0..2).all(|r| (a[r] - b[r]).abs() <= 1e-12 * a[r].abs().max(1.0)));
/// ```
#[inline(always)]
pub fn reproj_f64(cam: &[f64; CAM_LEN], x: &[f64; 3], w: f64, feat: [f64; 2]) -> [f64; 2] {
    let p = [x[0] - cam[3], x[1] - cam[4], x[2] - cam[5]];
    let r = [cam[0], cam[1], cam[2]];
    let sq = r[0] * r[0] + r[1] * r[1] + r[2] * r[2];
    let y = if sq != 0.0 {
        let theta = sq.sqrt();
        let (st, ct) = theta.sin_cos();
        let it = 1.0 / theta;
        let v = [r[0] * it, r[1] * it, r[2] * it];
        let tmp = (v[0] * p[0] + v[1] * p[1] + v[2] * p[2]) * (1.0 - ct);
        [
            p[0] * ct + (v[1] * p[2] - v[2] * p[1]) * st + v[0] * tmp,
            p[1] * ct + (v[2] * p[0] - v[0] * p[2]) * st + v[1] * tmp,
            p[2] * ct + (v[0] * p[1] - v[1] * p[0]) * st + v[2] * tmp,
        ]
    } else {
        [
            p[0] + (r[1] * p[2] - r[2] * p[1]),
            p[1] + (r[2] * p[0] - r[0] * p[2]),
            p[2] + (r[0] * p[1] - r[1] * p[0]),
        ]
    };
    let iz = 1.0 / y[2];
    let u = [y[0] * iz, y[1] * iz];
    let rsq = u[0] * u[0] + u[1] * u[1];
    let l = 1.0 + cam[9] * rsq + cam[10] * rsq * rsq;
    [
        w * (cam[6] * (u[0] * l) + cam[7] - feat[0]),
        w * (cam[6] * (u[1] * l) + cam[8] - feat[1]),
    ]
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
