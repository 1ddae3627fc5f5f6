// ADBench's Gaussian mixture objective written in the reversible language.
//
// The definition is `shared/data/adbench/README.md`'s (the same as
// [`nilang_apps::adbench::gmm::gmm_objective`]): for points `x_i` and components `k`,
//
// `f = Σ_i logsumexp_k(α_k + Σq_k − ½‖Q_k (x_i − μ_k)‖²) − n·logsumexp(α) + prior + const`.
//
// The program is compute–copy–uncompute at two levels:
//
// ```text
// routine { qd = exp(q), base = α + Σq }                       gmm_prepare
// for every point i {
//     routine { xc, y = Q xc, sq = ‖y‖², main, lse_i }           gmm_point
//     out += lse_i
//     unroutine
// }
// out += −n·logsumexp(α) + prior + const                       gmm_rest
// unroutine
// ```
//
// so every per-point ancilla lives in a small workspace ([`GmmWork`], `O(K·d)`) that is
// reused by every point: no per-point storage and no allocation in the loop.
//
// **Gradient** ([`gmm_value_grad`]): the inverse of a compute–copy–uncompute program, run on
// gradient numbers with the output's adjoint seeded, gives the gradient in one reverse pass
// (the inputs are unchanged by the forward pass, so no forward pass is needed). Inside that
// pass every `routine` is first *recomputed*; at that moment all its ancillas are fresh with
// zero adjoints, so the recomputation moves no adjoint and equals the plain-number routine
// followed by lifting its results to `GVar`s. [`gmm_value_grad`] does exactly that per point:
// [`gmm_point`] on `f64` (cheap), lift the workspace, seed `lse_i`, then [`gmm_point_inv`] on
// `GVar<f64>` (uncompute + adjoints). The data points stay plain `f64` throughout (mixed
// operands: a `GVar` target accepts `f64` constants).
use nilang::instr::fns::Sub;
use nilang::instr::PlusEq2;
use nilang::prelude::*;
use nilang_apps::adbench::gmm::GmmInput;
use nilang_apps::adbench::special::{log_gamma_d, ADBENCH_PI};

/// The largest value of a slice (as `f64`): the logsumexp shift (a constant: the derivative
/// of `logsumexp` with respect to its shift is zero).
#[inline]
pub fn max_value<T: Value>(v: &[T]) -> f64 {
    v.iter().fold(f64::NEG_INFINITY, |m, a| m.max(a.value()))
}

/// Position of `L[row, col]` (`col < row`) in the column-by-column packed `l` block.
#[inline(always)]
pub fn lower_index(d: usize, row: usize, col: usize) -> usize {
    col * (2 * d - col - 1) / 2 + (row - col - 1)
}

/// Offset of column `col`'s strictly-lower entries (rows `col+1..d`) in the packed `l` block.
#[inline(always)]
pub fn lower_col(d: usize, col: usize) -> usize {
    col * (2 * d - col - 1) / 2
}

/// Per-component precomputation: `qd[c·d + r] += exp(q_c[r])`, `base[c] += α_c + Σ_r q_c[r]`.
#[i(nocheck)]
pub fn gmm_prepare<T: Scalar>(
    qd: &mut [T],
    base: &mut [T],
    alpha: &mut [T],
    icf: &mut [T],
    d: usize,
    k: usize,
) {
    for c in 0..k {
        base[c] += alpha[c];
        for r in 0..d {
            qd[c * d + r] += exp(icf[c * (d * (d + 1) / 2) + r]);
            base[c] += icf[c * (d * (d + 1) / 2) + r];
        }
    }
}

/// `y += L[:, c..c+2] · xv` for a pair of columns `c, c+1` of `L`: `y` holds rows
/// `c+1..d` (`n + 1` numbers), `l` the packed entries of both columns (`2n + 1`: `L[c+1, c]`,
/// `L[c+2.., c]`, `L[c+2.., c+1]`) and `xv = xc[c..c+2]`. Two columns per sweep halve the
/// traffic on `y`, and in the backward pass the two adjoint sums of `xv` are independent.
#[i(nocheck)]
#[inline]
pub fn gmm_lcol2<T: Scalar>(y: &mut [T], l: &mut [T], xv: &mut [T]) {
    safe! {
        assert!(!y.is_empty() && l.len() == 2 * y.len() - 1 && xv.len() == 2);
    }
    // local copies of `xv` (registers: their adjoints accumulate there in the backward pass)
    let v0 = T::default();
    let v1 = T::default();
    v0 += xv[0];
    v1 += xv[1];
    y[0] += l[0] * v0;
    for j in 1..y.len() {
        y[j] += l[j] * v0;
        y[j] += l[y.len() - 1 + j] * v1;
    }
    v1 -= xv[1];
    v0 -= xv[0];
    dealloc!(v1 = T::default());
    dealloc!(v0 = T::default());
}

