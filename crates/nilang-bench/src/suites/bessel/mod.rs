//! Table 3: the Bessel function J₂(1.0): objective, gradient (closed form, num-dual, echidna),
//! and per-evaluation throughput over a batch of 2^17 inputs.

pub mod gpu;
pub mod nilang;

use crate::cli::Mode;
use crate::harness::gpu::TOOL;
use crate::harness::{jax, named_cases, Harness, Suite};
use crate::real::Real;
use crate::report::Measure;
use echidna::Reverse;
use num_dual::Dual64;
use rand::Rng;
use serde_json::json;

/// The suite's name (`--suite bessel`, the `suite` of its cells).
pub const SUITE: &str = "bessel";
/// Series truncation, as the paper's `besselj(ν, z; atol=1e-8)`.
pub const ATOL: f64 = 1e-8;

/// The Bessel suite (Table 3).
pub struct BesselSuite;

impl Suite for BesselSuite {
    const NAME: &'static str = SUITE;
    const WORK: &'static str = "series terms per evaluation (mean over a batch)";
    type Case = BesselCase;
    fn steps(_: Mode) -> u64 {
        2
    }
    fn cases(h: &mut Harness) -> Vec<BesselCase> {
        cases(h)
    }
    fn run_case(h: &mut Harness, case: &BesselCase) {
        run_case(h, case)
    }
}
named_cases!(BesselCase);

/// One Bessel case. Result layouts for the checks: O: `[J_nu(z)]` (batch: one per input),
/// G: `[dJ/dz]` (batch: one per input), U: the inputs (`[z]`, or the batch) restored.
pub struct BesselCase {
    /// The case's name.
    pub name: String,
    /// The order `ν`.
    pub nu: u32,
    /// The argument `z` (the single-input case).
    pub z: f64,
    /// `Some(zs)`: the throughput case; the times are per evaluation.
    pub batch: Option<Vec<f64>>,
}

impl BesselCase {
    /// The inputs: the batch, or `[z]`.
    pub fn inputs(&self) -> Vec<f64> {
        self.batch.clone().unwrap_or_else(|| vec![self.z])
    }
}

/// J_ν(z) by the truncated Taylor series, exactly as the paper's irreversible `besselj`:
/// stop after the first term with |t_k| <= atol (that term included).
#[inline]
pub fn besselj<T: Real>(nu: u32, z: T) -> T {
    let hz = z * T::cst(0.5);
    let mut p = T::cst(1.0);
    let mut fact = 1.0;
    for i in 1..=nu {
        p = p * hz;
        fact *= i as f64;
    }
    let mut s = p / T::cst(fact);
    let mut out = s;
    let hz2 = hz * hz;
    let mut k = 0u32;
    while s.val().abs() > ATOL {
        k += 1;
        s = s * (T::cst(-1.0 / k as f64 / (k + nu) as f64) * hz2);
        out = out + s;
    }
    out
}

/// How many series terms [`besselj`] sums for (ν, z): the Bessel suite's work measure.
///
/// ```
/// use nilang_bench::suites::bessel::series_terms;
/// assert!(series_terms(2, 1.0) < series_terms(2, 8.0));
/// ```
pub fn series_terms(nu: u32, z: f64) -> usize {
    let hz2 = 0.25 * z * z;
    let mut s = (0.5 * z).powi(nu as i32) / (1..=nu).map(f64::from).product::<f64>();
    let mut terms = 1;
    let mut k = 0u32;
    while s.abs() > ATOL {
        k += 1;
        s *= -1.0 / k as f64 / (k + nu) as f64 * hz2;
        terms += 1;
    }
    terms
}

/// The hand-written derivative: J_ν' = (J_{ν-1} − J_{ν+1}) / 2 (ν ≥ 1), J_0' = −J_1.
#[inline]
pub fn besselj_prime(nu: u32, z: f64) -> f64 {
    if nu == 0 {
        -besselj(1, z)
    } else {
        0.5 * (besselj(nu - 1, z) - besselj(nu + 1, z))
    }
}

#[inline]
/// `dJ_ν/dz` by num-dual's forward mode (a dual number through the plain series).
pub fn grad_num_dual(nu: u32, z: f64) -> f64 {
    besselj(nu, Dual64::new(z, 1.0)).eps
}

#[inline]
/// `dJ_ν/dz` by echidna's tape (reverse mode through the plain series).
pub fn grad_echidna(nu: u32, z: f64) -> f64 {
    echidna::grad(|x: &[Reverse<f64>]| besselj(nu, x[0]), &[z])[0]
}

