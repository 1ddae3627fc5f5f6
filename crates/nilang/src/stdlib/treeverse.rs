//! Treeverse: Griewank's binomial checkpointing for the gradient of a long chain of steps.
//!
//! Back-propagating through `n` steps `x₁ = f(x₀), …, xₙ = f(xₙ₋₁)` needs the states in
//! reverse order `xₙ, xₙ₋₁, …, x₀`. Storing them all costs `n + 1` states (a tape);
//! recomputing each from `x₀` costs `n(n + 1)/2` step calls. With `δ` checkpoint slots (`x₀`
//! occupies one) Treeverse (Griewank 1992; "revolve") reverses the chain with the *fewest*
//! step calls any schedule with `δ` checkpoints can achieve: with `t` the smallest number with
//! `l ≤ C(δ + t, t)` for `l = n + 1`, it calls the step `t·l − C(δ + t, t − 1)` times
//! ([`optimal_steps`]), each state being recomputed at most `t` times, and never holds more
//! than `δ` checkpoints plus the one state being advanced (`δ + 1` states).
//!
//! The step is either a plain function `x ↦ f(x)` with its vector–Jacobian product
//! `(x, ḡ) ↦ ḡ·∂f/∂x` ([`treeverse`]), or a reversible step `step(dest, src)` (an `#[i]`
//! function's unit struct, as for [`bennett`](super::bennett)) whose vjp is its inverse run on
//! gradient numbers ([`treeverse_reversible`]). Parameters are differentiated by carrying them
//! in the state (a step that copies them along) or by accumulating into the vjp's captures.
//!
//! The schedule splits a segment of length `l` held at checkpoint `σ` at
//! `m = max(C(δ + t − 2, δ), l − C(δ + t − 1, δ − 1))` (clamped to `1..l`): it advances to
//! `σ + m`, checkpoints it, reverses the right part with one slot fewer, frees the slot and
//! continues with the left part. The recursion is kept on an explicit stack, so `δ` may be as
//! large as `n + 1` (store-all) without deep native recursion.
use super::bennett::ZeroLike;
use crate::tape::Tape;
use crate::{GVar, Reversible};

/// What a Treeverse run did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TreeverseLog {
    /// Calls of the step function made by the schedule (advancing from a checkpoint).
    pub steps: usize,
    /// Calls of the vjp (one per step, `n`), plus one call of the seed.
    pub vjps: usize,
    /// Checkpoints written (the input `x₀` not included).
    pub snapshots: usize,
    /// The most checkpoints held at once (`x₀` included); at most `δ`.
    pub peak_checkpoints: usize,
    /// The most states alive at once: checkpoints plus the state being advanced; at most
    /// `δ + 1`.
    pub peak_states: usize,
    /// The size of one state, its heap included ([`StateBytes`] of `x0`).
    pub state_bytes: usize,
}

/// The memory one state takes: its inline size and what it holds on the heap (the contents
/// of a `Vec`, counted as a clone allocates them: `len` elements). Implement
/// [`StateBytes::heap_bytes`] for a struct state that owns heap memory.
///
/// ```
/// use nilang::stdlib::treeverse::StateBytes;
/// assert_eq!(1.0f64.state_bytes(), 8);
/// assert_eq!([1.0f64; 4].state_bytes(), 32);
/// assert_eq!(vec![1.0f64; 100].state_bytes(), 24 + 800);
/// ```
pub trait StateBytes {
    /// Bytes held on the heap (none by default).
    fn heap_bytes(&self) -> usize {
        0
    }
    /// Inline size plus [`StateBytes::heap_bytes`].
    fn state_bytes(&self) -> usize
    where
        Self: Sized,
    {
        core::mem::size_of::<Self>() + self.heap_bytes()
    }
}
macro_rules! state_bytes_inline {
    ($($t:ty),*) => {$( impl StateBytes for $t {} )*};
}
state_bytes_inline!(f32, f64, i32, i64, isize, usize);
impl<T> StateBytes for GVar<T> {}
impl<T> StateBytes for crate::numbers::Dual<T> {}
impl<T> StateBytes for num_complex::Complex<T> {}
impl<T: StateBytes, const N: usize> StateBytes for [T; N] {
    fn heap_bytes(&self) -> usize {
        self.iter().map(StateBytes::heap_bytes).sum()
    }
}
impl<T: StateBytes> StateBytes for Vec<T> {
    fn heap_bytes(&self) -> usize {
        self.len() * core::mem::size_of::<T>()
            + self.iter().map(StateBytes::heap_bytes).sum::<usize>()
    }
}

