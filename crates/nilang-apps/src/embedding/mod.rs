//! Embedding the Petersen graph in k dimensions (the paper's Sec. 4.3 / Takahashi & Sandvik).
//!
//! The loss (NiGraphEmbedding's, the same as `nilang-bench`'s plain `embedding` suite and
//! reproducing `oracle-reference/petersen_k{2,5}_seed0.json`): the Euclidean (not squared)
//! distances of the 15 edges (`L₁`) and of the 30 non-adjacent pairs (`L₂`),
//!
//! `L = var(d(L₁)) + var(d(L₂)) + exp(relu(mean(d(L₁)) − mean(d(L₂)) + 0.1)) − 1`
//!
//! with the sample variance (n − 1). The positions are a flat slice in "vec order":
//! `x[vertex·k + coordinate]`, the layout of the oracle's `gradient_vec` and `hessian`.
//!
//! [`embedding_loss`] is a reversible function generic over [`Scalar`], so the gradient
//! ([`gradient`]), the Hessian (forward-over-reverse [`hessian`], reverse-over-reverse
//! [`hessian_rev_rev`]) come from the AD API. [`train_adam`] and [`train_newton`] minimise it
//! with two vertices fixed (as in the paper, otherwise the graph may collapse).
mod training;

pub use training::{
    free_coordinates, plot_losses, train_adam, train_newton, trust_region_step, Panel, Training,
};

use nilang::check::AlmostSame;
use nilang::prelude::*;

/// Graphs.jl's `smallgraph(:petersen)`, 0-based (the same list as `nilang-bench`).
pub const EDGES: [(usize, usize); 15] = [
    (0, 1),
    (0, 4),
    (0, 5),
    (1, 2),
    (1, 6),
    (2, 3),
    (2, 7),
    (3, 4),
    (3, 8),
    (4, 9),
    (5, 7),
    (5, 8),
    (6, 8),
    (6, 9),
    (7, 9),
];

/// The 30 non-adjacent pairs `(i, j)`, `i < j`, in lexicographic order.
pub const NON_EDGES: [(usize, usize); 30] = [
    (0, 2),
    (0, 3),
    (0, 6),
    (0, 7),
    (0, 8),
    (0, 9),
    (1, 3),
    (1, 4),
    (1, 5),
    (1, 7),
    (1, 8),
    (1, 9),
    (2, 4),
    (2, 5),
    (2, 6),
    (2, 8),
    (2, 9),
    (3, 5),
    (3, 6),
    (3, 7),
    (3, 9),
    (4, 5),
    (4, 6),
    (4, 7),
    (4, 8),
    (5, 6),
    (5, 9),
    (6, 7),
    (7, 8),
    (8, 9),
];

/// Number of vertices.
pub const NV: usize = 10;

/// The 45 vertex pairs: the 15 edges, then the 30 non-edges.
pub const PAIRS: [(usize, usize); 45] = {
    let mut p = [(0, 0); 45];
    let mut i = 0;
    while i < 15 {
        p[i] = EDGES[i];
        i += 1;
    }
    while i < 45 {
        p[i] = NON_EDGES[i - 15];
        i += 1;
    }
    p
};

/// `d += |x_a − x_b|` (Euclidean distance of vertices `a` and `b` in `k` dimensions).
#[i(nocheck)]
pub fn i_dist<T: Scalar>(d: &mut T, x: &mut [T], k: usize, a: usize, b: usize) {
    let s = T::default();
    routine! {
        for c in 0..k {
            s += sqdiff(x[a * k + c], x[b * k + c]);
        }
    }
    d += sqrt(s);
    unroutine!();
    dealloc!(s = T::default());
}

/// `mean += Σ dᵢ / n`, `var += Σ (dᵢ − mean)² / (n − 1)` (the sample variance; `mean`
/// must be zero on entry for `var` to be the variance).
#[i(nocheck)]
pub fn i_var_mean<T: Scalar>(var: &mut T, mean: &mut T, d: &mut [T]) {
    {
        let sum = T::default();
        routine! {
            for i in 0..d.len() {
                sum += d[i];
            }
        }
        mean += sum / cst!(T::lit(d.len() as f64));
        unroutine!();
        dealloc!(sum = T::default());
    }
    {
        let acc = T::default();
        routine! {
            for i in 0..d.len() {
                acc += sqdiff(d[i], mean);
            }
        }
        var += acc / cst!(T::lit((d.len() - 1) as f64));
        unroutine!();
        dealloc!(acc = T::default());
    }
}

