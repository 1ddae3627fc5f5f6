//! Numeric checkers: the loss value, central-difference gradients and Hessians, and
//! [`check_grad`] (the gradient API against finite differences).
use super::args::{Elem, GradArgs};
use super::grad::{
    backward, check_index, check_loss, gradient, grads, one_pass, slot, Differentiable,
};
use crate::Reversible;

/// The loss value after running `f` on `args` (the arguments are restored afterwards).
#[track_caller]
pub fn loss_value<F, A, E>(f: &F, args: A, loss: usize) -> E
where
    E: Elem,
    A: GradArgs<E>,
    F: Differentiable<A, E>,
{
    check_loss::<A, _>(loss, "loss");
    let mut st = args.store::<E>();
    f.call(A::borrow(&mut st));
    slot::<E, A, _>(&mut st, loss).x
}

/// Central-difference gradient of argument `loss` with respect to every differentiable slot
/// of argument `iin`, step `delta`.
#[track_caller]
pub fn gradient_numeric<F, A>(f: &F, args: &A, loss: usize, iin: usize, delta: f64) -> Vec<f64>
where
    A: GradArgs<f64>,
    F: Reversible<A> + for<'b> Reversible<A::Borrow<'b, f64>>,
{
    check_loss::<A, _>(loss, "loss");
    check_index::<A, _>(iin, "input");
    let base = args.store::<f64>();
    let n = A::slots::<f64>(&mut base.clone(), iin).len();
    (0..n)
        .map(|k| {
            let eval = |h: f64| {
                let mut st = base.clone();
                A::slots::<f64>(&mut st, iin)[k].x += h;
                f.call(A::borrow(&mut st));
                slot::<f64, A, _>(&mut st, loss).x
            };
            (eval(delta / 2.0) - eval(-delta / 2.0)) / delta
        })
        .collect()
}

/// Compare [`gradient`] with [`gradient_numeric`] for argument `iin`: `|ad − fd| ≤ atol +
/// rtol·|fd|` for every slot. Returns the largest violation ratio on failure.
#[track_caller]
pub fn check_grad<F, A>(
    f: &F,
    args: A,
    loss: usize,
    iin: usize,
    atol: f64,
    rtol: f64,
) -> Result<(), String>
where
    A: GradArgs<f64>,
    F: Reversible<A> + for<'b> Reversible<A::Borrow<'b, f64>>,
{
    let fd = gradient_numeric(f, &args, loss, iin, 1e-5);
    let mut st = gradient(f, args, loss);
    let ad = grads::<A, f64>(&mut st, iin);
    for (k, (a, n)) in ad.iter().zip(&fd).enumerate() {
        if (a - n).abs() > atol + rtol * n.abs() {
            return Err(format!(
                "slot {k}: AD gradient {a} vs finite difference {n}"
            ));
        }
    }
    Ok(())
}

/// Central-difference Hessian of argument `loss` with respect to argument `iin`: differences of
/// the reverse-mode gradient with step `delta` (NiLang's `hessian_numeric`), symmetrised.
/// `H[k][i] ≈ ∂²L/∂in_k∂in_i`.
///
/// ```
/// use nilang::prelude::*;
/// #[i]
/// fn cube<T: Scalar>(y: &mut T, x: &mut [T; 1]) {
///     y += x[0].powi(3);
/// }
/// let h = nilang::ad::hessian_numeric(&Cube, (&mut 0.0, &mut [2.0]), 0, 1, 1e-4);
/// assert!((h[0][0] - 12.0).abs() < 1e-6);
/// ```
#[allow(clippy::needless_range_loop)]
#[track_caller]
pub fn hessian_numeric<F, A>(f: &F, args: A, loss: usize, iin: usize, delta: f64) -> Vec<Vec<f64>>
where
    A: GradArgs<f64>,
    F: Reversible<A> + for<'b> Reversible<A::Borrow<'b, f64>>,
{
    check_loss::<A, _>(loss, "loss");
    check_index::<A, _>(iin, "input");
    let one = one_pass::<F, A, f64, _>(f, loss);
    let base = args.store::<f64>();
    let n = A::slots::<f64>(&mut base.clone(), iin).len();
    // the gradient of `loss` w.r.t. `iin` at a perturbed point, by the gradient pass(es)
    let grad_at = |k: usize, h: f64| -> Vec<f64> {
        let mut st = base.clone();
        A::slots::<f64>(&mut st, iin)[k].x += h;
        backward::<F, A, f64, _>(f, &mut st, loss, one, 1.0, &mut crate::tape::Tape::new());
        A::slots::<f64>(&mut st, iin).iter().map(|v| v.g).collect()
    };
    let mut h: Vec<Vec<f64>> = (0..n)
        .map(|k| {
            let (gp, gm) = (grad_at(k, delta / 2.0), grad_at(k, -delta / 2.0));
            gp.iter().zip(&gm).map(|(p, m)| (p - m) / delta).collect()
        })
        .collect();
    // symmetrise: H[i][j] = H[j][i] = (H[i][j] + H[j][i]) / 2
    for i in 0..n {
        for j in 0..i {
            let v = 0.5 * (h[i][j] + h[j][i]);
            h[i][j] = v;
            h[j][i] = v;
        }
    }
    h
}