impl TreeverseLog {
    /// The peak memory of the stored states: `peak_states × state_bytes`.
    ///
    /// ```
    /// use nilang::stdlib::treeverse::{treeverse, TreeverseLog};
    /// let mut log = TreeverseLog::default();
    /// treeverse(&[0.0f64; 4], 100, 3, |x| *x, |_, g: f64| g, |_| 1.0, Some(&mut log));
    /// assert_eq!(log.peak_bytes(), 4 * 32);
    /// ```
    pub fn peak_bytes(&self) -> usize {
        self.peak_states * self.state_bytes
    }
}

/// `C(a + b, a)`, saturating at `u128::MAX`; zero for `b < 0`.
fn beta(a: usize, b: isize) -> u128 {
    beta_wide(a as u128, b)
}

/// [`beta`] for `a` up to `usize::MAX + 1`.
fn beta_wide(a: u128, b: isize) -> u128 {
    if b < 0 {
        return 0;
    }
    let b = b as u128;
    // C(a + b, min(a, b)) by the multiplicative formula, each partial product an integer
    let (n, k) = (a + b, a.min(b));
    let mut r: u128 = 1;
    for i in 1..=k {
        r = match r.checked_mul(n - k + i) {
            Some(v) => v / i,
            None => return u128::MAX,
        };
    }
    r
}