/// The intermediate values of the loss: squared distances and distances of the 45 pairs,
/// variance and mean of the edge and non-edge distances, and the penalty's argument.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Stats<T> {
    /// Squared distances (edges first).
    pub s: [T; 45],
    /// Distances.
    pub d: [T; 45],
    /// Variance of the edge distances.
    pub ve: T,
    /// Mean of the edge distances.
    pub me: T,
    /// Variance of the non-edge distances.
    pub vn: T,
    /// Mean of the non-edge distances.
    pub mn: T,
    /// `mean(d(L₁)) − mean(d(L₂)) + 0.1`.
    pub gap: T,
}

impl<T: Copy + Default> Stats<T> {
    /// All zero.
    pub fn zero() -> Self {
        let z = T::default();
        Stats {
            s: [z; 45],
            d: [z; 45],
            ve: z,
            me: z,
            vn: z,
            mn: z,
            gap: z,
        }
    }
}

impl<T: AlmostSame> AlmostSame for Stats<T> {
    fn almost_same(&self, o: &Self) -> bool {
        self.s.almost_same(&o.s)
            && self.d.almost_same(&o.d)
            && self.ve.almost_same(&o.ve)
            && self.me.almost_same(&o.me)
            && self.vn.almost_same(&o.vn)
            && self.mn.almost_same(&o.mn)
            && self.gap.almost_same(&o.gap)
    }
}

/// The routine of the loss: `st += ` the statistics of positions `x` (`st` zero on entry).
#[i(nocheck)]
pub fn embedding_stats<T: Scalar>(st: &mut Stats<T>, x: &mut [T], k: usize) {
    for e in 0..45 {
        for c in 0..k {
            st.s[e] += sqdiff(x[PAIRS[e].0 * k + c], x[PAIRS[e].1 * k + c]);
        }
    }
    // the square roots in a loop of their own: independent of each other, they pipeline (in
    // the backward pass, their rules' divisions too) instead of waiting on each sum
    for e in 0..45 {
        st.d[e] += sqrt(st.s[e]);
    }
    i_var_mean(&mut st.ve, &mut st.me, &mut st.d[0..15]);
    i_var_mean(&mut st.vn, &mut st.mn, &mut st.d[15..45]);
    st.gap += st.me - st.mn;
    st.gap += 0.1;
}

/// The copy of the loss: `out += var(d(L₁)) + var(d(L₂)) + exp(relu(gap)) − 1`.
#[i(nocheck)]
pub fn embedding_penalty<T: Ordered>(out: &mut T, st: &mut Stats<T>) {
    out += st.ve;
    out += st.vn;
    // the penalty keeps mean(d(L₂)) > mean(d(L₁)): exp(relu(gap)) − 1
    if (st.gap > T::lit(0.0), _) {
        out += exp(st.gap);
        out -= 1;
    }
}

/// `out += L(x)`, the Petersen embedding loss of positions `x` (vec order, `10·k` numbers).
///
/// Compute–copy–uncompute: the statistics live in one ancilla (explicit memory, 95 numbers),
/// so only one level of uncomputation is paid.
#[i(nocheck)]
pub fn embedding_loss<T: Ordered>(out: &mut T, x: &mut [T], k: usize) {
    let st = Stats::<T>::zero();
    routine! {
        embedding_stats(&mut st, x, k);
    }
    embedding_penalty(out, &mut st);
    unroutine!();
    dealloc!(st = Stats::<T>::zero());
}

/// Buffers for [`value_and_gradient_into`]: the positions and the gradient plan (its storage is
/// made at the first call and reused).
#[derive(Debug)]
pub struct Workspace {
    x: Vec<f64>,
    plan: nilang::ad::Plan<(GVar<f64>, Vec<GVar<f64>>, usize)>,
}

