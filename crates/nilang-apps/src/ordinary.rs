//! Applications written as ordinary Rust functions and differentiated with `#[ad]` (source
//! transformation with a value tape), beside their reversible versions: the same gradients,
//! and the tape's size and the time of each, compared by
//! `cargo run --release -p nilang-apps --example ordinary`.
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
/// assert!((v - vr).abs() < 1e-15 && (gz.g - dr).abs() < 1e-15);
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
