//! Learning by consistency (the earlier paper's Appendix C).
//!
//! A reversible program `(y, p_y) = f_r(x, p_x)` can be "trained" without gradients: run it
//! forward on the input `x*`, overwrite the output by the target `y*`, run it backward and keep
//! the parameters it hands back; repeat ([`train`]). Both [`f1`] and [`f2`] compute
//! `y += e^{p+x} − e^x`, but `f1` keeps `x` and `p + x` on the output side, which determine
//! the input parameter completely, so the backward pass always restores the old `p` and
//! nothing is learned. `f2` uncomputes `x` arithmetically (`x −= ln(−y)` while `y = −e^x`), so
//! the output side holds only `0` and `p + x`; the backward pass then has to move `p`, and the
//! iteration converges to `e^{p+x} − e^x = y*`.
use nilang::prelude::*;

/// `p += x; y += e^p − e^x` (output side: `y, x, p + x`).
#[i]
pub fn f1<T: Scalar>(y: &mut T, x: &mut T, p: &mut T) {
    p += x;
    y -= exp(x);
    y += exp(p);
}

/// `p += x; y −= e^x; x −= ln(−y); y += e^p` (output side: `y, 0, p + x`; needs `y = 0` on
/// entry for `x` to be uncomputed).
#[i]
pub fn f2<T: Scalar>(y: &mut T, x: &mut T, p: &mut T) {
    p += x;
    y -= exp(x);
    x -= ln(-y);
    y += exp(p);
}

/// The paper's `train(f)`: from `p = p0`, `steps` times: `y, x = 0, x0`; `f(y, x, p)`; record
/// `y`; set `y = target`; `(~f)(y, x, p)`. Returns the recorded outputs and the final `p`.
pub fn train(
    f: fn(&mut f64, &mut f64, &mut f64),
    f_inv: fn(&mut f64, &mut f64, &mut f64),
    p0: f64,
    x0: f64,
    target: f64,
    steps: usize,
) -> (Vec<f64>, f64) {
    let mut p = p0;
    let mut ys = Vec::with_capacity(steps);
    for _ in 0..steps {
        let (mut y, mut x) = (0.0, x0);
        f(&mut y, &mut x, &mut p);
        ys.push(y);
        y = target;
        f_inv(&mut y, &mut x, &mut p);
    }
    (ys, p)
}

/// `train(f1)` with the paper's settings (`p = 1.6`, `x = 0.3`, target `1`).
pub fn train_f1(steps: usize) -> (Vec<f64>, f64) {
    train(f1, f1_inv, 1.6, 0.3, 1.0, steps)
}

/// `train(f2)` with the paper's settings.
pub fn train_f2(steps: usize) -> (Vec<f64>, f64) {
    train(f2, f2_inv, 1.6, 0.3, 1.0, steps)
}