impl Workspace {
    /// Buffers for `k` dimensions.
    pub fn new(k: usize) -> Self {
        Workspace {
            x: vec![0.0; NV * k],
            plan: nilang::ad::Plan::new(),
        }
    }
}

/// The loss and its gradient by the gradient API, without heap allocation after the first
/// call: [`embedding_loss`] is compute–copy–uncompute, so this is one reverse pass.
///
/// ```
/// use nilang_apps::embedding::{value_and_gradient_into, gradient, Workspace};
/// let x: Vec<f64> = (0..20).map(|i| (i as f64 * 0.7).sin()).collect();
/// let (mut ws, mut g) = (Workspace::new(2), vec![0.0; 20]);
/// let v = value_and_gradient_into(&x, 2, &mut ws, &mut g);
/// let (v0, g0) = gradient(&x, 2);
/// assert!((v - v0).abs() < 1e-14 && g.iter().zip(&g0).all(|(a, b)| (a - b).abs() < 1e-13));
/// ```
pub fn value_and_gradient_into(x: &[f64], k: usize, ws: &mut Workspace, grad: &mut [f64]) -> f64 {
    check_len(x, k);
    ws.x.copy_from_slice(x);
    let (v, (_, gx, _)) =
        ws.plan
            .value_and_gradient(&EmbeddingLoss, (&mut 0.0, &mut ws.x[..], k), 0);
    for (g, v) in grad.iter_mut().zip(gx.iter()) {
        *g = v.g;
    }
    v
}

/// The loss `L(x)` for positions `x` (vec order) in `k` dimensions.
pub fn loss(x: &[f64], k: usize) -> f64 {
    check_len(x, k);
    let mut out = 0.0;
    let mut xx = x.to_vec();
    embedding_loss(&mut out, &mut xx, k);
    out
}

/// The loss and its gradient by the gradient API (one reverse pass: the loss is
/// compute–copy–uncompute).
pub fn gradient(x: &[f64], k: usize) -> (f64, Vec<f64>) {
    check_len(x, k);
    let mut xx = x.to_vec();
    let (v, (_, gx, _)) =
        nilang::ad::value_and_gradient(&EmbeddingLoss, (&mut 0.0, &mut xx[..], k), 0);
    (v, gx.iter().map(|v| v.g).collect())
}

/// The gradient through [`nilang::gradient`].
pub fn gradient_api(x: &[f64], k: usize) -> Vec<f64> {
    gradient(x, k).1
}

/// The Hessian, forward-over-reverse (dual numbers through the gradient program).
pub fn hessian(x: &[f64], k: usize) -> Vec<Vec<f64>> {
    check_len(x, k);
    let mut out = 0.0;
    let mut xx = x.to_vec();
    nilang::ad::hessian_fwd_rev(&EmbeddingLoss, (&mut out, &mut xx[..], k), 0, 1)
}

/// The Hessian, forward-over-reverse with `B::LANES` columns per reverse pass
/// ([`nilang::ad::hessian_fwd_rev_lanes`]: tangents in the lanes of `B`, `F64x4` or `F64x8`);
/// the same numbers as [`hessian`], bit for bit.
///
/// ```
/// use nilang::numbers::F64x8;
/// use nilang_apps::embedding::{hessian, hessian_lanes};
/// let x: Vec<f64> = (0..20).map(|i| (i as f64 * 0.7).sin()).collect();
/// assert_eq!(hessian_lanes::<F64x8>(&x, 2), hessian(&x, 2));
/// ```
pub fn hessian_lanes<B: nilang::numbers::Tangents>(x: &[f64], k: usize) -> Vec<Vec<f64>> {
    check_len(x, k);
    let mut out = 0.0;
    let mut xx = x.to_vec();
    nilang::ad::hessian_fwd_rev_lanes::<B, _, _>(&EmbeddingLoss, (&mut out, &mut xx[..], k), 0, 1)
}

