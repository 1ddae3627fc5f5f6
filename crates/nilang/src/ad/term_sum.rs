//! The data-parallel gradient of a loss that is a sum of independent terms (samples, points,
//! pairs, observations, residuals): [`TermSum`] splits the terms into chunks fixed by their
//! number, runs the user's per-chunk `#[i]` program on every chunk on a rayon pool (each
//! thread with its own [`Plan`]), and sums the chunks' values and shared-parameter adjoints
//! in a fixed tree order, so the result is the same, bit for bit, for any number of threads.
//! [`Shared`] passes a parameter (or the loss) by shared reference: every chunk lifts its
//! own copy and differentiates it.
use super::args::{lift_into, zero_workspace, Elem, GradArg, GradArgs, Lift, Slots};
use super::grad::{check_index, check_loss};
use super::{GVar, Plan};
use crate::Reversible;
use core::ops::Range;
use std::sync::atomic::{AtomicU8, AtomicUsize, Ordering};
use std::sync::Mutex;

/// An argument of a [`TermSum`] program read through a shared reference and differentiated:
/// every chunk lifts its values into gradient numbers of its own and never writes them back.
/// `Shared(&x)` for a number (which can be the loss: `Shared(&0.0)`), `Shared(&v[..])` for a
/// slice, `Shared(&ws)` for a `grad_struct!` struct (see [`SharedArg`]); the function takes
/// them as `&mut T`, `&mut [T]` and `&mut Struct<T>`.
///
/// ```
/// use nilang::prelude::*;
/// use nilang::ad::{Shared, TermSum};
/// #[i]
/// fn dot<T: Scalar>(out: &mut T, a: &mut [T], b: &[f64]) {
///     for i in 0..a.len() {
///         out += a[i] * b[i];
///     }
/// }
/// let (a, b) = ([1.0, 2.0], [3.0, 4.0]);
/// let mut ga = [0.0; 2];
/// let mut sum = TermSum::new(1);
/// let v = sum.args(|_| (Shared(&0.0), Shared(&a[..]), &b[..])).value_and_gradient(&Dot, 0, &[1], &mut ga);
/// assert_eq!((v, ga), (11.0, [3.0, 4.0]));
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Shared<'a, T: ?Sized>(pub &'a T);

/// What a [`Shared`] argument can refer to: a number (which can be the loss), a slice of
/// numbers, or a `grad_struct!` struct (a workspace or parameters), lifted like the `&mut`
/// argument of the same type.
pub trait SharedArg<E: Elem> {
    /// Owned storage with gradient numbers over `S`.
    type Store<S: Lift<E>>: Clone;
    /// The storage borrowed as an argument (what the `&mut` argument borrows as).
    type Borrow<'b, S: Lift<E> + 'b>;
    /// Whether it is a number (the only kind a loss can be).
    const SCALAR_OUT: bool = false;
    /// Copy the values into gradient numbers with zero gradient.
    fn store<S: Lift<E>>(&self) -> Self::Store<S>;
    /// Whether `st` has this value's shape.
    fn fits<S: Lift<E>>(&self, st: &Self::Store<S>) -> bool;
    /// Overwrite `st` (of this shape) with the values, zero gradients.
    fn refresh<S: Lift<E>>(&self, st: &mut Self::Store<S>);
    /// [`SharedArg::refresh`] for a `zero(..)` workspace of the program, which is passed
    /// zero: a slice's storage is overwritten with zeros, its values not read (release
    /// builds), as a [`Plan`] does for a `&mut` workspace; others are refreshed.
    #[inline]
    fn refresh_zero<S: Lift<E>>(&self, st: &mut Self::Store<S>) {
        self.refresh(st)
    }
    /// Borrow the storage as an argument.
    fn borrow<S: Lift<E>>(s: &mut Self::Store<S>) -> Self::Borrow<'_, S>;
    /// The differentiable slots of the storage.
    fn slots<S: Lift<E>>(s: &mut Self::Store<S>) -> Slots<'_, S>;
}

