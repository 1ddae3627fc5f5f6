//! The gradient API: gradients, plans, the reversible `Grad`, Jacobians, Hessians, numeric
//! checkers.
//!
//! **One reverse pass when the program allows it.** When the function is compute–copy–uncompute
//! in the loss (the compiler's one-pass analysis, [`Reversible::additive`]), its state after the
//! forward pass equals its input state except for the loss, and no adjoint depends on the
//! loss's value: the backward pass starts from the inputs, and the value comes out as a
//! by-product (`loss_in − loss_after_backward`). Otherwise: forward, then backward, both on
//! the gradient numbers.
use super::args::{Elem, GradArgs, Lift, Slots};
use super::{GVar, Lanes};
use crate::tape::Tape;
use crate::Reversible;

/// What every gradient entry point asks of the function: it runs on the arguments `A` and on
/// their lifted storage (`A::Borrow`, gradient numbers over `E`). Implemented for every such
/// function.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot run on gradient numbers with these arguments",
    label = "not differentiable with arguments `{A}`",
    note = "an `#[i]` function written for `f64` only runs on `f64`: make the function generic \
            over `T: Scalar` (`fn f<T: Scalar>(out: &mut T, x: &mut T)`, constants written \
            `T::lit(..)`) so that the gradient can run it on `GVar<f64>`",
    note = "the argument tuple must match the function's parameters, in order"
)]
pub trait Differentiable<A: GradArgs<E>, E: Elem>:
    Reversible<A> + for<'b> Reversible<A::Borrow<'b, E>>
{
}
impl<F, A: GradArgs<E>, E: Elem> Differentiable<A, E> for F where
    F: Reversible<A> + for<'b> Reversible<A::Borrow<'b, E>>
{
}

/// Gradient storage of an argument list: every argument as gradient numbers.
pub type Store<A, E = f64> = <A as GradArgs<E>>::Store<E>;

/// Panic (at the caller's line) unless argument `k` exists and is a scalar `&mut` number.
#[inline]
#[track_caller]
pub(super) fn check_loss<A: GradArgs<E>, E: Elem>(k: usize, what: &str) {
    match A::scalar_out(k) {
        Some(true) => {}
        Some(false) => panic!(
            "nilang: the {what} (argument {k}) must be a scalar `&mut` number (a `&mut f64`, not a \
             slice, a read-only reference or an integer)"
        ),
        None => panic!(
            "nilang: the {what} is argument {k}, but the function has {} arguments (0..{})",
            A::LEN,
            A::LEN
        ),
    }
}

/// Panic (at the caller's line) unless argument `k` exists.
#[inline]
#[track_caller]
pub(super) fn check_index<A: GradArgs<E>, E: Elem>(k: usize, what: &str) {
    if k >= A::LEN {
        panic!(
            "nilang: the {what} is argument {k}, but the function has {} arguments (0..{})",
            A::LEN,
            A::LEN
        );
    }
}

