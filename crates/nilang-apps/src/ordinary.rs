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
/// differentiated by `#[ad]` with respect to `p` only: the points and the prior's constants
/// are `#[data]`, as in the reversible program; `constant` is
/// [`gmm_constant`](crate::adbench::gmm::gmm_constant). [`gmm_value_grad`] calls it from a
/// [`GmmInput`](crate::adbench::gmm::GmmInput). Written as ADBench's reference objective is:
/// `exp` of each component's diagonal and `α + Σ q` once per component, then the points.
#[ad]
#[allow(clippy::too_many_arguments)]
pub fn gmm(
    p: &[f64],
    #[data] x: &[f64],
    d: usize,
    k: usize,
    n: usize,
    #[data] gamma: f64,
    #[data] m: f64,
    #[data] constant: f64,
) -> f64 {
    let tri = d * (d + 1) / 2;
    let mut qdiag = vec![0.0; k * d];
    let mut base = vec![0.0; k];
    let mut main = vec![0.0; k];
    let mut xc = vec![0.0; d];
    // per component, as ADBench's reference does: exp of Q's diagonal, α + Σ q
    for c in 0..k {
        let q0 = k + k * d + c * tri;
        let mut sum_q = 0.0;
        for r in 0..d {
            qdiag[c * d + r] = p[q0 + r].exp();
            sum_q += p[q0 + r];
        }
        base[c] = p[c] + sum_q;
    }
    let mut slse = 0.0;
    for i in 0..n {
        for c in 0..k {
            let mu0 = k + c * d;
            let l0 = k + k * d + c * tri + d;
            for r in 0..d {
                xc[r] = x[i * d + r] - p[mu0 + r];
            }
            let mut sq = 0.0;
            for r in 0..d {
                let mut y = qdiag[c * d + r] * xc[r];
                for col in 0..r {
                    y += p[l0 + crate::gmm::lower_index(d, r, col)] * xc[col];
                }
                sq += y * y;
            }
            main[c] = base[c] - 0.5 * sq;
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
    let (v, (_, gp, _, _, _, _, _, _, _)) = nilang::ad::value_and_gradient(
        &Gmm,
        (
            &mut 0.0,
            &mut p[..],
            &g.x[..],
            g.d,
            g.k,
            g.n,
            g.gamma,
            g.m as f64,
            c,
        ),
        0,
    );
    let grad = gp.iter().map(|e| e.g).collect();
    (v, grad, nilang::ad::ordinary::last_tape_bytes())
}

/// ADBench's bundle-adjustment residual of one observation
/// ([`crate::adbench::ba::ba_reproj`]) as an ordinary function with a vector output: `e` (two
/// numbers, written once each) is `w (proj(cam, x) − feat)`, with the Rodrigues rotation and
/// its first-order branch at `θ = 0`; the observed feature `feat` is `#[data]`, as in the
/// reversible program. `cam = [r (3) | C (3) | f | u₀ v₀ | k₁ k₂]`. The 2×15
/// Jacobian block is [`ba_block`] (one backward pass with two adjoint lanes through the
/// gradient API's `jacobian`: one forward and one backward pass of this function for both).
#[ad]
pub fn ba_reproj(cam: &[f64; 11], x: &[f64; 3], w: f64, #[data] feat: &[f64; 2], e: &mut [f64; 2]) {
    let mut p = [0.0; 3];
    let mut y = [0.0; 3];
    for j in 0..3 {
        p[j] = x[j] - cam[3 + j];
    }
    let sq = cam[0] * cam[0] + cam[1] * cam[1] + cam[2] * cam[2];
    if sq != 0.0 {
        let theta = sq.sqrt();
        let st = theta.sin();
        let ct = theta.cos();
        let v0 = cam[0] / theta;
        let v1 = cam[1] / theta;
        let v2 = cam[2] / theta;
        let tmp = (v0 * p[0] + v1 * p[1] + v2 * p[2]) * (1.0 - ct);
        y[0] = p[0] * ct + (v1 * p[2] - v2 * p[1]) * st + v0 * tmp;
        y[1] = p[1] * ct + (v2 * p[0] - v0 * p[2]) * st + v1 * tmp;
        y[2] = p[2] * ct + (v0 * p[1] - v1 * p[0]) * st + v2 * tmp;
    } else {
        y[0] = p[0] + (cam[1] * p[2] - cam[2] * p[1]);
        y[1] = p[1] + (cam[2] * p[0] - cam[0] * p[2]);
        y[2] = p[2] + (cam[0] * p[1] - cam[1] * p[0]);
    }
    let u0 = y[0] / y[2];
    let u1 = y[1] / y[2];
    let rsq = u0 * u0 + u1 * u1;
    let l = 1.0 + cam[9] * rsq + cam[10] * rsq * rsq;
    e[0] = w * (cam[6] * u0 * l + cam[7] - feat[0]);
    e[1] = w * (cam[6] * u1 * l + cam[8] - feat[1]);
}

/// The 2×15 Jacobian block of one observation (rows: the two residuals; columns: the 11
/// camera parameters, the 3 point coordinates, the weight) of [`ba_reproj`] by the gradient
/// API's one-pass `jacobian` with two adjoint lanes, the layout of
/// [`crate::ba::ba_block`]; and the bytes its value tape held.
///
/// ```
/// let cam = [0.1, -0.2, 0.05, 0.3, 0.1, -4.0, 1.2, 0.01, -0.02, 0.1, 0.01];
/// let (x, feat) = ([0.5, -0.3, 1.0], [0.1, 0.2]);
/// let (j, _) = nilang_apps::ordinary::ba_block(&cam, &x, 0.9, &feat);
/// let r = nilang_apps::ba::ba_block(&cam, &x, 0.9, &feat);
/// assert!((0..2).all(|i| (0..15).all(|k| (j[i][k] - r[i][k]).abs() < 1e-12 * r[i][k].abs().max(1.0))));
/// ```
pub fn ba_block(cam: &[f64; 11], x: &[f64; 3], w: f64, feat: &[f64; 2]) -> ([[f64; 15]; 2], usize) {
    let (mut c, mut xx, mut ww, mut e) = (*cam, *x, w, [0.0; 2]);
    let mut plan = nilang::ad::Plan::new();
    let (_, gc, gx, gw, _, _) = plan.jacobian::<_, _, 2>(
        &BaReproj,
        (&mut 0.0, &mut c, &mut xx, &mut ww, feat, &mut e),
        5,
    );
    let mut out = [[0.0; 15]; 2];
    for (r, row) in out.iter_mut().enumerate() {
        for (o, v) in row.iter_mut().zip(gc.iter().chain(gx.iter()).chain([&*gw])) {
            *o = v.g.0[r];
        }
    }
    (out, nilang::ad::ordinary::last_tape_bytes())
}

/// The Petersen-graph embedding loss ([`crate::embedding::embedding_loss`]) as an ordinary
/// function of the positions `x` (vec order, `10·k` numbers): the 45 pair distances, the
/// sample variances and means of the edge and non-edge distances, and the penalty
/// `exp(relu(gap)) − 1`.
///
/// ```
/// use nilang_apps::ordinary::{embedding, Embedding};
/// let x: Vec<f64> = (0..20).map(|i| (i as f64 * 0.7).sin()).collect();
/// let (v, g) = nilang_apps::embedding::gradient(&x, 2);
/// let mut xs = x.clone();
/// let (vo, (_, go, _)) = nilang::ad::value_and_gradient(&Embedding, (&mut 0.0, &mut xs[..], 2), 0);
/// assert!((vo - v).abs() < 1e-12 * v.abs() && (embedding(&x, 2) - v).abs() < 1e-12 * v.abs());
/// assert!(go.iter().zip(&g).all(|(a, b)| (a.g - b).abs() < 1e-12 * b.abs().max(1.0)));
/// ```
#[ad]
pub fn embedding(x: &[f64], k: usize) -> f64 {
    let mut d = [0.0; 45];
    for e in 0..45 {
        let mut s = 0.0;
        for c in 0..k {
            let t =
                x[crate::embedding::PAIRS[e].0 * k + c] - x[crate::embedding::PAIRS[e].1 * k + c];
            s += t * t;
        }
        d[e] = s.sqrt();
    }
    let mut me = 0.0;
    for e in 0..15 {
        me += d[e];
    }
    me /= 15.0;
    let mut mn = 0.0;
    for e in 15..45 {
        mn += d[e];
    }
    mn /= 30.0;
    let mut ve = 0.0;
    for e in 0..15 {
        ve += (d[e] - me) * (d[e] - me);
    }
    let mut vn = 0.0;
    for e in 15..45 {
        vn += (d[e] - mn) * (d[e] - mn);
    }
    let gap = me - mn + 0.1;
    let mut out = ve / 14.0 + vn / 29.0;
    if gap > 0.0 {
        out += gap.exp() - 1.0;
    }
    out
}
