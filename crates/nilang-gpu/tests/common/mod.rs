//! Shared test helpers: the device (or a skip), comparisons.
#![allow(dead_code)]
use nilang_gpu::Device;

/// The first OpenCL device; `None` (after one line on stdout) where there is none, unless
/// `NILANG_REQUIRE_OPENCL=1`, where its absence fails the test (CI installs pocl).
pub fn device() -> Option<Device> {
    match Device::first() {
        Ok(d) => Some(d),
        Err(e) => {
            if std::env::var("NILANG_REQUIRE_OPENCL").as_deref() == Ok("1") {
                panic!("NILANG_REQUIRE_OPENCL=1 but no OpenCL device: {e}");
            }
            println!(
                "skipped (no OpenCL device: {e}); set NILANG_REQUIRE_OPENCL=1 to fail instead"
            );
            None
        }
    }
}

/// `v` rounded to `f32`.
pub fn to32(v: &[f64]) -> Vec<f32> {
    v.iter().map(|&x| x as f32).collect()
}

/// `v` widened to `f64`.
pub fn up(v: &[f32]) -> Vec<f64> {
    v.iter().map(|&x| f64::from(x)).collect()
}

/// The largest absolute value (a floor that makes `max_rel` norm-wise: for sums of many
/// terms, whose small entries carry the absolute error of the large ones).
pub fn max_abs(v: &[f64]) -> f64 {
    v.iter().fold(0.0, |m, x| m.max(x.abs()))
}

/// The largest relative difference `|a − b| / max(|a|, |b|, floor)` over two slices.
pub fn max_rel(a: &[f64], b: &[f64], floor: f64) -> f64 {
    assert_eq!(a.len(), b.len(), "lengths differ");
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs() / x.abs().max(y.abs()).max(floor))
        .fold(0.0, f64::max)
}

/// Asserts `max_rel(a, b, floor) <= tol`, naming what is compared.
#[track_caller]
pub fn assert_close(what: &str, a: &[f64], b: &[f64], tol: f64, floor: f64) {
    let e = max_rel(a, b, floor);
    println!("{what}: {e:e} (tolerance {tol:e})");
    let worst = a
        .iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs() / x.abs().max(y.abs()).max(floor))
        .enumerate()
        .fold((0, 0.0), |m, (k, d)| if d > m.1 { (k, d) } else { m })
        .0;
    assert!(
        e <= tol,
        "{what}: relative difference {e:e} > {tol:e} (worst at {worst}: device {:e}, cpu {:e})\n device: {:?}\n cpu:    {:?}",
        a[worst],
        b[worst],
        &a[..a.len().min(8)],
        &b[..b.len().min(8)]
    );
}

/// A deterministic pseudo-random sequence in `[lo, hi)`.
pub fn seq(n: usize, seed: u64, lo: f64, hi: f64) -> Vec<f64> {
    let mut s = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    (0..n)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            lo + (hi - lo) * ((s >> 11) as f64 / (1u64 << 53) as f64)
        })
        .collect()
}
