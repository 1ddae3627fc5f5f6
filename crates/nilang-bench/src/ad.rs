//! Drivers for the third-party AD tools on a generic scalar objective: num-dual forward mode
//! (chunked gradient, blocked Hessian), echidna tape reverse mode, and central finite
//! differences (for checks only).

use crate::real::Real;
use echidna::Reverse;
use num_dual::{DualSVec64, HyperDualSVec64};
use std::time::{Duration, Instant};

/// A scalar objective written once, generically over the scalar type.
pub trait Objective {
    /// Number of inputs.
    fn dim(&self) -> usize;
    /// The objective at `x` (`dim()` inputs).
    fn eval<T: Real>(&self, x: &[T]) -> T;
}

/// Gradient by num-dual forward mode, `C` directions per pass (like ForwardDiff's chunks).
/// Returns the objective, or `None` if the projected time (after the first pass) exceeds `limit`.
pub fn nd_gradient<const C: usize, O: Objective>(
    o: &O,
    x: &[f64],
    grad: &mut [f64],
    limit: Option<Duration>,
) -> Option<f64> {
    let n = x.len();
    let mut xs: Vec<DualSVec64<C>> = x.iter().map(|&v| DualSVec64::<C>::from_re(v)).collect();
    let mut f = 0.0;
    let t0 = Instant::now();
    let passes = n.div_ceil(C);
    for (pass, start) in (0..n).step_by(C).enumerate() {
        let end = (start + C).min(n);
        for (i, xi) in xs.iter_mut().enumerate() {
            *xi = if (start..end).contains(&i) {
                DualSVec64::<C>::from_re(x[i]).derivative(i - start)
            } else {
                DualSVec64::<C>::from_re(x[i])
            };
        }
        let y = o.eval(&xs);
        f = y.re;
        if let Some(m) = y.eps.0.as_ref() {
            for i in start..end {
                grad[i] = m[i - start];
            }
        } else {
            grad[start..end].iter_mut().for_each(|g| *g = 0.0);
        }
        if pass == 0 {
            if let Some(limit) = limit {
                if t0.elapsed().saturating_mul(passes as u32) > limit {
                    return None;
                }
            }
        }
    }
    Some(f)
}

/// Hessian (row-major, n×n) by num-dual forward-over-forward (hyper-dual numbers), in
/// `C`×`C` blocks. Returns the objective.
pub fn nd_hessian<const C: usize, O: Objective>(o: &O, x: &[f64], hess: &mut [f64]) -> f64 {
    let n = x.len();
    let mut xs: Vec<HyperDualSVec64<C, C>> =
        x.iter().map(|&v| HyperDualSVec64::from_re(v)).collect();
    let mut f = 0.0;
    for a in (0..n).step_by(C) {
        let ae = (a + C).min(n);
        for b in (0..n).step_by(C) {
            let be = (b + C).min(n);
            for (i, xi) in xs.iter_mut().enumerate() {
                let mut v = HyperDualSVec64::<C, C>::from_re(x[i]);
                if (a..ae).contains(&i) {
                    v = v.derivative1(i - a);
                }
                if (b..be).contains(&i) {
                    v = v.derivative2(i - b);
                }
                *xi = v;
            }
            let y = o.eval(&xs);
            f = y.re;
            for i in a..ae {
                for j in b..be {
                    hess[i * n + j] = y.eps1eps2.0.as_ref().map_or(0.0, |m| m[(i - a, j - b)]);
                }
            }
        }
    }
    f
}

/// Gradient by echidna's tape-based reverse mode (records the tape on every call).
pub fn echidna_gradient<O: Objective>(o: &O, x: &[f64]) -> Vec<f64> {
    echidna::grad(|v: &[Reverse<f64>]| o.eval(v), x)
}

/// One partial derivative ∂f/∂x_i by num-dual's scalar dual number (exact; checks of large
/// gradients on sampled coordinates).
pub fn nd_partial<O: Objective>(o: &O, x: &[f64], i: usize) -> f64 {
    let xs: Vec<num_dual::Dual64> = x
        .iter()
        .enumerate()
        .map(|(j, &v)| num_dual::Dual64::new(v, if j == i { 1.0 } else { 0.0 }))
        .collect();
    o.eval(&xs).eps
}

/// Central finite differences of the gradient (checks only).
pub fn fd_gradient<O: Objective>(o: &O, x: &[f64], h: f64) -> Vec<f64> {
    let mut xp = x.to_vec();
    (0..x.len())
        .map(|i| {
            let step = h * x[i].abs().max(1.0);
            xp[i] = x[i] + step;
            let fp = o.eval(&xp);
            xp[i] = x[i] - step;
            let fm = o.eval(&xp);
            xp[i] = x[i];
            (fp - fm) / (2.0 * step)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Rosen;
    impl Objective for Rosen {
        fn dim(&self) -> usize {
            3
        }
        fn eval<T: Real>(&self, x: &[T]) -> T {
            let mut s = T::zero();
            for i in 0..x.len() - 1 {
                s = s
                    + T::cst(100.0) * (x[i + 1] - x[i].sq()).sq()
                    + (T::cst(1.0) - x[i]).sq()
                    + x[i].sin().exp();
            }
            s
        }
    }

    #[test]
    fn tools_agree() {
        let x = [0.3, -0.7, 1.1];
        let mut g2 = [0.0; 3];
        let f = nd_gradient::<2, _>(&Rosen, &x, &mut g2, None).unwrap();
        assert!((f - Rosen.eval(&x)).abs() < 1e-12);
        let ge = echidna_gradient(&Rosen, &x);
        let gf = fd_gradient(&Rosen, &x, 1e-6);
        nilang_adbench::oracle::compare(&g2, &ge, 1e-12).unwrap();
        nilang_adbench::oracle::compare(&gf, &ge, 1e-6).unwrap();
        let mut h = [0.0; 9];
        nd_hessian::<2, _>(&Rosen, &x, &mut h);
        for i in 0..3 {
            for j in 0..3 {
                assert!((h[i * 3 + j] - h[j * 3 + i]).abs() < 1e-10);
            }
        }
        assert!(
            (h[0]
                - (1200.0 * 0.09 - 400.0 * -0.7 + 2.0 + {
                    let (s, c) = (0.3f64.sin(), 0.3f64.cos());
                    s.exp() * (c * c - s)
                }))
            .abs()
                < 1e-9
        );
    }
}
