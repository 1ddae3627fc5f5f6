//! ADBench's bundle adjustment written in the reversible language.
//!
//! Per observation (definition in `shared/data/adbench/README.md`, the same as
//! [`crate::adbench::ba::ba_reproj`]): the point in camera coordinates `P = X − C`, the
//! Rodrigues rotation `Y = R(r) P` (with ADBench's first-order branch `Y = P + r × P` when
//! `θ = ‖r‖ = 0`, a reversible `if (pre, post)`), the projection `u = (Y₁/Y₃, Y₂/Y₃)`, the
//! radial distortion `u (1 + k₁|u|² + k₂|u|⁴)`, the image point `f u' + (u₀, v₀)` and the
//! weighted residual `e = w (proj − m)`; and the weight error `z = 1 − w²`.
//!
//! [`ba_routine`] computes everything up to `proj − m` into the ancillas of a [`BaAnc`]
//! (a fixed-size array: no heap); [`ba_reproj_i`] is compute–copy–uncompute:
//! `routine { ba_routine }; e += w · (proj − m); unroutine`.
//!
//! **Jacobian** ([`ba_block`]): the 2×15 block of one observation by reverse mode in one
//! backward pass with two adjoint lanes (`GVar<Lanes<2>>`: lane `j` carries the adjoint of
//! `e_j`), by the gradient API's plan: [`ba_reproj_i`] is compute–copy–uncompute in `e`, so
//! no forward pass runs. [`ba_jacobian_into`] assembles the blocks into
//! ADBench's CSR layout without allocating.
use crate::adbench::ba::{BaInput, BLOCK_LEN, CAM_LEN};
use crate::adbench::sparse::SparseJacobian;
use nilang::instr::fns::SinCos;
use nilang::instr::PlusEq1;
use nilang::prelude::*;

/// The ancillas of one observation: one flat workspace (all zero before [`ba_routine`] and
/// after its inverse), the same on the CPU (an array: no heap) and on the device (each
/// thread's segment of a buffer). The fields are at the offsets of [`anc`].
pub type BaAnc<T> = [T; anc::LEN];

/// The offsets of the ancillas in a [`BaAnc`] (a vector field takes its length in places).
pub mod anc {
    /// `P = X − C` (3).
    pub const P: usize = 0;
    /// `θ² = ‖r‖²`.
    pub const SQ: usize = 3;
    /// `θ`.
    pub const THETA: usize = 4;
    /// `sin θ`.
    pub const ST: usize = 5;
    /// `cos θ`.
    pub const CT: usize = 6;
    /// `1/θ`.
    pub const INV: usize = 7;
    /// `v = r/θ` (3).
    pub const V: usize = 8;
    /// `v × P` (3).
    pub const VXP: usize = 11;
    /// `v · P`.
    pub const VDP: usize = 14;
    /// `1 − cos θ`.
    pub const OMC: usize = 15;
    /// `(v · P)(1 − cos θ)`.
    pub const TMP: usize = 16;
    /// `Y = R(r) P` (3).
    pub const Y: usize = 17;
    /// `1/Y₃`.
    pub const IZ: usize = 20;
    /// `u = (Y₁, Y₂)/Y₃` (2).
    pub const U: usize = 21;
    /// `|u|²`.
    pub const RSQ: usize = 23;
    /// `|u|⁴`.
    pub const R4: usize = 24;
    /// `1 + k₁|u|² + k₂|u|⁴`.
    pub const LK: usize = 25;
    /// `u · lk` (2).
    pub const UL: usize = 26;
    /// `f u' + (u₀, v₀) − m` (2).
    pub const PR: usize = 28;
    /// The number of ancillas.
    pub const LEN: usize = 30;
}

