//! The GMM gradient by the gradient API: one reverse pass of [`gmm_objective_i`](super::gmm_objective_i) per chunk
//! of points, serially ([`gmm_value_grad`]) or by the library's data-parallel gradient on a
//! rayon pool ([`gmm_value_grad_par`]).
use super::{GmmObjectiveI, GmmWork, GMM_BLOCK};
use crate::adbench::gmm::GmmInput;
use nilang::ad::{Plan, Shared, Store, TermSum};
use nilang::prelude::*;

/// The storage of the gradient plan of [`gmm_objective_i`](super::gmm_objective_i).
type GmmStore<'a> = (
    GVar<f64>,
    Vec<GVar<f64>>,
    Vec<GVar<f64>>,
    Vec<GVar<f64>>,
    &'a [f64],
    usize,
    usize,
    usize,
    f64,
    i64,
    bool,
    GmmWork<GVar<f64>>,
);

/// Reusable buffers of [`gmm_value_grad`]: the parameters, the plain workspace and the
/// gradient plan (its storage is made at the first call and reused); nothing depends on `n`.
#[derive(Debug)]
pub struct GmmGradWork<'a> {
    alpha: Vec<f64>,
    mu: Vec<f64>,
    icf: Vec<f64>,
    w: GmmWork<f64>,
    plan: Plan<GmmStore<'a>>,
}

impl GmmGradWork<'_> {
    /// Buffers for instances of dimension `d` with `k` components (blocks of [`GMM_BLOCK`]).
    pub fn new(d: usize, k: usize) -> Self {
        Self::with_block(d, k, GMM_BLOCK)
    }

    /// Buffers for instances of dimension `d` with `k` components and blocks of `bs` points.
    pub fn with_block(d: usize, k: usize, bs: usize) -> Self {
        GmmGradWork {
            alpha: vec![0.0; k],
            mu: vec![0.0; k * d],
            icf: vec![0.0; k * d * (d + 1) / 2],
            w: GmmWork::with_block(d, k, bs),
            plan: Plan::new(),
        }
    }
}

/// The objective and its gradient (flat layout `[α | μ | icf]`, written to `grad`) by the
/// gradient API: [`gmm_objective_i`](super::gmm_objective_i) is compute–copy–uncompute in `out`, so this is one
/// reverse pass, and the plan makes every call after the first allocation-free.
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
pub fn gmm_value_grad<'a>(g: &'a GmmInput, work: &mut GmmGradWork<'a>, grad: &mut [f64]) -> f64 {
    gmm_chunk_value_grad(g, 0..g.n, true, work, grad)
}

/// The data-free terms of the objective (`−n·logsumexp(α)`, the Wishart prior and the
/// constant: [`gmm_objective_i`](super::gmm_objective_i) over no points) and their gradient,
/// by the gradient API. With the points' terms computed elsewhere (e.g. by a device kernel),
/// this completes the objective and its gradient.
///
/// ```
/// use nilang_apps::adbench::gmm::gmm_generate;
/// use nilang_apps::gmm::{gmm_rest_value_grad, gmm_value_grad, GmmGradWork};
/// let mut g = gmm_generate(2, 3, 5, 7);
/// let mut work = GmmGradWork::new(2, 3);
/// let mut rest = vec![0.0; g.n_params()];
/// let f_rest = gmm_rest_value_grad(&g, &mut work, &mut rest);
/// // the data-free terms do not depend on the points' positions
/// g.x.iter_mut().for_each(|x| *x += 1.0);
/// let mut again = vec![0.0; g.n_params()];
/// let mut work = GmmGradWork::new(2, 3);
/// assert_eq!(gmm_rest_value_grad(&g, &mut work, &mut again), f_rest);
/// assert_eq!(again, rest);
/// // and the means get no gradient from them
/// assert!(rest[3..3 + 6].iter().all(|&v| v == 0.0));
/// ```
pub fn gmm_rest_value_grad<'a>(
    g: &'a GmmInput,
    work: &mut GmmGradWork<'a>,
    grad: &mut [f64],
) -> f64 {
    gmm_chunk_value_grad(g, 0..0, true, work, grad)
}

