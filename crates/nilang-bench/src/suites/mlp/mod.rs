//! A dense two-layer network over a batch (issue 21's first untuned workload): 16 inputs, 32
//! `tanh` hidden units, one output, a squared error summed over the batch,
//!
//! `L(p) = Σ_b (tanh(x_b W₁ + b₁) W₂ + b₂ − t_b)²`,
//!
//! for batches of B = 256 and 4096 samples. The parameters `p = [W₁ (16×32, row-major) | b₁ (32)
//! | W₂ (32×1) | b₂ (1)]` (577 numbers) are what G differentiates; the samples `x` (B×16) and
//! targets `t` (B) are data.
//!
//! Three ways: `rust-O` is the best plain objective (a GEMM of the `matrixmultiply` crate, the
//! one behind nilang's dense primitives, `tanh` over the slice by nilang's
//! `stdlib::elementwise::i_map` (eight lanes for the CPU's vector width; faster here than
//! `wide::f64x4::tanh`, `rust-wide-O`), dot
//! products for the output), `manual-G` its hand-written backpropagation (one more GEMM),
//! `rust-scalar-O`/`manual-scalar-G` the same with std's `tanh` one number at a time (what
//! `tanh` costs; these are the references of every check), `nilang-O/G` the
//! `#[i]` program written from the guide (`nilang.rs`; `nilang-x4-G` on batches of four
//! samples), and `jax-O/G` the same network in JAX
//! (float64, jitted; `peers/jax/peer.py`), `enzyme-O/G` in C++ by Enzyme (`peers/enzyme/mlp.cpp`).

pub mod nilang;

use crate::cli::Mode;
use crate::harness::{jax, named_cases, sized_cases, Harness, Suite};
use crate::report::Measure;
use ::nilang::instr::fns;
use ::nilang::numbers::F64x4;
use rand::Rng;
use serde_json::json;

/// The suite's name (`--suite mlp`, the `suite` of its cells).
pub const SUITE: &str = "mlp";
/// Inputs per sample.
pub const N_IN: usize = 16;
/// Hidden units.
pub const N_HIDDEN: usize = 32;
/// The number of parameters: `W₁`, `b₁`, `W₂`, `b₂`.
pub const N_PARAMS: usize = N_IN * N_HIDDEN + N_HIDDEN + N_HIDDEN + 1;

/// The MLP suite.
pub struct MlpSuite;

impl Suite for MlpSuite {
    const NAME: &'static str = SUITE;
    const WORK: &'static str = "batch size B";
    type Case = MlpCase;
    fn sizes(mode: Mode) -> &'static [usize] {
        match mode {
            Mode::Smoke => &[64],
            _ => &[256, 4096],
        }
    }
    fn cases(h: &mut Harness) -> Vec<MlpCase> {
        sized_cases::<Self>(h, MlpCase::new)
    }
    fn run_case(h: &mut Harness, case: &MlpCase) {
        run_case(h, case)
    }
}
named_cases!(MlpCase);

/// One batch: the parameters `p`, the samples `x` (B×16, row-major) and targets `t`.
pub struct MlpCase {
    /// The case's name (`B=256`, ...).
    pub name: String,
    /// The batch size B.
    pub batch: usize,
    /// The parameters.
    pub p: Vec<f64>,
    /// The samples (B×16, row-major).
    pub x: Vec<f64>,
    /// The targets, one per sample.
    pub t: Vec<f64>,
    /// `x` and `t` in batches of four samples (B a multiple of 4): sample `4r + l` in lane `l`
    /// of row `r`.
    pub x4: Vec<F64x4>,
    /// `t` in batches of four samples, like `x4`.
    pub t4: Vec<F64x4>,
    /// B×32 zeros: the work buffers a chunk of the data-parallel gradient starts from.
    pub zeros: Vec<f64>,
}