/// One component at one point: `xc += x − μ`, `y += Q xc` (`Q = diag(qd) + L`, `L` packed
/// column by column in `l`), `sq += ‖y‖²`. All slices have length `d` (`l`: `d(d−1)/2`).
#[i(nocheck)]
#[inline]
pub fn gmm_comp<T: Scalar>(
    sq: &mut T,
    xc: &mut [T],
    y: &mut [T],
    qd: &mut [T],
    mu: &mut [T],
    l: &mut [T],
    x: &[f64],
) where
    T: PlusEq2<Sub, f64, T>,
{
    safe! {
        let d = xc.len();
        assert!(y.len() == d && qd.len() == d && mu.len() == d && x.len() == d);
        assert_eq!(l.len(), d * d.saturating_sub(1) / 2);
    }
    for r in 0..xc.len() {
        xc[r] += x[r] - mu[r];
    }
    for r in 0..y.len() {
        y[r] += qd[r] * xc[r];
    }
    for cp in 0..xc.len() / 2 {
        gmm_lcol2(
            &mut y[2 * cp + 1..],
            &mut l[lower_col(xc.len(), 2 * cp)..lower_col(xc.len(), 2 * cp + 2)],
            &mut xc[2 * cp..2 * cp + 2],
        );
    }
    for r in 0..y.len() {
        sq += abs2(y[r]);
    }
}

/// One point: `lse += logsumexp_c(base_c − ½‖Q_c (x − μ_c)‖²)`, leaving its intermediates in
/// the workspace slices (`xc`, `y`: `K·d`; `sq`, `main`, `t`: `K`; `s`, `mx`).
///
/// The logsumexp is shifted by the largest `main` (a constant: the derivative of
/// `logsumexp` with respect to its shift is zero).
#[i(nocheck)]
#[allow(clippy::too_many_arguments)]
pub fn gmm_point<T: Scalar>(
    lse: &mut T,
    xc: &mut [T],
    y: &mut [T],
    sq: &mut [T],
    main: &mut [T],
    t: &mut [T],
    s: &mut T,
    mx: &mut T,
    qd: &mut [T],
    base: &mut [T],
    mu: &mut [T],
    icf: &mut [T],
    x: &[f64],
    d: usize,
    k: usize,
) where
    T: PlusEq2<Sub, f64, T>,
{
    for c in 0..k {
        gmm_comp(
            &mut sq[c],
            &mut xc[c * d..(c + 1) * d],
            &mut y[c * d..(c + 1) * d],
            &mut qd[c * d..(c + 1) * d],
            &mut mu[c * d..(c + 1) * d],
            &mut icf[c * (d * (d + 1) / 2) + d..(c + 1) * (d * (d + 1) / 2)],
            &x,
        );
        main[c] += base[c];
        main[c] -= sq[c] * 0.5;
    }
    mx += cst!(T::lit(max_value(&main)));
    for c in 0..k {
        t[c] += main[c] - mx;
        s += exp(t[c]);
    }
    lse += ln(s);
    lse += mx;
}

/// The data-free terms: `out += −n·logsumexp(α) + γ²/2·Σ_c(‖exp q_c‖² + ‖l_c‖²) − m·Σ_c Σq_c
/// + constant` (`qd` holds `exp q`; `ta` is a `K`-ancilla slice; `sa`, `la`, `mxa`, `fro`
/// zero ancillas).
#[i(nocheck)]
#[allow(clippy::too_many_arguments)]
pub fn gmm_rest<T: Scalar>(
    out: &mut T,
    ta: &mut [T],
    sa: &mut T,
    la: &mut T,
    mxa: &mut T,
    fro: &mut T,
    qd: &mut [T],
    alpha: &mut [T],
    icf: &mut [T],
    d: usize,
    k: usize,
    n: usize,
    gamma: f64,
    m: i64,
) {
    routine! {
        mxa += cst!(T::lit(max_value(&alpha)));
        for c in 0..k {
            ta[c] += alpha[c] - mxa;
            sa += exp(ta[c]);
        }
        la += ln(sa);
        la += mxa;
        for c in 0..k {
            for r in 0..d {
                fro += abs2(qd[c * d + r]);
            }
            for j in d..d * (d + 1) / 2 {
                fro += abs2(icf[c * (d * (d + 1) / 2) + j]);
            }
        }
    }
    out -= la * cst!(T::lit(n as f64));
    out += fro * cst!(T::lit(0.5 * gamma * gamma));
    for c in 0..k {
        for r in 0..d {
            out -= icf[c * (d * (d + 1) / 2) + r] * cst!(T::lit(m as f64));
        }
    }
    out += cst!(T::lit(gmm_constant(d, k, n, gamma, m)));
    unroutine!();
}

