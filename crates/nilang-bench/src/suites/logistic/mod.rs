//! Issue 21: a logistic-regression log-likelihood over samples, a program nobody here tuned.
//! `n` samples of `d = 16` features (`x`, row-major `n × d`) with labels `y ∈ {0, 1}`; the
//! parameters `w` are `d` weights then the bias; the loss is the negative log-likelihood
//! `L = Σ_s ln(1 + exp(z_s)) − y_s z_s`, `z_s = w·x_s + b`; the gradient is `∂L/∂w`.
//!
//! Written three ways, as the `pairwise` suite: plain Rust (`rust-O`, the best plain code:
//! blocks of 64 samples, the margins as dot products in lanes, `exp` and `ln_1p` in SIMD
//! lanes by nilang's `i_map` on `f64` slices; `rust-G` the same with the hand-derived
//! `∂L/∂z = σ(z) − y`; `rust-scalar-O/G` one sample at a time with std's functions, the
//! reference of every check), NiLang.rs from the guide only ([`nilang`]: `nilang-G` by
//! `Plan`, and the data-parallel `nilang::ad::TermSum` over the samples on pools of 1 and N
//! threads, `nilang-t1`, `nilang-tN`), JAX (`peers/jax/peer.py`, jitted float64) and C++ by
//! Enzyme (`enzyme`, `peers/enzyme/logistic.cpp`). Every gradient is checked against the plain
//! one (1e-12) before it is timed, the peers' too.

pub mod nilang;

use crate::cli::Mode;
use crate::harness::{jax, named_cases, sized_cases, Harness, Suite};
use crate::report::Measure;
use ::nilang::instr::fns;
use rand::Rng;
use serde_json::json;

/// The suite's name (`--suite logistic`, the `suite` of its cells).
pub const SUITE: &str = "logistic";

/// Features per sample.
pub const D: usize = 16;

/// The logistic-regression suite.
pub struct LogisticSuite;

impl Suite for LogisticSuite {
    const NAME: &'static str = SUITE;
    const WORK: &'static str = "samples n";
    type Case = LogisticCase;
    fn sizes(mode: Mode) -> &'static [usize] {
        sizes(mode)
    }
    fn cases(h: &mut Harness) -> Vec<LogisticCase> {
        let mut rng = crate::suites::rng(22);
        sized_cases::<Self>(h, |n| LogisticCase::random(n, &mut rng))
    }
    fn run_case(h: &mut Harness, case: &LogisticCase) {
        run_case(h, case)
    }
}
named_cases!(LogisticCase);

/// The numbers of samples of a run.
fn sizes(mode: Mode) -> &'static [usize] {
    match mode {
        Mode::Smoke => &[1000],
        Mode::Quick => &[1000, 10_000, 100_000],
        Mode::Full => &[1000, 10_000, 100_000, 1_000_000],
    }
}

/// One case: `n` samples (`x`: `n × D`, `y`) and the parameters `w` (`D` weights, the bias).
pub struct LogisticCase {
    /// The case's name (`n=1000`, ...).
    pub name: String,
    /// The number of samples.
    pub n: usize,
    /// The samples, `n × D`, row-major.
    pub x: Vec<f64>,
    /// The labels, one per sample.
    pub y: Vec<f64>,
    /// The parameters: `D` weights, then the bias.
    pub w: Vec<f64>,
    /// `n` zeros: the workspaces of the NiLang.rs program (`nilang`).
    pub zeros: Vec<f64>,
}

impl LogisticCase {
    /// Standard-uniform features in `[−1, 1]`, labels drawn from the model at hidden weights,
    /// and the parameters at small random values.
    pub fn random(n: usize, rng: &mut impl Rng) -> Self {
        let x: Vec<f64> = (0..n * D).map(|_| 2.0 * rng.gen::<f64>() - 1.0).collect();
        let hidden: Vec<f64> = (0..=D).map(|_| 2.0 * rng.gen::<f64>() - 1.0).collect();
        let y = (0..n)
            .map(|s| {
                let z = logit(&hidden, &x[s * D..(s + 1) * D]);
                let p = 1.0 / (1.0 + (-z).exp());
                f64::from(u8::from(rng.gen::<f64>() < p))
            })
            .collect();
        let w = (0..=D).map(|_| 0.2 * rng.gen::<f64>() - 0.1).collect();
        LogisticCase {
            name: format!("n={n}"),
            n,
            x,
            y,
            w,
            zeros: vec![0.0; n],
        }
    }
}

/// `z = w[..D]·xs + w[D]`.
#[inline]
fn logit(w: &[f64], xs: &[f64]) -> f64 {
    let mut z = w[D];
    for (a, b) in w[..D].iter().zip(xs) {
        z += a * b;
    }
    z
}

