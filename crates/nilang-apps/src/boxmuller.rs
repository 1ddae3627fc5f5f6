//! Box–Muller made bijective (NiLang's `examples/boxmuller.jl`).
//!
//! `(x, y) ∈ (0, 1)² ↦ (z₁, z₂) = √(−2 ln x) (cos 2πy, sin 2πy)`, two independent standard
//! normal numbers. The transform is arithmetically invertible but not reversible in floating
//! point instruction by instruction, so [`boxmuller`] computes `z` in fresh registers, swaps
//! them into `x`, `y` and then *uncomputes the old inputs arithmetically* from `z`
//! (`x = exp(−|z|²/2)`, `y = atan2(z₂, z₁)/2π mod 1`), leaving the ancillas zero up to rounding.
//! The in-place function is a bijection, so `nilang::ad::jacobian` gives its Jacobian and
//! `log|det J|` is the log-density ratio of the change of variables.
use nilang::prelude::*;

/// In place `(x, y) ← BoxMuller(x, y)`, `x, y ∈ (0, 1)`.
#[i]
pub fn boxmuller<T: Ordered + Rotate<T>>(x: &mut T, y: &mut T) {
    let z1 = T::default();
    let z2 = T::default();
    {
        let theta = T::default();
        let logx = T::default();
        let m2logx = T::default();
        routine! {
            theta += y * cst!(T::lit(core::f64::consts::TAU));
            logx += ln(x);
            m2logx += logx * cst!(T::lit(-2.0));
        }
        z1 += sqrt(m2logx);
        ROT(&mut z1, &mut z2, &mut theta);
        unroutine!();
        dealloc!(m2logx = T::default());
        dealloc!(logx = T::default());
        dealloc!(theta = T::default());
    }
    SWAP(x, &mut z1);
    SWAP(y, &mut z2);
    // arithmetic uncomputing: recompute the old (x, y) from the normal pair to clear z1, z2
    {
        let at = T::default();
        let sq = T::default();
        let halfsq = T::default();
        routine! {
            at += atan2(y, x);
            if (y < T::lit(0.0), _) {
                at += cst!(T::lit(core::f64::consts::TAU));
            }
            sq += x.powi(2);
            sq += y.powi(2);
            halfsq += sq * cst!(T::lit(-0.5));
        }
        z1 -= exp(halfsq);
        z2 -= at * cst!(T::lit(1.0 / core::f64::consts::TAU));
        unroutine!();
        dealloc!(halfsq = T::default());
        dealloc!(sq = T::default());
        dealloc!(at = T::default());
    }
    dealloc!(z2 = T::default());
    dealloc!(z1 = T::default());
}

/// [`boxmuller`] on a pair `x = [x, y]` (the form `jacobian` differentiates).
#[i]
pub fn boxmuller_pair<T: Ordered + Rotate<T>>(x: &mut [T; 2]) {
    boxmuller(&mut x[0], &mut x[1]);
}

/// The Jacobian `∂z/∂(x, y)` (rows: outputs) by `nilang::ad::jacobian` (one backward pass
/// with two adjoint lanes).
pub fn jacobian(x: f64, y: f64) -> [[f64; 2]; 2] {
    let mut p = [x, y];
    let j = nilang::ad::jacobian::<_, _, 2>(&BoxmullerPair, (&mut p,), 0, 0);
    [[j[0][0], j[0][1]], [j[1][0], j[1][1]]]
}

/// `log|det J|` of the transform at `(x, y)`.
pub fn log_abs_det_jacobian(x: f64, y: f64) -> f64 {
    let j = jacobian(x, y);
    (j[0][0] * j[1][1] - j[0][1] * j[1][0]).abs().ln()
}

/// The standard normal density.
pub fn normal_pdf(z: f64) -> f64 {
    (-0.5 * z * z).exp() / core::f64::consts::TAU.sqrt()
}
