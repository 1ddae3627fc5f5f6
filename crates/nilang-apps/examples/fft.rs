//! A reversible FFT from HADAMARD and ROT: transform a two-tone signal, compare with the
//! direct DFT, run the inverse program, and time both.
//!
//! `cargo run --release -p nilang-apps --example fft`
use nilang_apps::fft::*;
use std::f64::consts::PI;

fn main() {
    let n = 1024;
    let re0: Vec<f64> = (0..n)
        .map(|t| {
            (2.0 * PI * 50.0 * t as f64 / n as f64).cos()
                + 0.5 * (2.0 * PI * 120.0 * t as f64 / n as f64).sin()
        })
        .collect();
    let im0 = vec![0.0; n];
    let (mut re, mut im) = (re0.clone(), im0.clone());
    let t = std::time::Instant::now();
    i_fft(&mut re, &mut im);
    let t_fft = t.elapsed();
    let t = std::time::Instant::now();
    let (xr, xi) = dft(&re0, &im0);
    let t_dft = t.elapsed();
    let err = (0..n)
        .map(|k| (re[k] - xr[k]).abs().max((im[k] - xi[k]).abs()))
        .fold(0.0, f64::max);
    println!("N = {n}: signal cos(2π·50t/N) + 0.5 sin(2π·120t/N)");
    println!("max |reversible FFT − direct DFT| = {err:.1e}  (FFT {t_fft:.1?}, DFT {t_dft:.1?})");
    let mut peaks: Vec<(usize, f64)> = (0..n / 2)
        .map(|k| (k, re[k].hypot(im[k]) * 2.0 / (n as f64).sqrt()))
        .collect();
    peaks.sort_by(|a, b| b.1.total_cmp(&a.1));
    println!(
        "largest amplitudes (bin, amplitude): {:?}",
        peaks[..2]
            .iter()
            .map(|&(k, a)| (k, (a * 1e6).round() / 1e6))
            .collect::<Vec<_>>()
    );
    i_fft_inv(&mut re, &mut im);
    let back = (0..n)
        .map(|k| (re[k] - re0[k]).abs().max((im[k] - im0[k]).abs()))
        .fold(0.0, f64::max);
    println!("inverse program restores the signal: max error {back:.1e}");
}
