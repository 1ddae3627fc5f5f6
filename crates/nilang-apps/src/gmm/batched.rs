//! The GMM objective and gradient with the points in lanes of a batch number (`F64x4`,
//! `F64x8`): the same program ([`gmm_objective_i`]), `L` points per instruction.
use super::gradient::{check_sizes, gmm_chunk_value_grad};
use super::{gmm_objective_i, GmmGradWork, GmmObjectiveI, GmmWork, GMM_BLOCK};
use crate::adbench::gmm::GmmInput;
use nilang::instr::fns::Sub;
use nilang::instr::PlusEq2;
use nilang::numbers::Batch;
use nilang::prelude::*;

/// Lay the points of `g` out in lanes of a batch number `B`: group `j` holds points
/// `j·L .. (j+1)·L` (`L` lanes), coordinate `r` of lane `l` in `xb[j·d + r]`; `n / L` groups
/// (the last `n mod L` points are left out). `xb` is cleared first.
pub fn gmm_points_in_lanes<B: Batch>(g: &GmmInput, xb: &mut Vec<B>) {
    let (d, l) = (g.d, B::LANES);
    xb.clear();
    for j in 0..g.n / l {
        for r in 0..d {
            xb.push(B::from_fn(|k| g.x[(j * l + k) * d + r]));
        }
    }
}

/// Reusable buffers of [`gmm_value_grad_batched`]: the points in lanes, the parameters
/// splatted into every lane, the batched workspace, and the buffers of the one-point-at-a-time
/// program for the remaining points and the data-free terms.
#[derive(Debug)]
pub struct GmmBatchWork<'a, B> {
    xb: Vec<B>,
    alpha: Vec<B>,
    mu: Vec<B>,
    icf: Vec<B>,
    w: GmmWork<B>,
    tail: GmmGradWork<'a>,
    tail_grad: Vec<f64>,
}

impl<B: Batch> GmmBatchWork<'_, B> {
    /// Buffers for dimension `d` and `k` components; blocks of [`GMM_BLOCK`] points
    /// (`GMM_BLOCK / L` lane groups).
    pub fn new(d: usize, k: usize) -> Self {
        Self::with_block(d, k, (GMM_BLOCK / B::LANES).max(1))
    }

    /// Buffers with blocks of `bs ≥ 1` lane groups.
    pub fn with_block(d: usize, k: usize, bs: usize) -> Self {
        let np = k * (1 + d + d * (d + 1) / 2);
        GmmBatchWork {
            xb: Vec::new(),
            alpha: vec![B::default(); k],
            mu: vec![B::default(); k * d],
            icf: vec![B::default(); k * d * (d + 1) / 2],
            w: GmmWork::with_block(d, k, bs),
            tail: GmmGradWork::new(d, k),
            tail_grad: vec![0.0; np],
        }
    }
}

/// The GMM objective of `g` by the reversible program on batches: the points in lanes of `B`
/// ([`gmm_points_in_lanes`]) by [`gmm_objective_i`] on `B`, the remaining `n mod L` points and
/// the data-free terms on `f64`.
///
/// ```
/// use nilang_apps::adbench::gmm::gmm_generate;
/// use nilang::numbers::F64x4;
/// let g = gmm_generate(2, 3, 103, 1);
/// let (a, b) = (nilang_apps::gmm::objective_batched::<F64x4>(&g), nilang_apps::gmm::objective(&g));
/// assert!((a - b).abs() <= 1e-14 * b.abs());
/// ```
pub fn objective_batched<B: Batch + PlusEq2<Sub, B, B>>(g: &GmmInput) -> f64 {
    let (d, k) = (g.d, g.k);
    let mut xb = Vec::new();
    gmm_points_in_lanes::<B>(g, &mut xb);
    let mut p: Vec<B> = g.params().iter().map(|&v| B::splat(v)).collect();
    let (alpha, rest) = p.split_at_mut(k);
    let (mu, icf) = rest.split_at_mut(k * d);
    let mut w = GmmWork::<B>::with_block(d, k, (GMM_BLOCK / B::LANES).max(1));
    let mut out = B::default();
    gmm_objective_i(
        &mut out, alpha, mu, icf, &xb, d, k, g.n, g.gamma, g.m, false, &mut w,
    );
    // the remaining points and the data-free terms, one point at a time
    let mut p = g.params();
    let (alpha, rest) = p.split_at_mut(k);
    let (mu, icf) = rest.split_at_mut(k * d);
    let mut w = GmmWork::<f64>::new(d, k);
    let mut tail = 0.0;
    let x = &g.x[xb.len() * B::LANES..g.n * d];
    gmm_objective_i(
        &mut tail, alpha, mu, icf, x, d, k, g.n, g.gamma, g.m, true, &mut w,
    );
    out.sum() + tail
}