fn cases(h: &Harness) -> Vec<BesselCase> {
    let n: usize = match h.mode {
        Mode::Smoke => 1 << 10,
        _ => 1 << 17,
    };
    let mut rng = crate::suites::rng(1);
    let zs: Vec<f64> = (0..n).map(|_| rng.gen_range(0.0..10.0)).collect();
    vec![
        BesselCase {
            name: "J2(1.0)".into(),
            nu: 2,
            z: 1.0,
            batch: None,
        },
        BesselCase {
            name: format!("J2 batch 2^{} (per eval)", n.trailing_zeros()),
            nu: 2,
            z: 1.0,
            batch: Some(zs),
        },
    ]
}

/// The oracle's value and derivative for (ν, z), if listed.
fn oracle(h: &Harness, nu: u32, z: f64) -> Option<(f64, f64)> {
    let rows = nilang_adbench::oracle::load_bessel_table_in(&h.data).ok()?;
    let r = rows.iter().find(|r| r.nu == nu && r.z == z)?;
    Some((r.objective, r.gradient))
}

fn run_case(h: &mut Harness, c: &BesselCase) {
    let nu = c.nu;
    let name = c.name.as_str();
    match &c.batch {
        None => {
            let z = c.z;
            let size = series_terms(nu, z) as f64;
            let f = besselj(nu, z);
            let g_nd = grad_num_dual(nu, z);
            let g_ech = grad_echidna(nu, z);
            let g_man = besselj_prime(nu, z);
            let mut ok = true;
            if let Some((fo, go)) = oracle(h, nu, z) {
                ok &= h.check("bessel: rust-O vs JAX oracle", &[f], &[fo], 1e-12);
                ok &= h.check("bessel: num-dual-G vs JAX oracle", &[g_nd], &[go], 1e-12);
            } else {
                h.note("bessel: oracle-reference/bessel_table.json not found; checking tools against each other only");
            }
            let ok_e = h.check("bessel: echidna-G vs num-dual-G", &[g_ech], &[g_nd], 1e-12);
            // The closed form differentiates the exact function; the series is truncated at 1e-8.
            let ok_m = h.check("bessel: manual-G vs num-dual-G", &[g_man], &[g_nd], 1e-7);
            // rust-O, then timed in turns with every later cell of the case
            let h = &mut h.in_turns(SUITE, name, size, 1.0, || {
                besselj(nu, std::hint::black_box(z))
            });
            if ok_m {
                h.time(SUITE, name, size, "manual", Measure::G, 1.0, || {
                    besselj_prime(nu, std::hint::black_box(z))
                });
            }
            if ok {
                h.time(SUITE, name, size, "num-dual", Measure::G, 1.0, || {
                    grad_num_dual(nu, std::hint::black_box(z))
                });
            }
            if ok_e {
                h.time(SUITE, name, size, "echidna", Measure::G, 1.0, || {
                    grad_echidna(nu, std::hint::black_box(z))
                });
            }
            let reference = |m: Measure| match m {
                Measure::O => Some(std::borrow::Cow::Owned(vec![f])),
                Measure::G => Some(std::borrow::Cow::Owned(vec![g_nd])),
                Measure::U => Some(std::borrow::Cow::Owned(vec![z])),
                _ => None,
            };
            let ks = nilang::kernels(c);
            h.external(SUITE, name, size, 1.0, "nilang", ks, &reference, 1e-10);
            jax_case(h, c, &reference);
        }
        Some(zs) => {
            let n = zs.len();
            let per = n as f64;
            let size = zs.iter().map(|&z| series_terms(nu, z) as f64).sum::<f64>() / per;
            let mut out = vec![0.0; n];
            let f: Vec<f64> = zs.iter().map(|&z| besselj(nu, z)).collect();
            let g_nd: Vec<f64> = zs.iter().map(|&z| grad_num_dual(nu, z)).collect();
            let g_ech: Vec<f64> = zs.iter().map(|&z| grad_echidna(nu, z)).collect();
            let g_man: Vec<f64> = zs.iter().map(|&z| besselj_prime(nu, z)).collect();
            let g_fd: Vec<f64> = zs
                .iter()
                .map(|&z| (besselj(nu, z + 1e-6) - besselj(nu, z - 1e-6)) / 2e-6)
                .collect();
            let ok = h.check(
                "bessel batch: num-dual-G vs central differences",
                &g_nd,
                &g_fd,
                1e-6,
            );
            let ok_e = h.check(
                "bessel batch: echidna-G vs num-dual-G",
                &g_ech,
                &g_nd,
                1e-12,
            );
            let ok_m = h.check("bessel batch: manual-G vs num-dual-G", &g_man, &g_nd, 1e-7);
            // rust-O (its own output), then timed in turns with every later cell of the case
            let mut out_base = out.clone();
            let h = &mut h.in_turns(SUITE, name, size, per, || {
                for (o, &z) in out_base.iter_mut().zip(zs) {
                    *o = besselj(nu, z);
                }
            });
            if ok_m {
                h.time(SUITE, name, size, "manual", Measure::G, per, || {
                    for (o, &z) in out.iter_mut().zip(zs) {
                        *o = besselj_prime(nu, z);
                    }
                });
            }
            if ok {
                h.time(SUITE, name, size, "num-dual", Measure::G, per, || {
                    for (o, &z) in out.iter_mut().zip(zs) {
                        *o = grad_num_dual(nu, z);
                    }
                });
            }
            if ok_e {
                h.time(SUITE, name, size, "echidna", Measure::G, per, || {
                    for (o, &z) in out.iter_mut().zip(zs) {
                        *o = grad_echidna(nu, z);
                    }
                });
            }
            let reference = |m: Measure| match m {
                Measure::O => Some(std::borrow::Cow::Borrowed(&f[..])),
                Measure::G => Some(std::borrow::Cow::Borrowed(&g_nd[..])),
                Measure::U => Some(std::borrow::Cow::Borrowed(&zs[..])),
                _ => None,
            };
            let ks = nilang::kernels(c);
            h.external(SUITE, name, size, per, "nilang", ks, &reference, 1e-10);
            if let Some(dev) = h.gpu.clone() {
                let ks = gpu::kernels(&dev, c);
                h.external(SUITE, name, size, per, TOOL, ks, &reference, 1e-10);
            }
            // The batched tools sum every lane's series to double precision (the term count of
            // a group of lanes is set by its largest |z|), not to |t| <= 1e-8: they are checked
            // against the closed form J' = (J_{ν-1} − J_{ν+1}) / 2 of the converged series
            // (more terms than the truncated reference, and than JAX's loop).
            let exact: Vec<f64> = zs.iter().map(|&z| besselj_prime_exact(nu, z)).collect();
            let ok_x = h.check(
                "bessel batch: converged closed form vs num-dual-G",
                &exact,
                &g_nd,
                1e-7,
            );
            let exact_ref = |m: Measure| match m {
                Measure::G => Some(std::borrow::Cow::Borrowed(&exact[..])),
                _ => None,
            };
            if ok_x {
                for (tool, ks) in nilang::batched(c) {
                    h.external(SUITE, name, size, per, &tool, ks, &exact_ref, 1e-11);
                }
            }
            jax_case(h, c, &reference);
        }
    }
}