impl MlpCase {
    /// Random parameters (scaled by 1/√fan-in) and data, from the suite's seed.
    pub fn new(batch: usize) -> MlpCase {
        let mut rng = crate::suites::rng(21);
        let mut uniform =
            |n: usize, s: f64| -> Vec<f64> { (0..n).map(|_| rng.gen_range(-s..s)).collect() };
        let mut p = uniform(N_IN * N_HIDDEN, 1.0 / (N_IN as f64).sqrt());
        p.extend(uniform(N_HIDDEN, 0.1));
        p.extend(uniform(N_HIDDEN, 1.0 / (N_HIDDEN as f64).sqrt()));
        p.extend(uniform(1, 0.1));
        let (x, t) = (uniform(batch * N_IN, 2.0), uniform(batch, 1.0));
        assert_eq!(batch % 4, 0, "the batched cell packs four samples a row");
        let pack = |v: &[f64], width: usize| -> Vec<F64x4> {
            (0..batch / 4 * width)
                .map(|k| {
                    let (r, i) = (k / width, k % width);
                    F64x4::new(std::array::from_fn(|l| v[(4 * r + l) * width + i]))
                })
                .collect()
        };
        MlpCase {
            name: format!("B={batch}"),
            batch,
            p,
            x4: pack(&x, N_IN),
            t4: pack(&t, 1),
            x,
            t,
            zeros: vec![0.0; batch * N_HIDDEN],
        }
    }
}

/// The parameter blocks of `p`: `(W₁, b₁, W₂, b₂)`.
pub fn split(p: &[f64]) -> (&[f64], &[f64], &[f64], &[f64]) {
    let (w1, r) = p.split_at(N_IN * N_HIDDEN);
    let (b1, r) = r.split_at(N_HIDDEN);
    let (w2, b2) = r.split_at(N_HIDDEN);
    (w1, b1, w2, b2)
}

/// `c (m×n) = 1·c + a (m×k) · b (k×n)`, row-major, or with `a` transposed (`at`: `a` stored
/// k×m).
fn gemm((m, k, n): (usize, usize, usize), a: &[f64], at: bool, b: &[f64], c: &mut [f64]) {
    assert!(a.len() >= m * k && b.len() >= k * n && c.len() >= m * n);
    let (rsa, csa) = if at { (1, m as isize) } else { (k as isize, 1) };
    let (rsb, csb) = (n as isize, 1);
    // SAFETY: the lengths are checked above; `c` is a distinct `&mut`
    unsafe {
        matrixmultiply::dgemm(
            m,
            k,
            n,
            1.0,
            a.as_ptr(),
            rsa,
            csa,
            b.as_ptr(),
            rsb,
            csb,
            1.0,
            c.as_mut_ptr(),
            n as isize,
            1,
        )
    }
}

/// The buffers of the plain objective and its gradient (reused across calls).
#[derive(Clone, Debug, Default)]
pub struct PlainWs {
    h: Vec<f64>,
    z2: Vec<f64>,
}

impl PlainWs {
    /// Workspaces for a batch of `batch` samples.
    pub fn new(batch: usize) -> Self {
        PlainWs {
            h: vec![0.0; batch * N_HIDDEN],
            z2: vec![0.0; batch],
        }
    }
}

/// How the plain code evaluates `tanh` on the hidden layer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tanh {
    /// `f64::tanh`, one number at a time.
    Scalar,
    /// `wide::f64x4::tanh`, four at a time (SIMD in the default build's SSE2).
    Wide,
    /// `nilang::stdlib::elementwise::i_map` on the `f64` slice (eight lanes for the CPU's
    /// widest vectors; the fastest plain loop here, so the `rust-O` baseline).
    Lanes,
}

/// `v = tanh(v)` elementwise.
pub fn tanh_in_place(v: &mut [f64], how: Tanh) {
    match how {
        Tanh::Scalar => v.iter_mut().for_each(|v| *v = v.tanh()),
        Tanh::Lanes => {
            for c in v.chunks_mut(64) {
                let mut t = [0.0; 64];
                ::nilang::stdlib::elementwise::i_map(&mut t[..c.len()], fns::Tanh, c);
                c.copy_from_slice(&t[..c.len()]);
            }
        }
        Tanh::Wide => {
            let mut chunks = v.chunks_exact_mut(4);
            for c in &mut chunks {
                let t = wide::f64x4::new([c[0], c[1], c[2], c[3]]).tanh().to_array();
                c.copy_from_slice(&t);
            }
            chunks
                .into_remainder()
                .iter_mut()
                .for_each(|v| *v = v.tanh());
        }
    }
}