/// The constant terms `−n·d/2·log(2π) − K·C` (ADBench's truncated π).
pub fn gmm_constant(d: usize, k: usize, n: usize, gamma: f64, m: i64) -> f64 {
    let (df, mf) = (d as f64, m as f64);
    let big_n = df + mf + 1.0;
    let c = big_n * df * (gamma.ln() - 0.5 * 2f64.ln()) - log_gamma_d(d, 0.5 * big_n);
    -(n as f64) * df * 0.5 * (2.0 * ADBENCH_PI).ln() - k as f64 * c
}

/// The ancilla workspace of the GMM program: `O(K·d)` numbers, all zero between calls.
#[derive(Clone, Debug)]
pub struct GmmWork<T> {
    /// `exp(q)`, `K·d`.
    pub qd: Vec<T>,
    /// `α + Σq`, `K`.
    pub base: Vec<T>,
    /// `x − μ` per component, `K·d`.
    pub xc: Vec<T>,
    /// `Q (x − μ)` per component, `K·d`.
    pub y: Vec<T>,
    /// `‖y‖²`, `K`.
    pub sq: Vec<T>,
    /// `base − ½ sq`, `K`.
    pub main: Vec<T>,
    /// `main − max`, `K` (also the `K` ancillas of `logsumexp(α)`).
    pub t: Vec<T>,
    /// Scalars: `[lse, s, mx, sa, la, mxa, fro]`.
    pub sc: Vec<T>,
}

impl<T: Scalar> GmmWork<T> {
    /// A zero workspace for dimension `d` and `k` components.
    pub fn new(d: usize, k: usize) -> Self {
        GmmWork {
            qd: vec![T::default(); k * d],
            base: vec![T::default(); k],
            xc: vec![T::default(); k * d],
            y: vec![T::default(); k * d],
            sq: vec![T::default(); k],
            main: vec![T::default(); k],
            t: vec![T::default(); k],
            sc: vec![T::default(); 7],
        }
    }
}

/// `out += f(p)`: the whole GMM objective as one reversible program. `p` is the flat
/// parameter vector, `x` the points; the remaining slices are the zero ancilla workspace
/// ([`GmmWork`]'s fields: `qd`, `xc`, `y`: `K·d`; `base`, `sq`, `main`, `t`: `K`; `sc`: 7
/// scalars), left zero up to rounding.
#[i(nocheck)]
#[allow(clippy::too_many_arguments)]
pub fn gmm_objective_i<T: Scalar>(
    out: &mut T,
    alpha: &mut [T],
    mu: &mut [T],
    icf: &mut [T],
    x: &[f64],
    d: usize,
    k: usize,
    n: usize,
    gamma: f64,
    m: i64,
    qd: &mut [T],
    base: &mut [T],
    xc: &mut [T],
    y: &mut [T],
    sq: &mut [T],
    main: &mut [T],
    t: &mut [T],
    sc: &mut [T],
) where
    T: PlusEq2<Sub, f64, T>,
{
    routine! {
        gmm_prepare(qd, base, alpha, icf, d, k);
    }
    for i in 0..n {
        routine! {
            gmm_point(
                &mut sc[0],
                xc,
                y,
                sq,
                main,
                t,
                &mut sc[1],
                &mut sc[2],
                qd,
                base,
                mu,
                icf,
                &x[i * d..(i + 1) * d],
                d,
                k,
            );
        }
        out += sc[0];
        unroutine!();
    }
    gmm_rest(
        out, t, &mut sc[3], &mut sc[4], &mut sc[5], &mut sc[6], qd, alpha, icf, d, k, n, gamma, m,
    );
    unroutine!();
}

