//! The first-kind Bessel function `J_ν(z)` written reversibly as in the paper (Sec. 4.2):
//! a Taylor series with the approximate-uncomputing multiplier [`imul`], so the loop needs a
//! constant number of ancillas and no stack.
use nilang::ad::AbsAbove;
use nilang::numbers::ULog;
use nilang::prelude::*;

/// Truncation: the series stops after the first term with `|t_k| <= ATOL` (that term included).
pub const ATOL: f64 = 1e-8;

/// `ν!` as a float.
#[inline]
pub fn factorial(n: usize) -> f64 {
    (1..=n).map(|k| k as f64).product()
}

/// The reversible approximate multiplier: `out *= x` using the dirty ancilla `anc ≈ 0`.
///
/// `anc += out * x; out -= anc / x; SWAP(out, anc)`: afterwards `out` holds the product and
/// `anc` the rounding residue of the uncomputed old value.
///
/// ```
/// let (mut out, mut x, mut anc) = (3.0, 2.0, 0.0);
/// nilang_apps::bessel::imul(&mut out, &mut x, &mut anc);
/// assert_eq!(out, 6.0);
/// ```
#[i(device)]
pub fn imul<T: Ordered>(out: &mut T, x: &mut T, anc: &mut T) {
    anc += out * x;
    out -= anc / x;
    SWAP(out, anc);
}

/// `out += J_ν(z)` (the paper's `ibesselj`).
///
/// ```
/// use nilang_apps::bessel::{ibesselj, ibesselj_inv};
/// let (mut out, mut z) = (0.0_f64, 1.0);
/// ibesselj(&mut out, 2, &mut z);
/// assert!((out - 0.1149034849319005).abs() < 1e-9);
/// ibesselj_inv(&mut out, 2, &mut z);
/// assert!(out.abs() < 1e-15);
/// ```
#[i]
pub fn ibesselj<T: Ordered>(out: &mut T, nu: usize, z: &mut T) {
    let fact_nu = T::lit(factorial(nu));
    ibesselj_series(out, z, nu, fact_nu);
    dealloc!(fact_nu = T::lit(factorial(nu)));
}

/// `out += J_ν(z)` given `fact_nu = ν!`: the body of [`ibesselj`], a device function too, so
/// the GPU kernel `nilang_gpu::kernels::bessel::besselj_batch` runs these very instructions.
///
/// ```
/// use nilang_apps::bessel::{ibesselj_series, ibesselj_series_inv};
/// let (mut out, mut z) = (0.0_f64, 1.0);
/// ibesselj_series(&mut out, &mut z, 2, 2.0);
/// assert!((out - 0.1149034849319005).abs() < 1e-9);
/// ibesselj_series_inv(&mut out, &mut z, 2, 2.0);
/// assert!(out.abs() < 1e-15);
/// ```
#[i(device)]
pub fn ibesselj_series<T: Ordered>(out: &mut T, z: &mut T, nu: usize, fact_nu: T) {
    let k = T::default();
    let nu_t = T::lit(nu as f64);
    let halfz = T::default();
    let halfz_power_nu = T::default();
    let halfz_power_2 = T::default();
    let out_anc = T::default();
    let anc1 = T::default();
    let anc2 = T::default();
    let anc3 = T::default();
    let anc4 = T::default();
    let anc5 = T::default();
    routine! {
        halfz += z / 2.0;
        halfz_power_nu += powf(halfz, nu_t);
        halfz_power_2 += halfz.powi(2);
        anc1 += halfz_power_nu / fact_nu;
        out_anc += anc1;
        while (anc1.value().abs() > ATOL && anc4.value().abs() < ATOL, k.value() != 0.0) {
            k += 1.0;
            routine! {
                anc5 += k;
                anc5 += nu_t;
                anc2 -= k * anc5;
                anc3 += halfz_power_2 / anc2;
            }
            imul(&mut anc1, &mut anc3, &mut anc4);
            out_anc += anc1;
            unroutine!();
        }
    }
    out += out_anc;
    unroutine!();
    dealloc!(anc5 = T::default());
    dealloc!(anc4 = T::default());
    dealloc!(anc3 = T::default());
    dealloc!(anc2 = T::default());
    dealloc!(anc1 = T::default());
    dealloc!(out_anc = T::default());
    dealloc!(halfz_power_2 = T::default());
    dealloc!(halfz_power_nu = T::default());
    dealloc!(halfz = T::default());
    dealloc!(nu_t = T::lit(nu as f64));
    dealloc!(k = T::default());
}

