//! Issue 21: the negative log-likelihood of a linear-Gaussian state-space model by the Kalman
//! filter, a program nobody here tuned (written from the README and the guide only).
//!
//! The model: a state `x ∈ ℝ⁴` (a position and a velocity in the plane), `x_{t+1} = A x_t + w_t`,
//! `w_t ~ N(0, Q)`, observed as `y_t = H x_{t+1} + v_t`, `v_t ~ N(0, R)` (`y ∈ ℝ²`), with
//! `Q = diag(exp(lq))` and `R = diag(exp(lr))`. The filter starts from `(m₀, P₀)` and runs, for
//! every observation: predict `m⁻ = A m`, `P⁻ = A P Aᵀ + Q`; innovation `v = y − H m⁻`,
//! `S = H P⁻ Hᵀ + R`; gain `K = P⁻ Hᵀ S⁻¹`; update `m = m⁻ + K v`, `P = P⁻ − K H P⁻`,
//! with `K` from `P⁻ Hᵀ` (taking `K` from `(H P⁻)ᵀ`, or updating by `P⁻ − K (P⁻ Hᵀ)ᵀ`, lets
//! rounding's antisymmetric part of `P` grow until the filter diverges, near step 200 here). The
//! loss is `L = Σ_t ½(ln det S_t + v_tᵀ S_t⁻¹ v_t) + ln 2π` and the gradient is taken with
//! respect to `θ = (A, lq, lr)`: 16 + 4 + 2 = 22 numbers.
//!
//! Written three ways: plain Rust ([`nll`], generic over the scalar: on `f64` it is `rust-O`, on
//! num-dual's `DualSVec64<22>` the reference gradient by forward mode, one pass), NiLang.rs
//! from the guide only ([`nilang`]: `nilang-O`, and `nilang-G` by `nilang::ad::Plan`), and JAX
//! (`peers/jax/peer.py`, jitted float64, `lax.scan` over the observations). Every gradient is
//! checked against the forward-mode one ([`TOL`]) before it is timed, the peer's too.

pub mod nilang;

use crate::ad::{nd_gradient, Objective};
use crate::cli::Mode;
use crate::harness::{jax, named_cases, sized_cases, Harness, Suite};
use crate::real::Real;
use crate::report::Measure;
use rand::Rng;
use rand_distr::StandardNormal;
use serde_json::json;

/// The suite's `--suite` name.
pub const SUITE: &str = "kalman";

/// The state dimension.
pub const NX: usize = 4;
/// The observation dimension.
pub const NY: usize = 2;
/// The number of parameters: `A` (row-major `NX × NX`), `lq` (`NX`), `lr` (`NY`).
pub const NP: usize = NX * NX + NX + NY;
/// `ln 2π`, the constant of the bivariate normal log-density (`NY / 2 · ln 2π`).
pub const LN_2PI: f64 = 1.837_877_066_409_345_5;

/// The relative tolerance of the gradient checks (entries below one: absolute). The filter's
/// gradient is sensitive to rounding (sums of large cancelling terms through the Riccati
/// recursion): at T = 50, JAX's gradient on all cores and ours differ from the forward-mode one
/// by 1–2e-9 in one entry, so 1e-9 is too tight and 1e-7 is not.
pub const TOL: f64 = 1e-7;

/// The Kalman-filter suite.
pub struct KalmanSuite;

impl Suite for KalmanSuite {
    const NAME: &'static str = SUITE;
    const WORK: &'static str = "observations T";
    type Case = KalmanCase;
    fn sizes(mode: Mode) -> &'static [usize] {
        sizes(mode)
    }
    fn cases(h: &mut Harness) -> Vec<KalmanCase> {
        sized_cases::<Self>(h, KalmanCase::new)
    }
    fn run_case(h: &mut Harness, case: &KalmanCase) {
        run_case(h, case)
    }
}
named_cases!(KalmanCase);

/// The numbers of observations of a run.
fn sizes(mode: Mode) -> &'static [usize] {
    match mode {
        Mode::Smoke => &[50],
        Mode::Quick | Mode::Full => &[1000, 10_000],
    }
}

/// The transition the observations were generated with: the position moves by `0.1 ×` the
/// velocity, the velocity turns by 0.1 rad and decays by 5 % per step.
pub fn true_a() -> [f64; NX * NX] {
    let (c, s) = (0.95 * 0.1f64.cos(), 0.95 * 0.1f64.sin());
    [
        1.0, 0.0, 0.1, 0.0, //
        0.0, 1.0, 0.0, 0.1, //
        0.0, 0.0, c, -s, //
        0.0, 0.0, s, c,
    ]
}
/// The log-variances of the process noise the observations were generated with.
pub const TRUE_LQ: [f64; NX] = [-4.0, -4.0, -3.0, -3.0];
/// The log-variances of the observation noise the observations were generated with.
pub const TRUE_LR: [f64; NY] = [-2.0, -2.5];
/// The observation matrix (the positions).
pub const H: [f64; NY * NX] = [1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0];