impl<T: Scalar + PlusEq2<Sub, f64, T>> GmmWork<T> {
    /// `out += f(p)` by [`gmm_objective_i`] with this workspace.
    #[allow(clippy::too_many_arguments)]
    pub fn objective(
        &mut self,
        out: &mut T,
        p: &mut [T],
        x: &[f64],
        d: usize,
        k: usize,
        n: usize,
        gamma: f64,
        m: i64,
    ) {
        let w = self;
        let (alpha, rest) = p.split_at_mut(k);
        let (mu, icf) = rest.split_at_mut(k * d);
        gmm_objective_i(
            out,
            alpha,
            mu,
            icf,
            x,
            d,
            k,
            n,
            gamma,
            m,
            &mut w.qd,
            &mut w.base,
            &mut w.xc,
            &mut w.y,
            &mut w.sq,
            &mut w.main,
            &mut w.t,
            &mut w.sc,
        );
    }

    /// The inverse of [`GmmWork::objective`].
    #[allow(clippy::too_many_arguments)]
    pub fn objective_inv(
        &mut self,
        out: &mut T,
        p: &mut [T],
        x: &[f64],
        d: usize,
        k: usize,
        n: usize,
        gamma: f64,
        m: i64,
    ) {
        let w = self;
        let (alpha, rest) = p.split_at_mut(k);
        let (mu, icf) = rest.split_at_mut(k * d);
        gmm_objective_i_inv(
            out,
            alpha,
            mu,
            icf,
            x,
            d,
            k,
            n,
            gamma,
            m,
            &mut w.qd,
            &mut w.base,
            &mut w.xc,
            &mut w.y,
            &mut w.sq,
            &mut w.main,
            &mut w.t,
            &mut w.sc,
        );
    }
}

/// The GMM objective of instance `g` by the reversible program on `f64`.
///
/// ```
/// use nilang_apps::adbench::{gmm::{gmm_generate, gmm_objective}, oracle::adbench_close};
/// let g = gmm_generate(3, 4, 20, 1);
/// assert!(adbench_close(nilang_apps::gmm::objective(&g), gmm_objective(&g)));
/// ```
pub fn objective(g: &GmmInput) -> f64 {
    let mut p = g.params();
    let mut w = GmmWork::new(g.d, g.k);
    let mut out = 0.0;
    w.objective(&mut out, &mut p, &g.x, g.d, g.k, g.n, g.gamma, g.m);
    out
}

/// Copy plain values into gradient numbers (zero adjoints) and zero the source.
#[inline]
fn lift(dst: &mut [GVar<f64>], src: &mut [f64]) {
    for (d, s) in dst.iter_mut().zip(src.iter_mut()) {
        *d = GVar::from(*s);
        *s = 0.0;
    }
}

/// Reusable buffers of [`gmm_value_grad`]: the parameters as plain and gradient numbers and
/// the two workspaces (`O(K·d)` each); nothing depends on `n`.
#[derive(Clone, Debug)]
pub struct GmmGradWork {
    /// The parameters, flat.
    pub pf: Vec<f64>,
    /// The parameters as gradient numbers; after a call, `.g` holds the gradient.
    pub pg: Vec<GVar<f64>>,
    /// Plain workspace (the value-only recomputation).
    pub wf: GmmWork<f64>,
    /// Gradient workspace (uncomputation and adjoints).
    pub wg: GmmWork<GVar<f64>>,
}

impl GmmGradWork {
    /// Buffers for instances of dimension `d` with `k` components.
    pub fn new(d: usize, k: usize) -> Self {
        let np = k * (1 + d + d * (d + 1) / 2);
        GmmGradWork {
            pf: vec![0.0; np],
            pg: vec![GVar::default(); np],
            wf: GmmWork::new(d, k),
            wg: GmmWork::new(d, k),
        }
    }
}