/// `out += J_ν(z)` for `z > 0` with a log-number accumulator (NiLang's current `ibesselj`):
/// every term is obtained from the previous one by an exact `*=`/`/=` on its logarithm, so no
/// ancilla gets dirty and the value is accurate to rounding for any `z`.
///
/// ```
/// use nilang_apps::bessel::{ibesselj_log, ibesselj_log_inv};
/// let (mut out, mut z) = (0.0_f64, 10.0);
/// ibesselj_log(&mut out, 0, &mut z);
/// assert!((out - -0.2459357644513483).abs() < 1e-9);
/// ibesselj_log_inv(&mut out, 0, &mut z);
/// assert!(out.abs() < 1e-12);
/// ```
#[i]
pub fn ibesselj_log<T: Ordered>(out: &mut T, nu: usize, z: &mut T) {
    let k = 0usize;
    let kv = 0usize;
    let nu_i = nu as i32;
    let lz = ULog::<T>::default();
    let halfz = ULog::<T>::default();
    let halfz_power_2 = ULog::<T>::default();
    let s = ULog::<T>::default();
    let out_anc = T::default();
    routine! {
        lz *= z;
        halfz *= lz / 2;
        halfz_power_2 *= halfz.powi(2);
        s *= powi(halfz, nu_i);
        for i in 1..=nu {
            s /= i;
        }
        out_anc += exp(s.log);
        #[from(k == 0)]
        while s.log.value() > ATOL.ln() {
            k += 1;
            routine! {
                kv += k + nu;
            }
            s *= halfz_power_2 / k;
            s /= kv;
            if k % 2 == 0 {
                out_anc += exp(s.log);
            } else {
                out_anc -= exp(s.log);
            }
            unroutine!();
        }
    }
    out += out_anc;
    unroutine!();
    dealloc!(out_anc = T::default());
    dealloc!(s = ULog::<T>::default());
    dealloc!(halfz_power_2 = ULog::<T>::default());
    dealloc!(halfz = ULog::<T>::default());
    dealloc!(lz = ULog::<T>::default());
    dealloc!(nu_i = nu as i32);
    dealloc!(kv = 0usize);
    dealloc!(k = 0usize);
}

/// Capacity of the term array of [`ibesselj_n`] (enough for `z` up to about 25).
pub const MAX_TERMS: usize = 64;

/// `out += J_NU(z)` with every series term accumulated into a fresh element of an ancilla
/// array: the recurrence `t_k = t_{k-1} · c_k` is undone exactly (`t_k -= t_{k-1} · c_k`), so
/// the inverse is exact, no ancilla gets dirty, and the loop needs no `ln`/`exp`. Memory is
/// explicit: `MAX_TERMS` numbers on the stack. Runtime checks are compiled out (this is the
/// benchmark kernel); `z` must keep the series under `MAX_TERMS` terms (`z ≲ 25`).
///
/// ```
/// use nilang_apps::bessel::{ibesselj_n, ibesselj_n_inv};
/// let (mut out, mut z) = (0.0_f64, 1.0);
/// ibesselj_n::<f64, 2>(&mut out, &mut z);
/// assert!((out - 0.1149034849319005).abs() < 1e-9);
/// ibesselj_n_inv::<f64, 2>(&mut out, &mut z);
/// assert_eq!(out, 0.0);
/// ```
#[i(nocheck)]
pub fn ibesselj_n<T: Ordered, const NU: i32>(out: &mut T, z: &mut T)
where
    T: nilang::instr::PlusEq1<nilang::instr::fns::PowiN<NU>, T>,
{
    ibesselj_upto::<T, NU, MAX_TERMS>(out, z, MAX_TERMS, ATOL);
}

