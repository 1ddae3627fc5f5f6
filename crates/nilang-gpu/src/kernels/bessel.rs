//! The Bessel batch: `out[t] += J_ν(z[t])` for every thread `t`.
//!
//! [`besselj_n_batch`] is `nilang_apps::bessel::ibesselj_n` (every series term in a fresh
//! element of a per-thread workspace, undone exactly) as a kernel: only `+ − × ÷` (and `powi`
//! by repeated squaring), so it agrees with the CPU to the last bits. [`besselj_batch`] is the paper's
//! `ibesselj` (approximate uncomputing with the dirty ancilla of `nilang_apps::bessel::imul`): its loop stops when
//! the rounding residue in that ancilla grows past `ATOL`, so a one-ulp difference in `pow`
//! between the device's math library and the CPU's can add or drop a term (≈ `ATOL`).
use nilang::prelude::*;

pub use nilang_apps::bessel::ATOL;

/// `out[t] += J_ν(z[t])`; `fact_nu = ν!`: `nilang_apps::bessel::ibesselj_series` (the paper's
/// `ibesselj`) on every thread. `out[t]` goes through a private ancilla: a slice that only a
/// callee writes would be taken for a shared one (its adjoints accumulated across threads),
/// which the compiler rejects.
#[i(kernel)]
pub fn besselj_batch<T: Ordered>(t: usize, out: &mut [T], z: &mut [T], nu: usize, fact_nu: T) {
    let o = T::default();
    SWAP(&mut o, &mut out[t]);
    nilang_apps::bessel::ibesselj_series(&mut o, &mut z[t], nu, fact_nu);
    SWAP(&mut o, &mut out[t]);
    dealloc!(o = T::default());
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