/// The routine of one observation: `a[PR..PR + 2] = proj(cam, x) − feat` and every
/// intermediate in `a` ([`BaAnc`], offsets [`anc`]; zero on entry).
/// `cam = [r (3) | C (3) | f | u₀ v₀ | k₁ k₂]` (11), `x` (3), `feat` (2). One program for the
/// CPU and the device (`nilang_gpu::kernels::ba` runs it per observation).
///
/// ```
/// use nilang_apps::ba::{anc, ba_routine, BaAnc};
/// let mut a: BaAnc<f64> = [0.0; anc::LEN];
/// let mut cam = [0.0; 11];
/// cam[6] = 1.0; // focal length; no rotation, camera at the origin
/// ba_routine(&mut a, &mut cam, &mut [0.5, 0.25, 2.0], &[0.0, 0.0]);
/// assert_eq!(a[anc::PR..anc::PR + 2], [0.25, 0.125]); // x/z, y/z
/// ```
#[i(device, nocheck)]
#[inline]
pub fn ba_routine<T: Ordered>(a: &mut [T], cam: &mut [T], x: &mut [T], feat: &[f64])
where
    (T, T): PlusEq1<SinCos, T>,
{
    for j in 0..3 {
        a[anc::P + j] += x[j] - cam[3 + j];
    }
    for j in 0..3 {
        a[anc::SQ] += abs2(cam[j]);
    }
    if (a[anc::SQ].value() != 0.0, a[anc::SQ].value() != 0.0) {
        a[anc::THETA] += sqrt(a[anc::SQ]);
        (a[anc::ST], a[anc::CT]) += sincos(a[anc::THETA]);
        a[anc::INV] += recip(a[anc::THETA]);
        for j in 0..3 {
            a[anc::V + j] += cam[j] * a[anc::INV];
        }
        a[anc::VXP] += a[anc::V + 1] * a[anc::P + 2];
        a[anc::VXP] -= a[anc::V + 2] * a[anc::P + 1];
        a[anc::VXP + 1] += a[anc::V + 2] * a[anc::P];
        a[anc::VXP + 1] -= a[anc::V] * a[anc::P + 2];
        a[anc::VXP + 2] += a[anc::V] * a[anc::P + 1];
        a[anc::VXP + 2] -= a[anc::V + 1] * a[anc::P];
        for j in 0..3 {
            a[anc::VDP] += a[anc::V + j] * a[anc::P + j];
        }
        a[anc::OMC] += 1.0;
        a[anc::OMC] -= a[anc::CT];
        a[anc::TMP] += a[anc::VDP] * a[anc::OMC];
        for j in 0..3 {
            a[anc::Y + j] += a[anc::P + j] * a[anc::CT];
            a[anc::Y + j] += a[anc::VXP + j] * a[anc::ST];
            a[anc::Y + j] += a[anc::V + j] * a[anc::TMP];
        }
    } else {
        for j in 0..3 {
            a[anc::Y + j] += a[anc::P + j];
        }
        a[anc::Y] += cam[1] * a[anc::P + 2];
        a[anc::Y] -= cam[2] * a[anc::P + 1];
        a[anc::Y + 1] += cam[2] * a[anc::P];
        a[anc::Y + 1] -= cam[0] * a[anc::P + 2];
        a[anc::Y + 2] += cam[0] * a[anc::P + 1];
        a[anc::Y + 2] -= cam[1] * a[anc::P];
    }
    a[anc::IZ] += recip(a[anc::Y + 2]);
    a[anc::U] += a[anc::Y] * a[anc::IZ];
    a[anc::U + 1] += a[anc::Y + 1] * a[anc::IZ];
    a[anc::RSQ] += abs2(a[anc::U]);
    a[anc::RSQ] += abs2(a[anc::U + 1]);
    a[anc::R4] += abs2(a[anc::RSQ]);
    a[anc::LK] += 1.0;
    a[anc::LK] += cam[9] * a[anc::RSQ];
    a[anc::LK] += cam[10] * a[anc::R4];
    for j in 0..2 {
        a[anc::UL + j] += a[anc::U + j] * a[anc::LK];
        a[anc::PR + j] += cam[6] * a[anc::UL + j];
        a[anc::PR + j] += cam[7 + j];
        a[anc::PR + j] -= cst!(T::lit(feat[j]));
    }
}

