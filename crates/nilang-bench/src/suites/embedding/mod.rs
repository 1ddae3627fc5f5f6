//! Table 4: embedding the Petersen graph in k dimensions (k = 2, 4, 6, 8, 10): objective (O),
//! gradient (G) and Hessian (H).
//!
//! The loss (as NiGraphEmbedding, checked against `oracle-reference/petersen_k2_seed0.json`):
//! Euclidean (not squared) distances of the 15 edges and of the 30 non-adjacent pairs,
//! `L = var(d_E) + var(d_N) + exp(relu(mean(d_E) − mean(d_N) + 0.1)) − 1` with the sample
//! variance (n − 1). Vertices and edges are Graphs.jl's `smallgraph(:petersen)` (0-based here).
//! The inputs are the k×10 positions in "vec order": index = vertex·k + coordinate.

pub mod nilang;

use crate::ad::{self, Objective};
use crate::cli::Mode;
use crate::harness::{jax, named_cases, Harness, Suite};
use crate::real::Real;
use crate::report::Measure;
use nilang_apps::embedding::{load_oracle, Oracle};
/// Graphs.jl's Petersen graph, 0-based, and its 30 non-adjacent pairs (the application's
/// definitions).
pub use nilang_apps::embedding::{EDGES, NON_EDGES};
use rand_distr::{Distribution, StandardNormal};
use serde_json::json;

/// The suite's name (`--suite embedding`, the `suite` of its cells).
pub const SUITE: &str = "embedding";

/// The embedding suite (Table 4).
pub struct EmbeddingSuite;

impl Suite for EmbeddingSuite {
    const NAME: &'static str = SUITE;
    const WORK: &'static str = "dimension k (10·k coordinates)";
    type Case = EmbeddingCase;
    fn steps(mode: Mode) -> u64 {
        match mode {
            Mode::Smoke => 2,
            _ => 5,
        }
    }
    fn cases(h: &mut Harness) -> Vec<EmbeddingCase> {
        cases(h)
    }
    fn prepare(h: &mut Harness) {
        check_oracles(h)
    }
    fn run_case(h: &mut Harness, case: &EmbeddingCase) {
        run_case(h, case)
    }
}
named_cases!(EmbeddingCase);

/// The Petersen embedding loss for dimension `k`.
pub struct Petersen {
    /// The embedding dimension.
    pub k: usize,
}

impl Petersen {
    /// The loss for dimension `k`.
    pub fn new(k: usize) -> Self {
        Petersen { k }
    }
}

#[inline]
fn dist<T: Real>(x: &[T], k: usize, i: usize, j: usize) -> T {
    let mut s = T::zero();
    for c in 0..k {
        s = s + (x[i * k + c] - x[j * k + c]).sq();
    }
    s.sqrt()
}

fn mean_var<T: Real>(d: &[T]) -> (T, T) {
    let n = d.len() as f64;
    let mut m = T::zero();
    for &v in d {
        m = m + v;
    }
    let m = m / T::cst(n);
    let mut s = T::zero();
    for &v in d {
        s = s + (v - m).sq();
    }
    (m, s / T::cst(n - 1.0))
}

impl Objective for Petersen {
    fn dim(&self) -> usize {
        10 * self.k
    }
    fn eval<T: Real>(&self, x: &[T]) -> T {
        let k = self.k;
        let mut de = [T::zero(); 15];
        for (d, &(i, j)) in de.iter_mut().zip(EDGES.iter()) {
            *d = dist(x, k, i, j);
        }
        let mut dn = [T::zero(); 30];
        for (d, &(i, j)) in dn.iter_mut().zip(NON_EDGES.iter()) {
            *d = dist(x, k, i, j);
        }
        let (me, ve) = mean_var(&de);
        let (mn, vn) = mean_var(&dn);
        let gap = me - mn + T::cst(0.1);
        let relu = if gap.val() > 0.0 { gap } else { T::zero() };
        ve + vn + relu.exp() - T::cst(1.0)
    }
}

/// One embedding case. Result layouts for the checks (vec order, index = vertex·k + coordinate):
/// O: `[loss]`; G: the gradient (10k); H: the Hessian, row-major (10k × 10k); U: `x` restored.
pub struct EmbeddingCase {
    /// The case's name (`k=2`, ...).
    pub name: String,
    /// The embedding dimension.
    pub k: usize,
    /// The positions (10 vertices × `k` coordinates).
    pub x: Vec<f64>,
}

/// The oracle file `oracle-reference/{file}`, if readable.
fn oracle(h: &Harness, file: &str) -> Option<Oracle> {
    load_oracle(&h.data.join("oracle-reference").join(file)).ok()
}

fn cases(h: &Harness) -> Vec<EmbeddingCase> {
    let ks: &[usize] = match h.mode {
        Mode::Smoke => &[2, 4],
        _ => &[2, 4, 6, 8, 10],
    };
    let oracle = oracle(h, "petersen_k2_seed0.json");
    let mut rng = crate::suites::rng(3);
    ks.iter()
        .map(|&k| {
            let x = match (&oracle, k) {
                (Some(o), 2) => o.x.clone(),
                _ => (0..10 * k)
                    .map(|_| StandardNormal.sample(&mut rng))
                    .collect(),
            };
            EmbeddingCase {
                name: format!("k={k}"),
                k,
                x,
            }
        })
        .collect()
}

/// The num-dual Hessian, with 10×10 hyper-dual blocks.
pub fn hessian_num_dual(p: &Petersen, x: &[f64], h: &mut [f64]) -> f64 {
    ad::nd_hessian::<10, _>(p, x, h)
}

