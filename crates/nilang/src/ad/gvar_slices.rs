//! Whole slices of `GVar<f64>` written in vector lanes: filled from plain values with zero
//! adjoints (a [`Plan`](super::Plan) refreshing its storage from the caller's arguments) and
//! their values set to zero, adjoints kept (what the adjoint-only uncomputation of a `zero(..)`
//! workspace leaves, [`Fresh::zero_values`](crate::instr::fresh::Fresh::zero_values)).
//!
//! Element by element, in the default build's SSE2 code, a refresh interleaves two reals per
//! instruction and the zeroing stores one real at a time (in the `logistic` suite's
//! `nilang-G` at n = 10⁴ the two took about a tenth of the gradient). Here both run on whole
//! AVX-512 vectors of gradient numbers (four per instruction) where the CPU has them
//! ([`crate::simd::active`]; LLVM's own vector form of the element loops gathers, slower
//! still), the refresh on AVX2 vectors (two per instruction) where the CPU has those but not
//! AVX-512 (the zeroings keep their element loops there: the C library's `memset` and the
//! 8-byte stores were as fast as 32-byte stores on an AVX2 Zen 3, and AVX2's masked store is
//! slow on AMD), the element loops otherwise. Every path writes
//! the same bits as the element loop: the values copied, the adjoints `+0.0`, or the values
//! `+0.0` and the adjoints as they were. A complex slice's parts are one such slice
//! ([`complex_parts`]: a plan refreshes `Complex<GVar<f64>>` storage by the same lift).
use super::GVar;
use core::any::TypeId;
use core::mem::{offset_of, size_of};

/// Where a `GVar<f64>`'s value lies among its two reals (0 or 1; the adjoint at the other).
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
const X_AT: usize = offset_of!(GVar<f64>, x) / size_of::<f64>();
const _: () = assert!(
    size_of::<GVar<f64>>() == 2 * size_of::<f64>()
        && X_AT + offset_of!(GVar<f64>, g) / size_of::<f64>() == 1
);

/// The parts of complex numbers as one slice: `re` then `im` of each number, in order.
#[inline(always)]
pub(crate) fn complex_parts<T>(z: &[num_complex::Complex<T>]) -> &[T] {
    // SAFETY: `Complex<T>` is `repr(C)` with two fields of type `T` (no padding between or
    // after them: a size is a multiple of its alignment), so `z` is `2 * z.len()` values of `T`
    unsafe { core::slice::from_raw_parts(z.as_ptr().cast::<T>(), 2 * z.len()) }
}

/// [`complex_parts`], mutably.
#[inline(always)]
pub(crate) fn complex_parts_mut<T>(z: &mut [num_complex::Complex<T>]) -> &mut [T] {
    // SAFETY: as in `complex_parts`
    unsafe { core::slice::from_raw_parts_mut(z.as_mut_ptr().cast::<T>(), 2 * z.len()) }
}
const _: () = assert!(
    core::mem::size_of::<num_complex::Complex<GVar<f64>>>()
        == 2 * core::mem::size_of::<GVar<f64>>()
        && core::mem::offset_of!(num_complex::Complex<GVar<f64>>, im)
            == core::mem::size_of::<GVar<f64>>()
);

/// `dst[i] = GVar { x: src[i], g: 0.0 }` for every `i` (the slices of one length, else the
/// shorter one) where `E` is `f64`, returning `true`; `false` (nothing done) otherwise.
#[inline]
pub(crate) fn lift<E: 'static>(dst: &mut [GVar<E>], src: &[E]) -> bool {
    if TypeId::of::<E>() != TypeId::of::<f64>() {
        return false;
    }
    let n = dst.len().min(src.len());
    // SAFETY: `E` is `f64` (same layout), `n` elements of each
    let (dst, src) = unsafe {
        (
            core::slice::from_raw_parts_mut(dst.as_mut_ptr().cast::<GVar<f64>>(), n),
            core::slice::from_raw_parts(src.as_ptr().cast::<f64>(), n),
        )
    };
    #[cfg(target_arch = "x86_64")]
    match crate::simd::active() {
        crate::simd::Isa::Avx512 => {
            // SAFETY: the CPU has AVX-512F (`active` is at most what it has)
            unsafe { lift_avx512(dst, src) };
            return true;
        }
        crate::simd::Isa::Avx2 => {
            // SAFETY: the CPU has AVX2 (`active` is at most what it has)
            unsafe { lift_avx2(dst, src) };
            return true;
        }
        crate::simd::Isa::Baseline => {}
    }
    for (d, &s) in dst.iter_mut().zip(src) {
        *d = GVar { x: s, g: 0.0 };
    }
    true
}

