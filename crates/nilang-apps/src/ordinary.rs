//! Applications written as ordinary Rust functions and differentiated with `#[ad]` (source
//! transformation with a value tape), beside their reversible versions: the same gradients,
//! and the tape's size and the time of each, compared by
//! `cargo run --release -p nilang-apps --example ordinary`.
// written as ordinary numerical code is (index loops)
#![allow(clippy::needless_range_loop)]
use crate::bessel::{factorial, ATOL};
use nilang::prelude::*;

/// `J_ν(z)` by its Taylor series, the paper's irreversible `besselj`
/// ([`crate::bessel::besselj_plain`]) as written, differentiated by `#[ad]`: the series term
/// `s` and the counter `k` are recorded at each step (the adjoint reads both).
///
/// ```
/// use nilang_apps::ordinary::{besselj, Besselj};
/// let (v, (_, _, gz)) = nilang::ad::value_and_gradient(&Besselj, (&mut 0.0, 2, &mut 1.0), 0);
/// let (vr, dr) = nilang_apps::bessel::besselj_grad(2, 1.0);
/// // the paper's reversible version, up to its approximate multiplier's residue
/// assert!((v - vr).abs() < 1e-12 && (gz.g - dr).abs() < 1e-9);
/// assert_eq!(v, besselj(2, 1.0));
/// ```
#[ad]
pub fn besselj(nu: usize, z: f64) -> f64 {
    let mut k = 0.0;
    let mut s = (z / 2.0).powf(nu as f64) / factorial(nu);
    let mut out = s;
    while s.abs() > ATOL {
        k += 1.0;
        s *= -1.0 / k / (k + nu as f64) * (z / 2.0).powi(2);
        out += s;
    }
    out
}

/// ADBench's GMM objective ([`crate::adbench::gmm::gmm_objective`]) as an ordinary function of
/// the flat parameters `p = [α (K) | μ (K·d) | icf (K·d(d+1)/2)]` and the points `x` (`n·d`),
/// differentiated by `#[ad]`; `constant` is
/// [`gmm_constant`](crate::adbench::gmm::gmm_constant). [`gmm_value_grad`] calls it from a
/// [`GmmInput`](crate::adbench::gmm::GmmInput).
#[ad]
#[allow(clippy::too_many_arguments)]
pub fn gmm(
    p: &[f64],
    x: &[f64],
    d: usize,
    k: usize,
    n: usize,
    gamma: f64,
    m: f64,
    constant: f64,
) -> f64 {
    let tri = d * (d + 1) / 2;
    let mut main = vec![0.0; k];
    let mut xc = vec![0.0; d];
    let mut slse = 0.0;
    for i in 0..n {
        for c in 0..k {
            let mu0 = k + c * d;
            let q0 = k + k * d + c * tri;
            for r in 0..d {
                xc[r] = x[i * d + r] - p[mu0 + r];
            }
            let mut sq = 0.0;
            let mut sum_q = 0.0;
            for r in 0..d {
                let mut y = p[q0 + r].exp() * xc[r];
                for col in 0..r {
                    y += p[q0 + d + crate::gmm::lower_index(d, r, col)] * xc[col];
                }
                sq += y * y;
                sum_q += p[q0 + r];
            }
            main[c] = p[c] + sum_q - 0.5 * sq;
        }
        let mut mx = main[0];
        for c in 1..k {
            if main[c] > mx {
                mx = main[c];
            }
        }
        let mut se = 0.0;
        for c in 0..k {
            se += (main[c] - mx).exp();
        }
        slse += se.ln() + mx;
    }
    // the data-free terms: −n·logsumexp(α) + the Wishart prior
    let mut amx = p[0];
    for c in 1..k {
        if p[c] > amx {
            amx = p[c];
        }
    }
    let mut ase = 0.0;
    for c in 0..k {
        ase += (p[c] - amx).exp();
    }
    let mut prior = 0.0;
    for c in 0..k {
        let q0 = k + k * d + c * tri;
        for r in 0..d {
            prior += 0.5 * gamma * gamma * (2.0 * p[q0 + r]).exp() - m * p[q0 + r];
        }
        for j in d..tri {
            prior += 0.5 * gamma * gamma * p[q0 + j] * p[q0 + j];
        }
    }
    slse - (n as f64) * (ase.ln() + amx) + prior + constant
}

/// The GMM objective and its gradient (layout `[α | μ | icf]`) through [`Gmm`] and the
/// gradient API, and the bytes its value tape held.
///
/// ```
/// use nilang_apps::adbench::gmm::{gmm_generate, gmm_objective};
/// let g = gmm_generate(2, 3, 10, 1);
/// let (v, grad, _bytes) = nilang_apps::ordinary::gmm_value_grad(&g);
/// assert!((v - gmm_objective(&g)).abs() < 1e-10 * v.abs());
/// assert_eq!(grad.len(), 3 + 3 * 2 + 3 * 3);
/// ```
pub fn gmm_value_grad(g: &crate::adbench::gmm::GmmInput) -> (f64, Vec<f64>, usize) {
    let mut p: Vec<f64> = g
        .alphas
        .iter()
        .chain(&g.means)
        .chain(&g.icf)
        .copied()
        .collect();
    let c = crate::adbench::gmm::gmm_constant(g.d, g.k, g.n, g.gamma, g.m);
    let mut x = g.x.clone();
    let (v, (_, gp, _, _, _, _, _, _, _)) = nilang::ad::value_and_gradient(
        &Gmm,
        (
            &mut 0.0,
            &mut p[..],
            &mut x[..],
            g.d,
            g.k,
            g.n,
            &mut { g.gamma },
            &mut { g.m as f64 },
            &mut { c },
        ),
        0,
    );
    let grad = gp.iter().map(|e| e.g).collect();
    (v, grad, nilang::ad::ordinary::last_tape_bytes())
}