/// The objective's terms of points `points` (with the data-free terms if `rest`) and their
/// gradient, by the gradient API (see [`gmm_value_grad`]).
pub(super) fn gmm_chunk_value_grad<'a>(
    g: &'a GmmInput,
    points: core::ops::Range<usize>,
    rest: bool,
    work: &mut GmmGradWork<'a>,
    grad: &mut [f64],
) -> f64 {
    check_sizes("gmm_value_grad", g, grad, work.mu.len(), work.alpha.len());
    let (d, k) = (g.d, g.k);
    let GmmGradWork {
        alpha,
        mu,
        icf,
        w,
        plan,
    } = work;
    alpha.copy_from_slice(&g.alphas);
    mu.copy_from_slice(&g.means);
    icf.copy_from_slice(&g.icf);
    let args = (
        &mut 0.0,
        &mut alpha[..],
        &mut mu[..],
        &mut icf[..],
        &g.x[points.start * d..points.end * d],
        d,
        k,
        g.n,
        g.gamma,
        g.m,
        rest,
        w,
    );
    let (value, st) = plan.value_and_gradient(&GmmObjectiveI, args, 0);
    for (o, v) in grad.iter_mut().zip(st.1.iter().chain(&st.2).chain(&st.3)) {
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

/// Points per parallel task of [`gmm_value_grad_par`] (a multiple of [`GMM_BLOCK`]).
pub const GMM_CHUNK: usize = 1024;

/// The arguments of [`gmm_objective_i`](super::gmm_objective_i) for one chunk of points in
/// [`gmm_value_grad_par`]: the loss, the parameters and the zero workspace shared by every
/// chunk (borrowed for `'s`), the chunk's points (for `'a`).
type GmmChunkArgs<'s, 'a> = (
    Shared<'s, f64>,
    Shared<'s, [f64]>,
    Shared<'s, [f64]>,
    Shared<'s, [f64]>,
    &'a [f64],
    usize,
    usize,
    usize,
    f64,
    i64,
    bool,
    Shared<'s, GmmWork<f64>>,
);

/// Buffers of [`gmm_value_grad_par`]: the data-parallel gradient ([`TermSum`]: one gradient
/// plan per thread, one adjoint buffer per chunk of points) and the zero workspace.
#[derive(Debug)]
pub struct GmmParWork<'a> {
    sum: TermSum<Store<GmmChunkArgs<'a, 'a>>>,
    ws: GmmWork<f64>,
}

impl GmmParWork<'_> {
    /// Buffers for instances of dimension `d`, `k` components and `n` points (chunks of
    /// [`GMM_CHUNK`] points).
    pub fn new(d: usize, k: usize, n: usize) -> Self {
        GmmParWork {
            sum: TermSum::with_chunk(n, GMM_CHUNK),
            ws: GmmWork::new(d, k),
        }
    }
}

/// [`gmm_value_grad`] on all threads of the current rayon pool (`pool.install(..)` chooses
/// the pool) by the library's data-parallel gradient ([`TermSum`]): the points are the terms,
/// in chunks of [`GMM_CHUNK`] (the data-free terms with the first chunk), `α`, `μ`, `icf` the
/// shared parameters. The same result, bit for bit, for any number of threads. No
/// allocation after the first call.
///
/// ```
/// use nilang_apps::adbench::gmm::gmm_generate;
/// use nilang_apps::gmm::{gmm_value_grad_par, GmmParWork};
/// let g = gmm_generate(2, 3, 3000, 1);
/// let mut grads = vec![];
/// for threads in [1, 2] {
///     let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
///     let mut work = GmmParWork::new(2, 3, 3000);
///     let mut grad = vec![0.0; g.n_params()];
///     let f = pool.install(|| gmm_value_grad_par(&g, &mut work, &mut grad));
///     grads.push((f, grad));
/// }
/// assert_eq!(grads[0], grads[1]);
/// ```
pub fn gmm_value_grad_par<'a>(g: &'a GmmInput, work: &mut GmmParWork<'a>, grad: &mut [f64]) -> f64 {
    let GmmParWork { sum, ws } = work;
    check_sizes("gmm_value_grad_par", g, grad, ws.qd.len(), ws.base.len());
    assert_eq!(
        sum.terms(),
        g.n,
        "gmm_value_grad_par: work built for another n"
    );
    let (d, k, ws) = (g.d, g.k, &*ws);
    let args = |r: core::ops::Range<usize>| {
        (
            Shared(&0.0),
            Shared(&g.alphas[..]),
            Shared(&g.means[..]),
            Shared(&g.icf[..]),
            &g.x[r.start * d..r.end * d],
            d,
            k,
            g.n,
            g.gamma,
            g.m,
            r.start == 0,
            Shared(ws),
        )
    };
    sum.args(args)
        .value_and_gradient(&GmmObjectiveI, 0, &[1, 2, 3], grad)
}

/// The sizes a gradient call (`who`) needs: `grad` holds the parameters, the workspace (its
/// `mu` and `alpha` lengths) was built for this `(d, K)`, and `x` holds `n` points.
pub(super) fn check_sizes(who: &str, g: &GmmInput, grad: &[f64], mu: usize, alpha: usize) {
    let (d, k) = (g.d, g.k);
    assert_eq!(grad.len(), g.n_params(), "{who}: grad has the wrong length");
    assert!(
        mu == k * d && alpha == k,
        "{who}: work built for another (d, K)"
    );
    assert_eq!(g.x.len(), g.n * d, "{who}: x.len() != n*d");
}
