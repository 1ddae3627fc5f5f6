//! Jacobians (one reverse pass per output, or all outputs at once on [`Lanes`]) and Hessians
//! (forward-over-reverse and reverse-over-reverse).
use super::args::{Elem, GradArgs};
use super::grad::{backward, check_index, check_loss, one_pass, seed_lanes, slot, Differentiable};
use super::{GVar, Lanes};
use crate::Reversible;

/// The Jacobian of argument `iout` with respect to argument `iin`, one backward pass per
/// output: `J[j][i] = ∂out_j/∂in_i` (rows are outputs, the usual convention; NiLang returns
/// the transpose). The arguments are left unchanged.
#[track_caller]
pub fn jacobian_repeat<F, A, E>(f: &F, args: A, iin: usize, iout: usize) -> Vec<Vec<E>>
where
    E: Elem,
    A: GradArgs<E>,
    F: Differentiable<A, E>,
{
    check_index::<A, _>(iin, "input");
    check_index::<A, _>(iout, "output");
    let mut base = args.store::<E>();
    f.call(A::borrow(&mut base));
    let m = A::slots::<E>(&mut base.clone(), iout).len();
    let mut jac = Vec::with_capacity(m);
    for j in 0..m {
        let mut st = base.clone();
        A::slots::<E>(&mut st, iout)[j].g = E::one();
        f.uncall(A::borrow(&mut st));
        jac.push(A::slots::<E>(&mut st, iin).iter().map(|v| v.g).collect());
    }
    jac
}

/// The Jacobian in one backward pass with vector-valued adjoints (`N` lanes, NiLang's
/// `AutoBcast`): requires `N ≥` the number of outputs. Same layout as [`jacobian_repeat`].
/// One pass (no forward run) when `f` is compute–copy–uncompute in argument `iout`.
///
/// ```
/// use nilang::prelude::*;
/// #[i]
/// fn polar<T: Scalar>(xy: &mut [T; 2], rt: &mut [T; 2]) {
///     routine! {
///         let (c, s) = (T::default(), T::default());
///         c += cos(rt[1]);
///         s += sin(rt[1]);
///     }
///     xy[0] += rt[0] * c;
///     xy[1] += rt[0] * s;
///     unroutine!();
/// }
/// let (mut xy, mut rt) = ([0.0; 2], [2.0, 0.3]);
/// let j = nilang::ad::jacobian::<_, _, 2>(&Polar, (&mut xy, &mut rt), 1, 0);
/// assert!((j[0][0] - 0.3_f64.cos()).abs() < 1e-15 && (j[1][1] - 2.0 * 0.3_f64.cos()).abs() < 1e-15);
/// ```
#[track_caller]
pub fn jacobian<F, A, const N: usize>(f: &F, args: A, iin: usize, iout: usize) -> Vec<Vec<f64>>
where
    A: GradArgs<f64>,
    F: Reversible<A> + for<'b> Reversible<A::Borrow<'b, Lanes<N>>>,
{
    check_index::<A, _>(iin, "input");
    check_index::<A, _>(iout, "output");
    let one = one_pass::<F, A, Lanes<N>, _>(f, iout);
    let mut st = args.store::<Lanes<N>>();
    // the forward and backward passes on a store tape of their own (`#[store]` routines)
    let m = crate::tape::Tape::new().scope(|| {
        if !one {
            f.call_primal(A::borrow(&mut st));
        }
        seed_lanes::<A, N>(&mut st, iout);
        let m = A::slots::<Lanes<N>>(&mut st, iout).len();
        f.uncall(A::borrow(&mut st));
        m
    });
    let ins = A::slots::<Lanes<N>>(&mut st, iin);
    (0..m)
        .map(|j| ins.iter().map(|v| v.g.0[j]).collect())
        .collect()
}

/// Hessian of the loss with respect to argument `iin`, forward-over-reverse: one gradient pass
/// on `GVar<Dual<f64>>` per input slot (one reverse pass each when `f` is
/// compute–copy–uncompute in the loss). `H[k][i] = ∂²L/∂in_k∂in_i`.
#[track_caller]
pub fn hessian_fwd_rev<F, A>(f: &F, args: A, loss: usize, iin: usize) -> Vec<Vec<f64>>
where
    A: GradArgs<f64>,
    F: Reversible<A> + for<'b> Reversible<A::Borrow<'b, crate::numbers::Dual<f64>>>,
{
    use crate::numbers::Dual;
    check_loss::<A, _>(loss, "loss");
    check_index::<A, _>(iin, "input");
    let one = one_pass::<F, A, Dual<f64>, _>(f, loss);
    let base = args.store::<Dual<f64>>();
    let n = A::slots::<Dual<f64>>(&mut base.clone(), iin).len();
    let mut st = base.clone();
    (0..n)
        .map(|k| {
            st.clone_from(&base);
            A::slots::<Dual<f64>>(&mut st, iin)[k].x.eps = 1.0;
            backward::<F, A, Dual<f64>, _>(
                f,
                &mut st,
                loss,
                one,
                Dual::new(1.0, 0.0),
                &mut crate::tape::Tape::new(),
            );
            A::slots::<Dual<f64>>(&mut st, iin)
                .iter()
                .map(|v| v.g.eps)
                .collect()
        })
        .collect()
}