/// The objective and its gradient (layout `[α | μ | icf]`) with the points in lanes of `B`:
/// one call of the gradient API on `B` (the parameters splatted into every lane, so each lane
/// accumulates the adjoints of its own points; the lanes are summed at the end, in lane
/// order), plus one on `f64` ([`gmm_value_grad`](super::gmm_value_grad)'s) for the `n mod L` remaining points and the
/// data-free terms. The same program as [`gmm_value_grad`](super::gmm_value_grad) ([`gmm_objective_i`]), `L` points
/// per instruction. The layout of the points in lanes is redone at every call (`O(n·d)`
/// copies, no allocation after the first call except the gradient storage).
///
/// ```
/// use nilang_apps::adbench::gmm::gmm_generate;
/// use nilang_apps::gmm::{gmm_value_grad, gmm_value_grad_batched, GmmBatchWork, GmmGradWork};
/// use nilang::numbers::F64x4;
/// let g = gmm_generate(2, 3, 101, 1);
/// let mut work = GmmBatchWork::<F64x4>::new(2, 3);
/// let mut grad = vec![0.0; g.n_params()];
/// let f = gmm_value_grad_batched(&g, &mut work, &mut grad);
/// let mut g0 = vec![0.0; g.n_params()];
/// let f0 = gmm_value_grad(&g, &mut GmmGradWork::new(2, 3), &mut g0);
/// assert!((f - f0).abs() <= 1e-14 * f0.abs());
/// assert!(grad.iter().zip(&g0).all(|(a, b)| (a - b).abs() <= 1e-12 * (1.0 + b.abs())));
/// ```
pub fn gmm_value_grad_batched<'a, B>(
    g: &'a GmmInput,
    work: &mut GmmBatchWork<'a, B>,
    grad: &mut [f64],
) -> f64
where
    B: Batch + PlusEq2<Sub, B, B>,
    GVar<B>: PlusEq2<Sub, B, GVar<B>>,
{
    let (d, k) = (g.d, g.k);
    check_sizes(
        "gmm_value_grad_batched",
        g,
        grad,
        work.mu.len(),
        work.alpha.len(),
    );
    let GmmBatchWork {
        xb,
        alpha,
        mu,
        icf,
        w,
        tail,
        tail_grad,
    } = work;
    gmm_points_in_lanes::<B>(g, xb);
    for (dst, src) in [
        (&mut *alpha, &g.alphas),
        (&mut *mu, &g.means),
        (&mut *icf, &g.icf),
    ] {
        for (b, &v) in dst.iter_mut().zip(src) {
            *b = B::splat(v);
        }
    }
    let args = (
        &mut B::default(),
        &mut alpha[..],
        &mut mu[..],
        &mut icf[..],
        &xb[..],
        d,
        k,
        g.n,
        g.gamma,
        g.m,
        false,
        &mut *w,
    );
    let (value, st) = nilang::ad::value_and_gradient(&GmmObjectiveI, args, 0);
    for (o, v) in grad.iter_mut().zip(st.1.iter().chain(&st.2).chain(&st.3)) {
        *o = v.g.sum();
    }
    let done = xb.len() / d.max(1) * B::LANES;
    let rest = gmm_chunk_value_grad(g, done..g.n, true, tail, tail_grad);
    for (o, v) in grad.iter_mut().zip(tail_grad.iter()) {
        *o += v;
    }
    value.sum() + rest
}
