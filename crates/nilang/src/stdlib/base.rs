//! Small reversible building blocks: squared distance, the approximate in-place multiply,
//! factorial.
use crate::ad::Scalar;
use crate::i;
use crate::instr::basic::{INC_inv, SWAP_inv, INC, SWAP};

/// `dist += Σ (x1ᵢ − x2ᵢ)²` (`x1` is modified temporarily and restored).
///
/// ```
/// use nilang::stdlib::base::i_sqdistance;
/// let (mut d, mut x1, mut x2) = (0.0, vec![1.0, 0.0], vec![0.0, 1.0]);
/// i_sqdistance(&mut d, &mut x1, &mut x2);
/// assert_eq!(d, 2.0);
/// ```
#[i]
pub fn i_sqdistance<T: Scalar>(dist: &mut T, x1: &mut [T], x2: &mut [T]) {
    safe! { crate::check::equal_lengths("nilang::stdlib::base::i_sqdistance", "i_sqdistance(out, x1, x2)", &[("x1", x1.len()), ("x2", x2.len())]); }
    for i in 0..x1.len() {
        x1[i] -= x2[i];
        dist += x1[i].powi(2);
        x1[i] += x2[i];
    }
    // checked last too: that is first in the generated inverse
    safe! { crate::check::equal_lengths("nilang::stdlib::base::i_sqdistance", "i_sqdistance(out, x1, x2)", &[("x1", x1.len()), ("x2", x2.len())]); }
}

/// The "dirty" in-place multiply `out *= x` for floats (NiLang's `i_dirtymul`):
/// `anc += out·x; out −= anc/x; SWAP(out, anc)`. `anc` should be 0 on entry and is ≈ 0 (a
/// rounding error) on exit; the inverse undoes it up to rounding. `x` must not be zero.
///
/// ```
/// use nilang::stdlib::base::{i_dirtymul, i_dirtymul_inv};
/// let (mut out, mut x, mut anc) = (3.0_f64, 1.7, 0.0_f64);
/// i_dirtymul(&mut out, &mut x, &mut anc);
/// assert_eq!(out, 3.0 * 1.7);
/// assert!(anc.abs() < 1e-15);
/// i_dirtymul_inv(&mut out, &mut x, &mut anc);
/// assert!((out - 3.0).abs() < 1e-15 && anc.abs() < 1e-15);
/// ```
#[i]
pub fn i_dirtymul<T: Scalar>(out: &mut T, x: &mut T, anc: &mut T) {
    anc += out * x;
    out -= anc / x;
    SWAP(out, anc);
}

/// The exact integer version of [`i_dirtymul`]: `anc += out·x; out −= anc ÷ x; SWAP(out, anc)`
/// (integer division, so `anc` is exactly 0 again when it was 0; `x ≠ 0`).
///
/// ```
/// use nilang::stdlib::base::{i_dirtymul_int, i_dirtymul_int_inv};
/// let (mut out, mut anc) = (6_i64, 0_i64);
/// i_dirtymul_int(&mut out, 7, &mut anc);
/// assert_eq!((out, anc), (42, 0));
/// i_dirtymul_int_inv(&mut out, 7, &mut anc);
/// assert_eq!((out, anc), (6, 0));
/// ```
#[i]
pub fn i_dirtymul_int(out: &mut i64, x: i64, anc: &mut i64) {
    anc += out * x;
    out -= anc / x;
    SWAP(out, anc);
}

/// `out = n!` for `out == 0` on entry (NiLang's `i_factorial`): `INC(out)`, then
/// [`i_dirtymul_int`] by `1, 2, …, n`. Exact for `n ≤ 20`.
///
/// ```
/// use nilang::stdlib::base::{i_factorial, i_factorial_inv};
/// let mut out = 0_i64;
/// i_factorial(&mut out, 10);
/// assert_eq!(out, 3_628_800);
/// i_factorial_inv(&mut out, 10);
/// assert_eq!(out, 0);
/// ```
#[i]
pub fn i_factorial(out: &mut i64, n: i64) {
    INC(out);
    for i in 1..=n {
        let anc = 0_i64;
        i_dirtymul_int(out, i, &mut anc);
        dealloc!(anc = 0_i64);
    }
}
