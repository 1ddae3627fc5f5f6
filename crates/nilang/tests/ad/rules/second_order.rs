//! Second derivatives: reverse-over-reverse and forward-over-reverse against each other and
//! against central differences of the AD gradient.
use super::binary::{PAtan2, PDiv, PHypot, PMul, PPowf};
use super::instructions::{PHadamard, PInvI, PIrot, PNegI, PRot, PSincos};
use super::unary::{PAsin, PAsinh, PAtanh, PInv, PLn, PPowi3, PPowim2, PSin, PSqrt, PTan, PTanh};
use super::{ad_grad, close};
use nilang::ad;
use nilang::prelude::*;

fn check_hessian<F, const K: usize>(name: &str, f: &F, x: [f64; K])
where
    F: for<'b> Reversible<(&'b mut f64, &'b mut [f64; K])>
        + for<'b> Reversible<(&'b mut GVar<f64>, &'b mut [GVar<f64>; K])>
        + for<'b> Reversible<(&'b mut GVar<Dual<f64>>, &'b mut [GVar<Dual<f64>>; K])>
        + for<'b> Reversible<(&'b mut GVar<GVar<f64>>, &'b mut [GVar<GVar<f64>>; K])>,
{
    let (mut y, mut xx) = (0.25, x);
    let hf = ad::hessian_fwd_rev::<F, (&mut f64, &mut [f64; K])>(f, (&mut y, &mut xx), 0, 1);
    let hr = ad::hessian_rev_rev::<F, (&mut f64, &mut [f64; K])>(f, (&mut y, &mut xx), 0, 1);
    assert!(close(&xx, &x));
    for i in 0..K {
        let h = 1e-5 * (1.0 + x[i].abs());
        let (mut xp, mut xm) = (x, x);
        xp[i] += h;
        xm[i] -= h;
        let (gp, gm) = (ad_grad(f, xp), ad_grad(f, xm));
        for j in 0..K {
            let fd = (gp[j] - gm[j]) / (2.0 * h);
            assert!(
                (hf[i][j] - hr[i][j]).abs() <= 1e-12 * (1.0 + hf[i][j].abs()),
                "{name}: H[{i}][{j}] fwd-rev {} vs rev-rev {}",
                hf[i][j],
                hr[i][j]
            );
            assert!(
                (hf[i][j] - fd).abs() <= 1e-6 * (1.0 + fd.abs()),
                "{name}: H[{i}][{j}] fwd-rev {} vs finite difference of the gradient {fd}",
                hf[i][j]
            );
        }
    }
}

#[test]
fn hessians_of_rules() {
    check_hessian("mul", &PMul, [0.3, -0.8, 1.1, 0.6]);
    check_hessian("div", &PDiv, [0.3, 0.8, 1.1, 0.6]);
    check_hessian("powf", &PPowf, [0.7, -0.4, 1.3, 0.9]);
    check_hessian("atan2", &PAtan2, [0.7, -0.4, 1.3, 0.9]);
    check_hessian("hypot", &PHypot, [0.7, -0.4, 1.3, 0.9]);
    check_hessian("sin", &PSin, [0.7, -0.4]);
    check_hessian("tan", &PTan, [0.7, -0.4]);
    check_hessian("asin", &PAsin, [0.7, -0.4]);
    check_hessian("tanh", &PTanh, [0.7, -0.4]);
    check_hessian("asinh", &PAsinh, [0.7, -2.4]);
    check_hessian("atanh", &PAtanh, [0.7, -0.4]);
    check_hessian("sqrt", &PSqrt, [0.7, 1.4]);
    check_hessian("ln", &PLn, [0.7, 1.4]);
    check_hessian("powi 3", &PPowi3, [0.7, -1.4]);
    check_hessian("powi -2", &PPowim2, [0.7, -1.4]);
    check_hessian("inv", &PInv, [0.7, -1.4]);
    check_hessian("sincos", &PSincos, [0.7, -0.4, 1.3, 0.9, -1.1]);
    check_hessian("ROT", &PRot, [0.7, -0.4, 1.3]);
    check_hessian("IROT", &PIrot, [0.7, -0.4, 1.3]);
    check_hessian("HADAMARD", &PHadamard, [0.7, -0.4]);
    check_hessian("INV", &PInvI, [0.7, -0.4]);
    check_hessian("NEG", &PNegI, [0.7, -0.4]);
}
