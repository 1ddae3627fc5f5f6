//! ADBench's Gaussian mixture objective written in the reversible language.
//!
//! The definition is `shared/data/adbench/README.md`'s (the same as
//! [`crate::adbench::gmm::gmm_objective`]): for points `x_i` and components `k`,
//!
//! `f = Σ_i logsumexp_k(α_k + Σq_k − ½‖Q_k (x_i − μ_k)‖²) − n·logsumexp(α) + prior + const`.
//!
//! The program is compute–copy–uncompute at two levels, the points taken in blocks of `bs`
//! ([`GMM_BLOCK`]):
//!
//! ```text
//! routine { qd = exp(q), base = α + Σq }                       gmm_prepare
//! for every block of points {
//!     routine {                                                  gmm_block
//!         for every component c { for every point p of the block {
//!             xc, y = Q_c xc, sq = ‖y‖², main }                  gmm_comp_pts
//!         for every point p { lse_p = logsumexp(main_p) }        gmm_lse
//!     }
//!     out += Σ_p lse_p
//!     unroutine
//! }
//! out += −n·logsumexp(α) + prior + const                       gmm_rest
//! unroutine
//! ```
//!
//! Every per-block ancilla lives in a workspace ([`GmmWork`], `O(K·d·bs)`) that is reused by
//! every block: no per-point storage and no allocation in the loop. The blocks exist for the
//! memory traffic: a component's parameters (`O(d²)`) are streamed once per block and reused
//! from cache by its points, in the routine and in its inverse.
//!
//! **Gradient** ([`gmm_value_grad`]): one call of the gradient API. The program is
//! compute–copy–uncompute in `out`, so the compiler marks it for one reverse pass (no forward
//! pass), and the plan lifts the parameters and the workspace once per call, without
//! allocating. `fresh!` at the end of every block drops the adjoints the workspace carried, so
//! each block's recomputation starts from zero adjoints: no cancelling adjoint work piles up
//! over the blocks (the gradient stays exact to rounding). The data points stay plain `f64`
//! throughout (a read-only slice is passed through; a `GVar` target accepts `f64` operands).
mod batched;
mod gradient;

pub use batched::{gmm_points_in_lanes, gmm_value_grad_batched, objective_batched, GmmBatchWork};
pub use gradient::{
    gmm_rest_value_grad, gmm_value_grad, gmm_value_grad_par, value_and_gradient, GmmGradWork,
    GmmParWork, GMM_CHUNK,
};

use crate::adbench::gmm::GmmInput;
use nilang::ad::max_of;
use nilang::instr::fns::Sub;
use nilang::instr::PlusEq2;
use nilang::prelude::*;

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
#[i(device, nocheck)]
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
#[i(device, nocheck)]
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
#[i(device, nocheck)]
#[inline]
pub fn gmm_comp<T: Scalar, X: Copy>(
    sq: &mut T,
    xc: &mut [T],
    y: &mut [T],
    qd: &mut [T],
    mu: &mut [T],
    l: &mut [T],
    x: &[X],
) where
    T: PlusEq2<Sub, X, T>,
{
    safe! {
        let d = xc.len();
        assert!(y.len() == d && d == d && mu.len() == d && x.len() == d);
        assert_eq!(l.len(), d * d.saturating_sub(1) / 2);
    }
    for r in 0..xc.len() {
        xc[r] += x[r] - mu[r];
    }
    for r in 0..y.len() {
        y[r] += qd[r] * xc[r];
    }
    // columns `2cp, 2cp + 1` of `L`: `l[lower_col(d, 2cp)..lower_col(d, 2cp + 2)]`, the
    // offsets written out (a device function calls no host function)
    for cp in 0..xc.len() / 2 {
        gmm_lcol2(
            &mut y[2 * cp + 1..],
            &mut l[cp * (2 * xc.len() - 2 * cp - 1)..(cp + 1) * (2 * xc.len() - 2 * cp - 3)],
            &mut xc[2 * cp..2 * cp + 2],
        );
    }
    for r in 0..y.len() {
        sq += abs2(y[r]);
    }
}

