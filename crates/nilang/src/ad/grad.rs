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
use crate::Reversible;

/// Gradient storage of an argument list: every argument as gradient numbers.
pub type Store<A, E = f64> = <A as GradArgs<E>>::Store<E>;

/// Panic (at the caller's line) unless argument `k` exists and is a scalar `&mut` number.
#[track_caller]
fn check_loss<A: GradArgs<E>, E: Elem>(k: usize, what: &str) {
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
#[track_caller]
fn check_index<A: GradArgs<E>, E: Elem>(k: usize, what: &str) {
    if k >= A::LEN {
        panic!(
            "nilang: the {what} is argument {k}, but the function has {} arguments (0..{})",
            A::LEN,
            A::LEN
        );
    }
}

/// Whether `f` is compute–copy–uncompute in argument `k` (the compiler's one-pass analysis).
fn one_pass<F, A, S, E>(f: &F, k: usize) -> bool
where
    E: Elem,
    A: GradArgs<E>,
    S: Lift<E> + 'static,
    F: for<'b> Reversible<A::Borrow<'b, S>>,
{
    k < 64 && (<F as Reversible<A::Borrow<'static, S>>>::additive(f) >> k) & 1 == 1
}

fn slot<S, A: GradArgs<E>, E: Elem>(st: &mut A::Store<S>, k: usize) -> &mut GVar<S>
where
    S: Lift<E>,
{
    match A::slots::<S>(st, k) {
        Slots::Slice(s) => &mut s[0],
        Slots::Fields(mut v) => v.swap_remove(0),
    }
}

/// The backward pass on `st` (holding the inputs, zero adjoints) with the loss's adjoint
/// seeded, as one pass (`one_pass`) or after a forward pass on `st`. Returns the loss value
/// after the forward pass; `st` holds the inputs (up to rounding) with their gradients.
fn backward<F, A, S, E>(f: &F, st: &mut A::Store<S>, loss: usize, one_pass: bool, one: S) -> S
where
    E: Elem,
    A: GradArgs<E>,
    S: Lift<E> + core::ops::AddAssign + core::ops::Sub<Output = S> + core::ops::Add<Output = S>,
    F: for<'b> Reversible<A::Borrow<'b, S>>,
{
    if one_pass {
        let v0 = slot::<S, A, _>(st, loss).x;
        slot::<S, A, _>(st, loss).g += one;
        f.uncall(A::borrow(st));
        let s = slot::<S, A, _>(st, loss);
        let after = s.x;
        s.x = v0;
        v0 + (v0 - after)
    } else {
        f.call_primal(A::borrow(st));
        let s = slot::<S, A, _>(st, loss);
        let v = s.x;
        s.g += one;
        f.uncall(A::borrow(st));
        v
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
#[track_caller]
pub fn gradient<F, A, E>(f: &F, args: A, loss: usize) -> Store<A, E>
where
    E: Elem,
    A: GradArgs<E>,
    F: Reversible<A> + for<'b> Reversible<A::Borrow<'b, E>>,
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
#[track_caller]
pub fn value_and_gradient<F, A, E>(f: &F, args: A, loss: usize) -> (E, Store<A, E>)
where
    E: Elem,
    A: GradArgs<E>,
    F: Reversible<A> + for<'b> Reversible<A::Borrow<'b, E>>,
{
    check_loss::<A, _>(loss, "loss");
    let one = one_pass::<F, A, E, _>(f, loss);
    let mut st = args.store::<E>();
    let v = backward::<F, A, E, _>(f, &mut st, loss, one, E::one());
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
}

impl<St> Default for Plan<St> {
    fn default() -> Self {
        Plan { store: None }
    }
}

impl<St> Plan<St> {
    /// An empty plan (storage is made at the first call; its type is the storage of the
    /// arguments of the first call).
    pub fn new() -> Self {
        Self::default()
    }

    /// The storage of the last call (inputs with their gradients), if any.
    pub fn storage(&self) -> Option<&St> {
        self.store.as_ref()
    }

    /// Storage for `args` over `S`, refreshed with their values: reused when it fits.
    fn refreshed<A, S, E>(&mut self, args: &A) -> &mut St
    where
        E: Elem,
        A: GradArgs<E, Store<S> = St>,
        S: Lift<E>,
    {
        match &mut self.store {
            Some(st) if args.fits::<S>(st) => {
                args.refresh::<S>(st);
            }
            slot => *slot = Some(args.store::<S>()),
        }
        self.store.as_mut().expect("just made")
    }

    /// [`value_and_gradient`] with this plan's storage: the value and the storage (inputs with
    /// their gradients in `.g`). No allocation after the first call.
    #[track_caller]
    pub fn value_and_gradient<F, A, E>(&mut self, f: &F, args: A, loss: usize) -> (E, &mut St)
    where
        E: Elem + Lift<E>,
        A: GradArgs<E, Store<E> = St>,
        F: Reversible<A> + for<'b> Reversible<A::Borrow<'b, E>>,
    {
        check_loss::<A, _>(loss, "loss");
        let one = one_pass::<F, A, E, _>(f, loss);
        let st = self.refreshed::<A, E, _>(&args);
        let v = backward::<F, A, E, _>(f, st, loss, one, E::one());
        (v, st)
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
    #[track_caller]
    pub fn vjp<F, A, E>(&mut self, f: &F, args: A, iout: usize, seed: &[E]) -> &mut St
    where
        E: Elem + Lift<E>,
        A: GradArgs<E, Store<E> = St>,
        F: Reversible<A> + for<'b> Reversible<A::Borrow<'b, E>>,
    {
        check_index::<A, _>(iout, "output");
        let one = one_pass::<F, A, E, _>(f, iout);
        let st = self.refreshed::<A, E, _>(&args);
        if !one {
            f.call_primal(A::borrow(st));
        }
        let mut outs = A::slots::<E>(st, iout);
        assert_eq!(
            outs.len(),
            seed.len(),
            "nilang: vjp with {} adjoints for {} outputs",
            seed.len(),
            outs.len()
        );
        for (s, &v) in outs.iter_mut().zip(seed) {
            s.g += v;
        }
        f.uncall(A::borrow(st));
        st
    }

    /// The Jacobian of the (at most `N`) outputs in argument `iout` with respect to every
    /// argument, in one backward pass with `N` adjoint lanes (see [`jacobian`]): lane `j` of
    /// each slot's `.g` holds `∂out_j/∂slot`. No allocation after the first call.
    #[track_caller]
    pub fn jacobian<F, A, const N: usize>(&mut self, f: &F, args: A, iout: usize) -> &mut St
    where
        A: GradArgs<f64, Store<Lanes<N>> = St>,
        F: Reversible<A> + for<'b> Reversible<A::Borrow<'b, Lanes<N>>>,
    {
        check_index::<A, _>(iout, "output");
        let one = one_pass::<F, A, Lanes<N>, _>(f, iout);
        let st = self.refreshed::<A, Lanes<N>, _>(&args);
        if !one {
            f.call_primal(A::borrow(st));
        }
        seed_lanes::<A, N>(st, iout);
        f.uncall(A::borrow(st));
        st
    }
}

/// Seed lane `j` of output slot `j` of argument `iout`.
#[track_caller]
fn seed_lanes<A: GradArgs<f64>, const N: usize>(st: &mut A::Store<Lanes<N>>, iout: usize) {
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

/// NiLang's reversible `Grad(f)`: on gradient-number arguments (with zero gradients), `call`
/// runs `f`, seeds the loss and runs `f`'s inverse, leaving the inputs with their gradients;
/// `uncall` is its exact inverse and erases the gradients again.
///
/// ```
/// use nilang::prelude::*;
/// use nilang::ad::Grad;
/// #[i]
/// fn f<T: Scalar>(y: &mut T, x: &mut T) {
///     y += x.sin();
/// }
/// let (mut y, mut x) = (GVar::from(0.0), GVar::from(0.5));
/// Grad::new(F, 0).call((&mut y, &mut x));
/// assert!((x.g - 0.5_f64.cos()).abs() < 1e-15);
/// Grad::new(F, 0).uncall((&mut y, &mut x));
/// assert_eq!((x.g, y.g), (0.0, 0.0));
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Grad<F> {
    /// The function.
    pub f: F,
    /// The index of the (scalar) loss argument.
    pub loss: usize,
}
impl<F> Grad<F> {
    /// `Grad(f)` with loss argument `loss`.
    pub fn new(f: F, loss: usize) -> Self {
        Grad { f, loss }
    }
}

/// Argument tuples of gradient numbers that `Grad` can seed.
pub trait SeedArgs {
    /// Add `sign` (±1) to the adjoint of scalar argument `k`.
    fn seed(&mut self, k: usize, sign: f64);
}
/// One argument for [`SeedArgs`].
pub trait SeedArg {
    /// Add `sign` to the adjoint; false if the argument is not a scalar gradient number.
    fn seed(&mut self, sign: f64) -> bool;
}
impl<T: crate::ad::Scalar> SeedArg for &mut GVar<T> {
    fn seed(&mut self, sign: f64) -> bool {
        let mut s = T::lit(sign);
        <T as crate::instr::PlusEq1<crate::instr::fns::Identity, T>>::plus_eq(&mut self.g, &mut s);
        true
    }
}
impl<T> SeedArg for &mut [GVar<T>] {
    fn seed(&mut self, _: f64) -> bool {
        false
    }
}
impl<T, const N: usize> SeedArg for &mut [GVar<T>; N] {
    fn seed(&mut self, _: f64) -> bool {
        false
    }
}
impl<T, const N: usize> SeedArg for &[GVar<T>; N] {
    fn seed(&mut self, _: f64) -> bool {
        false
    }
}
impl<T> SeedArg for &[GVar<T>] {
    fn seed(&mut self, _: f64) -> bool {
        false
    }
}
impl<T> SeedArg for &GVar<T> {
    fn seed(&mut self, _: f64) -> bool {
        false
    }
}
macro_rules! seed_int {
    ($($t:ty),*) => {$(
        impl SeedArg for $t {
            fn seed(&mut self, _: f64) -> bool { false }
        }
    )*};
}
seed_int!(usize, isize, i32, i64, u32, u64, bool);
macro_rules! seed_tuple {
    ($($i:tt $a:ident),*) => {
        impl<$($a: SeedArg),*> SeedArgs for ($($a,)*) {
            fn seed(&mut self, k: usize, sign: f64) {
                let ok = match k { $($i => self.$i.seed(sign),)* _ => false };
                assert!(ok, "nilang: the loss (argument {k}) must be a scalar `&mut GVar` argument");
            }
        }
    };
}

seed_tuple!(0 A0);
seed_tuple!(0 A0, 1 A1);
seed_tuple!(0 A0, 1 A1, 2 A2);
seed_tuple!(0 A0, 1 A1, 2 A2, 3 A3);
seed_tuple!(0 A0, 1 A1, 2 A2, 3 A3, 4 A4);
seed_tuple!(0 A0, 1 A1, 2 A2, 3 A3, 4 A4, 5 A5);
seed_tuple!(0 A0, 1 A1, 2 A2, 3 A3, 4 A4, 5 A5, 6 A6);
seed_tuple!(0 A0, 1 A1, 2 A2, 3 A3, 4 A4, 5 A5, 6 A6, 7 A7);
seed_tuple!(0 A0, 1 A1, 2 A2, 3 A3, 4 A4, 5 A5, 6 A6, 7 A7, 8 A8);
seed_tuple!(0 A0, 1 A1, 2 A2, 3 A3, 4 A4, 5 A5, 6 A6, 7 A7, 8 A8, 9 A9);
seed_tuple!(0 A0, 1 A1, 2 A2, 3 A3, 4 A4, 5 A5, 6 A6, 7 A7, 8 A8, 9 A9, 10 A10);
seed_tuple!(0 A0, 1 A1, 2 A2, 3 A3, 4 A4, 5 A5, 6 A6, 7 A7, 8 A8, 9 A9, 10 A10, 11 A11);
seed_tuple!(0 A0, 1 A1, 2 A2, 3 A3, 4 A4, 5 A5, 6 A6, 7 A7, 8 A8, 9 A9, 10 A10, 11 A11, 12 A12);
seed_tuple!(0 A0, 1 A1, 2 A2, 3 A3, 4 A4, 5 A5, 6 A6, 7 A7, 8 A8, 9 A9, 10 A10, 11 A11, 12 A12, 13 A13);
seed_tuple!(0 A0, 1 A1, 2 A2, 3 A3, 4 A4, 5 A5, 6 A6, 7 A7, 8 A8, 9 A9, 10 A10, 11 A11, 12 A12, 13 A13, 14 A14);
seed_tuple!(0 A0, 1 A1, 2 A2, 3 A3, 4 A4, 5 A5, 6 A6, 7 A7, 8 A8, 9 A9, 10 A10, 11 A11, 12 A12, 13 A13, 14 A14, 15 A15);
seed_tuple!(0 A0, 1 A1, 2 A2, 3 A3, 4 A4, 5 A5, 6 A6, 7 A7, 8 A8, 9 A9, 10 A10, 11 A11, 12 A12, 13 A13, 14 A14, 15 A15, 16 A16);
seed_tuple!(0 A0, 1 A1, 2 A2, 3 A3, 4 A4, 5 A5, 6 A6, 7 A7, 8 A8, 9 A9, 10 A10, 11 A11, 12 A12, 13 A13, 14 A14, 15 A15, 16 A16, 17 A17);
seed_tuple!(0 A0, 1 A1, 2 A2, 3 A3, 4 A4, 5 A5, 6 A6, 7 A7, 8 A8, 9 A9, 10 A10, 11 A11, 12 A12, 13 A13, 14 A14, 15 A15, 16 A16, 17 A17, 18 A18);
seed_tuple!(0 A0, 1 A1, 2 A2, 3 A3, 4 A4, 5 A5, 6 A6, 7 A7, 8 A8, 9 A9, 10 A10, 11 A11, 12 A12, 13 A13, 14 A14, 15 A15, 16 A16, 17 A17, 18 A18, 19 A19);
seed_tuple!(0 A0, 1 A1, 2 A2, 3 A3, 4 A4, 5 A5, 6 A6, 7 A7, 8 A8, 9 A9, 10 A10, 11 A11, 12 A12, 13 A13, 14 A14, 15 A15, 16 A16, 17 A17, 18 A18, 19 A19, 20 A20);
seed_tuple!(0 A0, 1 A1, 2 A2, 3 A3, 4 A4, 5 A5, 6 A6, 7 A7, 8 A8, 9 A9, 10 A10, 11 A11, 12 A12, 13 A13, 14 A14, 15 A15, 16 A16, 17 A17, 18 A18, 19 A19, 20 A20, 21 A21);
seed_tuple!(0 A0, 1 A1, 2 A2, 3 A3, 4 A4, 5 A5, 6 A6, 7 A7, 8 A8, 9 A9, 10 A10, 11 A11, 12 A12, 13 A13, 14 A14, 15 A15, 16 A16, 17 A17, 18 A18, 19 A19, 20 A20, 21 A21, 22 A22);
seed_tuple!(0 A0, 1 A1, 2 A2, 3 A3, 4 A4, 5 A5, 6 A6, 7 A7, 8 A8, 9 A9, 10 A10, 11 A11, 12 A12, 13 A13, 14 A14, 15 A15, 16 A16, 17 A17, 18 A18, 19 A19, 20 A20, 21 A21, 22 A22, 23 A23);
seed_tuple!(0 A0, 1 A1, 2 A2, 3 A3, 4 A4, 5 A5, 6 A6, 7 A7, 8 A8, 9 A9, 10 A10, 11 A11, 12 A12, 13 A13, 14 A14, 15 A15, 16 A16, 17 A17, 18 A18, 19 A19, 20 A20, 21 A21, 22 A22, 23 A23, 24 A24);
seed_tuple!(0 A0, 1 A1, 2 A2, 3 A3, 4 A4, 5 A5, 6 A6, 7 A7, 8 A8, 9 A9, 10 A10, 11 A11, 12 A12, 13 A13, 14 A14, 15 A15, 16 A16, 17 A17, 18 A18, 19 A19, 20 A20, 21 A21, 22 A22, 23 A23, 24 A24, 25 A25);
seed_tuple!(0 A0, 1 A1, 2 A2, 3 A3, 4 A4, 5 A5, 6 A6, 7 A7, 8 A8, 9 A9, 10 A10, 11 A11, 12 A12, 13 A13, 14 A14, 15 A15, 16 A16, 17 A17, 18 A18, 19 A19, 20 A20, 21 A21, 22 A22, 23 A23, 24 A24, 25 A25, 26 A26);
seed_tuple!(0 A0, 1 A1, 2 A2, 3 A3, 4 A4, 5 A5, 6 A6, 7 A7, 8 A8, 9 A9, 10 A10, 11 A11, 12 A12, 13 A13, 14 A14, 15 A15, 16 A16, 17 A17, 18 A18, 19 A19, 20 A20, 21 A21, 22 A22, 23 A23, 24 A24, 25 A25, 26 A26, 27 A27);
seed_tuple!(0 A0, 1 A1, 2 A2, 3 A3, 4 A4, 5 A5, 6 A6, 7 A7, 8 A8, 9 A9, 10 A10, 11 A11, 12 A12, 13 A13, 14 A14, 15 A15, 16 A16, 17 A17, 18 A18, 19 A19, 20 A20, 21 A21, 22 A22, 23 A23, 24 A24, 25 A25, 26 A26, 27 A27, 28 A28);
seed_tuple!(0 A0, 1 A1, 2 A2, 3 A3, 4 A4, 5 A5, 6 A6, 7 A7, 8 A8, 9 A9, 10 A10, 11 A11, 12 A12, 13 A13, 14 A14, 15 A15, 16 A16, 17 A17, 18 A18, 19 A19, 20 A20, 21 A21, 22 A22, 23 A23, 24 A24, 25 A25, 26 A26, 27 A27, 28 A28, 29 A29);
seed_tuple!(0 A0, 1 A1, 2 A2, 3 A3, 4 A4, 5 A5, 6 A6, 7 A7, 8 A8, 9 A9, 10 A10, 11 A11, 12 A12, 13 A13, 14 A14, 15 A15, 16 A16, 17 A17, 18 A18, 19 A19, 20 A20, 21 A21, 22 A22, 23 A23, 24 A24, 25 A25, 26 A26, 27 A27, 28 A28, 29 A29, 30 A30);
seed_tuple!(0 A0, 1 A1, 2 A2, 3 A3, 4 A4, 5 A5, 6 A6, 7 A7, 8 A8, 9 A9, 10 A10, 11 A11, 12 A12, 13 A13, 14 A14, 15 A15, 16 A16, 17 A17, 18 A18, 19 A19, 20 A20, 21 A21, 22 A22, 23 A23, 24 A24, 25 A25, 26 A26, 27 A27, 28 A28, 29 A29, 30 A30, 31 A31);

impl<F: Reversible<B>, B: SeedArgs> Reversible<B> for Grad<F> {
    fn call(&self, args: B) -> B {
        let mut args = self.f.call(args);
        args.seed(self.loss, 1.0);
        self.f.uncall(args)
    }
    fn uncall(&self, args: B) -> B {
        let mut args = self.f.call(args);
        args.seed(self.loss, -1.0);
        self.f.uncall(args)
    }
}

/// The Jacobian of argument `iout` with respect to argument `iin`, one backward pass per
/// output: `J[j][i] = ∂out_j/∂in_i` (rows are outputs, the usual convention; NiLang returns
/// the transpose). The arguments are left unchanged.
#[track_caller]
pub fn jacobian_repeat<F, A, E>(f: &F, args: A, iin: usize, iout: usize) -> Vec<Vec<E>>
where
    E: Elem,
    A: GradArgs<E>,
    F: Reversible<A> + for<'b> Reversible<A::Borrow<'b, E>>,
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
    if !one {
        f.call_primal(A::borrow(&mut st));
    }
    seed_lanes::<A, N>(&mut st, iout);
    let m = A::slots::<Lanes<N>>(&mut st, iout).len();
    f.uncall(A::borrow(&mut st));
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
            backward::<F, A, Dual<f64>, _>(f, &mut st, loss, one, Dual::new(1.0, 0.0));
            A::slots::<Dual<f64>>(&mut st, iin)
                .iter()
                .map(|v| v.g.eps)
                .collect()
        })
        .collect()
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
    (0..n)
        .map(|k| {
            let mut st = base.clone();
            // Grad(f)
            f.call(A::borrow(&mut st));
            slot::<GVar<f64>, A, _>(&mut st, loss).g.x += 1.0;
            f.uncall(A::borrow(&mut st));
            // seed the adjoint of gradient k, then ~Grad(f)
            A::slots::<GVar<f64>>(&mut st, iin)[k].g.g += 1.0;
            f.call(A::borrow(&mut st));
            slot::<GVar<f64>, A, _>(&mut st, loss).g.x -= 1.0;
            f.uncall(A::borrow(&mut st));
            A::slots::<GVar<f64>>(&mut st, iin)
                .iter()
                .map(|v| v.x.g)
                .collect()
        })
        .collect()
}

/// The loss value after running `f` on `args` (the arguments are restored afterwards).
#[track_caller]
pub fn loss_value<F, A, E>(f: &F, args: A, loss: usize) -> E
where
    E: Elem,
    A: GradArgs<E>,
    F: Reversible<A> + for<'b> Reversible<A::Borrow<'b, E>>,
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
        backward::<F, A, f64, _>(f, &mut st, loss, one, 1.0);
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
