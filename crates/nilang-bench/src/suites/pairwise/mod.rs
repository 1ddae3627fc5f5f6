//! Issue 21: a pairwise potential, a program nobody here tuned. `N` points in 3-D, positions
//! `x` (index `3·i + c`), the softened Lennard-Jones energy over all pairs `i < j`:
//! `E = Σ_{i<j} u⁶ − u³` with `u = 1 / (1 + |x_i − x_j|²)`; the gradient is `∂E/∂x`.
//!
//! Written three ways: plain Rust (`rust-O`, and `rust-G` by the hand-derived pair force),
//! NiLang.rs from the guide only ([`nilang`]: `nilang-G` by `nilang::ad::Plan`, and the
//! data-parallel gradient `nilang::ad::TermSum` over the rows `i` on pools of 1 and N threads,
//! tools `nilang-t1`, `nilang-tN`), and JAX (`peers/jax/peer.py`, jitted float64: `jax` on one
//! thread, `jax-mt` on all cores), and C++ by Enzyme (`enzyme`, `peers/enzyme/pairwise.cpp`).
//! Every gradient is checked against the plain one (1e-12) before it is timed, the peers' too.

pub mod nilang;

use crate::cli::Mode;
use crate::harness::{jax, named_cases, sized_cases, Harness, Suite};
use crate::report::Measure;
use rand::Rng;
use serde_json::json;

/// The suite's name (`--suite pairwise`, the `suite` of its cells).
pub const SUITE: &str = "pairwise";

/// The pairwise-potential suite.
pub struct PairwiseSuite;

impl Suite for PairwiseSuite {
    const NAME: &'static str = SUITE;
    const WORK: &'static str = "points N";
    type Case = PairwiseCase;
    fn sizes(mode: Mode) -> &'static [usize] {
        sizes(mode)
    }
    fn cases(h: &mut Harness) -> Vec<PairwiseCase> {
        let mut rng = crate::suites::rng(21);
        sized_cases::<Self>(h, |n| PairwiseCase::random(n, &mut rng))
    }
    fn run_case(h: &mut Harness, case: &PairwiseCase) {
        run_case(h, case)
    }
}
named_cases!(PairwiseCase);

/// The numbers of points of a run.
fn sizes(mode: Mode) -> &'static [usize] {
    match mode {
        Mode::Smoke => &[64],
        Mode::Quick => &[64, 256, 1024],
        Mode::Full => &[64, 128, 256, 512, 1024],
    }
}

/// One case: `n` points at positions `x` (`3n` numbers).
pub struct PairwiseCase {
    /// The case's name (`N=64`, ...).
    pub name: String,
    /// The number of points.
    pub n: usize,
    /// The positions (`3n` numbers, point by point).
    pub x: Vec<f64>,
}

impl PairwiseCase {
    /// `n` points uniform in a cube of side `n^(1/3)` (density one).
    pub fn random(n: usize, rng: &mut impl Rng) -> Self {
        let side = (n as f64).cbrt();
        PairwiseCase {
            name: format!("N={n}"),
            n,
            x: (0..3 * n).map(|_| side * rng.gen::<f64>()).collect(),
        }
    }
}

/// The energy, plain Rust.
pub fn energy(x: &[f64]) -> f64 {
    let n = x.len() / 3;
    let mut e = 0.0;
    for i in 0..n {
        let (xi, yi, zi) = (x[3 * i], x[3 * i + 1], x[3 * i + 2]);
        let mut ei = 0.0;
        for p in x[3 * (i + 1)..].chunks_exact(3) {
            let (dx, dy, dz) = (xi - p[0], yi - p[1], zi - p[2]);
            let u = 1.0 / (1.0 + dx * dx + dy * dy + dz * dz);
            let u3 = u * u * u;
            ei += u3 * u3 - u3;
        }
        e += ei;
    }
    e
}

/// The energy and its gradient (written to `g`), plain Rust with the hand-derived pair force:
/// `dE/d(r²) = (−6u⁶ + 3u³)·u`, `dE/dx_i = 2·dE/d(r²)·(x_i − x_j)` and the opposite for `x_j`.
pub fn energy_gradient(x: &[f64], g: &mut [f64]) -> f64 {
    let n = x.len() / 3;
    g.fill(0.0);
    let mut e = 0.0;
    for i in 0..n {
        let (xi, yi, zi) = (x[3 * i], x[3 * i + 1], x[3 * i + 2]);
        let (mut gx, mut gy, mut gz, mut ei) = (0.0, 0.0, 0.0, 0.0);
        for (p, q) in x[3 * (i + 1)..]
            .chunks_exact(3)
            .zip(g[3 * (i + 1)..].chunks_exact_mut(3))
        {
            let (dx, dy, dz) = (xi - p[0], yi - p[1], zi - p[2]);
            let u = 1.0 / (1.0 + dx * dx + dy * dy + dz * dz);
            let u3 = u * u * u;
            ei += u3 * u3 - u3;
            let s = 2.0 * (3.0 * u3 - 6.0 * u3 * u3) * u;
            let (fx, fy, fz) = (s * dx, s * dy, s * dz);
            gx += fx;
            gy += fy;
            gz += fz;
            q[0] -= fx;
            q[1] -= fy;
            q[2] -= fz;
        }
        g[3 * i] += gx;
        g[3 * i + 1] += gy;
        g[3 * i + 2] += gz;
        e += ei;
    }
    e
}

fn run_case(h: &mut Harness, c: &PairwiseCase) {
    let (name, size, x) = (c.name.as_str(), c.n as f64, &c.x[..]);
    let mut g = vec![0.0; x.len()];
    let e = energy_gradient(x, &mut g);
    h.check(
        &format!("{SUITE} {name}: rust-O vs the energy of rust-G"),
        &[energy(x)],
        &[e],
        1e-12,
    );
    h.time(SUITE, name, size, "rust", Measure::O, 1.0, || {
        energy(std::hint::black_box(x))
    });
    let mut gt = vec![0.0; x.len()];
    h.time(SUITE, name, size, "rust", Measure::G, 1.0, || {
        energy_gradient(std::hint::black_box(x), &mut gt)
    });
    let reference = |m: Measure| match m {
        Measure::O => Some(std::borrow::Cow::Owned(vec![e])),
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
            &[("x", x)],
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
    fn the_plain_gradient_is_the_derivative_of_the_energy() {
        let c = PairwiseCase::random(12, &mut crate::suites::rng(1));
        let mut g = vec![0.0; 36];
        let e = energy_gradient(&c.x, &mut g);
        assert!((e - energy(&c.x)).abs() <= 1e-14 * e.abs());
        for k in 0..36 {
            let (mut xp, mut xm, h) = (c.x.clone(), c.x.clone(), 1e-6);
            xp[k] += h;
            xm[k] -= h;
            let fd = (energy(&xp) - energy(&xm)) / (2.0 * h);
            assert!(
                (fd - g[k]).abs() < 1e-7 * (1.0 + g[k].abs()),
                "{k}: {fd} vs {}",
                g[k]
            );
        }
    }
}