/// `out += J_NU(z)` by the series of [`ibesselj_sum`]: terms up to `t_n`, stopping after the
/// first term `t_k` with `|t_k| <= tol` (in every lane: see `nilang::ad::AbsAbove`). The
/// power `(z/2)^NU` is taken with the constant exponent `NU`; the terms go into an ancilla
/// array of `CAP` numbers on the stack (zeroed at every call, so a `CAP` near the term count
/// saves time). [`ibesselj_n`] is `n = MAX_TERMS, tol = ATOL` (the paper's truncation);
/// [`ibesselj_terms`] is a fixed count, `tol = −∞` (any negative `tol`).
///
/// ```
/// use nilang_apps::bessel::{ibesselj_upto, ibesselj_upto_inv, ATOL};
/// let (mut out, mut z) = (0.0_f64, 1.0);
/// ibesselj_upto::<f64, 2, 16>(&mut out, &mut z, 15, ATOL);
/// assert!((out - 0.1149034849319005).abs() < 1e-9);
/// ibesselj_upto_inv::<f64, 2, 16>(&mut out, &mut z, 15, ATOL);
/// assert_eq!(out, 0.0);
/// ```
#[i(nocheck)]
#[inline]
pub fn ibesselj_upto<T: Scalar + AbsAbove, const NU: i32, const CAP: usize>(
    out: &mut T,
    z: &mut T,
    n: usize,
    tol: f64,
) where
    T: nilang::instr::PlusEq1<nilang::instr::fns::PowiN<NU>, T>,
{
    let terms = [T::default(); CAP];
    let halfz = T::default();
    let hp = T::default();
    routine! {
        halfz += z * 0.5;
        hp += nilang::instr::fns::PowiN::<NU>(halfz);
    }
    ibesselj_sum(
        out,
        &mut halfz,
        &mut hp,
        &mut terms,
        &SeriesRatios::<NU>::C,
        T::lit(1.0 / factorial(NU as usize)),
        n,
        tol,
    );
    unroutine!();
    dealloc!(hp = T::default());
    dealloc!(halfz = T::default());
    dealloc!(terms = [T::default(); CAP]);
}

/// `out += J_ν(z)` from `halfz = z/2` and `hp = (z/2)^ν`, `inv_fact = 1/ν!` and the constants
/// `ratios[k] = 1 / (k (k + ν))` ([`series_ratios`]): the series `Σ_k t_k`, `t_0 = hp ·
/// inv_fact`, `t_k = t_{k-1} · c_k` with `c_k = −(z/2)² · ratios[k]`,
/// up to `t_n` or after the first `|t_k| <= tol` (in every lane; `tol = −∞`: exactly
/// `n + 1` terms). Every term goes into a fresh element of `terms` (zero on entry and exit,
/// more than the terms summed), so the recurrence is undone exactly (`t_k -= t_{k-1} · c_k`):
/// the inverse is exact, no ancilla gets dirty, and the loop needs no `ln`/`exp`.
///
/// One program for every Bessel series but the paper's: [`ibesselj_n`] and
/// [`ibesselj_terms`] on the CPU (scalars and batches), and the GPU kernel
/// `nilang_gpu::kernels::bessel::besselj_n_batch` (one thread per argument, its terms in a
/// slice of a workspace).
///
/// ```
/// use nilang_apps::bessel::{ibesselj_sum, ibesselj_sum_inv, series_ratios, ATOL};
/// let (mut out, mut halfz, mut hp, mut terms) = (0.0_f64, 0.5, 0.25, [0.0; 16]);
/// let r = series_ratios(2);
/// ibesselj_sum(&mut out, &mut halfz, &mut hp, &mut terms, &r, 0.5, 15, ATOL);
/// assert!((out - 0.1149034849319005).abs() < 1e-9);
/// ibesselj_sum_inv(&mut out, &mut halfz, &mut hp, &mut terms, &r, 0.5, 15, ATOL);
/// assert_eq!((out, terms), (0.0, [0.0; 16]));
/// ```
#[i(device, nocheck, zero(terms))]
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub fn ibesselj_sum<T: Scalar + AbsAbove>(
    out: &mut T,
    halfz: &mut T,
    hp: &mut T,
    terms: &mut [T],
    ratios: &[f64],
    inv_fact: T,
    n: usize,
    tol: f64,
) {
    let k = 0usize;
    let h2 = T::default();
    let c = T::default();
    let sum = T::default();
    routine! {
        h2 += halfz.powi(2);
        terms[0] += hp * inv_fact;
        sum += terms[0];
        #[from(k == 0)]
        while k < n && terms[k].abs_above(tol) {
            k += 1;
            // a product with a constant (no division to differentiate)
            routine! {
                c -= h2 * cst!(T::lit(ratios[k]));
            }
            terms[k] += terms[k - 1] * c;
            sum += terms[k];
            unroutine!();
        }
    }
    out += sum;
    unroutine!();
    dealloc!(sum = T::default());
    dealloc!(c = T::default());
    dealloc!(h2 = T::default());
    dealloc!(k = 0usize);
}