/// J_ν(z) by the series summed until a term no longer changes the sum (no truncation).
pub fn besselj_converged(nu: u32, z: f64) -> f64 {
    let hz = 0.5 * z;
    let h2 = hz * hz;
    let mut t = hz.powi(nu as i32) / (1..=nu).map(f64::from).product::<f64>();
    let mut out = t;
    let mut k = 0u32;
    loop {
        k += 1;
        t *= -(h2 * (1.0 / (k * (k + nu)) as f64));
        if out + t == out {
            return out;
        }
        out += t;
    }
}

/// J_ν'(z) in closed form from the converged series (ν ≥ 1; J_0' = −J_1).
pub fn besselj_prime_exact(nu: u32, z: f64) -> f64 {
    if nu == 0 {
        -besselj_converged(1, z)
    } else {
        0.5 * (besselj_converged(nu - 1, z) - besselj_converged(nu + 1, z))
    }
}

/// The JAX peer: O and G (dJ/dz) at one point or on the batch (times per evaluation).
fn jax_case(h: &mut Harness, c: &BesselCase, reference: jax::Reference<'_, '_>) {
    if !h.jax.active() {
        return;
    }
    let z = c.inputs();
    let size = z.iter().map(|&z| series_terms(c.nu, z) as f64).sum::<f64>() / z.len() as f64;
    let per = if c.batch.is_some() {
        z.len() as f64
    } else {
        1.0
    };
    let scalars = json!({"nu": c.nu, "atol": ATOL, "batch": c.batch.is_some()});
    let arrays: [(&str, &[f64]); 1] = [("z", &z)];
    jax::run_case(
        h, SUITE, &c.name, size, per, scalars, &arrays, reference, None, 1e-10,
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn values() {
        // J2(1) = 0.1149034849319005 (exact); the series stops at |t| <= 1e-8.
        assert!((besselj(2, 1.0) - 0.114_903_484_931_900_5).abs() < 1e-8);
        assert!((grad_num_dual(2, 1.0) - 0.210_243_615_292_0).abs() < 1e-8);
        assert!((grad_echidna(2, 1.0) - grad_num_dual(2, 1.0)).abs() < 1e-14);
        assert!((besselj_prime(2, 1.0) - grad_num_dual(2, 1.0)).abs() < 1e-7);
    }
}