/// [`hessian_fwd_rev`] with `B::LANES` Hessian columns per reverse pass: the gradient program
/// runs on `GVar<Duals<B>>` ([`Duals`](crate::numbers::Duals): the value once, one tangent
/// per lane), lane `j` seeded with the direction of input slot `c + j`. The same arithmetic
/// as [`hessian_fwd_rev`] lane by lane (the same result, bit for bit), `⌈n / LANES⌉` passes
/// instead of `n`. `H[k][i] = ∂²L/∂in_k∂in_i`.
///
/// ```
/// use nilang::prelude::*;
/// use nilang::numbers::F64x4;
/// // L = x0² x1 + x1 x2³
/// #[i]
/// fn f<T: Scalar>(out: &mut T, x: &mut [T]) {
///     let a = T::default();
///     let b = T::default();
///     routine! {
///         a += abs2(x[0]);
///         b += x[2].powi(3);
///     }
///     out += a * x[1];
///     out += b * x[1];
///     unroutine!();
///     dealloc!(b = T::default());
///     dealloc!(a = T::default());
/// }
/// let mut x = [1.0, 2.0, 3.0];
/// let h = nilang::ad::hessian_fwd_rev_lanes::<F64x4, _, _>(&F, (&mut 0.0, &mut x[..]), 0, 1);
/// assert_eq!(h, nilang::ad::hessian_fwd_rev(&F, (&mut 0.0, &mut x[..]), 0, 1));
/// assert_eq!(h, vec![vec![4.0, 2.0, 0.0], vec![2.0, 0.0, 27.0], vec![0.0, 27.0, 36.0]]);
/// ```
#[track_caller]
pub fn hessian_fwd_rev_lanes<B, F, A>(f: &F, args: A, loss: usize, iin: usize) -> Vec<Vec<f64>>
where
    B: crate::numbers::Tangents,
    A: GradArgs<f64>,
    F: Reversible<A> + for<'b> Reversible<A::Borrow<'b, crate::numbers::Duals<B>>>,
{
    use crate::numbers::Duals;
    check_loss::<A, _>(loss, "loss");
    check_index::<A, _>(iin, "input");
    let one = one_pass::<F, A, Duals<B>, _>(f, loss);
    let base = args.store::<Duals<B>>();
    let n = A::slots::<Duals<B>>(&mut base.clone(), iin).len();
    let mut h = vec![vec![0.0; n]; n];
    let mut st = base.clone();
    for c in (0..n).step_by(B::LANES) {
        let w = B::LANES.min(n - c);
        st.clone_from(&base);
        let mut ins = A::slots::<Duals<B>>(&mut st, iin);
        for j in 0..w {
            ins[c + j].x.eps = B::from_fn(|l| if l == j { 1.0 } else { 0.0 });
        }
        backward::<F, A, Duals<B>, _>(
            f,
            &mut st,
            loss,
            one,
            Duals::constant(1.0),
            &mut crate::tape::Tape::new(),
        );
        for (i, v) in A::slots::<Duals<B>>(&mut st, iin).iter().enumerate() {
            for (j, row) in h[c..c + w].iter_mut().enumerate() {
                row[i] = v.g.eps.lane(j);
            }
        }
    }
    h
}

/// Hessian of the loss with respect to argument `iin`, reverse-over-reverse (NiLang's
/// `hessian_backback`): run `Grad(f)` on `GVar<GVar<f64>>`, seed the adjoint of one gradient,
/// and run `~Grad(f)`.
#[track_caller]
pub fn hessian_rev_rev<F, A>(f: &F, args: A, loss: usize, iin: usize) -> Vec<Vec<f64>>
where
    A: GradArgs<f64>,
    F: Reversible<A> + for<'b> Reversible<A::Borrow<'b, GVar<f64>>>,
{
    check_loss::<A, _>(loss, "loss");
    check_index::<A, _>(iin, "input");
    let base = args.store::<GVar<f64>>();
    let n = A::slots::<GVar<f64>>(&mut base.clone(), iin).len();
    let mut tape = crate::tape::Tape::new();
    (0..n)
        .map(|k| {
            let mut st = base.clone();
            // on a store tape of its own (one for all columns: each leaves it empty)
            tape.scope(|| {
                // Grad(f)
                f.call(A::borrow(&mut st));
                slot::<GVar<f64>, A, _>(&mut st, loss).g.x += 1.0;
                f.uncall(A::borrow(&mut st));
                // seed the adjoint of gradient k, then ~Grad(f)
                A::slots::<GVar<f64>>(&mut st, iin)[k].g.g += 1.0;
                f.call(A::borrow(&mut st));
                slot::<GVar<f64>, A, _>(&mut st, loss).g.x -= 1.0;
                f.uncall(A::borrow(&mut st));
            });
            A::slots::<GVar<f64>>(&mut st, iin)
                .iter()
                .map(|v| v.x.g)
                .collect()
        })
        .collect()
}
