//! The GMM objective's per-point terms: thread `i` computes point `i`'s
//! `logsumexp_k(α_k + Σq_k − ½‖Q_k (x_i − μ_k)‖²)` into `out[i]`, compute–copy–uncompute
//! (the instructions of `nilang_apps::gmm`'s `gmm_comp` and `gmm_lse`, the logsumexp shifted
//! by the largest term). The parameters `alpha`, `mu`, `icf` are read by every thread and
//! never written: their adjoints are *shared* (accumulated across threads). The workspaces
//! (`xc`, `y`: `n·K·d`; `sq`, `main`, `tt`, `mxs`: `n·K`; `s`, `ls`: `n`) are zero on entry and
//! on exit.
use nilang::prelude::*;

/// `out[i] += logsumexp_c(main_ic)` for point `i` (see the module docs).
#[i(kernel)]
#[allow(clippy::too_many_arguments)]
pub fn gmm_point<T: Ordered>(
    i: usize,
    out: &mut [T],
    xc: &mut [T],
    y: &mut [T],
    sq: &mut [T],
    main: &mut [T],
    tt: &mut [T],
    mxs: &mut [T],
    s: &mut [T],
    ls: &mut [T],
    alpha: &mut [T],
    mu: &mut [T],
    icf: &mut [T],
    x: &[T],
    d: usize,
    k: usize,
) {
    let tri = d * (d + 1) / 2;
    routine! {
        for c in 0..k {
            main[i * k + c] += alpha[c];
            for r in 0..d {
                main[i * k + c] += icf[c * tri + r];
            }
            for r in 0..d {
                xc[(i * k + c) * d + r] += x[i * d + r] - mu[c * d + r];
            }
            for r in 0..d {
                let q = T::default();
                q += exp(icf[c * tri + r]);
                y[(i * k + c) * d + r] += q * xc[(i * k + c) * d + r];
                q -= exp(icf[c * tri + r]);
                dealloc!(q = T::default());
            }
            for col in 0..d {
                for row in col + 1..d {
                    y[(i * k + c) * d + row] += icf[c * tri + d + col * (2 * d - col - 1) / 2 + row - col - 1]
                        * xc[(i * k + c) * d + col];
                }
            }
            for r in 0..d {
                sq[i * k + c] += abs2(y[(i * k + c) * d + r]);
            }
            main[i * k + c] -= sq[i * k + c] * 0.5;
        }
        // the shift: the largest term (a constant, as in `gmm_lse`)
        mxs[i * k] += cst!(T::lit(main[i * k].value()));
        for c in 1..k {
            mxs[i * k + c] += cst!(T::lit(mxs[i * k + c - 1].value().max(main[i * k + c].value())));
        }
        for c in 0..k {
            tt[i * k + c] += main[i * k + c] - mxs[i * k + k - 1];
            s[i] += exp(tt[i * k + c]);
        }
        ls[i] += ln(s[i]);
        ls[i] += mxs[i * k + k - 1];
    }
    out[i] += ls[i];
    unroutine!();
    dealloc!(tri = d * (d + 1) / 2);
}
