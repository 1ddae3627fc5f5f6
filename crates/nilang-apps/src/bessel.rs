//! The first-kind Bessel function `J_ν(z)` written reversibly as in the paper (Sec. 4.2):
//! a Taylor series with the approximate-uncomputing multiplier [`imul`], so the loop needs a
//! constant number of ancillas and no stack.
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
    let terms = [T::default(); MAX_TERMS];
    let k = 0usize;
    let halfz = T::default();
    let h2 = T::default();
    let hp = T::default();
    let c = T::default();
    let out_anc = T::default();
    routine! {
        halfz += z * 0.5;
        h2 += halfz.powi(2);
        hp += nilang::instr::fns::PowiN::<NU>(halfz);
        terms[0] += hp * cst!(T::lit(1.0 / factorial(NU as usize)));
        out_anc += terms[0];
        #[from(k == 0)]
        while terms[k].value().abs() > ATOL {
            k += 1;
            // c = −(z/2)² / (k (k + ν)): a product with a constant (no division to differentiate)
            routine! {
                c -= h2 * cst!(T::lit(1.0 / (k * (k + NU as usize)) as f64));
            }
            terms[k] += terms[k - 1] * c;
            out_anc += terms[k];
            unroutine!();
        }
    }
    out += out_anc;
    unroutine!();
    dealloc!(out_anc = T::default());
    dealloc!(c = T::default());
    dealloc!(hp = T::default());
    dealloc!(h2 = T::default());
    dealloc!(halfz = T::default());
    dealloc!(k = 0usize);
    dealloc!(terms = [T::default(); MAX_TERMS]);
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