/// `(J_NU(z), J_NU'(z))` by the gradient API: [`ibesselj_n`] is compute–copy–uncompute
/// (`routine; out += out_anc; unroutine`), which the compiler records, so the gradient is one
/// reverse pass from the inputs (no forward pass), and the value comes out as a by-product.
/// No allocation.
///
/// ```
/// let (v, d) = nilang_apps::bessel::besselj_n_value_grad::<2>(1.0);
/// assert!((v - 0.1149034849319005).abs() < 1e-9 && (d - 0.2102436158609).abs() < 1e-9);
/// ```
#[inline]
pub fn besselj_n_value_grad<const NU: i32>(z: f64) -> (f64, f64) {
    let (v, (_, gz)) = nilang::ad::value_and_gradient(&IbesseljN::<NU>, (&mut 0.0, &mut { z }), 0);
    (v, gz.g)
}

/// `J_ν(z)` and its first derivative by reverse mode (value, d/dz).
pub fn besselj_grad(nu: usize, z: f64) -> (f64, f64) {
    let (v, (_, _, gz)) = nilang::ad::value_and_gradient(&Ibesselj, (&mut 0.0, nu, &mut { z }), 0);
    (v, gz.g)
}

/// The irreversible series (the paper's `besselj`), for comparison.
pub fn besselj_plain(nu: usize, z: f64) -> f64 {
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

/// The number of series terms (after the first) that [`ibesselj_terms`] needs so that
/// `J_ν(z)` is exact to double precision at every `|z| ≤ zmax`: the smallest `n` with
/// `|t_n| ≤ ε/4 · min(1, |t_0|)` (`ε = 2⁻⁵²`) and a term ratio `|t_{n+1}/t_n| ≤ 1/2`, so the
/// neglected tail is below `ε/2` both absolutely and relative to the first term. Every `|t_k|`
/// and every ratio grows with `|z|`, so the count for `zmax` serves every smaller `|z|`.
///
/// Errors: `zmax` not finite, or more terms than the program's array holds
/// ([`MAX_TERMS`]` − 1`, about `|z| ≤ 36` for `ν = 2`).
///
/// ```
/// use nilang_apps::bessel::besselj_terms;
/// assert_eq!(besselj_terms(2, 1.0), Ok(9));
/// assert_eq!(besselj_terms(2, 10.0), Ok(25));
/// assert!(besselj_terms(2, 1e3).is_err());
/// ```
pub fn besselj_terms(nu: usize, zmax: f64) -> Result<usize, BesselRangeError> {
    let bad = BesselRangeError { nu, zmax };
    if !zmax.is_finite() {
        return Err(bad);
    }
    let hz = 0.5 * zmax.abs();
    let h2 = hz * hz;
    let t0 = hz.powi(nu as i32) / factorial(nu);
    let (mut t, mut n) = (t0, 0usize);
    while n < MAX_TERMS {
        let ratio = h2 / ((n + 1) * (n + 1 + nu)) as f64;
        if t <= 0.25 * f64::EPSILON * t0.min(1.0) && ratio <= 0.5 {
            return Ok(n);
        }
        n += 1;
        t *= ratio;
    }
    Err(bad)
}

/// [`besselj_terms`]' error: no term count in [`ibesselj_terms`]' range reaches double
/// precision at this `|z|` (or it is not finite).
///
/// ```
/// let e = nilang_apps::bessel::besselj_terms(2, f64::NAN).unwrap_err();
/// assert!(e.to_string().contains("NaN"));
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BesselRangeError {
    /// The order.
    pub nu: usize,
    /// The largest `|z|` asked for.
    pub zmax: f64,
}

impl std::fmt::Display for BesselRangeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "J_{}(z) at |z| = {}: the series needs more than {} terms to reach double precision \
             (or |z| is not finite)",
            self.nu,
            self.zmax,
            MAX_TERMS - 1
        )
    }
}

