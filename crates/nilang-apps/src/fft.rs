//! A reversible FFT built from `HADAMARD` and `ROT` (NiLang's `examples/fft.jl`).
//!
//! Radix-2 decimation-in-time Cooley–Tukey on separate real and imaginary arrays: a
//! bit-reversal permutation by `SWAP`s, then `log₂N` stages of butterflies. A butterfly on
//! `(a, b)` with twiddle `w = e^{−2πij/len}` multiplies `x_b` by `w` — a rotation of
//! `(re_b, im_b)` by `θ = −2πj/len`, i.e. `ROT(re[b], im[b], θ)` — and then maps
//! `(x_a, x_b) ↦ ((x_a + x_b)/√2, (x_a − x_b)/√2)`, two `HADAMARD`s. Every step is unitary, so
//! the result is the DFT normalised by `√N`: `X_k = Σ_n x_n e^{−2πikn/N} / √N`, and the
//! inverse program is the inverse transform.
use nilang::prelude::*;

/// `i` with its lowest `bits` bits reversed.
pub fn bit_reverse(i: usize, bits: u32) -> usize {
    if bits == 0 {
        0
    } else {
        i.reverse_bits() >> (usize::BITS - bits)
    }
}

/// In-place unitary FFT of `re + i·im` (length a power of two).
#[i]
pub fn i_fft<T: Scalar + Rotate<T> + Hadamard>(re: &mut [T], im: &mut [T]) {
    safe! {
        assert!(
            re.len() == im.len() && re.len().is_power_of_two(),
            "i_fft: re and im need the same power-of-two length ({} and {})",
            re.len(),
            im.len()
        );
    }
    // bit-reversal permutation (an involution)
    for i in 0..re.len() {
        if cst!(i < bit_reverse(i, re.len().trailing_zeros())) {
            SWAP(
                &mut re[i],
                &mut re[bit_reverse(i, re.len().trailing_zeros())],
            );
            SWAP(
                &mut im[i],
                &mut im[bit_reverse(i, re.len().trailing_zeros())],
            );
        }
    }
    // butterflies: stage s merges blocks of length 2^s
    for s in 1..(re.len().trailing_zeros() as usize + 1) {
        for start in (0..re.len()).step_by(1 << s) {
            for j in 0..(1 << (s - 1)) {
                ROT(
                    &mut re[start + j + (1 << (s - 1))],
                    &mut im[start + j + (1 << (s - 1))],
                    &mut cst!(T::lit(
                        -2.0 * core::f64::consts::PI * j as f64 / (1 << s) as f64
                    )),
                );
                HADAMARD(&mut re[start + j], &mut re[start + j + (1 << (s - 1))]);
                HADAMARD(&mut im[start + j], &mut im[start + j + (1 << (s - 1))]);
            }
        }
    }
}

/// `out += Σ_k re_k · im_k` after the FFT (a nonlinear scalar of the transform, for gradient
/// checks).
#[i]
pub fn fft_loss<T: Scalar + Rotate<T> + Hadamard>(out: &mut T, re: &mut [T], im: &mut [T]) {
    i_fft(re, im);
    for k in 0..re.len() {
        out += re[k] * im[k];
    }
    inv! {
        i_fft(re, im);
    }
}

/// The direct `O(N²)` DFT `X_k = Σ_n x_n e^{−2πikn/N} / √N` (the reference).
pub fn dft(re: &[f64], im: &[f64]) -> (Vec<f64>, Vec<f64>) {
    let n = re.len();
    let s = (n as f64).sqrt();
    let (mut xr, mut xi) = (vec![0.0; n], vec![0.0; n]);
    for k in 0..n {
        for t in 0..n {
            let th = -2.0 * core::f64::consts::PI * ((k * t) % n) as f64 / n as f64;
            let (sn, cs) = th.sin_cos();
            xr[k] += re[t] * cs - im[t] * sn;
            xi[k] += re[t] * sn + im[t] * cs;
        }
        xr[k] /= s;
        xi[k] /= s;
    }
    (xr, xi)
}