/// The Hessian, reverse-over-reverse (NiLang's `hessian_backback`).
pub fn hessian_rev_rev(x: &[f64], k: usize) -> Vec<Vec<f64>> {
    check_len(x, k);
    let mut out = 0.0;
    let mut xx = x.to_vec();
    nilang::ad::hessian_rev_rev(&EmbeddingLoss, (&mut out, &mut xx[..], k), 0, 1)
}

fn check_len(x: &[f64], k: usize) {
    assert!(
        k >= 1 && x.len() == NV * k,
        "embedding: {} positions for k = {k}: expected 10·k = {}",
        x.len(),
        NV * k
    );
}

/// Euclidean distance of vertices `a`, `b` (plain Rust).
pub fn distance(x: &[f64], k: usize, a: usize, b: usize) -> f64 {
    (0..k)
        .map(|c| (x[a * k + c] - x[b * k + c]).powi(2))
        .sum::<f64>()
        .sqrt()
}

/// `(l₁, l₂)`: the mean edge distance and the mean non-edge distance.
pub fn mean_distances(x: &[f64], k: usize) -> (f64, f64) {
    let l1 = EDGES
        .iter()
        .map(|&(a, b)| distance(x, k, a, b))
        .sum::<f64>()
        / 15.0;
    let l2 = NON_EDGES
        .iter()
        .map(|&(a, b)| distance(x, k, a, b))
        .sum::<f64>()
        / 30.0;
    (l1, l2)
}

/// An oracle file (`oracle-reference/petersen_k*_seed0.json`): positions in vec order, the
/// loss, the gradient (vec order) and the Hessian (row-major, vec order).
#[derive(Clone, Debug)]
pub struct Oracle {
    /// Embedding dimension.
    pub k: usize,
    /// Positions, vec order.
    pub x: Vec<f64>,
    /// The loss.
    pub loss: f64,
    /// The gradient, vec order.
    pub grad: Vec<f64>,
    /// The Hessian, `10k × 10k`.
    pub hess: Vec<Vec<f64>>,
}

/// Read an oracle file; `Err` with a message if it is missing or malformed.
pub fn load_oracle(path: &std::path::Path) -> Result<Oracle, String> {
    let src = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let v: serde_json::Value =
        serde_json::from_str(&src).map_err(|e| format!("{}: {e}", path.display()))?;
    let bad = |what: &str| format!("{}: missing or malformed `{what}`", path.display());
    let k = v["k"].as_u64().ok_or_else(|| bad("k"))? as usize;
    let nums = |a: &serde_json::Value, what: &str| -> Result<Vec<f64>, String> {
        a.as_array()
            .ok_or_else(|| bad(what))?
            .iter()
            .map(|e| e.as_f64().ok_or_else(|| bad(what)))
            .collect()
    };
    let rows = v["x"].as_array().ok_or_else(|| bad("x"))?;
    if rows.len() != k {
        return Err(bad("x"));
    }
    let mut x = vec![0.0; NV * k];
    for (c, row) in rows.iter().enumerate() {
        let row = nums(row, "x")?;
        if row.len() != NV {
            return Err(bad("x"));
        }
        for (i, e) in row.into_iter().enumerate() {
            x[i * k + c] = e;
        }
    }
    let grad = nums(&v["gradient_vec"], "gradient_vec")?;
    let hess = v["hessian"]
        .as_array()
        .ok_or_else(|| bad("hessian"))?
        .iter()
        .map(|r| nums(r, "hessian"))
        .collect::<Result<Vec<_>, _>>()?;
    if grad.len() != NV * k || hess.len() != NV * k || hess.iter().any(|r| r.len() != NV * k) {
        return Err(bad("gradient_vec/hessian size"));
    }
    Ok(Oracle {
        k,
        x,
        loss: v["objective"].as_f64().ok_or_else(|| bad("objective"))?,
        grad,
        hess,
    })
}

/// Random normal positions (vec order) for dimension `k`.
pub fn random_positions(k: usize, rng: &mut impl rand::Rng) -> Vec<f64> {
    use rand_distr::{Distribution, StandardNormal};
    (0..NV * k).map(|_| StandardNormal.sample(rng)).collect()
}