/// The num-dual gradient, 10 directions per pass.
pub fn gradient_num_dual(p: &Petersen, x: &[f64], g: &mut [f64]) -> f64 {
    ad::nd_gradient::<10, _>(p, x, g, None).expect("no limit")
}

/// Validate the loss definition against both oracle files.
fn check_oracles(h: &mut Harness) {
    for file in ["petersen_k2_seed0.json", "petersen_k5_seed0.json"] {
        match oracle(h, file) {
            Some(o) => {
                let p = Petersen::new(o.k);
                let n = 10 * o.k;
                let mut g = vec![0.0; n];
                let mut hs = vec![0.0; n * n];
                let f = gradient_num_dual(&p, &o.x, &mut g);
                hessian_num_dual(&p, &o.x, &mut hs);
                h.check(
                    &format!("embedding: rust-O vs oracle {file}"),
                    &[p.eval(&o.x)],
                    &[o.loss],
                    1e-10,
                );
                h.check(
                    &format!("embedding: num-dual O vs oracle {file}"),
                    &[f],
                    &[o.loss],
                    1e-10,
                );
                h.check(
                    &format!("embedding: num-dual-G vs oracle {file}"),
                    &g,
                    &o.grad,
                    1e-10,
                );
                h.check(
                    &format!("embedding: num-dual-H vs oracle {file}"),
                    &hs,
                    &o.hess.concat(),
                    1e-10,
                );
            }
            None => h.note(&format!(
                "embedding: oracle {file} not found; skipping the oracle check"
            )),
        }
    }
}

fn run_case(h: &mut Harness, c: &EmbeddingCase) {
    let p = Petersen::new(c.k);
    let n = 10 * c.k;
    let x = &c.x;
    let name = c.name.as_str();
    let size = c.k as f64;
    let f = p.eval(x);
    let mut g = vec![0.0; n];
    let mut hs = vec![0.0; n * n];
    gradient_num_dual(&p, x, &mut g);
    hessian_num_dual(&p, x, &mut hs);
    let ge = ad::echidna_gradient(&p, x);
    let gf = ad::fd_gradient(&p, x, 1e-6);
    let ok_g = h.check(
        &format!("embedding {name}: num-dual-G vs finite differences"),
        &g,
        &gf,
        1e-6,
    );
    let ok_e = h.check(
        &format!("embedding {name}: echidna-G vs num-dual-G"),
        &ge,
        &g,
        1e-10,
    );
    // Hessian: symmetric, and each column equals a central difference of the echidna gradient.
    let mut hfd = vec![0.0; n * n];
    let mut xp = x.clone();
    for j in 0..n {
        let step = 1e-5;
        xp[j] = x[j] + step;
        let gp = ad::echidna_gradient(&p, &xp);
        xp[j] = x[j] - step;
        let gm = ad::echidna_gradient(&p, &xp);
        xp[j] = x[j];
        for i in 0..n {
            hfd[i * n + j] = (gp[i] - gm[i]) / (2.0 * step);
        }
    }
    let ok_h = h.check(
        &format!("embedding {name}: num-dual-H vs differences of echidna-G"),
        &hs,
        &hfd,
        1e-6,
    );
    // rust-O, then timed in turns with every later cell of the case
    let h = &mut h.in_turns(SUITE, name, size, 1.0, || p.eval(std::hint::black_box(x)));
    if ok_g {
        h.time(SUITE, name, size, "num-dual", Measure::G, 1.0, || {
            gradient_num_dual(&p, x, &mut g)
        });
    }
    if ok_h {
        h.time(SUITE, name, size, "num-dual", Measure::H, 1.0, || {
            hessian_num_dual(&p, x, &mut hs)
        });
    }
    if ok_e {
        h.time(SUITE, name, size, "echidna", Measure::G, 1.0, || {
            ad::echidna_gradient(&p, x)
        });
    }
    let reference = |m: Measure| match m {
        Measure::O => Some(std::borrow::Cow::Owned(vec![f])),
        Measure::G => Some(std::borrow::Cow::Borrowed(&g[..])),
        Measure::H => Some(std::borrow::Cow::Borrowed(&hs[..])),
        Measure::U => Some(std::borrow::Cow::Borrowed(&x[..])),
        _ => None,
    };
    let ks = nilang::kernels(c);
    h.external(SUITE, name, size, 1.0, "nilang", ks, &reference, 1e-8);
    for (tool, ks) in nilang::lanes(c) {
        h.external(SUITE, name, size, 1.0, &tool, ks, &reference, 1e-8);
    }
    jax_case(h, c, &reference);
}

/// The JAX peer: O, G and H (row-major) in vec order.
fn jax_case(h: &mut Harness, c: &EmbeddingCase, reference: jax::Reference<'_, '_>) {
    if !h.jax.active() {
        return;
    }
    let pairs = |v: &[(usize, usize)]| -> Vec<f64> {
        v.iter().flat_map(|&(i, j)| [i as f64, j as f64]).collect()
    };
    let edges = pairs(&EDGES);
    let non_edges = pairs(&NON_EDGES);
    let arrays: [(&str, &[f64]); 3] = [("x", &c.x), ("edges", &edges), ("non_edges", &non_edges)];
    jax::run_case(
        h,
        SUITE,
        &c.name,
        c.k as f64,
        1.0,
        json!({"k": c.k}),
        &arrays,
        reference,
        None,
        1e-8,
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn graph() {
        assert!(NON_EDGES.iter().all(|e| !EDGES.contains(e)));
        // Petersen: 3-regular.
        for v in 0..10 {
            assert_eq!(EDGES.iter().filter(|&&(a, b)| a == v || b == v).count(), 3);
        }
    }
}