impl<E: Elem> SharedArg<E> for E {
    type Store<S: Lift<E>> = GVar<S>;
    type Borrow<'b, S: Lift<E> + 'b> = &'b mut GVar<S>;
    const SCALAR_OUT: bool = true;
    #[inline]
    fn store<S: Lift<E>>(&self) -> GVar<S> {
        GVar::from(S::lift(*self))
    }
    #[inline]
    fn fits<S: Lift<E>>(&self, _: &GVar<S>) -> bool {
        true
    }
    #[inline]
    fn refresh<S: Lift<E>>(&self, st: &mut GVar<S>) {
        *st = GVar::from(S::lift(*self));
    }
    #[inline]
    fn borrow<S: Lift<E>>(s: &mut GVar<S>) -> &mut GVar<S> {
        s
    }
    fn slots<S: Lift<E>>(s: &mut GVar<S>) -> Slots<'_, S> {
        Slots::Slice(core::slice::from_mut(s))
    }
}

impl<E: Elem> SharedArg<E> for [E] {
    type Store<S: Lift<E>> = Vec<GVar<S>>;
    type Borrow<'b, S: Lift<E> + 'b> = &'b mut [GVar<S>];
    #[inline]
    fn store<S: Lift<E>>(&self) -> Vec<GVar<S>> {
        self.iter().map(|&e| GVar::from(S::lift(e))).collect()
    }
    #[inline]
    fn fits<S: Lift<E>>(&self, st: &Vec<GVar<S>>) -> bool {
        st.len() == self.len()
    }
    #[inline]
    fn refresh<S: Lift<E>>(&self, st: &mut Vec<GVar<S>>) {
        lift_into(st, self)
    }
    #[inline]
    fn refresh_zero<S: Lift<E>>(&self, st: &mut Vec<GVar<S>>) {
        zero_workspace(self, st)
    }
    #[inline]
    fn borrow<S: Lift<E>>(s: &mut Vec<GVar<S>>) -> &mut [GVar<S>] {
        s
    }
    fn slots<S: Lift<E>>(s: &mut Vec<GVar<S>>) -> Slots<'_, S> {
        Slots::Slice(s)
    }
}

impl<E: Elem, T: SharedArg<E> + ?Sized> GradArg<E> for Shared<'_, T> {
    type Store<S: Lift<E>> = T::Store<S>;
    type Borrow<'b, S: Lift<E> + 'b> = T::Borrow<'b, S>;
    const SCALAR_OUT: bool = T::SCALAR_OUT;
    #[inline]
    fn store<S: Lift<E>>(&self) -> T::Store<S> {
        self.0.store()
    }
    #[inline]
    fn fits<S: Lift<E>>(&self, st: &T::Store<S>) -> bool {
        self.0.fits(st)
    }
    #[inline]
    fn refresh<S: Lift<E>>(&self, st: &mut T::Store<S>) {
        self.0.refresh(st)
    }
    #[inline]
    fn refresh_zero<S: Lift<E>>(&self, st: &mut T::Store<S>) {
        self.0.refresh_zero(st)
    }
    #[inline]
    fn borrow<S: Lift<E>>(s: &mut T::Store<S>) -> T::Borrow<'_, S> {
        T::borrow(s)
    }
    fn slots<S: Lift<E>>(s: &mut T::Store<S>) -> Slots<'_, S> {
        T::slots(s)
    }
    #[inline]
    fn restore<S: Lift<E>>(&mut self, _: &T::Store<S>) {}
}

/// What [`TermSum`] asks of the per-chunk program: it runs on the lifted arguments of `A`
/// (gradient numbers over `E`). Implemented for every such function.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot run on gradient numbers with the chunk arguments `{A}`",
    label = "not a per-chunk program for these arguments",
    note = "make the function generic over `T: Scalar`, and build the chunk's arguments in the \
            order of its parameters: `Shared(&0.0)` for the loss, `Shared(&p[..])` for a shared \
            parameter slice, `&[f64]` for data"
)]
pub trait TermProgram<A: GradArgs<E>, E: Elem>: for<'b> Reversible<A::Borrow<'b, E>> {}
impl<F, A: GradArgs<E>, E: Elem> TermProgram<A, E> for F where
    F: for<'b> Reversible<A::Borrow<'b, E>>
{
}

/// At most this many chunks by default ([`TermSum::new`]): enough for work stealing to even
/// out chunks of unequal cost on any machine, few enough that the per-chunk cost (lifting
/// the shared parameters, summing their adjoints) stays small.
pub const MAX_CHUNKS: usize = 64;

