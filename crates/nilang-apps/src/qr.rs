//! Gram–Schmidt QR decomposition with its gradient (NiLang's `examples/qr.jl`, the paper's
//! Sec. 4.4 of the earlier version).
//!
//! [`i_qr`] accumulates `Q` (`m × n`, orthonormal columns) and `R` (`n × n`, upper triangular)
//! of a full-column-rank `A` (`m × n`, `m ≥ n`), all row-major. For each column it computes the
//! projected residual `rᵢ`, the projections and the norm in ancillas (a `routine!`), copies
//! them into `R` and `Q`, and uncomputes the ancillas (`unroutine!()`). Like the original, it is
//! a proof of principle without reorthogonalisation.
use nilang::prelude::*;
use nilang::stdlib::blas::{i_sum, i_sum_inv};

/// `Q += q(A)`, `R += r(A)` (classical Gram–Schmidt); `Q`, `R` must be zero on entry.
#[i]
pub fn i_qr<T: Scalar>(q: &mut [T], r: &mut [T], a: &mut [T], m: usize, n: usize) {
    safe! {
        assert!(
            a.len() == m * n && q.len() == m * n && r.len() == n * n && m >= n,
            "i_qr: A is {m}×{n} (m ≥ n), Q needs m·n and R n·n elements"
        );
    }
    let anc_norm = T::default();
    let anc_dot = vec![T::default(); n];
    let ri = vec![T::default(); m];
    for col in 0..n {
        routine! {
            for row in 0..m {
                ri[row] += a[row * n + col];
            }
            for precol in 0..col {
                for row in 0..m {
                    anc_dot[precol] += q[row * n + precol] * ri[row];
                }
                for row in 0..m {
                    ri[row] -= anc_dot[precol] * q[row * n + precol];
                }
            }
            for row in 0..m {
                anc_norm += ri[row].powi(2);
            }
        }
        for precol in 0..col {
            r[precol * n + col] += anc_dot[precol];
        }
        r[col * n + col] += sqrt(anc_norm);
        for row in 0..m {
            q[row * n + col] += ri[row] / r[col * n + col];
        }
        unroutine!();
    }
    dealloc!(ri = vec![T::default(); m]);
    dealloc!(anc_dot = vec![T::default(); n]);
    dealloc!(anc_norm = T::default());
}

/// `out += Σ Q(A)` (the paper's check: the gradient of the sum of `Q`); `Q`, `R` zero on entry.
#[i]
pub fn qr_sum_q<T: Scalar>(out: &mut T, q: &mut [T], r: &mut [T], a: &mut [T], m: usize, n: usize) {
    i_qr(q, r, a, m, n);
    i_sum(out, q);
}

/// `out += Σ Q + Σ R²`: a loss that depends on both factors.
#[i]
pub fn qr_loss<T: Scalar>(out: &mut T, q: &mut [T], r: &mut [T], a: &mut [T], m: usize, n: usize) {
    i_qr(q, r, a, m, n);
    i_sum(out, q);
    for i in 0..r.len() {
        out += r[i].powi(2);
    }
}

/// `(Q, R)` of an `m × n` matrix `A` (row-major).
pub fn qr(a: &[f64], m: usize, n: usize) -> (Vec<f64>, Vec<f64>) {
    let (mut q, mut r, mut aa) = (vec![0.0; m * n], vec![0.0; n * n], a.to_vec());
    i_qr(&mut q, &mut r, &mut aa, m, n);
    (q, r)
}

/// The gradient of `Σ Q(A)` with respect to `A` (reversible AD).
pub fn grad_sum_q(a: &[f64], m: usize, n: usize) -> Vec<f64> {
    let (mut out, mut q, mut r, mut aa) = (0.0, vec![0.0; m * n], vec![0.0; n * n], a.to_vec());
    let st = nilang::gradient(
        &QrSumQ,
        (&mut out, &mut q[..], &mut r[..], &mut aa[..], m, n),
        0,
    );
    st.3.iter().map(|v| v.g).collect::<Vec<_>>()
}
