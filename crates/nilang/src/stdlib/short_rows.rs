//! The matrix-vector product `c += alpha·A·b` of `f64` rows of at most sixteen values (a
//! one-output layer, a model with few features) in AVX-512, eight rows at a time: each row's
//! eight partial sums as the generic row kernel of [`matmul`](super::matmul) forms them
//! (`x_q·b_q + x_{q+8}·b_{q+8}`), then the eight reduction trees side by side, one level
//! after another: lanes `q` and `q + 4` of every row, then `q` and `q + 2`, then the last two,
//! so that the sums of eight rows come out of seven vector additions and fourteen shuffles
//! instead of a horizontal reduction per row. The same additions of the same numbers in the same
//! order as the generic kernel, so the same bits (the matmul tests compare them).
#[cfg(target_arch = "x86_64")]
use core::arch::x86_64::{
    __m512d, _mm512_add_pd, _mm512_loadu_pd, _mm512_maskz_loadu_pd, _mm512_mul_pd,
    _mm512_permutexvar_pd, _mm512_set1_pd, _mm512_set_epi64, _mm512_shuffle_f64x2,
    _mm512_storeu_pd, _mm512_unpackhi_pd, _mm512_unpacklo_pd,
};

/// The most values of a row.
pub(super) const MAX_K: usize = 16;

/// `c_i += alpha · Σ_{l<k} a[i·rs + l] · b[l]` for the first `m − m mod 8` rows `i` (`b` the
/// `k ≤ 16` values of the caller's block, zero from `k` to 16; `c` at stride `cs`), then
/// `c_i += bias` where given (a one-output layer's bias, added in the same pass: the same
/// two additions as a second pass makes); returns how many rows it did (none where the CPU
/// lacks AVX-512F or the build is not x86-64: the caller's kernel does them).
///
/// # Safety
/// Rows `i < m` of `a` hold `k` values; `c` holds `m` values at stride `cs` and overlaps
/// neither `a` nor `b`.
#[inline]
pub(super) unsafe fn gemv(
    (m, k, alpha): (usize, usize, f64),
    (a, rs): (*const f64, isize),
    b: &[f64; MAX_K],
    (c, cs): (*mut f64, isize),
    bias: Option<f64>,
) -> usize {
    #[cfg(target_arch = "x86_64")]
    if k <= MAX_K && crate::simd::active() == crate::simd::Isa::Avx512 {
        // SAFETY: the CPU has AVX-512F (`active` is at most what it has); the caller's views
        return unsafe { gemv_avx512((m, k, alpha), (a, rs), b, (c, cs), bias) };
    }
    let _ = (m, k, alpha, a, rs, b, c, cs, bias);
    0
}

/// Lanes `0..4` of `x` and of `y` (`h = shuffle(x, y)` picks 128-bit parts by `IMM`).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn parts<const IMM: i32>(x: __m512d, y: __m512d) -> __m512d {
    // SAFETY: register-only; the caller's target features include AVX-512F
    unsafe { _mm512_shuffle_f64x2::<IMM>(x, y) }
}

/// [`gemv`] on AVX-512.
///
/// # Safety
/// As [`gemv`]; the CPU has AVX-512F.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn gemv_avx512(
    (m, k, alpha): (usize, usize, f64),
    (a, rs): (*const f64, isize),
    b: &[f64; MAX_K],
    (c, cs): (*mut f64, isize),
    bias: Option<f64>,
) -> usize {
    const ROWS: usize = 8;
    let (lo, hi) = (k.min(8), k.saturating_sub(8));
    let (mlo, mhi) = (((1u32 << lo) - 1) as u8, ((1u32 << hi) - 1) as u8);
    // SAFETY: `b` holds sixteen values
    let (b0, b1) = unsafe {
        (
            _mm512_loadu_pd(b.as_ptr()),
            _mm512_loadu_pd(b.as_ptr().add(8)),
        )
    };
    let al = _mm512_set1_pd(alpha);
    // lane order of the sums [s0, s4, s1, s5, s2, s6, s3, s7] back to s0..s7
    let order = _mm512_set_epi64(7, 5, 3, 1, 6, 4, 2, 0);
    let m8 = m - m % ROWS;
    let mut out = [0.0; ROWS];
    for i0 in (0..m8).step_by(ROWS) {
        // `v[r]`: the eight partial sums of row `i0 + r` (lanes past `k` loaded as zeros, as
        // the generic kernel pads them)
        let v: [__m512d; ROWS] = core::array::from_fn(|r| {
            // SAFETY: row `i0 + r < m` holds `k` values (masked loads read no others)
            unsafe {
                let row = a.offset((i0 + r) as isize * rs);
                let x0 = _mm512_maskz_loadu_pd(mlo, row);
                let x1 = _mm512_maskz_loadu_pd(mhi, row.add(8));
                _mm512_add_pd(_mm512_mul_pd(x0, b0), _mm512_mul_pd(x1, b1))
            }
        });
        // `h_q = v_q + v_{q+4}`: rows `2p`, `2p + 1` in `h[p]` (lanes 0..4, 4..8)
        let h: [__m512d; 4] = core::array::from_fn(|p| {
            let (x, y) = (v[2 * p], v[2 * p + 1]);
            _mm512_add_pd(parts::<0x44>(x, y), parts::<0xEE>(x, y))
        });
        // `g_e = h_e + h_{e+2}`: rows `4t .. 4t + 4` in `g[t]`, two lanes each
        let g: [__m512d; 2] = core::array::from_fn(|t| {
            let (x, y) = (h[2 * t], h[2 * t + 1]);
            _mm512_add_pd(parts::<0x88>(x, y), parts::<0xDD>(x, y))
        });
        // `g_0 + g_1` of each row, in the order [s0, s4, s1, s5, s2, s6, s3, s7]
        let s = _mm512_add_pd(
            _mm512_unpacklo_pd(g[0], g[1]),
            _mm512_unpackhi_pd(g[0], g[1]),
        );
        let s = _mm512_mul_pd(al, _mm512_permutexvar_pd(order, s));
        // SAFETY: `out` holds eight values
        unsafe { _mm512_storeu_pd(out.as_mut_ptr(), s) };
        for (r, s) in out.iter().enumerate() {
            // SAFETY: element `i0 + r < m` of the caller's view of `c`
            unsafe {
                let ci = c.offset((i0 + r) as isize * cs);
                *ci += s;
                if let Some(b) = bias {
                    *ci += b;
                }
            }
        }
    }
    m8
}