/// The smallest `t` with `l ≤ C(c + t, c)`: how often the worst state is recomputed.
/// `C(c + t, c)` grows with `t`, so the search doubles `t` and then bisects: `O(log t)`
/// binomials (for `c = 1`, `C(1 + t, 1) = t + 1` and `t = l − 1` directly).
fn repetitions(l: u128, c: usize) -> isize {
    if c == 1 {
        return l.saturating_sub(1).min(isize::MAX as u128) as isize;
    }
    if l <= 1 {
        return 0;
    }
    let mut hi: isize = 1;
    while beta(c, hi) < l {
        hi *= 2;
    }
    let mut lo = hi / 2; // beta(c, lo) < l (or lo = 0 < hi with beta(c, 0) = 1 < l)
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if beta(c, mid) < l {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    hi
}

/// Raise a typed [`Argument`](crate::check::ErrorKind::Argument) error for a schedule size,
/// naming the caller's line.
#[cold]
#[track_caller]
pub(crate) fn schedule_error(statement: &'static str, detail: String) -> ! {
    let at = core::panic::Location::caller();
    let loc: &'static str =
        Box::leak(format!("{}:{}:{}", at.file(), at.line(), at.column()).into_boxed_str());
    crate::check::fail(crate::check::ErrorKind::Argument, loc, statement, detail)
}

/// Check `n` and `delta` of a Treeverse schedule (before anything is allocated): at least one
/// slot, and `n + 1` positions countable. Returns the useful slots, `min(delta, n + 1)`.
#[track_caller]
fn checked_sizes(n: usize, delta: usize) -> usize {
    if delta == 0 {
        schedule_error(
            "treeverse(x0, n, delta, ..)",
            "at least one checkpoint slot is needed (delta = 0); delta = 1 recomputes every \
             state from x0, delta = n + 1 stores them all"
                .into(),
        );
    }
    if n == usize::MAX {
        schedule_error(
            "treeverse(x0, n, delta, ..)",
            format!("n = {n} steps: the n + 1 positions do not fit in usize"),
        );
    }
    delta.min(n + 1)
}

/// Where to place the next checkpoint in a segment of length `l ≥ 2` with `c ≥ 2` slots.
fn split(l: usize, c: usize) -> usize {
    let t = repetitions(l as u128, c);
    let lo = beta(c, t - 2).max((l as u128).saturating_sub(beta(c - 1, t)));
    (lo.min(l as u128 - 1) as usize).max(1)
}

/// The fewest step calls that reverse `n` steps (the seed at `xₙ` included, so `l = n + 1`
/// positions) with `delta` checkpoint slots: `t·l − C(δ + t, t − 1)`. This is what
/// [`treeverse`] reports in [`TreeverseLog::steps`].
///
/// ```
/// use nilang::stdlib::treeverse::optimal_steps;
/// assert_eq!(optimal_steps(9, 1), 45); // recompute-all: 0 + 1 + … + 9
/// assert_eq!(optimal_steps(9, 10), 9); // store-all: every step once
/// assert_eq!(optimal_steps(9, 3), 15);
/// ```
#[track_caller]
pub fn optimal_steps(n: usize, delta: usize) -> u128 {
    if delta == 0 {
        schedule_error(
            "optimal_steps(n, delta)",
            "at least one checkpoint slot is needed (delta = 0)".into(),
        );
    }
    let l = n as u128 + 1;
    let t = repetitions(l, delta);
    if t == 0 {
        return 0;
    }
    // t·l − C(δ + t, t − 1), saturating (the count exceeds u128 only for absurd n and t)
    (t as u128)
        .saturating_mul(l)
        .saturating_sub(beta_wide(delta as u128 + 1, t - 1))
}

struct Frame {
    /// The first position of the segment (a checkpoint holds `x_start`).
    start: usize,
    /// The number of positions still to reverse.
    len: usize,
    /// Checkpoint slots available to this segment (its own included).
    slots: usize,
}

/// The gradient of a loss of the final state of `n` steps `x ↦ step(x)` from `x0`, back to
/// `x0`, with at most `delta` checkpoints (`x0` included; `delta ≥ 1`) and the optimal number
/// of step calls ([`optimal_steps`]); with `Some(log)`, the step calls, vjp calls, snapshots and
/// peak storage are recorded in `log`.
///
/// `seed(xₙ)` is the gradient of the loss at the final state; `vjp(xᵢ, ḡᵢ₊₁)` returns
/// `ḡᵢ = ḡᵢ₊₁ · ∂step/∂x (xᵢ)` and may accumulate parameter gradients in its captures. It is
/// called for `i = n − 1, …, 0` in that order.
///
/// ```
/// use nilang::stdlib::treeverse::{optimal_steps, treeverse, TreeverseLog};
/// // x ↦ 1.01 x, loss x²: d/dx₀ of (1.01ⁿ x₀)² = 2 · 1.01²ⁿ x₀
/// let g = treeverse(&1.0, 100, 4, |x: &f64| 1.01 * x, |_, g: f64| 1.01 * g, |x| 2.0 * x, None);
/// assert!((g - 2.0 * 1.01f64.powi(200)).abs() < 1e-12);
///
/// let mut log = TreeverseLog::default();
/// let step = |x: &f64| x + 1.0;
/// let g = treeverse(&1.0, 1000, 5, step, |_, g: f64| g, |_| 1.0, Some(&mut log));
/// assert_eq!(g, 1.0);
/// assert_eq!(log.steps as u128, optimal_steps(1000, 5));
/// assert!(log.peak_states <= 6 && log.peak_checkpoints <= 5);
/// assert_eq!(log.vjps, 1001);
/// ```
///
/// `delta = 0` and `n = usize::MAX` are [`Argument`](crate::check::ErrorKind::Argument)
/// errors raised before anything runs; slots beyond `n + 1` are never used (`delta` is
/// clamped to `n + 1`).
#[track_caller]
pub fn treeverse<S, G>(
    x0: &S,
    n: usize,
    delta: usize,
    mut step: impl FnMut(&S) -> S,
    mut vjp: impl FnMut(&S, G) -> G,
    seed: impl FnOnce(&S) -> G,
    mut log: Option<&mut TreeverseLog>,
) -> G
where
    S: Clone + StateBytes,
{
    let delta = checked_sizes(n, delta);
    let mut seed = Some(seed);
    let mut g: Option<G> = None;
    // checkpoint `k` holds the state at position `frames[k].start`
    let mut checkpoints: Vec<S> = vec![x0.clone()];
    let mut frames = vec![Frame {
        start: 0,
        len: n + 1,
        slots: delta,
    }];
    if let Some(l) = log.as_deref_mut() {
        l.state_bytes = x0.state_bytes();
    }
    let note = |log: &mut Option<&mut TreeverseLog>, stored: usize, working: usize| {
        if let Some(l) = log.as_deref_mut() {
            l.peak_checkpoints = l.peak_checkpoints.max(stored);
            l.peak_states = l.peak_states.max(stored + working);
        }
    };
    note(&mut log, 1, 0);
    // the vjp of position `i` (the seed at `n`), given the state there
    let mut back = |i: usize, x: &S, g: &mut Option<G>, log: &mut Option<&mut TreeverseLog>| {
        if let Some(l) = log.as_deref_mut() {
            l.vjps += 1;
        }
        *g = Some(if i == n {
            (seed.take().expect("nilang treeverse: seed called twice"))(x)
        } else {
            vjp(
                x,
                g.take()
                    .expect("nilang treeverse: no gradient to propagate"),
            )
        });
    };
    while let Some(top) = frames.last_mut() {
        let stored = checkpoints.len();
        let base = checkpoints
            .last()
            .expect("nilang treeverse: checkpoint missing");
        if top.len == 1 {
            back(top.start, base, &mut g, &mut log);
            frames.pop();
            if !frames.is_empty() {
                checkpoints.pop();
            }
            continue;
        }
        if top.slots == 1 {
            // no slot left: recompute every position from the checkpoint
            for i in (1..top.len).rev() {
                let mut x = step(base);
                for _ in 1..i {
                    x = step(&x);
                }
                if let Some(l) = log.as_deref_mut() {
                    l.steps += i;
                }
                note(&mut log, stored, 1);
                back(top.start + i, &x, &mut g, &mut log);
            }
            top.len = 1;
            continue;
        }
        let m = split(top.len, top.slots);
        let mut x = step(base);
        for _ in 1..m {
            x = step(&x);
        }
        if let Some(l) = log.as_deref_mut() {
            l.steps += m;
            l.snapshots += 1;
        }
        note(&mut log, stored, 1);
        let child = Frame {
            start: top.start + m,
            len: top.len - m,
            slots: top.slots - 1,
        };
        top.len = m;
        checkpoints.push(x);
        note(&mut log, stored + 1, 0);
        frames.push(child);
    }
    g.expect("nilang treeverse: no gradient computed")
}

/// A state whose numbers can be lifted to gradient numbers ([`GVar`]) and read back: what
/// [`treeverse_reversible`] needs to run a reversible step's inverse as its vjp. The
/// gradient has the state's own type.
pub trait GradState: Clone + ZeroLike + StateBytes {
    /// The state with gradient numbers.
    type Lifted;
    /// Values from `self`, gradients from `grad`.
    fn lift(&self, grad: &Self) -> Self::Lifted;
    /// The gradients of a lifted state.
    fn grad_of(lifted: &Self::Lifted) -> Self;
}
macro_rules! grad_state_float {
    ($($t:ty),*) => {$(
        impl GradState for $t {
            type Lifted = GVar<$t>;
            #[inline]
            fn lift(&self, grad: &Self) -> GVar<$t> {
                GVar::new(*self, *grad)
            }
            #[inline]
            fn grad_of(lifted: &GVar<$t>) -> Self {
                lifted.g
            }
        }
    )*};
}
grad_state_float!(f32, f64);
impl<T: GradState, const N: usize> GradState for [T; N] {
    type Lifted = [T::Lifted; N];
    fn lift(&self, grad: &Self) -> Self::Lifted {
        core::array::from_fn(|i| self[i].lift(&grad[i]))
    }
    fn grad_of(lifted: &Self::Lifted) -> Self {
        core::array::from_fn(|i| T::grad_of(&lifted[i]))
    }
}
impl<T: GradState> GradState for Vec<T> {
    type Lifted = Vec<T::Lifted>;
    fn lift(&self, grad: &Self) -> Self::Lifted {
        assert_eq!(
            self.len(),
            grad.len(),
            "nilang treeverse: gradient and state differ in length"
        );
        self.iter().zip(grad).map(|(x, g)| x.lift(g)).collect()
    }
    fn grad_of(lifted: &Self::Lifted) -> Self {
        lifted.iter().map(T::grad_of).collect()
    }
}

/// A reversible step `step(dest, src)` on states `S` and on their gradient numbers: what
/// [`step_vjp`] and [`treeverse_reversible`] run (any `#[i]` step generic over its scalar
/// type is one).
pub trait ReversibleStep<S: GradState>:
    for<'a, 'b> Reversible<(&'a mut S, &'b mut S)>
    + for<'a, 'b> Reversible<(&'a mut S::Lifted, &'b mut S::Lifted)>
{
}
impl<S: GradState, F> ReversibleStep<S> for F where
    F: for<'a, 'b> Reversible<(&'a mut S, &'b mut S)>
        + for<'a, 'b> Reversible<(&'a mut S::Lifted, &'b mut S::Lifted)>
{
}

/// One step of a reversible step function: `(0, x) → (f(x), x)`, returning `f(x)`.
///
/// ```
/// use nilang::prelude::*;
/// use nilang::stdlib::treeverse::apply_step;
/// #[i]
/// fn double<T: Scalar>(dest: &mut T, src: &mut T) {
///     dest += src * 2.0;
/// }
/// assert_eq!(apply_step(&Double, &1.5), 3.0);
/// ```
pub fn apply_step<S, F>(step: &F, x: &S) -> S
where
    S: Clone + ZeroLike,
    F: for<'a, 'b> Reversible<(&'a mut S, &'b mut S)>,
{
    let mut src = x.clone();
    let mut dest = x.zero_like();
    step.call((&mut dest, &mut src));
    dest
}

/// The vjp of a reversible step: run forward on plain numbers, lift the result with the
/// incoming gradient `g`, and run the inverse on gradient numbers, which takes the result back
/// to zero and leaves `g · ∂f/∂x` in the source's gradients.
///
/// ```
/// use nilang::prelude::*;
/// use nilang::stdlib::treeverse::step_vjp;
/// #[i]
/// fn cube<T: Scalar>(dest: &mut T, src: &mut T) {
///     dest += src.powi(3);
/// }
/// assert_eq!(step_vjp(&Cube, &2.0, 1.0), 12.0);
/// ```
pub fn step_vjp<S: GradState, F: ReversibleStep<S>>(step: &F, x: &S, g: S) -> S {
    step_vjp_on(&mut Tape::new(), step, x, g)
}

/// [`step_vjp`] with the step's forward and inverse run on `tape` (a [`Tape::scope`]): what a
/// split-mode step (`#[store]` routines) stores between the two runs goes there, not on the
/// thread's tape, and reusing one tape for every vjp of a schedule allocates only once.
///
/// ```
/// use nilang::prelude::*;
/// use nilang::stdlib::treeverse::step_vjp_on;
/// use nilang::tape::Tape;
/// #[i]
/// fn cube<T: Scalar>(dest: &mut T, src: &mut T) {
///     #[store(always)]
///     routine! {
///         let c = T::default();
///         c += src.powi(3);
///     }
///     dest += c;
///     unroutine!();
/// }
/// let mut tape = Tape::new();
/// assert_eq!(step_vjp_on(&mut tape, &Cube, &2.0, 1.0), 12.0);
/// let s = tape.stats();
/// assert_eq!((s.pushes, s.len), (1, 0));
/// assert_eq!(nilang::tape::stats().pushes, 0); // the thread's tape was not touched
/// ```
pub fn step_vjp_on<S: GradState, F: ReversibleStep<S>>(
    tape: &mut Tape,
    step: &F,
    x: &S,
    g: S,
) -> S {
    tape.scope(|| {
        let y = apply_step(step, x);
        let mut dy = y.lift(&g);
        let mut dx = x.lift(&x.zero_like());
        step.uncall((&mut dy, &mut dx));
        S::grad_of(&dx)
    })
}

/// [`treeverse`] for a reversible step `step(dest, src)` (an `#[i]` function, any
/// [`Reversible`], even [`Bennett`](super::bennett::Bennett)): the gradient at `x0` of the
/// loss whose gradient at the final state is `seed(xₙ)`, recorded in `log` as by [`treeverse`]
/// (its `steps` do not count the one forward call inside each vjp). Each vjp is
/// [`step_vjp`].
///
/// ```
/// use nilang::prelude::*;
/// use nilang::stdlib::treeverse::treeverse_reversible;
/// // a rotation by 0.1 rad: the squared norm is conserved, so its gradient is 2 x₀
/// #[i]
/// fn rotate<T: Scalar>(dest: &mut [T; 2], src: &mut [T; 2]) {
///     dest[0] += src[0] * cst!(T::lit(0.1f64.cos()));
///     dest[0] -= src[1] * cst!(T::lit(0.1f64.sin()));
///     dest[1] += src[0] * cst!(T::lit(0.1f64.sin()));
///     dest[1] += src[1] * cst!(T::lit(0.1f64.cos()));
/// }
/// let g = treeverse_reversible(&Rotate, &[1.0, 2.0], 500, 3, |x| [2.0 * x[0], 2.0 * x[1]], None);
/// assert!((g[0] - 2.0).abs() < 1e-10 && (g[1] - 4.0).abs() < 1e-10);
/// ```
pub fn treeverse_reversible<S: GradState, F: ReversibleStep<S>>(
    step: &F,
    x0: &S,
    n: usize,
    delta: usize,
    seed: impl FnOnce(&S) -> S,
    log: Option<&mut TreeverseLog>,
) -> S {
    // advancing steps store nothing; each vjp's stored results live on one tape of the run
    let mut tape = Tape::new();
    treeverse(
        x0,
        n,
        delta,
        |x| crate::tape::discarding(|| apply_step(step, x)),
        |x, g| step_vjp_on(&mut tape, step, x, g),
        seed,
        log,
    )
}

/// The store-all reference (a tape of all `n + 1` states): the same gradient as [`treeverse`]
/// with `n` step calls and `n + 1` stored states.
///
/// ```
/// use nilang::stdlib::treeverse::{store_all, treeverse};
/// let (f, vjp) = (|x: &f64| x.sin(), |x: &f64, g: f64| g * x.cos());
/// let a = store_all(&0.5, 50, f, vjp, |_| 1.0);
/// let b = treeverse(&0.5, 50, 2, f, vjp, |_| 1.0, None);
/// assert_eq!(a, b);
/// ```
#[track_caller]
pub fn store_all<S: Clone, G>(
    x0: &S,
    n: usize,
    mut step: impl FnMut(&S) -> S,
    mut vjp: impl FnMut(&S, G) -> G,
    seed: impl FnOnce(&S) -> G,
) -> G {
    let mut tape = Vec::new();
    if n == usize::MAX || tape.try_reserve_exact(n + 1).is_err() {
        schedule_error(
            "store_all(x0, n, ..)",
            format!(
                "n = {n} steps: {} states of {} bytes cannot be allocated",
                n as u128 + 1,
                core::mem::size_of::<S>()
            ),
        );
    }
    tape.push(x0.clone());
    for i in 0..n {
        let next = step(&tape[i]);
        tape.push(next);
    }
    let mut g = seed(&tape[n]);
    for x in tape[..n].iter().rev() {
        g = vjp(x, g);
    }
    g
}
