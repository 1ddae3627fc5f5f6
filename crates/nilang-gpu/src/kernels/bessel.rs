//! The Bessel batch: `out[t] += J_ν(z[t])` for every thread `t`.
//!
//! [`besselj_n_batch`] is `nilang_apps::bessel::ibesselj_n` (every series term in a fresh
//! element of a per-thread workspace, undone exactly) as a kernel: only `+ − × ÷` (and `powi`
//! by repeated squaring), so it agrees with the CPU to the last bits. [`besselj_batch`] is the paper's
//! `ibesselj` (approximate uncomputing with the dirty ancilla of [`imul`]): its loop stops when
//! the rounding residue in that ancilla grows past `ATOL`, so a one-ulp difference in `pow`
//! between the device's math library and the CPU's can add or drop a term (≈ `ATOL`).
use nilang::prelude::*;

/// Truncation of the series (as `nilang_apps::bessel::ATOL`).
pub const ATOL: f64 = 1e-8;

/// `out *= x` with the dirty ancilla `anc ≈ 0` (as `nilang_apps::bessel::imul`).
#[i(device)]
pub fn imul<T: Scalar>(out: &mut T, x: &mut T, anc: &mut T) {
    anc += out * x;
    out -= anc / x;
    SWAP(out, anc);
}

/// `out[t] += J_ν(z[t])`; `fact_nu = ν!`. The same instructions, in the same order, as
/// `nilang_apps::bessel::ibesselj`.
#[i(kernel)]
pub fn besselj_batch<T: Ordered>(t: usize, out: &mut [T], z: &mut [T], nu: usize, fact_nu: T) {
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
        halfz += z[t] / 2.0;
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
    out[t] += out_anc;
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

/// Terms per thread in the workspace of [`besselj_n_batch`] (as
/// `nilang_apps::bessel::MAX_TERMS`: enough for `z` up to about 25).
pub const MAX_TERMS: usize = 64;

/// `out[t] += J_ν(z[t])` with the series terms in `terms[t·MAX_TERMS ..]` (zero on entry and
/// exit); `inv_fact = 1/ν!`. The instructions of `nilang_apps::bessel::ibesselj_n`
/// (`(z/2)^ν` by `powi`, which the device computes as Rust does: by repeated squaring).
#[i(kernel)]
pub fn besselj_n_batch<T: Ordered>(
    t: usize,
    out: &mut [T],
    z: &mut [T],
    terms: &mut [T],
    nu: usize,
    inv_fact: T,
) where
    T: nilang::instr::PlusEq2<nilang::instr::fns::Powi, T, i32>,
{
    let k = 0usize;
    let nu_i = nu as i32;
    let halfz = T::default();
    let h2 = T::default();
    let hp = T::default();
    let c = T::default();
    let out_anc = T::default();
    routine! {
        halfz += z[t] * 0.5;
        h2 += halfz.powi(2);
        hp += powi(halfz, nu_i);
        terms[t * MAX_TERMS] += hp * inv_fact;
        out_anc += terms[t * MAX_TERMS];
        #[from(k == 0)]
        while terms[t * MAX_TERMS + k].value().abs() > ATOL {
            k += 1;
            routine! {
                c -= h2 * cst!(T::lit(1.0 / (k * (k + nu)) as f64));
            }
            terms[t * MAX_TERMS + k] += terms[t * MAX_TERMS + k - 1] * c;
            out_anc += terms[t * MAX_TERMS + k];
            unroutine!();
        }
    }
    out[t] += out_anc;
    unroutine!();
    dealloc!(out_anc = T::default());
    dealloc!(c = T::default());
    dealloc!(hp = T::default());
    dealloc!(h2 = T::default());
    dealloc!(halfz = T::default());
    dealloc!(nu_i = nu as i32);
    dealloc!(k = 0usize);
}