/// At least this many terms per chunk by default ([`TermSum::new`], unless there are fewer
/// terms): each chunk lifts the shared parameters, runs the program once and sums its
/// adjoints into the tree, a cost of its own that a chunk of a few terms does not repay (and
/// a program's vector kernels run on the chunk's terms). Sums of few, costly terms (the rows
/// of a triangle of pairs) can ask for smaller chunks with [`TermSum::with_chunk`].
pub const MIN_CHUNK: usize = 64;

/// The default chunk length of `terms` terms: `terms / MIN_CHUNK` chunks (at least 1, at most
/// [`MAX_CHUNKS`]) of equal length, the last one shorter. A function of the number of terms
/// only, so that the chunks, and with them the result's bits, never depend on the threads.
fn default_chunk(terms: usize) -> usize {
    let chunks = (terms / MIN_CHUNK).clamp(1, MAX_CHUNKS);
    terms.div_ceil(chunks).max(1)
}

/// A reusable data-parallel gradient of `loss = Σ_terms term(params, data)`.
///
/// The user writes one `#[i]` program for a chunk of terms and a closure that builds its
/// arguments for a range of terms: the loss as `Shared(&0.0)`, the shared parameters as
/// [`Shared`] slices or numbers, the data sliced to the range (or the range's ends as
/// `usize`s), workspaces as `Shared(&zero_workspace)`. [`TermSum::args`] takes that closure,
/// [`TermArgs::value_and_gradient`] then
/// runs the chunks on the current rayon pool (`pool.install(..)` chooses it; on a pool of one
/// thread they run in order on that thread, with no tasks) and returns the
/// loss with the adjoints of the named parameter arguments, concatenated in the order named.
///
/// **Deterministic.** The chunks depend only on the number of terms (never on the number of
/// threads), and their values and adjoints are summed in a fixed binary tree over the chunk
/// indices: the same bits for 1, 2 or 64 threads. On several threads the tree's additions run
/// inside the chunks' tasks, each by the task that completes the second of its two halves, so
/// no pass over the chunks' results follows them. The gradient storage ([`Plan`]s: one per
/// thread, and one for a last chunk shorter than the others) is made at the first call and
/// reused, and the chunks' adjoint buffers are kept between calls: no allocation after the
/// first call on a pool.
///
/// **No lock is held while the program runs.** A chunk takes its storage out of its thread's
/// idle ones and gives it back when done, so a program that itself runs rayon tasks (a
/// `par_iter` inside the chunk) works: a thread that waits for those tasks may start another
/// chunk, on storage of its own.
///
/// ```
/// use nilang::prelude::*;
/// use nilang::ad::{Shared, TermSum};
/// // per chunk: out += Σ_{i in lo..hi} (w·x_i − y_i)²
/// #[i]
/// fn sq_err<T: Scalar>(out: &mut T, w: &mut [T], x: &[f64], y: &[f64], lo: usize, hi: usize) {
///     for i in lo..hi {
///         routine! {
///             let r = T::default();
///             for j in 0..w.len() {
///                 r += w[j] * x[i * w.len() + j];
///             }
///             r -= y[i];
///         }
///         out += abs2(r);
///         unroutine!();
///     }
/// }
/// let (n, w) = (1000, [0.5, -1.0]);
/// let x: Vec<f64> = (0..2 * n).map(|k| (k as f64 * 0.37).sin()).collect();
/// let y: Vec<f64> = (0..n).map(|k| (k as f64 * 0.11).cos()).collect();
/// let mut sum = TermSum::new(n);
/// let mut grads = vec![];
/// for threads in [1, 2, 3] {
///     let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
///     let mut gw = [0.0; 2];
///     let v = pool.install(|| {
///         sum.args(|r| (Shared(&0.0), Shared(&w[..]), &x[..], &y[..], r.start, r.end))
///             .value_and_gradient(&SqErr, 0, &[1], &mut gw)
///     });
///     grads.push((v, gw));
/// }
/// assert!(grads.iter().all(|g| *g == grads[0]));  // bit for bit
/// // the same gradient as one serial pass over all terms
/// let (mut out, mut w1) = (0.0, w);
/// let (_, gw, ..) = nilang::gradient(&SqErr, (&mut out, &mut w1[..], &x[..], &y[..], 0, n), 0);
/// assert!((grads[0].1[0] - gw[0].g).abs() < 1e-9 * gw[0].g.abs());
/// ```
#[derive(Debug)]
pub struct TermSum<St> {
    terms: usize,
    chunk: usize,
    /// Per thread of the pool: gradient storage not in use, for chunks of full length. A chunk
    /// takes one out of its thread's slot (a new one when it is empty), runs the program on it
    /// with no lock held, and gives it back, so each thread reuses the storage its caches
    /// hold; a thread that starts a second chunk while its first one waits for tasks of the
    /// program (rayon inside the program) gets storage of its own.
    plans: Vec<Slot<Vec<Plan<St>>>>,
    /// The same for a last chunk shorter than the others, whose arguments would not fit the
    /// storage of a full one.
    short_plans: Slot<Vec<Plan<St>>>,
    /// Per chunk: its value and its parameters' adjoints; the tree sums them into row 0.
    rows: Vec<Row>,
}