/// The copy step: `e += w · pr` (`e`, `pr`: 2 numbers; CPU and device).
#[i(device, nocheck)]
#[inline]
pub fn ba_copy<T: Ordered>(e: &mut [T], w: &mut T, pr: &mut [T]) {
    e[0] += w * pr[0];
    e[1] += w * pr[1];
}

/// `e += w (proj(cam, x) − feat)` for one observation: compute–copy–uncompute with the
/// ancillas in `a` (zero on entry and exactly zero on exit: `fresh!(a)` after the
/// uncomputation, so the backward pass knows `a` carries no adjoint and recomputes the
/// routine on values only).
#[i(nocheck)]
#[inline]
pub fn ba_reproj_i<T: Ordered>(
    e: &mut [T; 2],
    cam: &mut [T; 11],
    x: &mut [T; 3],
    w: &mut T,
    feat: &[f64; 2],
    a: &mut BaAnc<T>,
) where
    (T, T): PlusEq1<SinCos, T>,
{
    routine! {
        ba_routine(a, cam, x, &feat);
    }
    ba_copy(e, w, &mut a[anc::PR..anc::PR + 2]);
    unroutine!();
    fresh!(a);
}

/// The weight error `z += 1 − w²` (CPU and device).
#[i(device, nocheck)]
#[inline]
pub fn ba_w_err_i<T: Ordered>(z: &mut T, w: &mut T) {
    z += 1.0;
    z -= abs2(w);
}

/// All residuals by the reversible program: `reproj` (`2p`) and `w_err` (`p`) are
/// accumulated into (zero them first).
///
/// ```
/// use nilang_apps::adbench::{ba::{ba_objective, BaInput}, oracle::{adbench_close, data_dir}};
/// let b = BaInput::from_file(data_dir().join("adbench/ba/test.txt")).unwrap();
/// let (mut e, mut z) = (vec![0.0; 2 * b.p], vec![0.0; b.p]);
/// nilang_apps::ba::ba_objective_into(&b, &mut e, &mut z);
/// let (e0, z0) = ba_objective(&b);
/// assert!(e.iter().zip(&e0).all(|(a, b)| adbench_close(*a, *b)));
/// assert_eq!(z, z0);
/// ```
pub fn ba_objective_into(b: &BaInput, reproj: &mut [f64], w_err: &mut [f64]) {
    assert_eq!(
        reproj.len(),
        2 * b.p,
        "ba_objective_into: reproj.len() != 2p"
    );
    assert_eq!(w_err.len(), b.p, "ba_objective_into: w_err.len() != p");
    let mut a = BaAnc::default();
    for (i, &(c, q)) in b.obs.iter().enumerate() {
        let mut cam = *b.cam(c);
        let mut x = *b.point(q);
        let mut w = b.w[i];
        let e: &mut [f64; 2] = (&mut reproj[2 * i..2 * i + 2]).try_into().unwrap();
        ba_reproj_i(e, &mut cam, &mut x, &mut w, b.feat(i), &mut a);
        ba_w_err_i(&mut w_err[i], &mut w);
    }
}

/// The 2×15 Jacobian block of one observation (rows: the two residuals; columns: the 11
/// camera parameters, the 3 point coordinates, the weight) by the gradient API: one backward
/// pass of [`ba_reproj_i`] with two adjoint lanes (`Lanes<2>`: lane `j` carries the adjoint
/// of `e_j`). [`ba_reproj_i`] is compute–copy–uncompute in `e`, so no forward pass runs.
/// No heap allocation (the storage is arrays).
#[inline]
pub fn ba_block(
    cam: &[f64; CAM_LEN],
    x: &[f64; 3],
    w: f64,
    feat: &[f64; 2],
) -> [[f64; BLOCK_LEN]; 2] {
    let (mut e, mut c, mut xx, mut ww, mut a) = ([0.0; 2], *cam, *x, w, BaAnc::default());
    let mut plan = nilang::ad::Plan::new();
    let (_, gc, gx, gw, _, _) = plan.jacobian::<_, _, 2>(
        &BaReprojI,
        (&mut e, &mut c, &mut xx, &mut ww, feat, &mut a),
        0,
    );
    let mut out = [[0.0; BLOCK_LEN]; 2];
    for (r, row) in out.iter_mut().enumerate() {
        for (o, v) in row.iter_mut().zip(gc.iter().chain(gx.iter()).chain([&*gw])) {
            *o = v.g.0[r];
        }
    }
    out
}

