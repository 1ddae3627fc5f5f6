//! Reversible statistics: mean, variance, covariance, correlation, normal log-density.
//!
//! As in NiLang, the functions return their intermediate sums too (`i_mean_sum` gives the sum
//! and the mean): they are outputs of a reversible program, which cannot forget them.
use crate::ad::Scalar;
use crate::i;

/// `sum += Σ xᵢ`, then `mean += sum / n` (NiLang's `i_mean_sum`).
///
/// ```
/// use nilang::stdlib::statistics::{i_mean_sum, i_mean_sum_inv};
/// let (mut mean, mut sum, mut x) = (0.0, 0.0, vec![1.0, 2.0, 6.0]);
/// i_mean_sum(&mut mean, &mut sum, &mut x);
/// assert_eq!((mean, sum), (3.0, 9.0));
/// i_mean_sum_inv(&mut mean, &mut sum, &mut x);
/// assert_eq!((mean, sum), (0.0, 0.0));
/// // the mean of nothing is an error, not NaN
/// let e = nilang::check::catch(|| i_mean_sum(&mut mean, &mut sum, &mut [])).unwrap_err();
/// assert_eq!(e.kind, nilang::check::ErrorKind::Argument);
/// assert_eq!((mean, sum), (0.0, 0.0));
/// ```
#[i]
pub fn i_mean_sum<T: Scalar>(mean: &mut T, sum: &mut T, x: &mut [T]) {
    safe! { mean_needs_values(x.len()); }
    for i in 0..x.len() {
        sum += x[i];
    }
    mean += sum / cst!(T::lit(x.len() as f64));
    // checked last too: that is first in the generated inverse
    safe! { mean_needs_values(x.len()); }
}

fn mean_needs_values(n: usize) {
    crate::check::require(
        n > 0,
        "nilang::stdlib::statistics::i_mean_sum",
        "i_mean_sum(mean, sum, x)",
        || {
            "x is empty: the mean of no values is undefined (it would be NaN); pass at least one value".into()
        },
    );
}

fn sample_needs_two(n: usize, function: &'static str, call: &'static str) {
    crate::check::require(n >= 2, function, call, || {
        format!("{n} value(s): the sample (n − 1) statistic needs at least 2 (it would be NaN or infinite)")
    });
}

/// Sample variance (`n − 1` normalisation, NiLang's `i_var_mean_sum`): `sum += Σ vᵢ`,
/// `mean += sum/n`, `varsum += Σ (vᵢ − mean)²`, `var += varsum / (n − 1)`. `v` is modified
/// temporarily and restored.
///
/// ```
/// use nilang::stdlib::statistics::i_var_mean_sum;
/// let (mut var, mut varsum, mut mean, mut sum) = (0.0_f64, 0.0, 0.0, 0.0);
/// let mut v = vec![1.0, 2.0, 3.0, 6.0];
/// i_var_mean_sum(&mut var, &mut varsum, &mut mean, &mut sum, &mut v);
/// assert_eq!((mean, sum, varsum), (3.0, 12.0, 14.0));
/// assert!((var - 14.0 / 3.0).abs() < 1e-15);
/// assert_eq!(v, [1.0, 2.0, 3.0, 6.0]);
/// ```
#[i]
pub fn i_var_mean_sum<T: Scalar>(
    var: &mut T,
    varsum: &mut T,
    mean: &mut T,
    sum: &mut T,
    v: &mut [T],
) {
    safe! { sample_needs_two(v.len(), "nilang::stdlib::statistics::i_var_mean_sum", "i_var_mean_sum(var, varsum, mean, sum, v)"); }
    i_mean_sum(mean, sum, v);
    for i in 0..v.len() {
        v[i] -= mean;
        varsum += v[i].powi(2);
        v[i] += mean;
    }
    var += varsum / cst!(T::lit(v.len() as f64 - 1.0));
    // checked last too: that is first in the generated inverse
    safe! { sample_needs_two(v.len(), "nilang::stdlib::statistics::i_var_mean_sum", "i_var_mean_sum(var, varsum, mean, sum, v)"); }
}