/// A lock on a cache line of its own (no two threads' locks share one).
#[derive(Debug, Default)]
#[repr(align(128))]
struct Slot<T>(Mutex<T>);

/// A chunk's row: its value, then its parameters' adjoints; and, for the tree's addition
/// whose right row this is, how many of its two rows are done. On a cache line of its own.
#[derive(Debug, Default)]
#[repr(align(128))]
struct Row {
    sums: Mutex<Vec<f64>>,
    arrived: AtomicU8,
}

impl<St> TermSum<St> {
    /// A sum of `terms` terms in chunks of equal length (the last one shorter), at least
    /// [`MIN_CHUNK`] terms each but the last (one chunk when there are fewer than twice as
    /// many terms) and at most [`MAX_CHUNKS`] chunks:
    /// 256 terms in 4 chunks of 64, 1000 in 15 of 67 (the last one 62), 10⁵ in 64 of 1563.
    ///
    /// ```
    /// use nilang::ad::TermSum;
    /// let lens = |n| TermSum::<()>::new(n).chunks().map(|r| r.len()).collect::<Vec<_>>();
    /// assert_eq!(lens(256), [64; 4]);
    /// assert_eq!(lens(100), [100]);
    /// assert_eq!((lens(100_000).len(), lens(100_000)[0]), (64, 1563));
    /// ```
    pub fn new(terms: usize) -> Self {
        Self::with_chunk(terms, default_chunk(terms))
    }

    /// A sum of `terms` terms in chunks of `chunk` terms (the last one shorter). Panics if
    /// `chunk` is zero.
    #[track_caller]
    pub fn with_chunk(terms: usize, chunk: usize) -> Self {
        assert!(
            chunk >= 1,
            "nilang: TermSum chunks must hold at least one term"
        );
        TermSum {
            terms,
            chunk,
            plans: Vec::new(),
            short_plans: Slot::default(),
            rows: Vec::new(),
        }
    }

    /// The number of terms.
    pub fn terms(&self) -> usize {
        self.terms
    }

    /// The ranges of terms of the chunks, in order (one empty range when there are no terms,
    /// so the program still runs once).
    pub fn chunks(&self) -> impl Iterator<Item = Range<usize>> + '_ {
        let n = self.terms.div_ceil(self.chunk).max(1);
        (0..n).map(move |c| c * self.chunk..((c + 1) * self.chunk).min(self.terms))
    }

    /// The program's arguments for each chunk of terms: `args(range)` builds them; then
    /// [`TermArgs::value_and_gradient`] runs the program (two steps, so that the arguments'
    /// types are known when the program is checked against them).
    pub fn args<A, M>(&mut self, args: M) -> TermArgs<'_, St, M>
    where
        M: Fn(Range<usize>) -> A + Sync,
    {
        TermArgs { sum: self, args }
    }
}

/// A [`TermSum`] with the builder of its chunks' arguments ([`TermSum::args`]).
#[derive(Debug)]
pub struct TermArgs<'s, St, M> {
    sum: &'s mut TermSum<St>,
    args: M,
}

