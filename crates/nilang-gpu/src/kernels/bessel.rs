//! The Bessel batch: `out[t] += J_ν(z[t])` for every thread `t`.
//!
//! [`besselj_n_batch`] runs `nilang_apps::bessel::ibesselj_sum`, the series of
//! `nilang_apps::bessel::ibesselj_n` (every term in a fresh element of a per-thread workspace,
//! undone exactly): only `+ − × ÷` (and `powi` by repeated squaring), so it agrees with the
//! CPU to the last bits. [`besselj_batch`] is the paper's
//! `ibesselj` (approximate uncomputing with the dirty ancilla of `nilang_apps::bessel::imul`): its loop stops when
//! the rounding residue in that ancilla grows past `ATOL`, so a one-ulp difference in `pow`
//! between the device's math library and the CPU's can add or drop a term: the value moves by
//! about `ATOL`, the gradient `dJ/dz` by up to a few 1e-6 (on the CPU alone, changing `z` by one
//! ulp moves it by up to 6.2e-6 on `0.05 ≤ z ≤ 6`; measured on an H100, CUDA and OpenCL, 1.4e-6
//! from the CPU's). [`besselj_n_batch`] is the one that agrees to the last bits.
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
/// exit); `ratios = nilang_apps::bessel::series_ratios(ν)`, `inv_fact = 1/ν!`:
/// `nilang_apps::bessel::ibesselj_sum`, the series that
/// `nilang_apps::bessel::ibesselj_n` runs on the CPU, on every thread, with `(z/2)^ν` by `powi`
/// (which the device computes as Rust does: by repeated squaring). The thread's segment of
/// `terms` is passed as a range that reads `t`, so it is the thread's own (not shared); `out[t]`
/// goes through a private ancilla (see [`besselj_batch`]).
#[i(kernel)]
pub fn besselj_n_batch<T: Ordered>(
    t: usize,
    out: &mut [T],
    z: &mut [T],
    terms: &mut [T],
    ratios: &[f64],
    nu: usize,
    inv_fact: T,
) where
    T: nilang::instr::PlusEq2<nilang::instr::fns::Powi, T, i32>,
{
    let nu_i = nu as i32;
    let halfz = T::default();
    let hp = T::default();
    let o = T::default();
    routine! {
        halfz += z[t] * 0.5;
        hp += powi(halfz, nu_i);
    }
    SWAP(&mut o, &mut out[t]);
    nilang_apps::bessel::ibesselj_sum(
        &mut o,
        &mut halfz,
        &mut hp,
        &mut terms[t * MAX_TERMS..(t + 1) * MAX_TERMS],
        ratios,
        inv_fact,
        MAX_TERMS,
        ATOL,
    );
    SWAP(&mut o, &mut out[t]);
    unroutine!();
    dealloc!(o = T::default());
    dealloc!(hp = T::default());
    dealloc!(halfz = T::default());
    dealloc!(nu_i = nu as i32);
}