/// `v[i] = GVar { x: 0.0, g: 0.0 }` for every `i` where `E` is `f64` (one stream of zero
/// stores, the bits of `+0.0`), returning `true`; `false` (nothing done) otherwise. On
/// AVX-512 whole vectors of four gradient numbers stored through the cache (the C library's
/// `memset` streams past it above about a megabyte, and the forward pass reads them next:
/// the `logistic` suite's `nilang-G` at n = 10⁵ took 1.1 → 1.2 ms so).
#[inline]
pub(crate) fn zero<E: 'static>(v: &mut [GVar<E>]) -> bool {
    if TypeId::of::<E>() != TypeId::of::<f64>() {
        return false;
    }
    // SAFETY: `E` is `f64` (same layout)
    let v = unsafe { core::slice::from_raw_parts_mut(v.as_mut_ptr().cast::<GVar<f64>>(), v.len()) };
    #[cfg(target_arch = "x86_64")]
    if crate::simd::active() == crate::simd::Isa::Avx512 {
        // SAFETY: the CPU has AVX-512F (`active` is at most what it has)
        unsafe { zero_avx512(v) };
        return true;
    }
    v.fill(GVar { x: 0.0, g: 0.0 });
    true
}

/// [`zero`] on AVX-512: four gradient numbers of zeros stored at a time (the zero vector
/// hidden from LLVM, which would make the loop a call to `memset`).
///
/// # Safety
/// The CPU must have AVX-512F.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn zero_avx512(v: &mut [GVar<f64>]) {
    use core::arch::x86_64::{_mm512_setzero_pd, _mm512_storeu_pd};
    let zero = core::hint::black_box(_mm512_setzero_pd());
    let (n, p) = (v.len(), v.as_mut_ptr().cast::<f64>());
    let n4 = n - n % 4;
    for i in (0..n4).step_by(4) {
        // SAFETY: gradient numbers `i..i + 4` of `v` (eight reals)
        unsafe { _mm512_storeu_pd(p.add(2 * i), zero) };
    }
    for g in &mut v[n4..] {
        *g = GVar { x: 0.0, g: 0.0 };
    }
}

/// `v[i].x = 0.0` for every `i`, the adjoints kept, where `T` is `f64`, returning `true`;
/// `false` (nothing done) otherwise.
#[inline]
pub(crate) fn zero_values<T: 'static>(v: &mut [GVar<T>]) -> bool {
    if TypeId::of::<T>() != TypeId::of::<f64>() {
        return false;
    }
    // SAFETY: `T` is `f64` (same layout)
    let v = unsafe { core::slice::from_raw_parts_mut(v.as_mut_ptr().cast::<GVar<f64>>(), v.len()) };
    #[cfg(target_arch = "x86_64")]
    if crate::simd::active() == crate::simd::Isa::Avx512 {
        // SAFETY: the CPU has AVX-512F (`active` is at most what it has)
        unsafe { zero_values_avx512(v) };
        return true;
    }
    for g in v {
        g.x = 0.0;
    }
    true
}