impl<St, M> TermArgs<'_, St, M> {
    /// The loss `Σ_chunks f(args(chunk))` (argument `loss` of the program) and the adjoints of
    /// the parameter arguments `params` (their slots concatenated in this order, written to
    /// `grad`), on the current rayon pool. Panics, before anything runs, if `loss` is not a
    /// scalar number argument or a parameter index is out of range, and after the chunks ran
    /// if `grad`'s length is not the parameters' number of slots.
    #[track_caller]
    pub fn value_and_gradient<F, A>(
        self,
        f: &F,
        loss: usize,
        params: &[usize],
        grad: &mut [f64],
    ) -> f64
    where
        A: GradArgs<f64, Store<f64> = St>,
        F: TermProgram<A, f64> + Sync,
        M: Fn(Range<usize>) -> A + Sync,
        St: Send,
    {
        self.sum_chunks(f, loss, params, grad, true)
    }

    /// The gradient alone (as `jax.grad`, [`Plan::gradient`]): the adjoints of
    /// [`TermArgs::value_and_gradient`], the same bits, the loss's value not computed. When
    /// the program is compute–copy–uncompute in the loss, each chunk's backward pass runs
    /// with the loss dead: its value updates (a chain of dependent additions over the
    /// chunk's terms) are skipped, and so is the work that only feeds them. Panics as
    /// [`TermArgs::value_and_gradient`] does.
    ///
    /// ```
    /// use nilang::prelude::*;
    /// use nilang::ad::{Shared, TermSum};
    /// #[i]
    /// fn sumsq<T: Scalar>(out: &mut T, x: &mut [T]) {
    ///     for i in 0..x.len() {
    ///         out += abs2(x[i]);
    ///     }
    /// }
    /// let x = [1.0, 3.0];
    /// let mut g = [0.0; 2];
    /// TermSum::new(1).args(|_| (Shared(&0.0), Shared(&x[..]))).gradient(&Sumsq, 0, &[1], &mut g);
    /// assert_eq!(g, [2.0, 6.0]);
    /// ```
    #[track_caller]
    pub fn gradient<F, A>(self, f: &F, loss: usize, params: &[usize], grad: &mut [f64])
    where
        A: GradArgs<f64, Store<f64> = St>,
        F: TermProgram<A, f64> + Sync,
        M: Fn(Range<usize>) -> A + Sync,
        St: Send,
    {
        self.sum_chunks(f, loss, params, grad, false);
    }

    /// The chunks' adjoints of `params` summed into `grad`, and their values when `with_value`
    /// (else the loss is dead in each chunk and 0 is returned).
    #[track_caller]
    fn sum_chunks<F, A>(
        self,
        f: &F,
        loss: usize,
        params: &[usize],
        grad: &mut [f64],
        with_value: bool,
    ) -> f64
    where
        A: GradArgs<f64, Store<f64> = St>,
        F: TermProgram<A, f64> + Sync,
        M: Fn(Range<usize>) -> A + Sync,
        St: Send,
    {
        use rayon::prelude::*;
        check_loss::<A, _>(loss, "loss");
        for &k in params {
            check_index::<A, _>(k, "parameter");
        }
        let width = grad.len();
        let TermArgs { sum, args } = self;
        let (terms, chunk) = (sum.terms, sum.chunk);
        let n_chunks = terms.div_ceil(chunk).max(1);
        let short_last = terms % chunk != 0 && n_chunks > 1;
        let threads = rayon::current_num_threads().max(1);
        sum.plans
            .resize_with(threads.max(sum.plans.len()), Default::default);
        sum.rows.resize_with(n_chunks, Default::default);
        for row in &mut sum.rows {
            row.sums
                .get_mut()
                .unwrap_or_else(|e| e.into_inner())
                .resize(1 + width, 0.0);
            *row.arrived.get_mut() = 0;
        }
        let wrong = AtomicUsize::new(usize::MAX);
        let (plans, short_plans, rows) = (&sum.plans[..threads], &sum.short_plans, &sum.rows[..]);
        // chunk `c`: the program on gradient storage taken out of its thread's idle ones (so
        // no lock is held while it runs), its value and its parameters' adjoints into row `c`,
        // the storage given back, then the tree's additions that row completes
        let run = |c: usize| {
            let idle = if short_last && c == n_chunks - 1 {
                short_plans
            } else {
                &plans[rayon::current_thread_index().unwrap_or(0) % threads]
            };
            let mut plan = lock(&idle.0).pop().unwrap_or_default();
            let range = c * chunk..((c + 1) * chunk).min(terms);
            let (value, st) = if with_value {
                plan.value_and_gradient_lifted(f, args(range), loss)
            } else {
                (0.0, plan.gradient_lifted(f, args(range), loss))
            };
            {
                let mut row = lock(&rows[c].sums);
                let (head, adjoints) = row.split_at_mut(1);
                head[0] = value;
                let mut filled = 0;
                for &k in params {
                    let slots = A::slots::<f64>(st, k);
                    let n = slots.len();
                    if let Some(dst) = adjoints.get_mut(filled..filled + n) {
                        copy_adjoints(slots, dst);
                    }
                    filled += n;
                }
                if filled != width {
                    wrong.store(filled, Ordering::Relaxed);
                }
            }
            lock(&idle.0).push(plan);
            climb(c, rows);
        };
        if threads == 1 {
            // one thread: the chunks in order on the caller, no tasks (the same chunks and
            // tree, so the same bits)
            (0..n_chunks).for_each(run);
        } else {
            // one task per chunk (`with_max_len(1)`): chunks of unequal cost (the rows of a
            // triangle of pairs) are shared out by work stealing, not in halves fixed up front;
            // the tree's additions run in these tasks as their rows become complete
            (0..n_chunks).into_par_iter().with_max_len(1).for_each(run);
        }
        let filled = wrong.into_inner();
        if filled != usize::MAX {
            panic!(
                "nilang: TermSum gradient buffer holds {width} numbers, but the parameters {params:?} have {filled} slots"
            );
        }
        let total = sum.rows[0]
            .sums
            .get_mut()
            .unwrap_or_else(|e| e.into_inner());
        grad.copy_from_slice(&total[1..]);
        total[0]
    }
}

