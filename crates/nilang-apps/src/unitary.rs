//! Unitary matrix multiplication by Givens rotations (the paper's Sec. 4.3 of the earlier
//! version; NiLang's `examples/unitary.jl`).
//!
//! A real unitary (orthogonal) `m × m` matrix is parametrised by `m(m−1)/2` rotation angles;
//! [`nilang::stdlib::blas::i_umm`] applies it to the columns of an `m × n` matrix in place.
//! [`umm_sum`] is the test function of the paper (`umm!` then `isum`), and
//! [`Grad`](nilang::ad::Grad)`(UmmSum)` computes its gradient in place on [`GVar`]s; its
//! inverse `~Grad` erases the gradients again, and neither allocates.
use nilang::prelude::*;
use nilang::stdlib::blas::{i_sum, i_sum_inv, i_umm, i_umm_inv};

/// `x ← U(θ) x` then `out += Σ x` (the paper's `test!`); `x` is `m × n` row-major.
#[i]
pub fn umm_sum<T: Scalar + Rotate<T>>(
    out: &mut T,
    x: &mut [T],
    theta: &mut [T],
    m: usize,
    n: usize,
) {
    i_umm(x, theta, m, n);
    i_sum(out, x);
}

/// The number of angles of an `m × m` rotation product.
pub fn n_angles(m: usize) -> usize {
    m * m.saturating_sub(1) / 2
}

/// The `m × m` matrix `U(θ)` (row-major), by applying the rotations to the identity.
pub fn unitary_matrix(theta: &[f64], m: usize) -> Vec<f64> {
    let mut u = vec![0.0; m * m];
    for i in 0..m {
        u[i * m + i] = 1.0;
    }
    let mut th = theta.to_vec();
    i_umm(&mut u, &mut th, m, m);
    u
}

/// The gradient of `Σ U(θ)x` with respect to `x` and `θ`, by `Grad(umm_sum)` on gradient
/// numbers, then `~Grad` to erase it; returns `(∂/∂x, ∂/∂θ)`.
pub fn umm_sum_gradient(x: &[f64], theta: &[f64], m: usize) -> (Vec<f64>, Vec<f64>) {
    use nilang::ad::Grad;
    let n = x.len() / m;
    let mut out = GVar::from(0.0);
    let mut gx: Vec<GVar<f64>> = x.iter().map(|&v| GVar::from(v)).collect();
    let mut gt: Vec<GVar<f64>> = theta.iter().map(|&v| GVar::from(v)).collect();
    Grad::new(UmmSum, 0).call((&mut out, &mut gx[..], &mut gt[..], m, n));
    let res = (
        gx.iter().map(|v| v.g).collect(),
        gt.iter().map(|v| v.g).collect(),
    );
    Grad::new(UmmSum, 0).uncall((&mut out, &mut gx[..], &mut gt[..], m, n));
    res
}