/// The objective and its gradient (flat layout `[α | μ | icf]`, written to `grad`) in one
/// reverse pass of [`gmm_objective_i`] (see the module docs): per point, the routine runs on
/// `f64`, its results are lifted to `GVar`s and its inverse runs on `GVar`s. No allocation.
///
/// ```
/// use nilang_apps::adbench::{gmm::{gmm_generate, gmm_objective_and_gradient}, oracle::adbench_close};
/// use nilang_apps::gmm::{gmm_value_grad, GmmGradWork};
/// let g = gmm_generate(3, 4, 20, 1);
/// let mut work = GmmGradWork::new(3, 4);
/// let mut grad = vec![0.0; g.n_params()];
/// let f = gmm_value_grad(&g, &mut work, &mut grad);
/// let (f0, g0) = gmm_objective_and_gradient(&g);
/// assert!(adbench_close(f, f0));
/// assert!(grad.iter().zip(&g0).all(|(a, b)| adbench_close(*a, *b)));
/// ```
pub fn gmm_value_grad(g: &GmmInput, work: &mut GmmGradWork, grad: &mut [f64]) -> f64 {
    let (d, k, n) = (g.d, g.k, g.n);
    let np = g.n_params();
    assert_eq!(grad.len(), np, "gmm_value_grad: grad has the wrong length");
    assert_eq!(
        work.pf.len(),
        np,
        "gmm_value_grad: work built for another (d, K)"
    );
    assert_eq!(g.x.len(), n * d, "gmm_value_grad: x.len() != n*d");
    let GmmGradWork { pf, pg, wf, wg } = work;
    let (af, rest) = pf.split_at_mut(k);
    let (muf, icff) = rest.split_at_mut(k * d);
    let (ag, rest) = pg.split_at_mut(k);
    let (mug, icfg) = rest.split_at_mut(k * d);
    af.copy_from_slice(&g.alphas);
    muf.copy_from_slice(&g.means);
    icff.copy_from_slice(&g.icf);
    for (a, &v) in ag
        .iter_mut()
        .chain(mug.iter_mut())
        .chain(icfg.iter_mut())
        .zip(g.alphas.iter().chain(&g.means).chain(&g.icf))
    {
        *a = GVar::from(v);
    }
    // routine 1 (prepare), value only, lifted
    // (the plain values stay in `wf` for the plain per-point routines)
    gmm_prepare(&mut wf.qd, &mut wf.base, af, icff, d, k);
    for (a, &v) in wg.qd.iter_mut().zip(&wf.qd) {
        *a = GVar::from(v);
    }
    for (a, &v) in wg.base.iter_mut().zip(&wf.base) {
        *a = GVar::from(v);
    }
    let mut value = 0.0;
    for xi in g.x.chunks_exact(d.max(1)).take(n) {
        // routine 2 (one point), value only
        let [lse, s, mx, ..] = &mut wf.sc[..] else {
            unreachable!()
        };
        gmm_point(
            lse,
            &mut wf.xc,
            &mut wf.y,
            &mut wf.sq,
            &mut wf.main,
            &mut wf.t,
            s,
            mx,
            &mut wf.qd,
            &mut wf.base,
            muf,
            icff,
            xi,
            d,
            k,
        );
        value += wf.sc[0];
        lift(&mut wg.xc, &mut wf.xc);
        lift(&mut wg.y, &mut wf.y);
        lift(&mut wg.sq, &mut wf.sq);
        lift(&mut wg.main, &mut wf.main);
        lift(&mut wg.t, &mut wf.t);
        lift(&mut wg.sc[..3], &mut wf.sc[..3]);
        // the copy `out += lse` seen backwards: seed lse's adjoint; then uncompute
        wg.sc[0].g = 1.0;
        let [lse, s, mx, ..] = &mut wg.sc[..] else {
            unreachable!()
        };
        gmm_point_inv(
            lse,
            &mut wg.xc,
            &mut wg.y,
            &mut wg.sq,
            &mut wg.main,
            &mut wg.t,
            s,
            mx,
            &mut wg.qd,
            &mut wg.base,
            mug,
            icfg,
            xi,
            d,
            k,
        );
    }
    // the data-free terms: compute–copy–uncompute, one reverse pass with out's adjoint = 1
    let mut out = GVar::new(0.0, 1.0);
    for v in wg.t.iter_mut() {
        *v = GVar::default();
    }
    let [_, _, _, sa, la, mxa, fro] = &mut wg.sc[..] else {
        unreachable!()
    };
    *sa = GVar::default();
    *la = GVar::default();
    *mxa = GVar::default();
    *fro = GVar::default();
    gmm_rest_inv(
        &mut out, &mut wg.t, sa, la, mxa, fro, &mut wg.qd, ag, icfg, d, k, n, g.gamma, g.m,
    );
    value -= out.x;
    // routine 1 backwards: adjoints of exp(q) and α + Σq into the parameters
    gmm_prepare_inv(&mut wg.qd, &mut wg.base, ag, icfg, d, k);
    wf.qd.iter_mut().for_each(|v| *v = 0.0);
    wf.base.iter_mut().for_each(|v| *v = 0.0);
    for (o, v) in grad
        .iter_mut()
        .zip(ag.iter().chain(mug.iter()).chain(icfg.iter()))
    {
        *o = v.g;
    }
    value
}

/// The objective and gradient of `g` (allocating the buffers; see [`gmm_value_grad`]).
pub fn value_and_gradient(g: &GmmInput) -> (f64, Vec<f64>) {
    let mut work = GmmGradWork::new(g.d, g.k);
    let mut grad = vec![0.0; g.n_params()];
    let f = gmm_value_grad(g, &mut work, &mut grad);
    (f, grad)
}