/// The adjoints of `slots` into `dst` (as long): a plain loop over a slice of gradient
/// numbers (the common case), which the compiler turns into vector loads.
fn copy_adjoints(slots: Slots<'_, f64>, dst: &mut [f64]) {
    match slots {
        Slots::Slice(s) => {
            for (d, v) in dst.iter_mut().zip(s.iter()) {
                *d = v.g;
            }
        }
        other => {
            for (d, v) in dst.iter_mut().zip(other.iter()) {
                *d = v.g;
            }
        }
    }
}

/// The lock of `m` (a panic while it was held left nothing half done that matters here:
/// every value under it is written again before it is read).
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Per-term results on all cores: `f(t, out_t)` for every term `t` of `out.len() / width`,
/// `out_t = out[t·width..(t + 1)·width]`, in chunks of `chunk` terms on the current rayon
/// pool. For what is not a sum: per-term Jacobian blocks, residuals. Each term writes its own
/// place, so the result is the same for any number of threads. Panics if `width` or `chunk`
/// is zero or `out.len()` is not a multiple of `width`.
///
/// ```
/// let mut out = vec![0.0; 2 * 1000];
/// nilang::ad::term_sum::for_each_term(&mut out, 2, 64, |t, o| {
///     o[0] = t as f64;
///     o[1] = (t as f64).sqrt();
/// });
/// assert_eq!((out[2 * 999], out[2 * 16 + 1]), (999.0, 4.0));
/// ```
#[track_caller]
pub fn for_each_term<T: Send>(
    out: &mut [T],
    width: usize,
    chunk: usize,
    f: impl Fn(usize, &mut [T]) + Sync,
) {
    use rayon::prelude::*;
    assert!(
        width >= 1 && chunk >= 1,
        "nilang: for_each_term needs a width and a chunk of at least one"
    );
    assert!(
        out.len().is_multiple_of(width),
        "nilang: for_each_term: {} outputs are not whole terms of {width}",
        out.len()
    );
    out.par_chunks_mut(width * chunk)
        .enumerate()
        .for_each(|(c, o)| {
            for (k, ot) in o.chunks_exact_mut(width).enumerate() {
                f(c * chunk + k, ot);
            }
        });
}