/// One case: `t` observations and the point `θ` of the gradient.
pub struct KalmanCase {
    /// The case's name (`T=1000`, ..).
    pub name: String,
    /// The number of observations.
    pub t: usize,
    /// The observations `y_t`, interleaved (`NY · t` numbers).
    pub y: Vec<f64>,
    /// The filter's initial mean.
    pub m0: [f64; NX],
    /// The filter's initial covariance (row-major).
    pub p0: [f64; NX * NX],
    /// The point of the gradient: `A` (row-major), `lq`, `lr`.
    pub theta: Vec<f64>,
}

impl KalmanCase {
    /// `t` observations simulated from the true model (seeded), and a point `θ` near the truth.
    pub fn new(t: usize) -> Self {
        let mut rng = crate::suites::rng(0x4a1);
        let a = true_a();
        let mut x = [0.0, 0.0, 1.0, 0.0];
        let mut y = Vec::with_capacity(NY * t);
        for _ in 0..t {
            let mut next = [0.0; NX];
            for i in 0..NX {
                let w: f64 = rng.sample(StandardNormal);
                next[i] = (0..NX).map(|j| a[NX * i + j] * x[j]).sum::<f64>()
                    + (0.5 * TRUE_LQ[i]).exp() * w;
            }
            x = next;
            for r in 0..NY {
                let v: f64 = rng.sample(StandardNormal);
                y.push(
                    (0..NX).map(|j| H[NX * r + j] * x[j]).sum::<f64>()
                        + (0.5 * TRUE_LR[r]).exp() * v,
                );
            }
        }
        let mut theta: Vec<f64> = a.to_vec();
        for (k, v) in theta.iter_mut().enumerate() {
            *v += 0.01 * ((k as f64) * 0.7).sin();
        }
        theta.extend(TRUE_LQ.iter().map(|v| v + 0.3));
        theta.extend(TRUE_LR.iter().map(|v| v - 0.2));
        let mut p0 = [0.0; NX * NX];
        for i in 0..NX {
            p0[(NX + 1) * i] = 1.0;
        }
        KalmanCase {
            name: format!("T={t}"),
            t,
            y,
            m0: [0.0; NX],
            p0,
            theta,
        }
    }
}

/// The negative log-likelihood at `θ = (A, lq, lr)` by the Kalman filter, plain Rust on fixed-size
/// arrays, generic over the scalar (`f64`: `rust-O`; num-dual: the reference gradient).
pub fn nll<T: Real>(theta: &[T], y: &[f64], m0: &[f64; NX], p0: &[f64; NX * NX]) -> T {
    let z = T::zero();
    let mut a = [z; NX * NX];
    a.copy_from_slice(&theta[..NX * NX]);
    let q: [T; NX] = std::array::from_fn(|i| theta[NX * NX + i].exp());
    let r: [T; NY] = std::array::from_fn(|i| theta[NX * NX + NX + i].exp());
    let hm: [T; NY * NX] = H.map(T::cst);
    let mut m: [T; NX] = m0.map(T::cst);
    let mut p: [T; NX * NX] = p0.map(T::cst);
    let mut l = z;
    for yt in y.chunks_exact(NY) {
        // predict
        let mp: [T; NX] = std::array::from_fn(|i| {
            (1..NX).fold(a[NX * i] * m[0], |s, j| s + a[NX * i + j] * m[j])
        });
        let ap: [T; NX * NX] = std::array::from_fn(|ij| {
            let (i, j) = (ij / NX, ij % NX);
            (1..NX).fold(a[NX * i] * p[j], |s, k| s + a[NX * i + k] * p[NX * k + j])
        });
        let mut pp: [T; NX * NX] = std::array::from_fn(|ij| {
            let (i, j) = (ij / NX, ij % NX);
            (1..NX).fold(ap[NX * i] * a[NX * j], |s, k| {
                s + ap[NX * i + k] * a[NX * j + k]
            })
        });
        for i in 0..NX {
            pp[(NX + 1) * i] = pp[(NX + 1) * i] + q[i];
        }
        // innovation
        let pht: [T; NX * NY] = std::array::from_fn(|ir| {
            let (i, rr) = (ir / NY, ir % NY);
            (1..NX).fold(pp[NX * i] * hm[NX * rr], |s, k| {
                s + pp[NX * i + k] * hm[NX * rr + k]
            })
        });
        let hp: [T; NY * NX] = std::array::from_fn(|rj| {
            let (rr, j) = (rj / NX, rj % NX);
            (1..NX).fold(hm[NX * rr] * pp[j], |s, k| {
                s + hm[NX * rr + k] * pp[NX * k + j]
            })
        });
        let mut s: [T; NY * NY] = std::array::from_fn(|rc| {
            let (rr, c) = (rc / NY, rc % NY);
            (1..NX).fold(hm[NX * rr] * pht[c], |s, k| {
                s + hm[NX * rr + k] * pht[NY * k + c]
            })
        });
        for i in 0..NY {
            s[(NY + 1) * i] = s[(NY + 1) * i] + r[i];
        }
        let v: [T; NY] = std::array::from_fn(|rr| {
            (0..NX).fold(T::cst(yt[rr]), |acc, k| acc - mp[k] * hm[NX * rr + k])
        });
        let det = s[0] * s[3] - s[1] * s[2];
        let idet = T::cst(1.0) / det;
        let si = [s[3] * idet, -s[1] * idet, -s[2] * idet, s[0] * idet];
        let w = [si[0] * v[0] + si[1] * v[1], si[2] * v[0] + si[3] * v[1]];
        l = l + T::cst(0.5) * (det.ln() + v[0] * w[0] + v[1] * w[1]) + T::cst(LN_2PI);
        // gain K = P⁻Hᵀ S⁻¹, update
        let k: [T; NX * NY] = std::array::from_fn(|ic| {
            let (i, c) = (ic / NY, ic % NY);
            pht[NY * i] * si[c] + pht[NY * i + 1] * si[NY + c]
        });
        m = std::array::from_fn(|i| mp[i] + k[NY * i] * v[0] + k[NY * i + 1] * v[1]);
        p = std::array::from_fn(|ij| {
            let (i, j) = (ij / NX, ij % NX);
            pp[ij] - k[NY * i] * hp[j] - k[NY * i + 1] * hp[NX + j]
        });
    }
    l
}

