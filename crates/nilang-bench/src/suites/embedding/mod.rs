//! Table 4: embedding the Petersen graph in k dimensions (k = 2, 4, 6, 8, 10): objective (O),
//! gradient (G) and Hessian (H).
//!
//! The loss (as NiGraphEmbedding, checked against `oracle-reference/petersen_k2_seed0.json`):
//! Euclidean (not squared) distances of the 15 edges and of the 30 non-adjacent pairs,
//! `L = var(d_E) + var(d_N) + exp(relu(mean(d_E) − mean(d_N) + 0.1)) − 1` with the sample
//! variance (n − 1). Vertices and edges are Graphs.jl's `smallgraph(:petersen)` (0-based here).
//! The inputs are the k×10 positions in "vec order": index = vertex·k + coordinate.

use crate::ad::{self, Objective};
use crate::harness::Harness;
use crate::real::Real;
use crate::report::Measure;
use rand_distr::{Distribution, StandardNormal};

pub const SUITE: &str = "embedding";

/// Graphs.jl's Petersen graph, 0-based (the application's definition).
pub use nilang_apps::embedding::EDGES;

/// The 30 non-adjacent pairs (i < j), in lexicographic order.
pub fn non_edges() -> Vec<(usize, usize)> {
    let mut v = Vec::with_capacity(30);
    for i in 0..10 {
        for j in i + 1..10 {
            if !EDGES.contains(&(i, j)) {
                v.push((i, j));
            }
        }
    }
    v
}

/// The Petersen embedding loss for dimension `k`.
pub struct Petersen {
    pub k: usize,
    non_edges: Vec<(usize, usize)>,
}

impl Petersen {
    pub fn new(k: usize) -> Self {
        Petersen {
            k,
            non_edges: non_edges(),
        }
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
        for (d, &(i, j)) in dn.iter_mut().zip(self.non_edges.iter()) {
            *d = dist(x, k, i, j);
        }
        let (me, ve) = mean_var(&de);
        let (mn, vn) = mean_var(&dn);
        let gap = me - mn + T::cst(0.1);
        let relu = if gap.val() > 0.0 { gap } else { T::zero() };
        ve + vn + relu.exp() - T::cst(1.0)
    }
}

/// One embedding case. Result layouts for the hook (vec order, index = vertex·k + coordinate):
/// O: `[loss]`; G: the gradient (10k); H: the Hessian, row-major (10k × 10k); U: `x` restored.
pub struct EmbeddingCase {
    pub name: String,
    pub k: usize,
    pub x: Vec<f64>,
}

/// The oracle file's positions (vec order), loss, gradient and Hessian (row-major).
pub struct Oracle {
    pub k: usize,
    pub x: Vec<f64>,
    pub loss: f64,
    pub grad: Vec<f64>,
    pub hess: Vec<f64>,
}

pub fn load_oracle(path: &std::path::Path) -> Option<Oracle> {
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path).ok()?).ok()?;
    let k = v["k"].as_u64()? as usize;
    let rows = v["x"].as_array()?; // k rows of 10
    let mut x = vec![0.0; 10 * k];
    for (c, row) in rows.iter().enumerate() {
        for (i, e) in row.as_array()?.iter().enumerate() {
            x[i * k + c] = e.as_f64()?;
        }
    }
    let flat = |a: &serde_json::Value| -> Option<Vec<f64>> {
        a.as_array()?
            .iter()
            .flat_map(|r| match r.as_array() {
                Some(rr) => rr.iter().map(|e| e.as_f64()).collect::<Vec<_>>(),
                None => vec![r.as_f64()],
            })
            .collect()
    };
    Some(Oracle {
        k,
        x,
        loss: v["objective"].as_f64()?,
        grad: flat(&v["gradient_vec"])?,
        hess: flat(&v["hessian"])?,
    })
}

pub fn cases(h: &Harness) -> Vec<EmbeddingCase> {
    let ks: &[usize] = match h.mode {
        crate::cli::Mode::Smoke => &[2, 4],
        _ => &[2, 4, 6, 8, 10],
    };
    let oracle = load_oracle(&h.data.join("oracle-reference/petersen_k2_seed0.json"));
    let mut rng = super::rng(3);
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

pub fn run(h: &mut Harness) {
    // Validate the loss definition against both oracle files first.
    for file in ["petersen_k2_seed0.json", "petersen_k5_seed0.json"] {
        match load_oracle(&h.data.join("oracle-reference").join(file)) {
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
                    &o.hess,
                    1e-10,
                );
            }
            None => h.note(&format!(
                "embedding: oracle {file} not found; skipping the oracle check"
            )),
        }
    }
    for case in cases(h) {
        run_case(h, &case);
        h.step();
    }
}

fn run_case(h: &mut Harness, c: &EmbeddingCase) {
    let p = Petersen::new(c.k);
    let n = 10 * c.k;
    let x = &c.x;
    let name = c.name.as_str();
    let size = n as f64;
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
    h.time(SUITE, name, size, "rust", Measure::O, 1.0, || {
        p.eval(std::hint::black_box(x))
    });
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
    for prov in &h.registry.providers {
        let ks = prov.embedding(c);
        h.external(SUITE, name, size, 1.0, prov.tool(), ks, &reference, 1e-8);
    }
    crate::peers::jax::embedding(h, c, &reference);
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn graph() {
        assert_eq!(non_edges().len(), 30);
        // Petersen: 3-regular.
        for v in 0..10 {
            assert_eq!(EDGES.iter().filter(|&&(a, b)| a == v || b == v).count(), 3);
        }
    }
}