impl std::error::Error for BesselRangeError {}

/// `ratios[k] = 1 / (k (k + ν))` for `0 < k < MAX_TERMS` (entry 0 unused): the constant
/// factors of the term ratios of [`ibesselj_sum`], so its loop has no division.
///
/// ```
/// assert_eq!(nilang_apps::bessel::series_ratios(2)[3], 1.0 / 15.0);
/// ```
pub const fn series_ratios(nu: usize) -> [f64; MAX_TERMS] {
    let mut t = [0.0; MAX_TERMS];
    let mut k = 1;
    while k < MAX_TERMS {
        t[k] = 1.0 / (k * (k + nu)) as f64;
        k += 1;
    }
    t
}

/// [`series_ratios`] of the order `NU`, computed at compile time.
struct SeriesRatios<const NU: i32>;

impl<const NU: i32> SeriesRatios<NU> {
    const C: [f64; MAX_TERMS] = series_ratios(NU as usize);
}

/// `out += J_NU(z)` by the first `n + 1` series terms, a count fixed by the caller: no
/// data-dependent loop, so it runs on batches (`F64x4`, `F64x8`, `GVar` of them), every lane
/// `n + 1` terms. With `n =` [`besselj_terms`]`(NU, max |z|)` every lane is exact to double
/// precision. Like [`ibesselj_n`], each term goes into a fresh element of an ancilla array of
/// `CAP` numbers on the stack (zeroed at every call, so a `CAP` near `n` saves time), so the
/// inverse is exact; `n < CAP` (checked by indexing).
///
/// ```
/// use nilang::numbers::F64x4;
/// use nilang_apps::bessel::{besselj_terms, ibesselj_terms, ibesselj_terms_inv};
/// let zs = [0.5, 1.0, 3.0, 9.5];
/// let n = besselj_terms(2, 9.5).unwrap();
/// let (mut out, mut z) = (F64x4::splat(0.0), F64x4::new(zs));
/// ibesselj_terms::<F64x4, 2, 32>(&mut out, &mut z, n);
/// assert!((out.lane(1) - 0.1149034849319005).abs() < 1e-15);
/// ibesselj_terms_inv::<F64x4, 2, 32>(&mut out, &mut z, n);
/// assert_eq!((out.to_array(), z.to_array()), ([0.0; 4], zs));
/// ```
#[i(nocheck)]
pub fn ibesselj_terms<T: Scalar + AbsAbove, const NU: i32, const CAP: usize>(
    out: &mut T,
    z: &mut T,
    n: usize,
) where
    T: nilang::instr::PlusEq1<nilang::instr::fns::PowiN<NU>, T>,
{
    ibesselj_upto::<T, NU, CAP>(out, z, n, f64::NEG_INFINITY);
}

