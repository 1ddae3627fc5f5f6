//! The gradient API: gradients, the reversible `Grad`, Jacobians, Hessians, numeric checkers.
use super::args::{GradArgs, Lift};
use super::GVar;
use crate::numbers::Real;
use crate::Reversible;

/// Gradient storage of an argument list: every argument as gradient numbers.
pub type Store<A> = <A as GradArgs>::Store<<A as GradArgs>::Elem>;

fn seed_loss<S, A: GradArgs>(st: &mut A::Store<S>, loss: usize, one: S)
where
    S: Copy + core::ops::AddAssign + Lift<A::Elem>,
{
    let mut slots = A::slots::<S>(st, loss);
    assert!(
        slots.len() == 1,
        "nilang: the loss (argument {loss}) must be a scalar `&mut` argument"
    );
    slots[0].g += one;
}

/// The gradient of argument `loss` (a scalar) with respect to every argument.
///
/// Runs `f` forward on plain numbers, then its inverse on gradient numbers with the loss's
/// adjoint seeded to one. The arguments are left as they were (the inverse restores them);
/// the returned storage holds the inputs with their gradients in `.g`. No heap allocation for
/// scalar arguments.
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
pub fn gradient<F, A>(f: &F, args: A, loss: usize) -> Store<A>
where
    A: GradArgs,
    F: Reversible<A> + for<'b> Reversible<A::Borrow<'b, A::Elem>>,
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
pub fn value_and_gradient<F, A>(f: &F, args: A, loss: usize) -> (A::Elem, Store<A>)
where
    A: GradArgs,
    F: Reversible<A> + for<'b> Reversible<A::Borrow<'b, A::Elem>>,
{
    let mut args = f.call(args);
    let mut st = args.store::<A::Elem>();
    let slots = A::slots::<A::Elem>(&mut st, loss);
    assert!(
        !slots.is_empty(),
        "nilang: the loss (argument {loss}) must be a scalar `&mut` argument"
    );
    let value = slots[0].x;
    seed_loss::<A::Elem, A>(&mut st, loss, A::Elem::one());
    f.uncall(A::borrow::<A::Elem>(&mut st));
    args.restore::<A::Elem>(&st);
    (value, st)
}

