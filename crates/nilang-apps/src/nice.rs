//! A NICE normalizing flow (Dinh et al. 2014; NiLang's `examples/nice.jl`) trained by
//! reversible AD.
//!
//! The flow maps data `x ∈ ℝᵈ` to latents through `L` additive coupling layers: layer `l`
//! splits `x` into halves `(a, b)` (alternating which half is `a`) and sets
//! `b ← b + m_l(a)`, `m_l(a) = W₂ relu(W₁ a + b₁) + b₂`, a one-hidden-layer MLP whose ReLU is a
//! reversible `if (y > 0, _)` (the hidden activations are ancillas, uncomputed by
//! `unroutine!()`). Each layer has unit Jacobian determinant. The latent `u = flow(x)` is
//! scored under `N(0, diag(e^{−2s}))` with learnable log-scales `s` (NICE's diagonal scaling
//! layer, folded into the base density because an in-place multiply is not an accumulating
//! instruction):
//!
//! `log p(x) = Σ_c [log φ(u_c e^{s_c}) + s_c]`, NLL = `−mean log p`.
//!
//! Parameters live in one flat vector `w` ([`Nice::n_params`]); [`nice_nll`] is an `#[i]`
//! function over `T: Scalar`, so [`Nice::nll_and_gradient`] gets the gradient by running its
//! inverse on [`GVar`]s, and [`Nice::train_adam`] trains it.
use nilang::prelude::*;

/// Apply coupling layer `l` (parameters at `w[off..]`) to the sample at `x[base..base+2h]`:
/// the half `par·h..` drives the other half.
#[i]
pub fn nice_layer<T: Ordered>(
    x: &mut [T],
    w: &mut [T],
    base: usize,
    off: usize,
    hid: usize,
    h: usize,
    par: usize,
) {
    let y1 = vec![T::default(); hid];
    let y1a = vec![T::default(); hid];
    routine! {
        for j in 0..hid {
            y1[j] += w[off + hid * h + j];
            for i in 0..h {
                y1[j] += w[off + j * h + i] * x[base + par * h + i];
            }
            if (y1[j] > T::lit(0.0), _) {
                y1a[j] += y1[j];
            }
        }
    }
    for i in 0..h {
        x[base + (1 - par) * h + i] += w[off + 2 * hid * h + hid + i];
        for j in 0..hid {
            x[base + (1 - par) * h + i] += w[off + hid * h + hid + i * hid + j] * y1a[j];
        }
    }
    unroutine!();
    dealloc!(y1a = vec![T::default(); hid]);
    dealloc!(y1 = vec![T::default(); hid]);
}

/// The coupling part of the flow on the sample at `x[base..base+d]` (data → latent).
#[i]
pub fn nice_flow<T: Ordered>(
    x: &mut [T],
    w: &mut [T],
    base: usize,
    d: usize,
    hid: usize,
    nl: usize,
) {
    for l in 0..nl {
        nice_layer(
            x,
            w,
            base,
            l * (2 * hid * (d / 2) + hid + d / 2),
            hid,
            d / 2,
            l % 2,
        );
    }
}

/// `out += NLL(xs)`: the mean negative log-likelihood of the samples `xs` (`n × d`
/// row-major) under the flow with parameters `w` (couplings, then the `d` log-scales).
/// `xs` is transformed and restored (compute–copy–uncompute).
#[i]
pub fn nice_nll<T: Ordered>(
    out: &mut T,
    xs: &mut [T],
    w: &mut [T],
    d: usize,
    hid: usize,
    nl: usize,
) {
    let acc = T::default();
    let ssum = T::default();
    routine! {
        for i in 0..(xs.len() / d) {
            nice_flow(xs, w, i * d, d, hid, nl);
        }
        for c in 0..d {
            let es = T::default();
            es += exp(w[nl * (2 * hid * (d / 2) + hid + d / 2) + c]);
            for i in 0..(xs.len() / d) {
                let t = T::default();
                t += xs[i * d + c] * es;
                acc += t.powi(2);
                t -= xs[i * d + c] * es;
                dealloc!(t = T::default());
            }
            es -= exp(w[nl * (2 * hid * (d / 2) + hid + d / 2) + c]);
            dealloc!(es = T::default());
            ssum += w[nl * (2 * hid * (d / 2) + hid + d / 2) + c];
        }
    }
    // NLL = ½ Σ|z|²/n − Σ s + (d/2) log 2π
    out += acc * cst!(T::lit(0.5 / (xs.len() / d) as f64));
    out -= ssum;
    out += cst!(T::lit(0.5 * d as f64 * (2.0 * core::f64::consts::PI).ln()));
    unroutine!();
    dealloc!(ssum = T::default());
    dealloc!(acc = T::default());
}

/// A NICE model: dimensions and parameters.
#[derive(Clone, Debug)]
pub struct Nice {
    /// Data dimension (even).
    pub d: usize,
    /// Hidden units per coupling MLP.
    pub hid: usize,
    /// Number of coupling layers.
    pub layers: usize,
    /// The parameters: per layer `W₁ (hid × d/2), b₁ (hid), W₂ (d/2 × hid), b₂ (d/2)`, then the
    /// `d` log-scales.
    pub w: Vec<f64>,
}

