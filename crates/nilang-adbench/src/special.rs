//! Special functions used by the objectives: `lgamma`, the multivariate log-gamma
//! and a numerically stable `logsumexp`.

/// The truncated value of pi used by ADBench's C++ code (and by the oracle).
#[allow(clippy::approx_constant)] // deliberately ADBench's truncated value
pub const ADBENCH_PI: f64 = 3.14159265359;

/// Natural log of |Gamma(x)| (musl's `lgamma` via the `libm` crate, accurate to
/// about an ulp); `+inf` at the poles `0, -1, -2, ...`.
///
/// ```
/// use nilang_adbench::special::lgamma;
/// assert!((lgamma(0.5) - std::f64::consts::PI.sqrt().ln()).abs() < 1e-15);
/// assert!((lgamma(5.0) - 24f64.ln()).abs() < 1e-14);
/// ```
#[inline]
pub fn lgamma(x: f64) -> f64 {
    libm::lgamma(x)
}

/// Log of the multivariate gamma function,
/// `log Gamma_d(a) = d(d-1)/4 log(PI) + sum_{j=1..d} lgamma(a + (1-j)/2)`,
/// with ADBench's truncated [`ADBENCH_PI`].
///
/// ```
/// use nilang_adbench::special::{lgamma, log_gamma_d};
/// assert_eq!(log_gamma_d(1, 2.5), lgamma(2.5));
/// ```
pub fn log_gamma_d(d: usize, a: f64) -> f64 {
    let df = d as f64;
    let mut out = 0.25 * df * (df - 1.0) * ADBENCH_PI.ln();
    for j in 1..=d {
        out += lgamma(a + 0.5 * (1.0 - j as f64));
    }
    out
}

/// Stable `log(sum(exp(v)))`: subtracts the maximum first. Returns `-inf` for an
/// empty slice.
///
/// ```
/// use nilang_adbench::special::logsumexp;
/// assert!((logsumexp(&[1000.0, 1000.0]) - (1000.0 + 2f64.ln())).abs() < 1e-12);
/// ```
#[inline]
pub fn logsumexp(v: &[f64]) -> f64 {
    let mx = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if mx == f64::NEG_INFINITY {
        return mx;
    }
    let s: f64 = v.iter().map(|&e| (e - mx).exp()).sum();
    s.ln() + mx
}