/// The hidden layer `h = tanh(x W₁ + b₁)` and the output `z₂ = h W₂ + b₂` into `ws`.
fn forward(p: &[f64], x: &[f64], ws: &mut PlainWs, how: Tanh) {
    let (w1, b1, w2, b2) = split(p);
    let batch = ws.z2.len();
    for row in ws.h.chunks_exact_mut(N_HIDDEN) {
        row.copy_from_slice(b1);
    }
    gemm((batch, N_IN, N_HIDDEN), x, false, w1, &mut ws.h);
    tanh_in_place(&mut ws.h, how);
    for (z, row) in ws.z2.iter_mut().zip(ws.h.chunks_exact(N_HIDDEN)) {
        *z = b2[0] + row.iter().zip(w2).map(|(h, w)| h * w).sum::<f64>();
    }
}

/// The plain objective `L(p)`: one GEMM, a `tanh` loop, one matrix-vector product (dot
/// products: a 4096 × 32 GEMV through `matrixmultiply` takes 7× longer).
pub fn objective(p: &[f64], x: &[f64], t: &[f64], ws: &mut PlainWs, how: Tanh) -> f64 {
    forward(p, x, ws, how);
    ws.z2.iter().zip(t).map(|(z, t)| (z - t) * (z - t)).sum()
}

/// `L(p)` and its gradient by hand-written backpropagation (`manual-G`): the forward pass,
/// then `δ₂ = 2(z₂ − t)`, `W̄₂ = hᵀ δ₂`, `δ₁ = (δ₂ W₂ᵀ) ⊙ (1 − h²)`, `W̄₁ = xᵀ δ₁`, the biases
/// the column sums.
pub fn value_grad(
    p: &[f64],
    x: &[f64],
    t: &[f64],
    ws: &mut PlainWs,
    g: &mut [f64],
    how: Tanh,
) -> f64 {
    forward(p, x, ws, how);
    let (_, _, w2, _) = split(p);
    let batch = ws.z2.len();
    let mut loss = 0.0;
    for (z, t) in ws.z2.iter_mut().zip(t) {
        let r = *z - t;
        loss += r * r;
        *z = 2.0 * r; // δ₂
    }
    g.fill(0.0);
    let (gw1, r) = g.split_at_mut(N_IN * N_HIDDEN);
    let (gb1, r) = r.split_at_mut(N_HIDDEN);
    let (gw2, gb2) = r.split_at_mut(N_HIDDEN);
    for (row, &d) in ws.h.chunks_exact(N_HIDDEN).zip(&ws.z2) {
        for (g, h) in gw2.iter_mut().zip(row) {
            *g += h * d;
        }
    }
    gb2[0] = ws.z2.iter().sum();
    for (row, &d) in ws.h.chunks_exact_mut(N_HIDDEN).zip(&ws.z2) {
        for ((h, &w), gb) in row.iter_mut().zip(w2).zip(gb1.iter_mut()) {
            *h = d * w * (1.0 - *h * *h); // δ₁, in place of h
            *gb += *h;
        }
    }
    gemm((N_IN, batch, N_HIDDEN), x, true, &ws.h, gw1);
    loss
}

/// Central differences of [`objective`] (the check of `manual-G` in the tests).
pub fn fd_gradient(p: &[f64], x: &[f64], t: &[f64], step: f64) -> Vec<f64> {
    let mut ws = PlainWs::new(t.len());
    let mut q = p.to_vec();
    (0..p.len())
        .map(|i| {
            q[i] = p[i] + step;
            let up = objective(&q, x, t, &mut ws, Tanh::Scalar);
            q[i] = p[i] - step;
            let down = objective(&q, x, t, &mut ws, Tanh::Scalar);
            q[i] = p[i];
            (up - down) / (2.0 * step)
        })
        .collect()
}