/// [`lift`] on AVX-512: eight values read, sixteen reals (values and zero adjoints) built by
/// two permutations and stored at a time.
///
/// # Safety
/// The CPU must have AVX-512F.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn lift_avx512(dst: &mut [GVar<f64>], src: &[f64]) {
    use core::arch::x86_64::{
        _mm512_loadu_pd, _mm512_permutex2var_pd, _mm512_set_epi64, _mm512_setzero_pd,
        _mm512_storeu_pd,
    };
    // lanes 0..8 pick from the values, 8 is the first of the zeros
    let (lo, hi) = if X_AT == 0 {
        (
            _mm512_set_epi64(8, 3, 8, 2, 8, 1, 8, 0),
            _mm512_set_epi64(8, 7, 8, 6, 8, 5, 8, 4),
        )
    } else {
        (
            _mm512_set_epi64(3, 8, 2, 8, 1, 8, 0, 8),
            _mm512_set_epi64(7, 8, 6, 8, 5, 8, 4, 8),
        )
    };
    let zero = _mm512_setzero_pd();
    let (n, d, s) = (dst.len(), dst.as_mut_ptr().cast::<f64>(), src.as_ptr());
    let n8 = n - n % 8;
    for i in (0..n8).step_by(8) {
        // SAFETY: values `i..i + 8` of `src`, gradient numbers `i..i + 8` of `dst` (two reals
        // each, asserted above)
        unsafe {
            let v = _mm512_loadu_pd(s.add(i));
            _mm512_storeu_pd(d.add(2 * i), _mm512_permutex2var_pd(v, lo, zero));
            _mm512_storeu_pd(d.add(2 * i + 8), _mm512_permutex2var_pd(v, hi, zero));
        }
    }
    for (d, &s) in dst[n8..].iter_mut().zip(&src[n8..]) {
        *d = GVar { x: s, g: 0.0 };
    }
}

/// [`lift`] on AVX2: four values read, eight reals (values and zero adjoints) built by two
/// lane permutations and two blends with zero and stored at a time (half the stores of the
/// element loop's 16-byte pairs). On an AVX2 Zen 3, by minima in a standalone loop: 10⁵
/// values (storage in L3) 8–10 % less time than the element loop, 10⁴ (in L2) 17–19 % less;
/// the sparse suite's complex refresh 6 % less (memory-bound: most of the time is the stores).
///
/// # Safety
/// The CPU must have AVX2; `src` at least as long as `dst`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn lift_avx2(dst: &mut [GVar<f64>], src: &[f64]) {
    use core::arch::x86_64::{
        _mm256_blend_pd, _mm256_loadu_pd, _mm256_permute4x64_pd, _mm256_setzero_pd,
        _mm256_storeu_pd,
    };
    let zero = _mm256_setzero_pd();
    let (n, d, s) = (dst.len(), dst.as_mut_ptr().cast::<f64>(), src.as_ptr());
    let n4 = n - n % 4;
    for i in (0..n4).step_by(4) {
        // SAFETY: values `i..i + 4` of `src`, gradient numbers `i..i + 4` of `dst` (two reals
        // each, asserted above)
        unsafe {
            let v = _mm256_loadu_pd(s.add(i));
            // [v0 v0 v1 v1] and [v2 v2 v3 v3], the adjoints' places then set to zero
            let (a, b) = (
                _mm256_permute4x64_pd::<0b01_01_00_00>(v),
                _mm256_permute4x64_pd::<0b11_11_10_10>(v),
            );
            let (a, b) = if X_AT == 0 {
                (
                    _mm256_blend_pd::<0b1010>(a, zero),
                    _mm256_blend_pd::<0b1010>(b, zero),
                )
            } else {
                (
                    _mm256_blend_pd::<0b0101>(a, zero),
                    _mm256_blend_pd::<0b0101>(b, zero),
                )
            };
            _mm256_storeu_pd(d.add(2 * i), a);
            _mm256_storeu_pd(d.add(2 * i + 4), b);
        }
    }
    for (d, &s) in dst[n4..].iter_mut().zip(&src[n4..]) {
        *d = GVar { x: s, g: 0.0 };
    }
}