/// The fixed tree of sums over the rows, run as the rows become complete: row `c` was just
/// written; at distance 1, 2, 4, … the pair of subtrees starting at `left` (a multiple of
/// twice the distance) and `right = left + distance` is added, `rows[left] += rows[right]`,
/// by whichever of the two finished second (counted in the right row's `arrived`), which
/// then climbs on from `left`; a `left` with no `right` climbs on alone. The order of every
/// addition depends on the number of rows only, never on which thread finished when: row 0
/// ends as `((r0 + r1) + (r2 + r3)) + r4` for five rows, on any thread count. Every `arrived`
/// is zero before the first row of a sum is written.
fn climb(c: usize, rows: &[Row]) {
    let (n, mut node, mut dist) = (rows.len(), c, 1);
    while dist < n {
        let left = node & !dist;
        let right = left + dist;
        if right < n {
            // the first of the two to finish stops here (its writes released to the second)
            if rows[right].arrived.fetch_add(1, Ordering::AcqRel) == 0 {
                return;
            }
            let r = lock(&rows[right].sums);
            let mut l = lock(&rows[left].sums);
            for (l, r) in l.iter_mut().zip(r.iter()) {
                *l += r;
            }
        }
        node = left;
        dist *= 2;
    }
}

#[cfg(test)]
mod tests {
    use super::{climb, Row};
    use std::sync::Mutex;

    fn row(sums: Vec<f64>) -> Row {
        Row {
            sums: Mutex::new(sums),
            arrived: Default::default(),
        }
    }

    /// Rows of `width` summed by [`climb`] with the rows completing in `order`: row 0.
    fn tree_sum(rows: &[f64], width: usize, order: &[usize]) -> Vec<f64> {
        let rows: Vec<_> = rows.chunks(width).map(|r| row(r.to_vec())).collect();
        for &c in order {
            climb(c, &rows);
        }
        let total = rows[0].sums.lock().unwrap().clone();
        total
    }

    #[test]
    fn tree_sum_adds_rows_in_a_fixed_tree() {
        // five rows of width 2: ((r0 + r1) + (r2 + r3)) + r4
        let rows = vec![1.0, 10.0, 2.0, 20.0, 3.0, 30.0, 4.0, 40.0, 5.0, 50.0];
        assert_eq!(tree_sum(&rows, 2, &[0, 1, 2, 3, 4]), [15.0, 150.0]);
        // the tree, not the left-to-right order: 1e16 + 1 - 1e16 + 1
        let r = vec![1e16, 1.0, -1e16, 1.0];
        assert_eq!(
            tree_sum(&r, 1, &[0, 1, 2, 3]),
            [(1e16 + 1.0) + (-1e16 + 1.0)]
        );
    }

    #[test]
    fn tree_sum_is_the_same_tree_whatever_order_the_rows_complete_in() {
        // seven rows whose sum depends on the order of the additions (0 in this tree):
        // ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + r6)
        // (3 left to right; 1 or 4 in the trees that add r6 last or r5 + r6 first)
        let r = [1e16, 1e16, 1e16, -1e16, -1e16, -1e16 + 2.0, 1.0];
        let want = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + r[6]);
        assert_eq!(want, 0.0);
        for order in [
            [0, 1, 2, 3, 4, 5, 6],
            [6, 5, 4, 3, 2, 1, 0],
            [3, 6, 0, 5, 1, 4, 2],
            [4, 0, 6, 2, 5, 3, 1],
        ] {
            assert_eq!(
                tree_sum(&r, 1, &order)[0].to_bits(),
                want.to_bits(),
                "{order:?}"
            );
        }
        // and from many threads at once, again and again
        let rows: Vec<_> = (0..64).map(|c| row(vec![1.0 / (c as f64 + 1.0)])).collect();
        let serial = tree_sum(
            &(0..64).map(|c| 1.0 / (c as f64 + 1.0)).collect::<Vec<_>>(),
            1,
            &(0..64).collect::<Vec<_>>(),
        );
        for _ in 0..20 {
            for (c, row) in rows.iter().enumerate() {
                *row.sums.lock().unwrap() = vec![1.0 / (c as f64 + 1.0)];
                row.arrived.store(0, std::sync::atomic::Ordering::Relaxed);
            }
            std::thread::scope(|s| {
                for t in 0..4 {
                    let rows = &rows;
                    s.spawn(move || (t..64).step_by(4).for_each(|c| climb(c, rows)));
                }
            });
            assert_eq!(
                rows[0].sums.lock().unwrap()[0].to_bits(),
                serial[0].to_bits()
            );
        }
    }
}
