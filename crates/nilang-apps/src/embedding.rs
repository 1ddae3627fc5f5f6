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

/// The result of a training run.
#[derive(Clone, Debug)]
pub struct Training {
    /// Final positions.
    pub x: Vec<f64>,
    /// The loss before every step and after the last one.
    pub losses: Vec<f64>,
    /// Number of Hessians computed (Newton only).
    pub hessians: usize,
}

impl Training {
    /// The final loss.
    pub fn loss(&self) -> f64 {
        *self.losses.last().expect("at least the initial loss")
    }
}

/// Indices (vec order) of the coordinates that are trained: all but those of `fixed` vertices.
pub fn free_coordinates(k: usize, fixed: &[usize]) -> Vec<usize> {
    (0..NV * k).filter(|i| !fixed.contains(&(i / k))).collect()
}

/// Adam (β₁ = 0.9, β₂ = 0.999, ε = 1e-8) with learning rate `lr` for `steps` steps, the
/// vertices `fixed` kept in place. `tick` is called after each step.
pub fn train_adam(
    x0: &[f64],
    k: usize,
    fixed: &[usize],
    lr: f64,
    steps: usize,
    mut tick: impl FnMut(),
) -> Training {
    let (b1, b2, eps) = (0.9, 0.999, 1e-8);
    let free = free_coordinates(k, fixed);
    let mut x = x0.to_vec();
    let (mut m, mut v) = (vec![0.0; x.len()], vec![0.0; x.len()]);
    let mut losses = Vec::with_capacity(steps + 1);
    for t in 1..=steps {
        let (l, g) = gradient(&x, k);
        losses.push(l);
        let (c1, c2) = (1.0 - b1.powi(t as i32), 1.0 - b2.powi(t as i32));
        for &i in &free {
            m[i] = b1 * m[i] + (1.0 - b1) * g[i];
            v[i] = b2 * v[i] + (1.0 - b2) * g[i] * g[i];
            x[i] -= lr * (m[i] / c1) / ((v[i] / c2).sqrt() + eps);
        }
        tick();
    }
    losses.push(loss(&x, k));
    Training {
        x,
        losses,
        hessians: 0,
    }
}

/// Cholesky factorisation of a symmetric matrix (lower triangle, row-major `n × n`); `None`
/// if it is not positive definite.
fn cholesky(a: &[f64], n: usize) -> Option<Vec<f64>> {
    let mut l = vec![0.0; n * n];
    for i in 0..n {
        for j in 0..=i {
            let mut s = a[i * n + j];
            for p in 0..j {
                s -= l[i * n + p] * l[j * n + p];
            }
            if i == j {
                if s <= 0.0 || !s.is_finite() {
                    return None;
                }
                l[i * n + i] = s.sqrt();
            } else {
                l[i * n + j] = s / l[j * n + j];
            }
        }
    }
    Some(l)
}

/// Solve `L Lᵀ p = b`.
fn cholesky_solve(l: &[f64], n: usize, b: &[f64]) -> Vec<f64> {
    let mut y = b.to_vec();
    for i in 0..n {
        for p in 0..i {
            y[i] -= l[i * n + p] * y[p];
        }
        y[i] /= l[i * n + i];
    }
    for i in (0..n).rev() {
        for p in i + 1..n {
            y[i] -= l[p * n + i] * y[p];
        }
        y[i] /= l[i * n + i];
    }
    y
}

fn norm(v: &[f64]) -> f64 {
    v.iter().map(|a| a * a).sum::<f64>().sqrt()
}

/// The trust-region subproblem `min gᵀp + ½ pᵀHp, |p| ≤ Δ`: the Newton step if `H` is positive
/// definite and the step fits, otherwise `p(λ) = −(H + λI)⁻¹g` with `|p(λ)| = Δ`, `λ` found by
/// bisection (Moré–Sorensen without the hard case).
pub fn trust_region_step(h: &[f64], g: &[f64], delta: f64) -> Vec<f64> {
    let n = g.len();
    let solve = |lambda: f64| -> Option<Vec<f64>> {
        let mut a = h.to_vec();
        for i in 0..n {
            a[i * n + i] += lambda;
        }
        let l = cholesky(&a, n)?;
        Some(cholesky_solve(
            &l,
            n,
            &g.iter().map(|v| -v).collect::<Vec<_>>(),
        ))
    };
    if let Some(p) = solve(0.0) {
        if norm(&p) <= delta {
            return p;
        }
    }
    // |p(λ)| ≤ |g| / (λ − ‖H‖) ≤ Δ for λ ≥ ‖H‖_F + |g|/Δ
    let hnorm = norm(h);
    let (mut lo, mut hi) = (0.0, hnorm + norm(g) / delta);
    let Some(mut best) = solve(hi).filter(|_| hi.is_finite()) else {
        // a non-finite Hessian or gradient, or an empty region: no step
        return vec![0.0; n];
    };
    for _ in 0..100 {
        let mid = 0.5 * (lo + hi);
        match solve(mid) {
            Some(p) if norm(&p) <= delta => {
                hi = mid;
                best = p;
            }
            _ => lo = mid,
        }
        if hi - lo <= 1e-12 * hi {
            break;
        }
    }
    best
}