/// [`zero_values`] on AVX-512: zeros stored to the values of four gradient numbers at a time
/// (a masked store, the adjoints untouched).
///
/// # Safety
/// The CPU must have AVX-512F.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn zero_values_avx512(v: &mut [GVar<f64>]) {
    use core::arch::x86_64::{_mm512_mask_storeu_pd, _mm512_setzero_pd};
    let mask: u8 = if X_AT == 0 { 0x55 } else { 0xAA };
    let zero = _mm512_setzero_pd();
    let (n, p) = (v.len(), v.as_mut_ptr().cast::<f64>());
    let n4 = n - n % 4;
    for i in (0..n4).step_by(4) {
        // SAFETY: gradient numbers `i..i + 4` of `v` (eight reals)
        unsafe { _mm512_mask_storeu_pd(p.add(2 * i), mask, zero) };
    }
    for g in &mut v[n4..] {
        g.x = 0.0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn other_types_are_left_to_the_element_loops() {
        let mut d = [GVar::new(1.0_f32, 2.0)];
        assert!(!lift(&mut d, &[3.0_f32]) && !zero_values(&mut d));
        assert_eq!(d[0], GVar::new(1.0, 2.0));
    }

    /// Each vector path the CPU has, called directly (whatever [`crate::simd::active`] says),
    /// writes what the element loop writes, for lengths around the vector widths.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn every_vector_lift_writes_what_the_element_loop_writes() {
        type Path = unsafe fn(&mut [GVar<f64>], &[f64]);
        let mut paths: Vec<(&str, Path)> = Vec::new();
        if std::arch::is_x86_feature_detected!("avx2") {
            paths.push(("avx2", lift_avx2));
        }
        if std::arch::is_x86_feature_detected!("avx512f") {
            paths.push(("avx512", lift_avx512));
        }
        for (name, path) in paths {
            for n in [0, 1, 3, 4, 5, 8, 11, 16, 17, 33] {
                let src: Vec<f64> = (0..n).map(|i| (i as f64 - 4.5) * 1.25).collect();
                let mut d = vec![GVar::new(7.0, -0.0); n + 1];
                // SAFETY: the CPU has the path's features (detected above)
                unsafe { path(&mut d[..n], &src) };
                for (d, &s) in d.iter().zip(&src) {
                    assert_eq!(
                        (d.x.to_bits(), d.g.to_bits()),
                        (s.to_bits(), 0.0f64.to_bits()),
                        "{name}, n = {n}"
                    );
                }
                // nothing past the slice
                assert_eq!(
                    (d[n].x.to_bits(), d[n].g.to_bits()),
                    (7.0f64.to_bits(), (-0.0f64).to_bits()),
                    "{name}, n = {n}"
                );
            }
        }
    }

    #[test]
    fn zero_writes_zero_values_and_adjoints() {
        for n in [0, 1, 5, 64] {
            let mut v: Vec<GVar<f64>> = (0..n).map(|i| GVar::new(i as f64 - 2.5, -1.0)).collect();
            assert!(zero(&mut v));
            assert!(v
                .iter()
                .all(|v| (v.x.to_bits(), v.g.to_bits()) == (0.0f64.to_bits(), 0.0f64.to_bits())));
        }
        let mut d = [GVar::new(1.0_f32, 2.0)];
        assert!(!zero(&mut d));
        assert_eq!(d[0], GVar::new(1.0, 2.0));
    }

    #[test]
    fn lift_and_zero_values_write_what_the_element_loops_write() {
        for n in [0, 1, 7, 8, 9, 33] {
            let src: Vec<f64> = (0..n).map(|i| i as f64 - 3.5).collect();
            let mut d = vec![GVar::new(9.0, -0.0); n];
            assert!(lift(&mut d, &src));
            for (d, &s) in d.iter().zip(&src) {
                assert_eq!(
                    (d.x.to_bits(), d.g.to_bits()),
                    (s.to_bits(), 0.0f64.to_bits())
                );
            }
            let mut v: Vec<GVar<f64>> = (0..n)
                .map(|i| GVar::new(i as f64 + 1.0, -(i as f64)))
                .collect();
            assert!(zero_values(&mut v));
            for (i, v) in v.iter().enumerate() {
                assert_eq!(
                    (v.x.to_bits(), v.g.to_bits()),
                    (0.0f64.to_bits(), (-(i as f64)).to_bits())
                );
            }
        }
    }
}