/// `J_NU(z)` and `J_NU'(z)` at every point of `zs`, `B::LANES` points per run of
/// [`ibesselj_terms`] on the batch number `B` (`F64x4`, `F64x8`); the gradient by the gradient
/// API on `GVar<B>` (one reverse pass, as [`besselj_n_value_grad`]). Each group of lanes runs
/// with the term count [`besselj_terms`] of an upper bound of its largest `|z|` (rounded up to
/// a multiple of 1/4, so the counts can be reused across groups), so every value is exact to
/// double precision; the last group is padded with `z = 0`. No allocation.
///
/// Errors: a `z` too large for the series or not finite (see [`besselj_terms`]).
///
/// ```
/// use nilang::numbers::F64x8;
/// use nilang_apps::bessel::{besselj_batch_value_grad, besselj_n_value_grad};
/// let zs = [0.25, 1.0, 2.0, 3.5, 5.0, 7.0, 9.0, 9.9, 4.0];
/// let (mut v, mut g) = ([0.0; 9], [0.0; 9]);
/// besselj_batch_value_grad::<F64x8, 2>(&zs, &mut v, &mut g).unwrap();
/// assert!((v[1] - 0.1149034849319005).abs() < 1e-15 && (g[1] - 0.21024361588113257).abs() < 1e-15);
/// ```
pub fn besselj_batch_value_grad<B, const NU: i32>(
    zs: &[f64],
    value: &mut [f64],
    grad: &mut [f64],
) -> Result<(), BesselRangeError>
where
    B: nilang::numbers::Batch + nilang::instr::PlusEq1<nilang::instr::fns::PowiN<NU>, B>,
    GVar<B>: AbsAbove + nilang::instr::PlusEq1<nilang::instr::fns::PowiN<NU>, GVar<B>>,
{
    assert!(
        NU >= 0,
        "besselj_batch_value_grad: the order NU = {NU} must be ≥ 0"
    );
    assert!(
        value.len() == zs.len() && grad.len() == zs.len(),
        "besselj_batch_value_grad: value and grad must have zs.len() = {} entries",
        zs.len()
    );
    // term counts by quarter of |z| (the count grows with |z|, so the bound's count serves)
    const QUARTERS: usize = 4 * 40;
    let mut counts = [u8::MAX; QUARTERS];
    let l = B::LANES;
    for ((z, v), g) in zs
        .chunks(l)
        .zip(value.chunks_mut(l))
        .zip(grad.chunks_mut(l))
    {
        let zmax = z.iter().fold(0.0f64, |m, z| m.max(z.abs()));
        if !z.iter().all(|z| z.is_finite()) {
            return Err(BesselRangeError {
                nu: NU as usize,
                zmax: f64::NAN,
            });
        }
        let q = (4.0 * zmax).ceil();
        let n = match counts.get_mut(q as usize) {
            Some(c) if *c != u8::MAX => *c as usize,
            Some(c) => {
                let n =
                    besselj_terms(NU as usize, 0.25 * q).or(besselj_terms(NU as usize, zmax))?;
                *c = n as u8;
                n
            }
            None => besselj_terms(NU as usize, zmax)?,
        };
        let mut zb = B::from_fn(|k| z.get(k).copied().unwrap_or(0.0));
        // the ancilla array is zeroed at every call: the smallest capacity that holds n + 1
        let (val, gz) = match n {
            0..=15 => batch_run::<B, NU, 16>(&mut zb, n),
            16..=25 => batch_run::<B, NU, 26>(&mut zb, n),
            26..=39 => batch_run::<B, NU, 40>(&mut zb, n),
            _ => batch_run::<B, NU, MAX_TERMS>(&mut zb, n),
        };
        for (k, (v, g)) in v.iter_mut().zip(g.iter_mut()).enumerate() {
            *v = val[k];
            *g = gz[k];
        }
    }
    Ok(())
}

/// One run of [`ibesselj_terms`] with capacity `CAP` through the gradient API: the values and
/// the derivatives of the lanes (`B::LANES ≤ 16`).
#[inline]
fn batch_run<B, const NU: i32, const CAP: usize>(z: &mut B, n: usize) -> ([f64; 16], [f64; 16])
where
    B: nilang::numbers::Batch + nilang::instr::PlusEq1<nilang::instr::fns::PowiN<NU>, B>,
    GVar<B>: AbsAbove + nilang::instr::PlusEq1<nilang::instr::fns::PowiN<NU>, GVar<B>>,
{
    let (val, (_, gz, _)) =
        nilang::ad::value_and_gradient(&IbesseljTerms::<NU, CAP>, (&mut B::default(), z, n), 0);
    let (mut v, mut g) = ([0.0; 16], [0.0; 16]);
    for k in 0..B::LANES.min(16) {
        v[k] = val.lane(k);
        g[k] = gz.g.lane(k);
    }
    (v, g)
}