/// One component `c` at the `nb` points of a block: `sq[p·k + c] += ‖Q_c (x_p − μ_c)‖²`,
/// `main[p·k + c] += base − ½ sq[p·k + c]`, leaving `x_p − μ_c` and `Q_c (x_p − μ_c)` in
/// `xc`, `y` (`nb·d`, point by point). The component's parameters (`qd`, `mu`, `l`: `O(d²)`)
/// are reused by every point of the block, so they stay in cache: in the backward pass the
/// block's points are uncomputed component by component as well.
#[i(device, nocheck)]
#[allow(clippy::too_many_arguments)]
pub fn gmm_comp_pts<T: Scalar, X: Copy>(
    sq: &mut [T],
    main: &mut [T],
    xc: &mut [T],
    y: &mut [T],
    qd: &mut [T],
    base: &mut T,
    mu: &mut [T],
    l: &mut [T],
    x: &[X],
    c: usize,
    d: usize,
    k: usize,
    nb: usize,
) where
    T: PlusEq2<Sub, X, T>,
{
    for p in 0..nb {
        gmm_comp(
            &mut sq[p * k + c],
            &mut xc[p * d..(p + 1) * d],
            &mut y[p * d..(p + 1) * d],
            qd,
            mu,
            l,
            &x[p * d..(p + 1) * d],
        );
        main[p * k + c] += base;
        main[p * k + c] -= sq[p * k + c] * 0.5;
    }
}

/// `lse += logsumexp(main)` (`t`: `main.len()` ancillas, `s`, `mx` zero ancillas): one
/// point's, and the mixture weights' in [`gmm_rest`].
///
/// The logsumexp is shifted by the largest `main` (a constant: the derivative of
/// `logsumexp` with respect to its shift is zero).
#[i(device, nocheck)]
pub fn gmm_lse<T: Scalar>(lse: &mut T, t: &mut [T], s: &mut T, mx: &mut T, main: &mut [T]) {
    mx += cst!(max_of(&main));
    for c in 0..main.len() {
        t[c] += main[c] - mx;
        s += exp(t[c]);
    }
    lse += ln(s);
    lse += mx;
}