/// The negative log-likelihood, plain Rust.
pub fn nll(w: &[f64], x: &[f64], y: &[f64]) -> f64 {
    x.chunks_exact(D)
        .zip(y)
        .map(|(xs, &ys)| {
            let z = logit(w, xs);
            z.exp().ln_1p() - ys * z
        })
        .sum()
}

/// The negative log-likelihood and its gradient (written to `g`), plain Rust:
/// `∂L/∂z_s = σ(z_s) − y_s`, `∂L/∂w = Σ_s ∂L/∂z_s · (x_s, 1)`.
pub fn nll_gradient(w: &[f64], x: &[f64], y: &[f64], g: &mut [f64]) -> f64 {
    g.fill(0.0);
    let mut l = 0.0;
    for (xs, &ys) in x.chunks_exact(D).zip(y) {
        let z = logit(w, xs);
        let e = z.exp();
        l += e.ln_1p() - ys * z;
        let dz = e / (1.0 + e) - ys;
        for (gk, xk) in g[..D].iter_mut().zip(xs) {
            *gk += dz * xk;
        }
        g[D] += dz;
    }
    l
}

/// Samples per block of the lane versions ([`nll_lanes`], [`nll_gradient_lanes`]).
const BLOCK: usize = 64;

/// `z = w[..D]·xs + w[D]` in eight partial sums (lanes), added in a tree.
#[inline(always)]
fn logit_lanes(w: &[f64; D + 1], xs: &[f64; D]) -> f64 {
    let mut s = [0.0; 8];
    for c in 0..D / 8 {
        for q in 0..8 {
            s[q] += w[8 * c + q] * xs[8 * c + q];
        }
    }
    let h: [f64; 4] = core::array::from_fn(|q| s[q] + s[q + 4]);
    w[D] + ((h[0] + h[2]) + (h[1] + h[3]))
}

/// The margins `z`, `e = exp(z)` and `ln(1 + e)` of the samples of one block (`xb`: up to
/// [`BLOCK`] samples), `exp` and `ln_1p` in SIMD lanes by nilang's `i_map` on `f64` slices
/// (the CPU's widest vectors; the plain code a Rust user would call for vector math).
#[inline(always)]
fn block_forward(w: &[f64], xb: &[f64], z: &mut [f64], e: &mut [f64], s: &mut [f64]) {
    let w: &[f64; D + 1] = w.try_into().expect("D + 1 parameters");
    for (z, xs) in z.iter_mut().zip(xb.chunks_exact(D)) {
        *z = logit_lanes(w, xs.try_into().expect("D features"));
    }
    e.fill(0.0);
    s.fill(0.0);
    ::nilang::stdlib::elementwise::i_map(e, fns::Exp, z);
    ::nilang::stdlib::elementwise::i_map(s, fns::Ln1p, e);
}

/// [`nll`] as the best plain code (`rust-O`): blocks of `BLOCK` samples, the margins as dot
/// products in lanes, `exp` and `ln_1p` in SIMD lanes.
pub fn nll_lanes(w: &[f64], x: &[f64], y: &[f64]) -> f64 {
    let (mut z, mut e, mut s) = ([0.0; BLOCK], [0.0; BLOCK], [0.0; BLOCK]);
    let mut l = 0.0;
    for (xb, yb) in x.chunks(BLOCK * D).zip(y.chunks(BLOCK)) {
        let r = yb.len();
        block_forward(w, xb, &mut z[..r], &mut e[..r], &mut s[..r]);
        for ((s, z), y) in s.iter().zip(&z).zip(yb) {
            l += s - y * z;
        }
    }
    l
}

/// [`nll_gradient`] as the best plain code (`rust-G`): [`nll_lanes`]' blocks, then
/// `∂L/∂z = e/(1 + e) − y` and `∂L/∂w += ∂L/∂z · (x_s, 1)` in lanes (held in registers).
pub fn nll_gradient_lanes(w: &[f64], x: &[f64], y: &[f64], g: &mut [f64]) -> f64 {
    let (mut z, mut e, mut s) = ([0.0; BLOCK], [0.0; BLOCK], [0.0; BLOCK]);
    let (mut l, mut gw, mut gb) = (0.0, [0.0; D], 0.0);
    for (xb, yb) in x.chunks(BLOCK * D).zip(y.chunks(BLOCK)) {
        let r = yb.len();
        block_forward(w, xb, &mut z[..r], &mut e[..r], &mut s[..r]);
        for (((s, z), e), (y, xs)) in s
            .iter()
            .zip(&z)
            .zip(&e)
            .zip(yb.iter().zip(xb.chunks_exact(D)))
        {
            l += s - y * z;
            let dz = e / (1.0 + e) - y;
            for (g, x) in gw.iter_mut().zip(xs) {
                *g += dz * x;
            }
            gb += dz;
        }
    }
    g[..D].copy_from_slice(&gw);
    g[D] = gb;
    l
}