/// The loss as an [`Objective`] of `θ` for num-dual's forward mode.
struct Nll<'a>(&'a KalmanCase);

impl Objective for Nll<'_> {
    fn dim(&self) -> usize {
        NP
    }
    fn eval<T: Real>(&self, x: &[T]) -> T {
        nll(x, &self.0.y, &self.0.m0, &self.0.p0)
    }
}

/// The reference gradient by num-dual forward mode (all 22 directions in one pass) and the loss.
pub fn reference_gradient(c: &KalmanCase) -> (f64, Vec<f64>) {
    let mut g = vec![0.0; NP];
    let l = nd_gradient::<NP, _>(&Nll(c), &c.theta, &mut g, None).expect("no time limit");
    (l, g)
}

fn run_case(h: &mut Harness, c: &KalmanCase) {
    let (name, size) = (c.name.as_str(), c.t as f64);
    let (theta, y, m0, p0) = (&c.theta[..], &c.y[..], &c.m0, &c.p0);
    let (l, g) = reference_gradient(c);
    h.check(
        &format!("{SUITE} {name}: rust-O vs the loss of the forward-mode gradient"),
        &[nll(theta, y, m0, p0)],
        &[l],
        1e-12,
    );
    h.time(SUITE, name, size, "rust", Measure::O, 1.0, || {
        nll(std::hint::black_box(theta), y, m0, p0)
    });
    let reference = |m: Measure| match m {
        Measure::O => Some(std::borrow::Cow::Owned(vec![l])),
        Measure::G => Some(std::borrow::Cow::Borrowed(&g[..])),
        _ => None,
    };
    for (tool, ks) in nilang::cells(c) {
        h.external(SUITE, name, size, 1.0, &tool, ks, &reference, TOL);
    }
    if h.jax.active() {
        jax::run_case(
            h,
            SUITE,
            name,
            size,
            1.0,
            json!({}),
            &[
                ("theta", theta),
                ("y", y),
                ("m0", &m0[..]),
                ("p0", &p0[..]),
                ("h", &H[..]),
            ],
            &reference,
            None,
            TOL,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_forward_mode_gradient_is_the_derivative_of_the_loss() {
        let c = KalmanCase::new(40);
        let (l, g) = reference_gradient(&c);
        assert_eq!(l, nll(&c.theta, &c.y, &c.m0, &c.p0));
        let fd = crate::ad::fd_gradient(&Nll(&c), &c.theta, 1e-6);
        for k in 0..NP {
            assert!(
                (fd[k] - g[k]).abs() < 1e-5 * (1.0 + g[k].abs()),
                "{k}: {} vs {}",
                fd[k],
                g[k]
            );
        }
        assert!(
            g.iter().all(|v| v.abs() > 1e-6),
            "every parameter matters: {g:?}"
        );
    }

    #[test]
    fn the_filter_stays_stable_and_the_likelihood_is_higher_at_the_truth() {
        let c = KalmanCase::new(3000);
        let truth: Vec<f64> = true_a()
            .iter()
            .chain(&TRUE_LQ)
            .chain(&TRUE_LR)
            .copied()
            .collect();
        let (at_truth, at_theta) = (
            nll(&truth, &c.y, &c.m0, &c.p0),
            nll(&c.theta, &c.y, &c.m0, &c.p0),
        );
        assert!(at_truth < at_theta, "{at_truth} vs {at_theta}");
        // a diverging filter (rounding's antisymmetric part of P growing) reaches 1e4 per step
        assert!(at_theta.abs() < 2.0 * c.t as f64, "{at_theta}");
    }
}
