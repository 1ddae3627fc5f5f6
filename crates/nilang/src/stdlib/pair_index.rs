//! The AVX-512 permute index that takes one real of each of eight `GVar<f64>` held in two
//! vectors (sixteen reals: value, adjoint, value, ..), shared by the element-wise kernels
//! (`elementwise.rs`) and the narrow dense layer (`narrow_dense.rs`).
use core::arch::x86_64::{__m512i, _mm512_set_epi64};

/// For `_mm512_permutex2var_pd` of two vectors of pairs: lane `q` takes element `2q + lane`
/// of the sixteen reals (`lane` 0: the values, 1: the adjoints).
#[target_feature(enable = "avx512f")]
#[inline]
pub(super) fn pick(lane: i64) -> __m512i {
    let e = |q: i64| 2 * q + lane;
    _mm512_set_epi64(e(7), e(6), e(5), e(4), e(3), e(2), e(1), e(0))
}