/// The gradients of argument `k` of a gradient result, as plain numbers.
pub fn grads<A: GradArgs>(st: &mut Store<A>, k: usize) -> Vec<A::Elem> {
    A::slots::<A::Elem>(st, k).iter().map(|v| v.g).collect()
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
pub fn jacobian_repeat<F, A>(f: &F, args: A, iin: usize, iout: usize) -> Vec<Vec<A::Elem>>
where
    A: GradArgs,
    F: Reversible<A> + for<'b> Reversible<A::Borrow<'b, A::Elem>>,
{
    let args = f.call(args);
    let p = args.pstore();
    let mut probe = A::store_from::<A::Elem>(&p);
    let m = A::slots::<A::Elem>(&mut probe, iout).len();
    let mut jac = Vec::with_capacity(m);
    for j in 0..m {
        let mut st = A::store_from::<A::Elem>(&p);
        A::slots::<A::Elem>(&mut st, iout)[j].g = A::Elem::one();
        f.uncall(A::borrow::<A::Elem>(&mut st));
        jac.push(
            A::slots::<A::Elem>(&mut st, iin)
                .iter()
                .map(|v| v.g)
                .collect(),
        );
    }
    f.uncall(args);
    jac
}

/// The Jacobian in one backward pass with vector-valued adjoints (`N` lanes, NiLang's
/// `AutoBcast`): requires `N ≥` the number of outputs. Same layout as [`jacobian_repeat`].
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
pub fn jacobian<F, A, const N: usize>(f: &F, args: A, iin: usize, iout: usize) -> Vec<Vec<f64>>
where
    A: GradArgs<Elem = f64>,
    F: Reversible<A> + for<'b> Reversible<A::Borrow<'b, super::Lanes<N>>>,
{
    use super::Lanes;
    let mut args = f.call(args);
    let mut st = args.store::<Lanes<N>>();
    let m = A::slots::<Lanes<N>>(&mut st, iout).len();
    assert!(
        m <= N,
        "nilang: jacobian with {N} lanes for {m} outputs: use at least {m} lanes"
    );
    for (j, s) in A::slots::<Lanes<N>>(&mut st, iout).iter_mut().enumerate() {
        s.g.0[j] = 1.0;
    }
    f.uncall(A::borrow::<Lanes<N>>(&mut st));
    args.restore::<Lanes<N>>(&st);
    let ins = A::slots::<Lanes<N>>(&mut st, iin);
    (0..m)
        .map(|j| ins.iter().map(|v| v.g.0[j]).collect())
        .collect()
}

/// Hessian of the loss with respect to argument `iin`, forward-over-reverse: one gradient pass
/// on `GVar<Dual<f64>>` per input slot. `H[k][i] = ∂²L/∂in_k∂in_i`.
pub fn hessian_fwd_rev<F, A>(f: &F, args: A, loss: usize, iin: usize) -> Vec<Vec<f64>>
where
    A: GradArgs<Elem = f64>,
    F: Reversible<A> + for<'b> Reversible<A::Borrow<'b, crate::numbers::Dual<f64>>>,
{
    use crate::numbers::Dual;
    let mut probe = args.store::<Dual<f64>>();
    let n = A::slots::<Dual<f64>>(&mut probe, iin).len();
    (0..n)
        .map(|k| {
            let mut st = args.store::<Dual<f64>>();
            A::slots::<Dual<f64>>(&mut st, iin)[k].x.eps = 1.0;
            f.call(A::borrow::<Dual<f64>>(&mut st));
            seed_loss::<Dual<f64>, A>(&mut st, loss, Dual::new(1.0, 0.0));
            f.uncall(A::borrow::<Dual<f64>>(&mut st));
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
pub fn hessian_rev_rev<F, A>(f: &F, args: A, loss: usize, iin: usize) -> Vec<Vec<f64>>
where
    A: GradArgs<Elem = f64>,
    F: Reversible<A> + for<'b> Reversible<A::Borrow<'b, GVar<f64>>>,
{
    let mut probe = args.store::<GVar<f64>>();
    let n = A::slots::<GVar<f64>>(&mut probe, iin).len();
    (0..n)
        .map(|k| {
            let mut st = args.store::<GVar<f64>>();
            // Grad(f)
            f.call(A::borrow::<GVar<f64>>(&mut st));
            A::slots::<GVar<f64>>(&mut st, loss)[0].g.x += 1.0;
            f.uncall(A::borrow::<GVar<f64>>(&mut st));
            // seed the adjoint of gradient k, then ~Grad(f)
            A::slots::<GVar<f64>>(&mut st, iin)[k].g.g += 1.0;
            f.call(A::borrow::<GVar<f64>>(&mut st));
            A::slots::<GVar<f64>>(&mut st, loss)[0].g.x -= 1.0;
            f.uncall(A::borrow::<GVar<f64>>(&mut st));
            A::slots::<GVar<f64>>(&mut st, iin)
                .iter()
                .map(|v| v.x.g)
                .collect()
        })
        .collect()
}

/// The loss value after running `f` on `args` (the arguments are restored afterwards).
pub fn loss_value<F, A>(f: &F, mut args: A, loss: usize) -> A::Elem
where
    A: GradArgs,
    F: Reversible<A> + for<'b> Reversible<A::Borrow<'b, A::Elem>>,
{
    let mut st = args.store::<A::Elem>();
    f.call(A::borrow::<A::Elem>(&mut st));
    let v = A::slots::<A::Elem>(&mut st, loss)[0].x;
    f.uncall(A::borrow::<A::Elem>(&mut st));
    args.restore::<A::Elem>(&st);
    v
}

/// Central-difference gradient of argument `loss` with respect to every differentiable slot
/// of argument `iin`, step `delta`.
pub fn gradient_numeric<F, A>(f: &F, args: &A, loss: usize, iin: usize, delta: f64) -> Vec<f64>
where
    A: GradArgs<Elem = f64>,
    F: for<'b> Reversible<A::Borrow<'b, f64>>,
{
    let mut probe = args.store::<f64>();
    let n = A::slots::<f64>(&mut probe, iin).len();
    (0..n)
        .map(|k| {
            let eval = |h: f64| {
                let mut st = args.store::<f64>();
                A::slots::<f64>(&mut st, iin)[k].x += h;
                f.call(A::borrow::<f64>(&mut st));
                A::slots::<f64>(&mut st, loss)[0].x
            };
            (eval(delta / 2.0) - eval(-delta / 2.0)) / delta
        })
        .collect()
}

/// Compare [`gradient`] with [`gradient_numeric`] for argument `iin`: `|ad − fd| ≤ atol +
/// rtol·|fd|` for every slot. Returns the largest violation ratio on failure.
pub fn check_grad<F, A>(
    f: &F,
    args: A,
    loss: usize,
    iin: usize,
    atol: f64,
    rtol: f64,
) -> Result<(), String>
where
    A: GradArgs<Elem = f64>,
    F: Reversible<A> + for<'b> Reversible<A::Borrow<'b, f64>>,
{
    let fd = gradient_numeric(f, &args, loss, iin, 1e-5);
    let mut st = gradient(f, args, loss);
    let ad = grads::<A>(&mut st, iin);
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
pub fn hessian_numeric<F, A>(f: &F, args: A, loss: usize, iin: usize, delta: f64) -> Vec<Vec<f64>>
where
    A: GradArgs<Elem = f64>,
    F: Reversible<A> + for<'b> Reversible<A::Borrow<'b, f64>>,
{
    let base = args.store::<f64>();
    let mut probe = args.store::<f64>();
    let n = A::slots::<f64>(&mut probe, iin).len();
    // the gradient of `loss` w.r.t. `iin` at a perturbed point, by one forward and one reverse
    // pass on gradient numbers
    let grad_at = |k: usize, h: f64| -> Vec<f64> {
        let mut st = base.clone();
        A::slots::<f64>(&mut st, iin)[k].x += h;
        f.call(A::borrow::<f64>(&mut st));
        for s in A::slots::<f64>(&mut st, iin).iter_mut() {
            s.g = 0.0;
        }
        A::slots::<f64>(&mut st, loss)[0].g = 1.0;
        f.uncall(A::borrow::<f64>(&mut st));
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