fn run_case(h: &mut Harness, c: &LogisticCase) {
    let (name, size) = (c.name.as_str(), c.n as f64);
    let (w, x, y) = (&c.w[..], &c.x[..], &c.y[..]);
    let mut g = vec![0.0; D + 1];
    let l = nll_gradient(w, x, y, &mut g);
    h.check(
        &format!("{SUITE} {name}: rust-O vs the loss of rust-G"),
        &[nll(w, x, y)],
        &[l],
        1e-12,
    );
    let mut gl = vec![0.0; D + 1];
    let ll = nll_gradient_lanes(w, x, y, &mut gl);
    let ok = h.check(
        &format!("{SUITE} {name}: rust-O (lanes) vs the scalar loss"),
        &[nll_lanes(w, x, y), ll],
        &[l, l],
        1e-12,
    );
    let ok_g = h.check(
        &format!("{SUITE} {name}: rust-G (lanes) vs the scalar gradient"),
        &gl,
        &g,
        1e-12,
    );
    // `rust`: the best plain code (lanes); `rust-scalar`: one sample at a time, std's functions
    if ok {
        h.time(SUITE, name, size, "rust", Measure::O, 1.0, || {
            nll_lanes(std::hint::black_box(w), x, y)
        });
    }
    if ok_g {
        h.time(SUITE, name, size, "rust", Measure::G, 1.0, || {
            nll_gradient_lanes(std::hint::black_box(w), x, y, &mut gl)
        });
    }
    h.time(SUITE, name, size, "rust-scalar", Measure::O, 1.0, || {
        nll(std::hint::black_box(w), x, y)
    });
    let mut gt = vec![0.0; D + 1];
    h.time(SUITE, name, size, "rust-scalar", Measure::G, 1.0, || {
        nll_gradient(std::hint::black_box(w), x, y, &mut gt)
    });
    let reference = |m: Measure| match m {
        Measure::O => Some(std::borrow::Cow::Owned(vec![l])),
        Measure::G => Some(std::borrow::Cow::Borrowed(&g[..])),
        _ => None,
    };
    let pools = h.pools.clone();
    for (tool, ks) in nilang::cells(c, &pools) {
        h.external(SUITE, name, size, 1.0, &tool, ks, &reference, 1e-12);
    }
    if h.jax.active() {
        jax::run_case(
            h,
            SUITE,
            name,
            size,
            1.0,
            json!({}),
            &[("w", w), ("x", x), ("y", y)],
            &reference,
            None,
            1e-12,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lane_versions_are_the_scalar_ones() {
        // 150 samples: two full blocks and a part
        let c = LogisticCase::random(150, &mut crate::suites::rng(3));
        let (mut g, mut gl) = (vec![0.0; D + 1], vec![0.0; D + 1]);
        let l = nll_gradient(&c.w, &c.x, &c.y, &mut g);
        let ll = nll_gradient_lanes(&c.w, &c.x, &c.y, &mut gl);
        let lo = nll_lanes(&c.w, &c.x, &c.y);
        assert!((ll - l).abs() <= 1e-13 * l.abs() && (lo - l).abs() <= 1e-13 * l.abs());
        for (a, b) in gl.iter().zip(&g) {
            assert!((a - b).abs() <= 1e-13 * (1.0 + b.abs()), "{a} vs {b}");
        }
        assert!(g.iter().any(|&v| v.abs() > 1e-3));
    }

    #[test]
    fn the_plain_gradient_is_the_derivative_of_the_loss() {
        let c = LogisticCase::random(50, &mut crate::suites::rng(1));
        let mut g = vec![0.0; D + 1];
        let l = nll_gradient(&c.w, &c.x, &c.y, &mut g);
        assert!((l - nll(&c.w, &c.x, &c.y)).abs() <= 1e-14 * l.abs());
        for k in 0..=D {
            let (mut wp, mut wm, h) = (c.w.clone(), c.w.clone(), 1e-6);
            wp[k] += h;
            wm[k] -= h;
            let fd = (nll(&wp, &c.x, &c.y) - nll(&wm, &c.x, &c.y)) / (2.0 * h);
            assert!(
                (fd - g[k]).abs() < 1e-7 * (1.0 + g[k].abs()),
                "{k}: {fd} vs {}",
                g[k]
            );
        }
    }
}