/// Newton's trust-region method with exact Hessians (forward-over-reverse), the vertices
/// `fixed` kept in place, for at most `max_iter` iterations (stops early when the loss is
/// below `1e-30`, the gradient vanishes or no step decreases the loss). `tick` is called after
/// each iteration. `losses` holds the loss before each Hessian and the final one.
pub fn train_newton(
    x0: &[f64],
    k: usize,
    fixed: &[usize],
    max_iter: usize,
    mut tick: impl FnMut(),
) -> Training {
    let free = free_coordinates(k, fixed);
    let n = free.len();
    let mut x = x0.to_vec();
    let mut delta = 1.0;
    let mut losses = Vec::with_capacity(max_iter + 1);
    let mut hessians = 0;
    let mut l = loss(&x, k);
    for _ in 0..max_iter {
        let (_, gfull) = gradient(&x, k);
        let g: Vec<f64> = free.iter().map(|&i| gfull[i]).collect();
        if l < 1e-30 || norm(&g) == 0.0 || !norm(&g).is_finite() {
            break;
        }
        let hfull = hessian(&x, k);
        hessians += 1;
        let mut h = vec![0.0; n * n];
        for (a, &i) in free.iter().enumerate() {
            for (b, &j) in free.iter().enumerate() {
                h[a * n + b] = 0.5 * (hfull[i][j] + hfull[j][i]);
            }
        }
        if h.iter().any(|v| !v.is_finite()) {
            break;
        }
        losses.push(l);
        // trial steps with the same Hessian, shrinking the region on rejection
        let mut accepted = false;
        for _ in 0..30 {
            let p = trust_region_step(&h, &g, delta);
            let pn = norm(&p);
            if pn == 0.0 {
                break;
            }
            let mut xn = x.clone();
            for (a, &i) in free.iter().enumerate() {
                xn[i] += p[a];
            }
            let ln = loss(&xn, k);
            let mut hp = 0.0;
            for a in 0..n {
                let row: f64 = (0..n).map(|b| h[a * n + b] * p[b]).sum();
                hp += p[a] * row;
            }
            let pred = -(g.iter().zip(&p).map(|(a, b)| a * b).sum::<f64>() + 0.5 * hp);
            let rho = if pred > 0.0 { (l - ln) / pred } else { -1.0 };
            if rho < 0.25 {
                delta = 0.25 * pn.min(delta);
            } else if rho > 0.75 && pn > 0.99 * delta {
                delta = (2.0 * delta).min(100.0);
            }
            if ln < l && (rho > 1e-4 || pred <= 0.0) {
                x = xn;
                l = ln;
                accepted = true;
                break;
            }
        }
        tick();
        if !accepted {
            // no decrease within the region: converged to rounding
            break;
        }
    }
    losses.push(l);
    Training {
        x,
        losses,
        hessians,
    }
}

/// One panel of [`plot_losses`]: a title and `(k, losses)` curves.
pub type Panel<'a> = (&'a str, Vec<(usize, Vec<f64>)>);

/// Draw the loss against the step (log scale) for each embedding dimension, one panel per
/// optimiser: `panels[p] = (title, [(k, losses)])`. Losses are clamped below at `1e-32`.
pub fn plot_losses(path: &std::path::Path, panels: &[Panel<'_>]) -> Result<(), String> {
    use plotters::prelude::*;
    let err = |e: &dyn std::fmt::Display| format!("{}: {e}", path.display());
    let root = SVGBackend::new(path, (600 * panels.len() as u32, 450)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(&e))?;
    let areas = root.split_evenly((1, panels.len()));
    for (area, (title, series)) in areas.iter().zip(panels) {
        let steps = series
            .iter()
            .map(|(_, l)| l.len())
            .max()
            .unwrap_or(1)
            .max(2);
        let floor = 1e-32;
        let top = series
            .iter()
            .flat_map(|(_, l)| l.iter().copied())
            .fold(1.0_f64, f64::max)
            * 2.0;
        let mut chart = ChartBuilder::on(area)
            .caption(*title, ("sans-serif", 20))
            .margin(10)
            .x_label_area_size(35)
            .y_label_area_size(60)
            .build_cartesian_2d(0..steps, (floor..top).log_scale())
            .map_err(|e| err(&e))?;
        chart
            .configure_mesh()
            .x_desc("step")
            .y_desc("loss")
            .y_label_formatter(&|v| format!("{v:.0e}"))
            .draw()
            .map_err(|e| err(&e))?;
        for (idx, (k, losses)) in series.iter().enumerate() {
            let color = Palette99::pick(idx).to_rgba();
            chart
                .draw_series(LineSeries::new(
                    losses.iter().enumerate().map(|(s, &l)| (s, l.max(floor))),
                    color.stroke_width(2),
                ))
                .map_err(|e| err(&e))?
                .label(format!("k = {k}"))
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2))
                });
        }
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .position(SeriesLabelPosition::LowerLeft)
            .draw()
            .map_err(|e| err(&e))?;
    }
    root.present().map_err(|e| err(&e))?;
    Ok(())
}