fn run_case(h: &mut Harness, c: &MlpCase) {
    let (name, size, b) = (c.name.as_str(), c.batch as f64, c.batch);
    let mut ws = PlainWs::new(b);
    // the references: std's tanh
    let f = objective(&c.p, &c.x, &c.t, &mut ws, Tanh::Scalar);
    let mut g = vec![0.0; N_PARAMS];
    value_grad(&c.p, &c.x, &c.t, &mut ws, &mut g, Tanh::Scalar);
    let mut gl = vec![0.0; N_PARAMS];
    let fl = value_grad(&c.p, &c.x, &c.t, &mut ws, &mut gl, Tanh::Lanes);
    let ok = h.check(
        &format!("mlp {name}: rust-O (tanh in lanes) vs std tanh"),
        &[fl],
        &[f],
        1e-12,
    );
    let ok_g = h.check(
        &format!("mlp {name}: manual-G (tanh in lanes) vs std tanh"),
        &gl,
        &g,
        1e-12,
    );
    // `rust`/`manual`: the best plain code (tanh in SIMD lanes); `rust-scalar`: std's tanh
    for (tool, how, ok, ok_g) in [
        ("rust", Tanh::Lanes, ok, ok_g),
        ("rust-wide", Tanh::Wide, ok, false),
        ("rust-scalar", Tanh::Scalar, true, true),
    ] {
        if ok {
            h.time(SUITE, name, size, tool, Measure::O, 1.0, || {
                objective(std::hint::black_box(&c.p), &c.x, &c.t, &mut ws, how)
            });
        }
        if ok_g {
            let tool = if tool == "rust" {
                "manual"
            } else {
                "manual-scalar"
            };
            let mut gm = vec![0.0; N_PARAMS];
            h.time(SUITE, name, size, tool, Measure::G, 1.0, || {
                value_grad(
                    std::hint::black_box(&c.p),
                    &c.x,
                    &c.t,
                    &mut ws,
                    &mut gm,
                    how,
                )
            });
        }
    }
    let reference = |m: Measure| match m {
        Measure::O => Some(std::borrow::Cow::Owned(vec![f])),
        Measure::G => Some(std::borrow::Cow::Borrowed(&g[..])),
        _ => None,
    };
    h.external(
        SUITE,
        name,
        size,
        1.0,
        "nilang",
        nilang::kernels(c),
        &reference,
        1e-12,
    );
    let x4 = nilang::lanes(c);
    h.external(SUITE, name, size, 1.0, "nilang-x4", x4, &reference, 1e-12);
    let pools = h.pools.clone();
    for pool in pools.iter() {
        let ks = vec![nilang::parallel(c, pool)];
        h.external(SUITE, name, size, 1.0, &pool.tool, ks, &reference, 1e-12);
    }
    if h.jax.active() {
        let arrays: [(&str, &[f64]); 3] = [("p", &c.p), ("x", &c.x), ("t", &c.t)];
        let scalars = json!({"batch": b, "n_in": N_IN, "n_hidden": N_HIDDEN});
        jax::run_case(
            h, SUITE, name, size, 1.0, scalars, &arrays, &reference, None, 1e-12,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn manual_gradient_matches_finite_differences() {
        let c = MlpCase::new(8);
        let mut g = vec![0.0; N_PARAMS];
        let v = value_grad(&c.p, &c.x, &c.t, &mut PlainWs::new(8), &mut g, Tanh::Scalar);
        assert_eq!(
            v,
            objective(&c.p, &c.x, &c.t, &mut PlainWs::new(8), Tanh::Scalar)
        );
        let fd = fd_gradient(&c.p, &c.x, &c.t, 1e-6);
        for (i, (a, b)) in g.iter().zip(&fd).enumerate() {
            assert!((a - b).abs() <= 1e-7 * (1.0 + b.abs()), "{i}: {a} vs {b}");
        }
        assert!(
            g.iter().any(|v| v.abs() > 1e-3),
            "a gradient that is not zero"
        );
        for how in [Tanh::Lanes, Tanh::Wide] {
            let mut gl = vec![0.0; N_PARAMS];
            value_grad(&c.p, &c.x, &c.t, &mut PlainWs::new(8), &mut gl, how);
            for (a, b) in gl.iter().zip(&g) {
                assert!(
                    (a - b).abs() <= 1e-13 * (1.0 + b.abs()),
                    "{how:?}: {a} vs {b}"
                );
            }
        }
    }
}