/// A block of `nb` points starting at point `i0`: `lse[p] += logsumexp_c(base_c −
/// ½‖Q_c (x_p − μ_c)‖²)` for `p < nb`, component by component ([`gmm_comp_pts`]: each
/// component's parameters are streamed once per block, not once per point), then the
/// per-point logsumexps ([`gmm_lse`]). Intermediates stay in the workspace slices (`xc`, `y`:
/// `K·nb·d`, component by component; `sq`, `main`, `t`: `nb·K`, point by point; `s`, `mx`:
/// `nb`).
#[i(device, nocheck)]
#[allow(clippy::too_many_arguments)]
pub fn gmm_block<T: Scalar, X: Copy>(
    lse: &mut [T],
    xc: &mut [T],
    y: &mut [T],
    sq: &mut [T],
    main: &mut [T],
    t: &mut [T],
    s: &mut [T],
    mx: &mut [T],
    qd: &mut [T],
    base: &mut [T],
    mu: &mut [T],
    icf: &mut [T],
    x: &[X],
    i0: usize,
    d: usize,
    k: usize,
    nb: usize,
) where
    T: PlusEq2<Sub, X, T>,
{
    for c in 0..k {
        gmm_comp_pts(
            sq,
            main,
            &mut xc[c * nb * d..(c + 1) * nb * d],
            &mut y[c * nb * d..(c + 1) * nb * d],
            &mut qd[c * d..(c + 1) * d],
            &mut base[c],
            &mut mu[c * d..(c + 1) * d],
            &mut icf[c * (d * (d + 1) / 2) + d..(c + 1) * (d * (d + 1) / 2)],
            &x[i0 * d..(i0 + nb) * d],
            c,
            d,
            k,
            nb,
        );
    }
    for p in 0..nb {
        gmm_lse(
            &mut lse[p],
            &mut t[p * k..(p + 1) * k],
            &mut s[p],
            &mut mx[p],
            &mut main[p * k..(p + 1) * k],
        );
    }
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
        gmm_lse(la, ta, sa, mxa, alpha);
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

/// The constant terms `−n·d/2·log(2π) − K·C` (ADBench's truncated π; the data crate's).
pub use crate::adbench::gmm::gmm_constant;

/// Points per block of [`gmm_objective_i`] ([`GmmWork::new`]'s default): each component's
/// parameters are streamed once per block of this many points.
pub const GMM_BLOCK: usize = 64;

/// The ancilla workspace of the GMM program for blocks of `bs` points: `O(K·d·bs)` numbers,
/// all zero between calls.
#[derive(Clone, Debug)]
pub struct GmmWork<T> {
    /// Points per block.
    pub bs: usize,
    /// `exp(q)`, `K·d`.
    pub qd: Vec<T>,
    /// `α + Σq`, `K`.
    pub base: Vec<T>,
    /// `x − μ` per component and point of a block, `K·bs·d`.
    pub xc: Vec<T>,
    /// `Q (x − μ)` per component and point of a block, `K·bs·d`.
    pub y: Vec<T>,
    /// `‖y‖²`, `bs·K`.
    pub sq: Vec<T>,
    /// `base − ½ sq`, `bs·K`.
    pub main: Vec<T>,
    /// `main − max`, `bs·K` (its first `K` are also the ancillas of `logsumexp(α)`).
    pub t: Vec<T>,
    /// Per point of a block: `logsumexp_c(main)`, `bs`.
    pub lse: Vec<T>,
    /// Per point of a block: `Σ exp(t)`, `bs`.
    pub s: Vec<T>,
    /// Per point of a block: `max(main)`, `bs`.
    pub mx: Vec<T>,
    /// Scalars of the data-free terms: `Σ exp(α − max)`, `logsumexp(α)`, `max(α)`, the
    /// Frobenius sum of the prior.
    pub sa: T,
    /// See `sa`.
    pub la: T,
    /// See `sa`.
    pub mxa: T,
    /// See `sa`.
    pub fro: T,
}

impl<T: Scalar> GmmWork<T> {
    /// A zero workspace for dimension `d`, `k` components and blocks of [`GMM_BLOCK`] points.
    pub fn new(d: usize, k: usize) -> Self {
        Self::with_block(d, k, GMM_BLOCK)
    }

    /// A zero workspace for dimension `d`, `k` components and blocks of `bs ≥ 1` points.
    pub fn with_block(d: usize, k: usize, bs: usize) -> Self {
        assert!(bs >= 1, "GmmWork: the block size must be at least 1");
        GmmWork {
            bs,
            qd: vec![T::default(); k * d],
            base: vec![T::default(); k],
            xc: vec![T::default(); k * bs * d],
            y: vec![T::default(); k * bs * d],
            sq: vec![T::default(); bs * k],
            main: vec![T::default(); bs * k],
            t: vec![T::default(); bs * k.max(1)],
            lse: vec![T::default(); bs],
            s: vec![T::default(); bs],
            mx: vec![T::default(); bs],
            sa: T::default(),
            la: T::default(),
            mxa: T::default(),
            fro: T::default(),
        }
    }
}

nilang::grad_struct!(GmmWork { qd, base, xc, y, sq, main, t, lse, s, mx, sa, la, mxa, fro } copy { bs });

/// `out += f(p)`: the whole GMM objective as one reversible program. `alpha`, `mu`, `icf` are
/// the parameters, `x` the points (`x.len() / d` of them), taken in blocks of `ws.bs`; `ws` is
/// the zero ancilla workspace, left zero up to rounding (exactly zero between blocks:
/// `fresh!`). `n` is the number of points of the whole instance and `rest` says whether the
/// data-free terms are added: the objective of an instance split into chunks of points is the
/// sum of the chunks' with `rest` true for exactly one of them (see [`gmm_value_grad_par`]).
///
/// Compute–copy–uncompute in `out` (the compiler's one-pass analysis), so its gradient is
/// one reverse pass; `fresh!` at the end of each block drops the adjoints the block's
/// workspace carried, so the next block's routine is recomputed from zero adjoints.
#[i(nocheck)]
#[allow(clippy::too_many_arguments)]
pub fn gmm_objective_i<T: Scalar, X: Copy>(
    out: &mut T,
    alpha: &mut [T],
    mu: &mut [T],
    icf: &mut [T],
    x: &[X],
    d: usize,
    k: usize,
    n: usize,
    gamma: f64,
    m: i64,
    rest: bool,
    ws: &mut GmmWork<T>,
) where
    T: PlusEq2<Sub, X, T>,
{
    routine! {
        gmm_prepare(&mut ws.qd, &mut ws.base, alpha, icf, d, k);
    }
    for b in 0..(x.len() / d).div_ceil(ws.bs) {
        routine! {
            gmm_block(
                &mut ws.lse,
                &mut ws.xc,
                &mut ws.y,
                &mut ws.sq,
                &mut ws.main,
                &mut ws.t,
                &mut ws.s,
                &mut ws.mx,
                &mut ws.qd,
                &mut ws.base,
                mu,
                icf,
                &x,
                b * ws.bs,
                d,
                k,
                ws.bs.min(x.len() / d - b * ws.bs),
            );
        }
        for p in 0..ws.bs.min(x.len() / d - b * ws.bs) {
            out += ws.lse[p];
        }
        unroutine!();
        fresh!(ws.lse, ws.xc, ws.y, ws.sq, ws.main, ws.t, ws.s, ws.mx);
    }
    if (rest, _) {
        gmm_rest(
            out,
            &mut ws.t,
            &mut ws.sa,
            &mut ws.la,
            &mut ws.mxa,
            &mut ws.fro,
            &mut ws.qd,
            alpha,
            icf,
            d,
            k,
            n,
            gamma,
            m,
        );
    }
    unroutine!();
}

impl<T: Scalar + PlusEq2<Sub, f64, T>> GmmWork<T> {
    /// `out += f(p)` on instance `g` (its points, sizes and prior; the parameters are `p`,
    /// in the flat layout `[α | μ | icf]`) by [`gmm_objective_i`] with this workspace.
    ///
    /// ```
    /// use nilang_apps::adbench::{gmm::{gmm_generate, gmm_objective}, oracle::adbench_close};
    /// use nilang_apps::gmm::GmmWork;
    /// let g = gmm_generate(3, 4, 20, 1);
    /// let (mut p, mut out) = (g.params(), 0.0);
    /// let mut w = GmmWork::new(g.d, g.k);
    /// w.objective(&mut out, &mut p, &g);
    /// assert!(adbench_close(out, gmm_objective(&g)));
    /// w.objective_inv(&mut out, &mut p, &g);
    /// assert!(out.abs() < 1e-9);
    /// ```
    pub fn objective(&mut self, out: &mut T, p: &mut [T], g: &GmmInput) {
        self.run(true, out, p, g)
    }

    /// The inverse of [`GmmWork::objective`].
    pub fn objective_inv(&mut self, out: &mut T, p: &mut [T], g: &GmmInput) {
        self.run(false, out, p, g)
    }

    /// [`gmm_objective_i`] (`forward`) or its inverse on the parameter vector split into
    /// `alpha | mu | icf`, with this workspace.
    fn run(&mut self, forward: bool, out: &mut T, p: &mut [T], g: &GmmInput) {
        let (d, k, n) = (g.d, g.k, g.n);
        let (alpha, rest) = p.split_at_mut(k);
        let (mu, icf) = rest.split_at_mut(k * d);
        let f = if forward {
            gmm_objective_i::<T, f64>
        } else {
            gmm_objective_i_inv::<T, f64>
        };
        f(
            out,
            alpha,
            mu,
            icf,
            &g.x[..n * d],
            d,
            k,
            n,
            g.gamma,
            g.m,
            true,
            self,
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
    w.objective(&mut out, &mut p, g);
    out
}