/// `dz/dw` of the weight error `z = 1 − w²` by reverse mode (one backward pass).
#[inline]
pub fn w_err_grad(w: f64) -> f64 {
    let (_, (_, gw)) = nilang::ad::value_and_gradient(&BaWErrI, (&mut 0.0, &mut { w }), 0);
    gw.g
}

/// The Jacobian (ADBench's CSR layout of `jac`, see [`SparseJacobian::with_layout`]) by the
/// gradient API: per observation one backward pass with two adjoint lanes ([`ba_block`]) and
/// the weight error's derivative; no allocation.
pub fn ba_jacobian_into(b: &BaInput, jac: &mut SparseJacobian) {
    assert_eq!(
        jac.vals.len(),
        31 * b.p,
        "ba_jacobian_into: layout of another instance"
    );
    for (i, &(c, q)) in b.obs.iter().enumerate() {
        let block = ba_block(b.cam(c), b.point(q), b.w[i], b.feat(i));
        jac.fill_block(i, &block);
        jac.fill_w(i, w_err_grad(b.w[i]));
    }
}

/// The sparse Jacobian of `b` (allocates the CSR structure; see [`ba_jacobian_into`]).
pub fn jacobian(b: &BaInput) -> SparseJacobian {
    let mut j = SparseJacobian::with_layout(b);
    ba_jacobian_into(b, &mut j);
    j
}

/// Observations per parallel task of [`ba_jacobian_into_par`].
pub const BA_CHUNK: usize = 256;

/// [`ba_jacobian_into`] on all threads of the current rayon pool (`pool.install(..)` chooses
/// the pool) by the library's per-term map ([`nilang::ad::term_sum::for_each_term`]):
/// observations in chunks of [`BA_CHUNK`], each block written to its own place, so the result
/// is the same, bit for bit, for any number of threads. No allocation.
///
/// ```
/// use nilang_apps::adbench::{ba::BaInput, oracle::data_dir, sparse::SparseJacobian};
/// let b = BaInput::from_file(data_dir().join("adbench/ba/test.txt")).unwrap();
/// let (mut j1, mut j2) = (SparseJacobian::with_layout(&b), SparseJacobian::with_layout(&b));
/// nilang_apps::ba::ba_jacobian_into(&b, &mut j1);
/// nilang_apps::ba::ba_jacobian_into_par(&b, &mut j2);
/// assert_eq!(j1.vals, j2.vals);
/// ```
pub fn ba_jacobian_into_par(b: &BaInput, jac: &mut SparseJacobian) {
    use nilang::ad::term_sum::for_each_term;
    assert_eq!(
        jac.vals.len(),
        31 * b.p,
        "ba_jacobian_into_par: layout of another instance"
    );
    let (blocks, ws) = jac.vals.split_at_mut(2 * BLOCK_LEN * b.p);
    for_each_term(blocks, 2 * BLOCK_LEN, BA_CHUNK, |i, bo| {
        let (c, q) = b.obs[i];
        let block = ba_block(b.cam(c), b.point(q), b.w[i], b.feat(i));
        bo[..BLOCK_LEN].copy_from_slice(&block[0]);
        bo[BLOCK_LEN..].copy_from_slice(&block[1]);
    });
    for_each_term(ws, 1, BA_CHUNK, |i, wo| wo[0] = w_err_grad(b.w[i]));
}
