//! The reversible FFT: agrees with a direct DFT, its inverse restores the input, gradients.
use nilang::ad::check_grad;
use nilang_apps::fft::*;
use rand::{Rng, SeedableRng};

fn random(n: usize, seed: u64) -> Vec<f64> {
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    (0..n).map(|_| rng.gen_range(-1.0..1.0)).collect()
}

#[test]
fn agrees_with_direct_dft_and_inverts() {
    for n in [1, 2, 4, 8, 64, 256] {
        let (re0, im0) = (random(n, n as u64), random(n, 1000 + n as u64));
        let (mut re, mut im) = (re0.clone(), im0.clone());
        i_fft(&mut re, &mut im);
        let (xr, xi) = dft(&re0, &im0);
        for k in 0..n {
            assert!((re[k] - xr[k]).abs() < 1e-13, "n={n} re[{k}]");
            assert!((im[k] - xi[k]).abs() < 1e-13, "n={n} im[{k}]");
        }
        i_fft_inv(&mut re, &mut im);
        for k in 0..n {
            assert!((re[k] - re0[k]).abs() < 1e-14 && (im[k] - im0[k]).abs() < 1e-14);
        }
    }
}

#[test]
fn unitary_parseval() {
    let (mut re, mut im) = (random(32, 1), random(32, 2));
    let e0: f64 = re.iter().chain(&im).map(|v| v * v).sum();
    i_fft(&mut re, &mut im);
    let e1: f64 = re.iter().chain(&im).map(|v| v * v).sum();
    assert!((e0 - e1).abs() < 1e-13);
}

#[test]
fn gradient_check() {
    let (mut re, mut im) = (random(16, 3), random(16, 4));
    let mut out = 0.0;
    for iin in [1, 2] {
        check_grad(
            &FftLoss,
            (&mut out, &mut re[..], &mut im[..]),
            0,
            iin,
            1e-8,
            1e-6,
        )
        .unwrap();
    }
    // the gradient of Σ X_re X_im: with X = F x (F unitary), ∂/∂x = Fᴴ(∂/∂X) by linearity
    let st = nilang::gradient(&FftLoss, (&mut out, &mut re[..], &mut im[..]), 0);
    let gre: Vec<f64> = st.1.iter().map(|v| v.g).collect();
    let gim: Vec<f64> = st.2.iter().map(|v| v.g).collect();
    // ∂L/∂X_re = X_im, ∂L/∂X_im = X_re; pull back with the inverse FFT (F is real-orthogonal
    // on (re, im) pairs, so the adjoint is the inverse)
    let (mut xr, mut xi) = (re.clone(), im.clone());
    i_fft(&mut xr, &mut xi);
    let (mut ar, mut ai) = (xi.clone(), xr.clone());
    i_fft_inv(&mut ar, &mut ai);
    for k in 0..16 {
        assert!((gre[k] - ar[k]).abs() < 1e-12 && (gim[k] - ai[k]).abs() < 1e-12);
    }
}