impl Nice {
    /// Parameters of one coupling layer.
    pub fn layer_params(d: usize, hid: usize) -> usize {
        2 * hid * (d / 2) + hid + d / 2
    }
    /// Total number of parameters.
    pub fn n_params(d: usize, hid: usize, layers: usize) -> usize {
        layers * Self::layer_params(d, hid) + d
    }
    /// Random weights (normal, standard deviation `scale`), zero log-scales.
    pub fn random(
        d: usize,
        hid: usize,
        layers: usize,
        scale: f64,
        rng: &mut impl rand::Rng,
    ) -> Self {
        use rand_distr::{Distribution, StandardNormal};
        assert!(
            d >= 2 && d.is_multiple_of(2),
            "NICE: the dimension must be even, got {d}"
        );
        let n = Self::n_params(d, hid, layers);
        let mut w: Vec<f64> = (0..n)
            .map(|_| scale * <StandardNormal as Distribution<f64>>::sample(&StandardNormal, rng))
            .collect();
        for v in &mut w[n - d..] {
            *v = 0.0;
        }
        Nice { d, hid, layers, w }
    }

    fn check(&self, xs: &[f64]) {
        assert!(
            xs.len().is_multiple_of(self.d)
                && self.w.len() == Self::n_params(self.d, self.hid, self.layers),
            "NICE: {} data values for dimension {}, {} parameters",
            xs.len(),
            self.d,
            self.w.len()
        );
    }

    /// Data → latent, in place, one sample (`x.len() == d`), including the scaling.
    pub fn forward(&self, x: &mut [f64]) {
        let mut w = self.w.clone();
        nice_flow(x, &mut w, 0, self.d, self.hid, self.layers);
        for (xc, s) in x.iter_mut().zip(&self.w[self.w.len() - self.d..]) {
            *xc *= s.exp();
        }
    }

    /// Latent → data, in place (the inverse program of the couplings).
    pub fn inverse(&self, z: &mut [f64]) {
        let mut w = self.w.clone();
        for (zc, s) in z.iter_mut().zip(&self.w[self.w.len() - self.d..]) {
            *zc *= (-s).exp();
        }
        nice_flow_inv(z, &mut w, 0, self.d, self.hid, self.layers);
    }

    /// The mean negative log-likelihood of the samples `xs` (`n × d`).
    pub fn nll(&self, xs: &[f64]) -> f64 {
        self.check(xs);
        let (mut out, mut x, mut w) = (0.0, xs.to_vec(), self.w.clone());
        nice_nll(&mut out, &mut x, &mut w, self.d, self.hid, self.layers);
        out
    }

    /// The NLL and its gradient with respect to the parameters, by the gradient API.
    pub fn nll_and_gradient(&self, xs: &[f64]) -> (f64, Vec<f64>) {
        self.check(xs);
        let (mut x, mut w) = (xs.to_vec(), self.w.clone());
        let args = (
            &mut 0.0,
            &mut x[..],
            &mut w[..],
            self.d,
            self.hid,
            self.layers,
        );
        let (l, (_, _, gw, _, _, _)) = nilang::ad::value_and_gradient(&NiceNll, args, 0);
        (l, gw.iter().map(|v| v.g).collect())
    }

    /// Adam (β₁ = 0.9, β₂ = 0.999) for `steps` full-batch steps; returns the NLL before each
    /// step and after the last. `tick(step, nll)` is called after each step.
    pub fn train_adam(
        &mut self,
        xs: &[f64],
        lr: f64,
        steps: usize,
        mut tick: impl FnMut(usize, f64),
    ) -> Vec<f64> {
        let (b1, b2, eps) = (0.9, 0.999, 1e-8);
        let n = self.w.len();
        let (mut m, mut v) = (vec![0.0; n], vec![0.0; n]);
        let mut hist = Vec::with_capacity(steps + 1);
        for t in 1..=steps {
            let (l, g) = self.nll_and_gradient(xs);
            hist.push(l);
            let (c1, c2) = (1.0 - b1.powi(t as i32), 1.0 - b2.powi(t as i32));
            for i in 0..n {
                m[i] = b1 * m[i] + (1.0 - b1) * g[i];
                v[i] = b2 * v[i] + (1.0 - b2) * g[i] * g[i];
                self.w[i] -= lr * (m[i] / c1) / ((v[i] / c2).sqrt() + eps);
            }
            tick(t, l);
        }
        hist.push(self.nll(xs));
        hist
    }

    /// Draw `n` samples: `z ~ N(0, I)`, `x = inverse(z)`.
    pub fn sample(&self, n: usize, rng: &mut impl rand::Rng) -> Vec<f64> {
        use rand_distr::{Distribution, StandardNormal};
        let mut out = Vec::with_capacity(n * self.d);
        for _ in 0..n {
            let mut z: Vec<f64> = (0..self.d).map(|_| StandardNormal.sample(rng)).collect();
            self.inverse(&mut z);
            out.extend(z);
        }
        out
    }
}

/// `n` samples of the two-moons density (noise `noise`), centred, `n × 2` row-major.
pub fn two_moons(n: usize, noise: f64, rng: &mut impl rand::Rng) -> Vec<f64> {
    use rand_distr::{Distribution, Normal};
    let nd = Normal::new(0.0, noise).expect("noise ≥ 0");
    let mut xs = Vec::with_capacity(2 * n);
    for i in 0..n {
        let t = rng.gen_range(0.0..core::f64::consts::PI);
        let (x, y) = if i % 2 == 0 {
            (t.cos(), t.sin())
        } else {
            (1.0 - t.cos(), 0.5 - t.sin())
        };
        xs.push(2.0 * (x - 0.5) + nd.sample(rng));
        xs.push(2.0 * (y - 0.25) + nd.sample(rng));
    }
    xs
}