/// Pearson correlation and sample covariance of `a` and `b` (NiLang's `i_cor_cov`):
/// `cov += Σ (aᵢ − ā)(bᵢ − b̄) / (n − 1)`, `rho += Σ (aᵢ − ā)(bᵢ − b̄) / √(Σ (aᵢ − ā)² Σ (bᵢ − b̄)²)`.
/// Every intermediate is uncomputed.
///
/// ```
/// use nilang::stdlib::statistics::i_cor_cov;
/// let (mut rho, mut cov) = (0.0_f64, 0.0_f64);
/// let (mut a, mut b) = (vec![1.0, 2.0, 3.0], vec![2.0, 4.0, 7.0]);
/// i_cor_cov(&mut rho, &mut cov, &mut a, &mut b);
/// assert!((cov - 2.5).abs() < 1e-14);
/// assert!((rho - 2.5 / (1.0_f64 * (19.0_f64 / 3.0).sqrt())).abs() < 1e-14);
/// ```
#[i]
pub fn i_cor_cov<T: Scalar>(rho: &mut T, cov: &mut T, a: &mut [T], b: &mut [T]) {
    safe! { crate::check::equal_lengths("nilang::stdlib::statistics::i_cor_cov", "i_cor_cov(rho, cov, a, b)", &[("a", a.len()), ("b", b.len())]); }
    safe! { sample_needs_two(a.len(), "nilang::stdlib::statistics::i_cor_cov", "i_cor_cov(rho, cov, a, b)"); }
    routine! {
        let (ma, sa, mb, sb) = (T::default(), T::default(), T::default(), T::default());
        let (va, vb, sab, vab, sd) = (T::default(), T::default(), T::default(), T::default(), T::default());
        i_mean_sum(&mut ma, &mut sa, a);
        i_mean_sum(&mut mb, &mut sb, b);
        for i in 0..a.len() {
            a[i] -= ma;
            b[i] -= mb;
            va += a[i].powi(2);
            vb += b[i].powi(2);
            sab += a[i] * b[i];
            b[i] += mb;
            a[i] += ma;
        }
        vab += va * vb;
        sd += vab.sqrt();
    }
    cov += sab / cst!(T::lit(a.len() as f64 - 1.0));
    rho += sab / sd;
    unroutine!();
    // checked last too: that is first in the generated inverse
    safe! { sample_needs_two(a.len(), "nilang::stdlib::statistics::i_cor_cov", "i_cor_cov(rho, cov, a, b)"); }
    safe! { crate::check::equal_lengths("nilang::stdlib::statistics::i_cor_cov", "i_cor_cov(rho, cov, a, b)", &[("a", a.len()), ("b", b.len())]); }
}

/// The log-density of the normal distribution `N(μ, σ²)` at `x`:
/// `out += −(x − μ)²/(2σ²) − ln σ − ln(2π)/2`.
///
/// ```
/// use nilang::stdlib::statistics::i_normal_logpdf;
/// let (mut out, mut x, mut mu, mut sigma) = (0.0_f64, 1.0, 0.3, 1.5);
/// i_normal_logpdf(&mut out, &mut x, &mut mu, &mut sigma);
/// assert!((out - -1.4332925302017259).abs() < 1e-15);
/// ```
#[i]
pub fn i_normal_logpdf<T: Scalar>(out: &mut T, x: &mut T, mu: &mut T, sigma: &mut T) {
    let (d, z, z2) = (T::default(), T::default(), T::default());
    routine! {
        d += x;
        d -= mu;
        z += d / sigma;
        z2 += z.powi(2);
    }
    out -= z2 * 0.5;
    out -= sigma.ln();
    out -= cst!(T::lit(0.5 * (2.0 * core::f64::consts::PI).ln()));
    unroutine!();
    dealloc!((d, z, z2) = (T::default(), T::default(), T::default()));
}