/// Whether `f` is compute–copy–uncompute in argument `k` (the compiler's one-pass analysis).
#[inline]
pub(super) fn one_pass<F, A, S, E>(f: &F, k: usize) -> bool
where
    E: Elem,
    A: GradArgs<E>,
    S: Lift<E> + 'static,
    F: for<'b> Reversible<A::Borrow<'b, S>>,
{
    k < 64 && (<F as Reversible<A::Borrow<'static, S>>>::additive(f) >> k) & 1 == 1
}

/// The arguments of `f` whose values a [`Plan`]'s backward pass may leave as it finds them
/// (its `zero(..)` workspaces, [`Reversible::workspaces`]; the plan rewrites them at its next
/// call), but for argument `keep` (a loss whose value is read).
#[inline]
fn left_workspaces<F, A, S, E>(f: &F, keep: usize) -> crate::abi::ParamMask
where
    E: Elem,
    A: GradArgs<E>,
    S: Lift<E> + 'static,
    F: for<'b> Reversible<A::Borrow<'b, S>>,
{
    <F as Reversible<A::Borrow<'static, S>>>::workspaces(f)
        & !1u64.checked_shl(keep as u32).unwrap_or(0)
}

/// `f.uncall(args)`, or its adjoint-only form with the arguments `left` dead where there are any.
#[inline]
fn uncall_leaving<F: Reversible<B>, B>(f: &F, args: B, left: crate::abi::ParamMask) {
    if left == 0 {
        f.uncall(args);
    } else {
        f.uncall_dead(args, left);
    }
}

#[inline]
pub(super) fn slot<S, A: GradArgs<E>, E: Elem>(st: &mut A::Store<S>, k: usize) -> &mut GVar<S>
where
    S: Lift<E>,
{
    match A::slots::<S>(st, k) {
        Slots::Slice(s) => &mut s[0],
        Slots::Fields(mut v) => v.swap_remove(0),
        Slots::Pairs(z) => &mut z[0].re,
    }
}

/// The backward pass on `st` (holding the inputs, zero adjoints) with the loss's adjoint
/// seeded, as one pass (`one_pass`) or after a forward pass on `st`, both inside a scope of
/// `tape` (the store tape of this call). Returns the loss value after the forward pass; `st`
/// holds the inputs (up to rounding) with their gradients.
#[inline]
pub(super) fn backward<F, A, S, E>(
    f: &F,
    st: &mut A::Store<S>,
    loss: usize,
    one_pass: bool,
    one: S,
    tape: &mut Tape,
) -> S
where
    E: Elem,
    A: GradArgs<E>,
    S: Lift<E> + core::ops::AddAssign + core::ops::Sub<Output = S> + core::ops::Add<Output = S>,
    F: for<'b> Reversible<A::Borrow<'b, S>>,
{
    backward_leaving::<F, A, S, E>(f, st, loss, one_pass, one, tape, 0)
}

/// [`backward`], the one-pass backward pass leaving the values of the arguments `left` as it
/// finds them ([`left_workspaces`]: a [`Plan`]'s, which rewrites them at its next call).
#[inline]
fn backward_leaving<F, A, S, E>(
    f: &F,
    st: &mut A::Store<S>,
    loss: usize,
    one_pass: bool,
    one: S,
    tape: &mut Tape,
    left: crate::abi::ParamMask,
) -> S
where
    E: Elem,
    A: GradArgs<E>,
    S: Lift<E> + core::ops::AddAssign + core::ops::Sub<Output = S> + core::ops::Add<Output = S>,
    F: for<'b> Reversible<A::Borrow<'b, S>>,
{
    if one_pass {
        let v0 = slot::<S, A, _>(st, loss).x;
        slot::<S, A, _>(st, loss).g += one;
        // (the `#[store]` routines of the functions it calls store on this call's tape too)
        tape.scope(|| uncall_leaving(f, A::borrow(st), left));
        let s = slot::<S, A, _>(st, loss);
        let after = s.x;
        s.x = v0;
        v0 + (v0 - after)
    } else {
        tape.scope(|| {
            f.call_primal(A::borrow(st));
            let s = slot::<S, A, _>(st, loss);
            let v = s.x;
            s.g += one;
            f.uncall(A::borrow(st));
            v
        })
    }
}

/// The gradient of argument `loss` (a scalar) with respect to every argument.
///
/// One reverse pass on gradient numbers when `f` is compute–copy–uncompute in the loss;
/// otherwise `f` runs forward first. The caller's arguments are never changed; the
/// returned storage holds the inputs with their gradients in `.g`. No heap allocation for
/// scalar arguments; a [`Plan`] reuses the storage of slices across calls. Panics at the
/// caller's line, before anything runs, if `loss` is not a scalar `&mut` argument.
///
/// ```
/// use nilang::prelude::*;
/// #[i]
/// fn f<T: Scalar>(y: &mut T, a: &mut T, b: &mut T) {
///     y += a * b;
/// }
/// let (mut y, mut a, mut b) = (0.0, 2.0, 3.0);
/// let (gy, ga, gb) = nilang::gradient(&F, (&mut y, &mut a, &mut b), 0);
/// assert_eq!((gy.g, ga.g, gb.g), (1.0, 3.0, 2.0));
/// assert_eq!((y, a, b), (0.0, 2.0, 3.0));
/// ```
#[inline]
#[track_caller]
pub fn gradient<F, A, E>(f: &F, args: A, loss: usize) -> Store<A, E>
where
    E: Elem,
    A: GradArgs<E>,
    F: Differentiable<A, E>,
{
    value_and_gradient(f, args, loss).1
}

/// The loss value after the forward run, and the gradient storage of [`gradient`].
///
/// ```
/// use nilang::prelude::*;
/// #[i]
/// fn sq<T: Scalar>(y: &mut T, x: &mut T) {
///     y += x.powi(2);
/// }
/// let (v, (_, gx)) = nilang::ad::value_and_gradient(&Sq, (&mut 0.0, &mut 3.0), 0);
/// assert_eq!((v, gx.g), (9.0, 6.0));
/// ```
#[inline]
#[track_caller]
pub fn value_and_gradient<F, A, E>(f: &F, args: A, loss: usize) -> (E, Store<A, E>)
where
    E: Elem,
    A: GradArgs<E>,
    F: Differentiable<A, E>,
{
    check_loss::<A, _>(loss, "loss");
    let one = one_pass::<F, A, E, _>(f, loss);
    let mut st = args.store::<E>();
    let v = backward::<F, A, E, _>(f, &mut st, loss, one, E::one(), &mut Tape::new());
    (v, st)
}

/// A reusable gradient computation: the gradient storage is allocated at the first call and
/// reused by every later call with arguments of the same types and shapes, so repeated
/// gradients and Jacobians allocate nothing. Workspaces (ancilla buffers passed as arguments,
/// see [`grad_struct!`](crate::grad_struct)) are lifted along with everything else.
///
/// ```
/// use nilang::prelude::*;
/// use nilang::ad::Plan;
/// #[i]
/// fn sumsq<T: Scalar>(out: &mut T, x: &mut [T]) {
///     for i in 0..x.len() {
///         out += abs2(x[i]);
///     }
/// }
/// let mut plan = Plan::new();
/// for step in 0..3 {
///     let mut x = vec![1.0, 2.0 + step as f64];
///     let (v, (_, gx)) = plan.value_and_gradient(&Sumsq, (&mut 0.0, &mut x[..]), 0);
///     assert_eq!(v, 1.0 + (2.0 + step as f64).powi(2));
///     assert_eq!(gx[1].g, 2.0 * x[1]);
/// }
/// ```
#[derive(Clone, Debug)]
pub struct Plan<St> {
    store: Option<St>,
    /// The store tape of `#[store]` routines, kept so its buffers are reused.
    tape: Tape,
}

/// What a backward pass of a [`Plan`] seeds: the adjoint one on a scalar loss (argument
/// index), or the given adjoints on the slots of an output argument.
#[derive(Clone, Copy)]
enum Seed<'s, E> {
    Loss(usize),
    Outputs(usize, &'s [E]),
}

impl<St> Default for Plan<St> {
    fn default() -> Self {
        Plan {
            store: None,
            tape: Tape::new(),
        }
    }
}

impl<St> Plan<St> {
    /// An empty plan (storage is made at the first call; its type is the storage of the
    /// arguments of the first call).
    pub fn new() -> Self {
        Self::default()
    }

    /// The statistics of this plan's store tape (where `#[store]` routines keep their results
    /// between the forward and the backward pass of each call; empty between calls, its
    /// buffers kept for the next call).
    pub fn tape_stats(&self) -> crate::tape::TapeStats {
        self.tape.stats()
    }

    /// The storage of the last call (inputs with their gradients), if any. The values of the
    /// function's `zero(..)` workspaces ([`Reversible::workspaces`]) are left there as the
    /// backward pass leaves them (not set back to zero: the next call rewrites them).
    pub fn storage(&self) -> Option<&St> {
        self.store.as_ref()
    }

    /// Storage for `args` over `S`, refreshed with their values: reused when it fits. The
    /// arguments `zero` (the `zero(..)` workspaces, [`left_workspaces`]) are refreshed with
    /// zeros (values and adjoints in one store stream, the caller's zeros not read): the
    /// backward pass of the last call left their values dirty and their adjoints nonzero.
    /// At the first call too, so that a plan never reads a workspace the caller passes.
    #[inline]
    fn refreshed<A, S, E>(&mut self, args: &A, zero: crate::abi::ParamMask) -> &mut St
    where
        E: Elem,
        A: GradArgs<E, Store<S> = St>,
        S: Lift<E>,
    {
        match &mut self.store {
            Some(st) if args.fits::<S>(st) => {
                args.refresh_zeroing::<S>(st, zero);
            }
            slot => {
                let st = slot.insert(args.store::<S>());
                if zero != 0 {
                    args.refresh_zeroing::<S>(st, zero);
                }
            }
        }
        self.store.as_mut().expect("just made")
    }

    /// [`value_and_gradient`] with this plan's storage: the value and the storage (inputs with
    /// their gradients in `.g`). No allocation after the first call.
    #[inline]
    #[track_caller]
    pub fn value_and_gradient<F, A, E>(&mut self, f: &F, args: A, loss: usize) -> (E, &mut St)
    where
        E: Elem + Lift<E>,
        A: GradArgs<E, Store<E> = St>,
        F: Differentiable<A, E>,
    {
        self.backward_from(f, args, Seed::Loss(loss))
    }

    /// The gradient alone (as `jax.grad`): [`Plan::value_and_gradient`]'s storage, the loss's
    /// value not computed. When `f` is compute–copy–uncompute in the loss, the backward pass
    /// runs with the loss dead ([`Reversible::uncall_dead`]): the loss's value updates are
    /// skipped, so a loop `out += s[k]` moves adjoints only (no chain of dependent additions),
    /// and the loss slot keeps its input value. Otherwise as [`Plan::value_and_gradient`].
    /// The same gradient bits. No allocation after the first call.
    ///
    /// ```
    /// use nilang::prelude::*;
    /// #[i]
    /// fn sumsq<T: Scalar>(out: &mut T, x: &mut [T]) {
    ///     for i in 0..x.len() {
    ///         out += abs2(x[i]);
    ///     }
    /// }
    /// let mut plan = nilang::ad::Plan::new();
    /// let (_, gx) = plan.gradient(&Sumsq, (&mut 0.0, &mut [1.0, 3.0][..]), 0);
    /// assert_eq!((gx[0].g, gx[1].g), (2.0, 6.0));
    /// ```
    #[inline]
    #[track_caller]
    pub fn gradient<F, A, E>(&mut self, f: &F, args: A, loss: usize) -> &mut St
    where
        E: Elem + Lift<E>,
        A: GradArgs<E, Store<E> = St>,
        F: Differentiable<A, E>,
    {
        check_loss::<A, _>(loss, "loss");
        self.backward_from(f, args, Seed::Outputs(loss, &[E::one()]))
            .1
    }

    /// The vector–Jacobian product: the adjoints of every argument for output adjoints
    /// `seed` on the slots of argument `iout` (one backward pass; no forward pass when `f` is
    /// compute–copy–uncompute in `iout`). No allocation after the first call.
    ///
    /// ```
    /// use nilang::prelude::*;
    /// #[i]
    /// fn scale<T: Scalar>(y: &mut [T], x: &mut [T]) {
    ///     for i in 0..y.len() {
    ///         y[i] += x[i] * x[i + 1];
    ///     }
    /// }
    /// let mut plan = nilang::ad::Plan::new();
    /// let (_, gx) = plan.vjp(&Scale, (&mut [0.0; 2][..], &mut [1.0, 2.0, 3.0][..]), 0, &[1.0, 10.0]);
    /// assert_eq!(gx.iter().map(|v| v.g).collect::<Vec<_>>(), [2.0, 1.0 + 30.0, 20.0]);
    /// ```
    #[inline]
    #[track_caller]
    pub fn vjp<F, A, E>(&mut self, f: &F, args: A, iout: usize, seed: &[E]) -> &mut St
    where
        E: Elem + Lift<E>,
        A: GradArgs<E, Store<E> = St>,
        F: Differentiable<A, E>,
    {
        self.backward_from(f, args, Seed::Outputs(iout, seed)).1
    }

    /// [`Plan::value_and_gradient`] for a function that need only run on the lifted arguments
    /// (arguments such as [`Shared`](super::Shared) that the function never takes unlifted).
    #[inline]
    pub(super) fn value_and_gradient_lifted<F, A, E>(
        &mut self,
        f: &F,
        args: A,
        loss: usize,
    ) -> (E, &mut St)
    where
        E: Elem + Lift<E>,
        A: GradArgs<E, Store<E> = St>,
        F: for<'b> Reversible<A::Borrow<'b, E>>,
    {
        self.backward_from(f, args, Seed::Loss(loss))
    }

    /// [`Plan::gradient`] for a function that need only run on the lifted arguments (as
    /// [`Plan::value_and_gradient_lifted`]).
    #[inline]
    #[track_caller]
    pub(super) fn gradient_lifted<F, A, E>(&mut self, f: &F, args: A, loss: usize) -> &mut St
    where
        E: Elem + Lift<E>,
        A: GradArgs<E, Store<E> = St>,
        F: for<'b> Reversible<A::Borrow<'b, E>>,
    {
        check_loss::<A, _>(loss, "loss");
        self.backward_from(f, args, Seed::Outputs(loss, &[E::one()]))
            .1
    }

    /// The backward pass of [`Plan::value_and_gradient`] (`Seed::Loss`: the loss's value,
    /// its adjoint one) and of [`Plan::vjp`] (`Seed::Outputs`: the given output adjoints; the
    /// value returned is then the default): the index checked before anything runs, no
    /// forward pass when `f` is compute–copy–uncompute in it.
    #[inline]
    #[track_caller]
    fn backward_from<F, A, E>(&mut self, f: &F, args: A, seed: Seed<'_, E>) -> (E, &mut St)
    where
        E: Elem + Lift<E>,
        A: GradArgs<E, Store<E> = St>,
        F: for<'b> Reversible<A::Borrow<'b, E>>,
    {
        let out = match seed {
            Seed::Loss(loss) => {
                check_loss::<A, _>(loss, "loss");
                loss
            }
            Seed::Outputs(iout, _) => {
                check_index::<A, _>(iout, "output");
                iout
            }
        };
        let one = one_pass::<F, A, E, _>(f, out);
        // the `zero(..)` workspaces' values are left (rewritten at the next call)
        let left = left_workspaces::<F, A, E, _>(f, out);
        self.refreshed::<A, E, _>(&args, left);
        let (Some(st), tape) = (self.store.as_mut(), &mut self.tape) else {
            unreachable!("refreshed")
        };
        let Seed::Outputs(_, seed) = seed else {
            let v = backward_leaving::<F, A, E, _>(f, st, out, one, E::one(), tape, left);
            return (v, st);
        };
        if seed.len() != A::slots::<E>(st, out).len() {
            panic!(
                "nilang: vjp with {} adjoints for {} outputs",
                seed.len(),
                A::slots::<E>(st, out).len()
            );
        }
        tape.scope(|| {
            if !one {
                f.call_primal(A::borrow(st));
            }
            let mut outs = A::slots::<E>(st, out);
            for (s, &v) in outs.iter_mut().zip(seed) {
                s.g += v;
            }
            uncall_outputs_dead(f, A::borrow(st), one, out, left);
        });
        (E::default(), st)
    }

    /// The Jacobian of the (at most `N`) outputs in argument `iout` with respect to every
    /// argument, in one backward pass with `N` adjoint lanes (see [`jacobian`](super::jacobian)): lane `j` of
    /// each slot's `.g` holds `∂out_j/∂slot`. No allocation after the first call.
    #[track_caller]
    #[inline]
    pub fn jacobian<F, A, const N: usize>(&mut self, f: &F, args: A, iout: usize) -> &mut St
    where
        A: GradArgs<f64, Store<Lanes<N>> = St>,
        F: Reversible<A> + for<'b> Reversible<A::Borrow<'b, Lanes<N>>>,
    {
        check_index::<A, _>(iout, "output");
        let one = one_pass::<F, A, Lanes<N>, _>(f, iout);
        let left = left_workspaces::<F, A, Lanes<N>, _>(f, iout);
        self.refreshed::<A, Lanes<N>, _>(&args, left);
        let (Some(st), tape) = (self.store.as_mut(), &mut self.tape) else {
            unreachable!("refreshed")
        };
        tape.scope(|| {
            if !one {
                f.call_primal(A::borrow(st));
            }
            seed_lanes::<A, N>(st, iout);
            uncall_outputs_dead(f, A::borrow(st), one, iout, left);
        });
        st
    }
}

/// The backward pass's uncall when only adjoints are returned: in a one-pass backward pass
/// the values of the outputs (argument `out`) are read by nothing afterwards (the pass
/// started from the inputs, so restoring them would give no meaningful value), nor those of
/// the arguments `left` ([`left_workspaces`]), and `f` runs its adjoint-only inverse
/// ([`Reversible::uncall_dead`]); otherwise the whole inverse restores them.
#[inline]
fn uncall_outputs_dead<F: Reversible<B>, B>(
    f: &F,
    args: B,
    one: bool,
    out: usize,
    left: crate::abi::ParamMask,
) {
    if one {
        f.uncall_dead(args, 1u64.checked_shl(out as u32).unwrap_or(0) | left);
    } else {
        f.uncall(args);
    }
}

/// Seed lane `j` of output slot `j` of argument `iout`.
#[track_caller]
#[inline]
pub(super) fn seed_lanes<A: GradArgs<f64>, const N: usize>(
    st: &mut A::Store<Lanes<N>>,
    iout: usize,
) {
    let mut outs = A::slots::<Lanes<N>>(st, iout);
    let m = outs.len();
    assert!(
        m <= N,
        "nilang: jacobian with {N} lanes for {m} outputs: use at least {m} lanes"
    );
    for (j, s) in outs.iter_mut().enumerate() {
        s.g.0[j] += 1.0;
    }
}

/// The gradients of argument `k` of a gradient result, as plain numbers.
pub fn grads<A: GradArgs<E>, E: Elem>(st: &mut Store<A, E>, k: usize) -> Vec<E> {
    A::slots::<E>(st, k).iter().map(|v| v.g).collect()
}
