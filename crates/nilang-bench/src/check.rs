//! Numerical agreement between two methods (ADBench's metric).

/// ADBench's closeness: `|x - y| / max(1, |x| + |y|) <= tol`.
pub fn close_scalar(x: f64, y: f64, tol: f64) -> bool {
    (x - y).abs() / f64::max(1.0, x.abs() + y.abs()) <= tol
}

/// Compare two vectors; on a mismatch, the message names the worst entry.
pub fn compare(got: &[f64], want: &[f64], tol: f64) -> Result<(), String> {
    if got.len() != want.len() {
        return Err(format!("length {} != {}", got.len(), want.len()));
    }
    let mut worst: Option<(usize, f64)> = None;
    for (i, (&x, &y)) in got.iter().zip(want).enumerate() {
        let e = (x - y).abs() / f64::max(1.0, x.abs() + y.abs());
        if e.is_nan() || e > tol {
            let e = if e.is_nan() { f64::INFINITY } else { e };
            if worst.is_none_or(|(_, w)| e > w) {
                worst = Some((i, e));
            }
        }
    }
    match worst {
        None => Ok(()),
        Some((i, e)) => Err(format!(
            "entry {i}: {} vs {} (relative error {e:.2e} > {tol:.0e})",
            got[i], want[i]
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn metric() {
        assert!(close_scalar(1e9, 1e9 + 1.0, 1e-8));
        assert!(!close_scalar(1.0, 1.1, 1e-8));
        assert!(compare(&[1.0, 2.0], &[1.0, 2.0 + 1e-12], 1e-8).is_ok());
        let e = compare(&[1.0, 2.0, f64::NAN], &[1.0, 2.0, 3.0], 1e-8).unwrap_err();
        assert!(e.starts_with("entry 2"), "{e}");
        assert!(compare(&[1.0], &[1.0, 2.0], 1e-8).is_err());
    }
}
