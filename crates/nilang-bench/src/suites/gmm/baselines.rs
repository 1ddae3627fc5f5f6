//! The GMM baselines: the objective generic over the scalar (what num-dual and echidna
//! differentiate; `rust-O` is the data crate's plain `gmm_objective`) and the JAX peer's inputs.

use crate::ad::Objective;
use crate::harness::{jax, Harness};
use crate::real::Real;
use crate::report::Measure;
use nilang_adbench::gmm::{gmm_constant, icf_len, GmmInput};
use serde_json::json;

use super::GmmCase;

/// The objective, generic over the scalar (f64: the plain objective).
pub struct Gmm<'a> {
    /// The instance.
    pub inst: &'a GmmInput,
    constant: f64,
}

impl<'a> Gmm<'a> {
    /// The objective of `inst`.
    pub fn new(inst: &'a GmmInput) -> Self {
        Gmm {
            inst,
            constant: constant(inst),
        }
    }
}

/// Stable log-sum-exp (the maximum is a constant shift).
#[inline]
fn logsumexp<T: Real>(v: &[T]) -> T {
    let mx = v.iter().map(|a| a.val()).fold(f64::NEG_INFINITY, f64::max);
    let m = T::cst(mx);
    let mut s = T::zero();
    for &a in v {
        s = s + (a - m).exp();
    }
    s.ln() + m
}

impl Objective for Gmm<'_> {
    fn dim(&self) -> usize {
        self.inst.n_params()
    }
    fn eval<T: Real>(&self, p: &[T]) -> T {
        let g = self.inst;
        let (d, k, n) = (g.d, g.k, g.n);
        let il = icf_len(d);
        let alpha = &p[..k];
        let mu = &p[k..k + k * d];
        let icf = &p[k + k * d..];
        // Per component: exp(q) and sum(q).
        let mut qdiag = vec![T::zero(); k * d];
        let mut sum_q = vec![T::zero(); k];
        for c in 0..k {
            let mut s = T::zero();
            for r in 0..d {
                let q = icf[c * il + r];
                qdiag[c * d + r] = q.exp();
                s = s + q;
            }
            sum_q[c] = s;
        }
        let mut xc = vec![T::zero(); d];
        let mut qx = vec![T::zero(); d];
        let mut main = vec![T::zero(); k];
        let mut slse = T::zero();
        let half = T::cst(0.5);
        for i in 0..n {
            let xi = &g.x[i * d..(i + 1) * d];
            for c in 0..k {
                let muc = &mu[c * d..(c + 1) * d];
                for r in 0..d {
                    xc[r] = T::cst(xi[r]) - muc[r];
                }
                // Q x: diag(exp(q)) x + L x, L filled column by column.
                for r in 0..d {
                    qx[r] = qdiag[c * d + r] * xc[r];
                }
                let l = &icf[c * il + d..(c + 1) * il];
                let mut li = 0;
                for col in 0..d {
                    for row in col + 1..d {
                        qx[row] = qx[row] + l[li] * xc[col];
                        li += 1;
                    }
                }
                let mut sq = T::zero();
                for &v in qx.iter() {
                    sq = sq + v * v;
                }
                main[c] = alpha[c] + sum_q[c] - half * sq;
            }
            slse = slse + logsumexp(&main);
        }
        let lse_alpha = logsumexp(alpha);
        // Wishart prior.
        let half_g2 = T::cst(0.5 * g.gamma * g.gamma);
        let mut prior = T::zero();
        for c in 0..k {
            let mut fro = T::zero();
            for r in 0..d {
                fro = fro + qdiag[c * d + r].sq();
            }
            for &v in &icf[c * il + d..(c + 1) * il] {
                fro = fro + v.sq();
            }
            prior = prior + half_g2 * fro - T::cst(g.m as f64) * sum_q[c];
        }
        T::cst(self.constant) + slse - T::cst(n as f64) * lse_alpha + prior
    }
}

/// The instance's constant terms (the data crate's [`gmm_constant`]).
pub fn constant(g: &GmmInput) -> f64 {
    gmm_constant(g.d, g.k, g.n, g.gamma, g.m)
}

/// echidna's tape needs ~32 bytes per recorded operation; give up above this many.
pub const ECHIDNA_MAX_OPS: f64 = 6e7;

/// The number of operations echidna's tape records for one gradient of `g` (estimated from
/// n, K and d; compared with [`ECHIDNA_MAX_OPS`]).
pub fn tape_ops(g: &GmmInput) -> f64 {
    let (d, k, n) = (g.d as f64, g.k as f64, g.n as f64);
    n * k * (d * (d - 1.0) + 5.0 * d + 6.0)
}

/// The JAX peer: O and G on the flat parameters `[alpha | mu | icf]`.
pub fn jax(h: &mut Harness, c: &GmmCase, reference: jax::Reference<'_, '_>) {
    if !h.jax.active() {
        return;
    }
    let g = &c.inst;
    let scalars = json!({
        "d": g.d, "k": g.k, "n": g.n, "gamma": g.gamma, "m": g.m, "constant": constant(g),
    });
    let p = g.params();
    let size = super::work(g);
    // Without a full reference gradient (large full-run cases), check six coordinates.
    let sampled = reference(Measure::G).is_none().then(|| {
        let obj = Gmm::new(g);
        let idx: Vec<usize> = (0..6).map(|i| (i * 7919 + 3) % p.len()).collect();
        let want = idx
            .iter()
            .map(|&i| crate::ad::nd_partial(&obj, &p, i))
            .collect();
        (Measure::G, idx, want)
    });
    let arrays: [(&str, &[f64]); 2] = [("p", &p), ("x", &g.x)];
    jax::run_case(
        h,
        super::SUITE,
        &c.name,
        size,
        1.0,
        scalars,
        &arrays,
        reference,
        sampled.as_ref(),
        1e-8,
    );
}
