//! Time loops in the gradient API: `n` steps of a step program with a checkpointing schedule,
//! as one differentiable function.
//!
//! [`TimeLoop`] takes an `#[i]` step `step(next, prev, params)` (which adds the next state to
//! a zero `next`: `next += f(prev, params)`), an `#[i]` loss `loss(out, state)` (`out +=
//! L(state)`), the number of steps and a [`Schedule`]. It is itself a reversible function of
//! `(out, x0, params)` with the effect `out += L(xₙ)` (or `out += Σᵢ L(xᵢ)`, `i = 1..=n`, with
//! [`TimeLoop::summed`]), so [`value_and_gradient`](super::value_and_gradient),
//! [`gradient`](super::gradient) and a [`Plan`](super::Plan) accept it like any `#[i]`
//! function: they return the loss value, the adjoint of `x0`, and the adjoints of the
//! parameters accumulated over all steps. The schedule decides only how the states are
//! brought back in reverse order (store them all, Treeverse with `δ` checkpoints, Bennett with
//! `k` segments, recompute each from `x0`); every schedule runs the same step inverses on the
//! same states, so the gradients are bit-identical.
//!
//! Steps with `#[store]` routines (split reversal) work with every schedule: the steps that
//! only advance a checkpoint run inside [`discarding`] (they push
//! nothing), the steps about to be reversed store their routines' results on the loop's own
//! [`Tape`], which the reversal takes back. What a run did is in [`TimeLoop::log`].
//!
//! ```
//! use nilang::prelude::*;
//! use nilang::ad::time_loop::{Schedule, TimeLoop};
//! /// x ↦ x − a·x: exponential decay (a = rate × dt)
//! #[i]
//! fn decay<T: Scalar>(next: &mut [T; 1], prev: &mut [T; 1], a: &mut T) {
//!     next[0] += prev[0];
//!     next[0] -= prev[0] * a;
//! }
//! #[i]
//! fn square<T: Scalar>(out: &mut T, x: &mut [T; 1]) {
//!     out += x[0].powi(2);
//! }
//! let run = TimeLoop::new(Decay, Square, 100, Schedule::Treeverse { delta: 4 });
//! let (v, (_, gx, ga)) = nilang::ad::value_and_gradient(&run, (&mut 0.0, &mut [1.0], &mut 0.02), 0);
//! let r: f64 = 1.0 - 0.02;
//! assert!((v - r.powi(200)).abs() < 1e-14);
//! assert!((gx[0].g - 2.0 * r.powi(200)).abs() < 1e-13);
//! assert!((ga.g + 200.0 * r.powi(199)).abs() < 1e-11);
//! // the same gradient, bit for bit, storing every state
//! let all = TimeLoop::new(Decay, Square, 100, Schedule::StoreAll);
//! let (_, (_, gx2, ga2)) = nilang::ad::value_and_gradient(&all, (&mut 0.0, &mut [1.0], &mut 0.02), 0);
//! assert_eq!((gx[0].g, ga.g), (gx2[0].g, ga2.g));
//! assert!(run.log().peak_states <= 5 && all.log().peak_states == 101);
//! ```
use crate::check::AlmostSame;
use crate::stdlib::bennett::{Bennett, BennettLog, Direction, ZeroLike};
use crate::stdlib::treeverse::{schedule_error, treeverse, StateBytes, TreeverseLog};
use crate::tape::{discarding, Tape};
use crate::Reversible;
use core::cell::RefCell;
use core::fmt::Debug;

/// The step's `next` (argument 0) as the dead argument of
/// [`Reversible::uncall_dead`]: a state whose adjoint has been carried back is not read again,
/// so the step's inverse moves adjoints only there and leaves its values (no value is
/// restored that nobody reads; the adjoints, and so the gradients, are the same).
const NEXT_IS_DEAD: crate::abi::ParamMask = 1 << 0;

/// How a [`TimeLoop`] brings the states back in reverse order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Schedule {
    /// Keep all `n + 1` states: `n` step calls, `n + 1` states stored.
    StoreAll,
    /// Treeverse (binomial checkpointing) with `delta ≥ 1` checkpoint slots: the fewest step
    /// calls for at most `delta + 1` states ([`optimal_steps`](crate::stdlib::treeverse::optimal_steps)).
    Treeverse {
        /// Checkpoint slots (`x0` included).
        delta: usize,
    },
    /// Bennett's reversible k-ary schedule (`k ≥ 2`): `O(k log_k n)` states, no checkpoint
    /// copies, the states uncomputed by the step's inverse (loss on the final state only).
    Bennett {
        /// Segments per level.
        k: usize,
    },
    /// Keep only `x0` and recompute every state from it: `n(n + 1)/2` step calls, 2 states.
    RecomputeAll,
}

/// Where the loss is taken.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LossAt {
    /// `out += L(xₙ)`.
    Final,
    /// `out += Σᵢ L(xᵢ)` over the states after each step, `i = 1..=n`.
    EveryStep,
}

/// What the last gradient (or inverse) run of a [`TimeLoop`] did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TimeLoopLog {
    /// Step calls that advanced a state (forward), over the whole run.
    pub steps: usize,
    /// Step inverses that carried adjoints back (one per step).
    pub reversals: usize,
    /// The most states stored at once (checkpoints and the state being advanced; the adjoint
    /// being carried back not included).
    pub peak_states: usize,
    /// Bytes of one state, its heap included ([`StateBytes`]), as the schedule stores it
    /// (on the numbers the run is on: gradient numbers in a gradient).
    pub state_bytes: usize,
    /// The store tape of `#[store]` routines: the most bytes held at once.
    pub tape_peak_bytes: usize,
    /// The store tape's allocated buffers (kept for the next call).
    pub tape_reserved_bytes: usize,
    /// Numbers the steps stored on the tape (zero in joint mode).
    pub tape_pushes: usize,
    /// Bytes of the states [`Schedule::StoreAll`] keeps allocated for the next call (their
    /// heap included); zero with the other schedules.
    pub states_reserved_bytes: usize,
}

impl TimeLoopLog {
    /// The peak memory of the stored states: `peak_states × state_bytes`.
    pub fn peak_state_bytes(&self) -> usize {
        self.peak_states * self.state_bytes
    }
}

/// `n` steps of `step` from `x0` with a checkpointing [`Schedule`], and a loss: a
/// differentiable function of `(out, x0, params)` (see the [module documentation](self)).
pub struct TimeLoop<F, L> {
    /// The step `step(next, prev, params)`: `next += f(prev, params)`.
    pub step: F,
    /// The loss `loss(out, state)`: `out += L(state)`.
    pub loss: L,
    /// The number of steps.
    pub n: usize,
    /// How the states are brought back.
    pub schedule: Schedule,
    /// Where the loss is taken.
    pub loss_at: LossAt,
    log: RefCell<TimeLoopLog>,
    tape: RefCell<Tape>,
    states: RefCell<StatePool>,
}

impl<F: Clone, L: Clone> Clone for TimeLoop<F, L> {
    fn clone(&self) -> Self {
        TimeLoop {
            step: self.step.clone(),
            loss: self.loss.clone(),
            n: self.n,
            schedule: self.schedule,
            loss_at: self.loss_at,
            log: RefCell::default(),
            tape: RefCell::default(),
            states: RefCell::default(),
        }
    }
}

impl<F, L> TimeLoop<F, L> {
    /// `n` steps of `step`, the loss on the final state, brought back by `schedule`.
    /// Schedule sizes are checked here, before anything runs: `n ≥ 1`, `delta ≥ 1`, `k ≥ 2`
    /// ([`Argument`](crate::check::ErrorKind::Argument) errors at the caller's line).
    #[track_caller]
    pub fn new(step: F, loss: L, n: usize, schedule: Schedule) -> Self {
        let what = "TimeLoop::new(step, loss, n, schedule)";
        if n == 0 || n == usize::MAX {
            schedule_error(what, format!("n = {n} steps: use 1 ≤ n < usize::MAX"));
        }
        match schedule {
            Schedule::Treeverse { delta: 0 } => schedule_error(
                what,
                "Treeverse needs at least one checkpoint slot (delta = 0)".into(),
            ),
            Schedule::Bennett { k } if k < 2 => schedule_error(
                what,
                format!("Bennett needs k ≥ 2 segments per level, got {k}"),
            ),
            _ => {}
        }
        TimeLoop {
            step,
            loss,
            n,
            schedule,
            loss_at: LossAt::Final,
            log: RefCell::default(),
            tape: RefCell::default(),
            states: RefCell::default(),
        }
    }

    /// The loss summed over the states after every step (`out += Σᵢ L(xᵢ)`, `i = 1..=n`).
    /// Not with [`Schedule::Bennett`], which keeps only the final state (an
    /// [`Argument`](crate::check::ErrorKind::Argument) error).
    #[track_caller]
    pub fn summed(mut self) -> Self {
        if let Schedule::Bennett { .. } = self.schedule {
            schedule_error(
                "TimeLoop::summed()",
                "a loss summed over steps needs every state: use StoreAll, Treeverse or \
                 RecomputeAll, not Bennett"
                    .into(),
            );
        }
        self.loss_at = LossAt::EveryStep;
        self
    }

    /// What the last inverse (gradient) run did.
    pub fn log(&self) -> TimeLoopLog {
        self.log.borrow().clone()
    }
}

/// The states of [`Schedule::StoreAll`], kept by the loop between calls (of the numbers of the
/// last call: gradient numbers in a gradient) and refilled in place.
#[derive(Default)]
struct StatePool(Option<Box<dyn core::any::Any>>);

impl StatePool {
    /// At least `count` states of type `S` (of `like`'s shape after the first call), allocated
    /// once: an [`Argument`](crate::check::ErrorKind::Argument) error when they cannot be.
    fn states<S: Clone + ZeroLike + 'static>(
        &mut self,
        count: usize,
        like: &S,
        state_bytes: usize,
    ) -> &mut [S] {
        if !matches!(&self.0, Some(b) if b.is::<Vec<S>>()) {
            self.0 = Some(Box::new(Vec::<S>::new()));
        }
        let states = self
            .0
            .as_mut()
            .and_then(|b| b.downcast_mut::<Vec<S>>())
            .expect("a Vec<S> was just put there");
        if states.len() < count {
            if states.try_reserve_exact(count - states.len()).is_err() {
                schedule_error(
                    "TimeLoop (StoreAll)",
                    format!("{count} states of {state_bytes} bytes cannot be allocated"),
                );
            }
            states.resize_with(count, || like.zero_like());
        }
        &mut states[..count]
    }

    /// Bytes held: the list (boxed) with its capacity, and every state's heap.
    fn reserved_bytes<S: StateBytes + 'static>(&self) -> usize {
        match self.0.as_ref().and_then(|b| b.downcast_ref::<Vec<S>>()) {
            Some(v) => {
                core::mem::size_of::<Vec<S>>()
                    + v.capacity() * core::mem::size_of::<S>()
                    + v.iter().map(StateBytes::heap_bytes).sum::<usize>()
            }
            None => 0,
        }
    }
}

/// A state of a checkpointing schedule whose buffer goes back to `spares` when it is dropped:
/// the states a schedule makes and drops over a run reuse a few allocations.
struct Pooled<'p, S> {
    /// The state; mutable behind `&` so that a step can run on a checkpoint in place (a step
    /// gives its `prev` back unchanged) instead of on a copy.
    s: RefCell<Option<S>>,
    spares: &'p RefCell<Vec<S>>,
}

impl<'p, S: Clone + ZeroLike> Pooled<'p, S> {
    /// A copy of `x`.
    fn copy_of(x: &S, spares: &'p RefCell<Vec<S>>) -> Self {
        let s = match spares.borrow_mut().pop() {
            Some(mut s) => {
                s.clone_from(x);
                s
            }
            None => x.clone(),
        };
        Pooled {
            s: RefCell::new(Some(s)),
            spares,
        }
    }

    /// A zero of `x`'s shape.
    fn zero_of(x: &S, spares: &'p RefCell<Vec<S>>) -> Self {
        let s = match spares.borrow_mut().pop() {
            Some(mut s) => {
                s.set_zero_like(x);
                s
            }
            None => x.zero_like(),
        };
        Pooled {
            s: RefCell::new(Some(s)),
            spares,
        }
    }
}

impl<S> Pooled<'_, S> {
    fn get(&self) -> core::cell::Ref<'_, S> {
        core::cell::Ref::map(self.s.borrow(), |s| {
            s.as_ref()
                .expect("a pooled state is only emptied when dropped")
        })
    }

    fn get_mut(&mut self) -> &mut S {
        self.s
            .get_mut()
            .as_mut()
            .expect("a pooled state is only emptied when dropped")
    }

    /// The state, mutably, behind `&` (for a step run on it in place).
    fn borrow_mut(&self) -> core::cell::RefMut<'_, S> {
        core::cell::RefMut::map(self.s.borrow_mut(), |s| {
            s.as_mut()
                .expect("a pooled state is only emptied when dropped")
        })
    }
}

impl<S> Drop for Pooled<'_, S> {
    fn drop(&mut self) {
        if let (Some(s), Ok(mut spares)) = (self.s.get_mut().take(), self.spares.try_borrow_mut()) {
            spares.push(s);
        }
    }
}

impl<S: Clone + ZeroLike> Clone for Pooled<'_, S> {
    fn clone(&self) -> Self {
        Pooled::copy_of(&*self.get(), self.spares)
    }
}

impl<S: StateBytes> StateBytes for Pooled<'_, S> {
    fn heap_bytes(&self) -> usize {
        self.get().heap_bytes()
    }
    fn state_bytes(&self) -> usize {
        self.get().state_bytes()
    }
}

/// The step with its parameters bound: a two-argument reversible step, as [`Bennett`] runs.
/// Bennett's schedule keeps a segment's last state while uncomputing the segment before it,
/// so stored results would be taken back out of order: forward steps push nothing
/// ([`discarding`]), and each inverse of a split step first runs the step forward storing its
/// results (the same as in Treeverse's reversals).
struct Bound<'s, 'p, F, P: ?Sized, S> {
    step: &'s F,
    params: RefCell<&'p mut P>,
    /// Whether the step stores anything (found out at its first inverse).
    split: core::cell::Cell<Option<bool>>,
    /// The two states of the storing forward run of a split step, reused at every inverse.
    scratch: RefCell<Option<(S, S)>>,
}

impl<'x, 'y, F, S, P: ?Sized> Reversible<(&'x mut S, &'y mut S)> for Bound<'_, '_, F, P, S>
where
    S: Clone + ZeroLike,
    F: for<'a, 'b, 'z> Reversible<(&'a mut S, &'b mut S, &'z mut P)>,
{
    fn call(&self, (d, s): (&'x mut S, &'y mut S)) -> (&'x mut S, &'y mut S) {
        let mut p = self.params.borrow_mut();
        let (d, s, _) = discarding(|| self.step.call_primal((d, s, &mut **p)));
        (d, s)
    }
    fn uncall(&self, (d, s): (&'x mut S, &'y mut S)) -> (&'x mut S, &'y mut S) {
        let mut p = self.params.borrow_mut();
        if self.split.get() != Some(false) {
            let pushed = crate::tape::stats().pushes;
            let mut scratch = self.scratch.borrow_mut();
            let (next, prev) = match &mut *scratch {
                Some((next, prev)) => {
                    next.set_zero_like(s);
                    prev.clone_from(s);
                    (next, prev)
                }
                none => {
                    let (next, prev) = none.insert((s.zero_like(), s.clone()));
                    (next, prev)
                }
            };
            self.step.call_primal((next, prev, &mut **p));
            self.split.set(Some(crate::tape::stats().pushes > pushed));
        }
        let (d, s, _) = self.step.uncall((d, s, &mut **p));
        (d, s)
    }
}

impl<F, L> TimeLoop<F, L> {
    /// The forward run: `out += L(xₙ)` (or the sum).
    fn forward<X: ?Sized, S, P: ?Sized>(&self, out: &mut X, x0: &S, p: &mut P)
    where
        S: Clone + ZeroLike,
        F: for<'a, 'b, 'c> Reversible<(&'a mut S, &'b mut S, &'c mut P)>,
        L: for<'a, 'b> Reversible<(&'a mut X, &'b mut S)>,
    {
        // two states, swapped after each step (no allocation per step)
        let (mut x, mut next) = (x0.clone(), x0.zero_like());
        discarding(|| {
            for _ in 0..self.n {
                next.set_zero_like(&x);
                self.step.call_primal((&mut next, &mut x, &mut *p));
                core::mem::swap(&mut x, &mut next);
                if self.loss_at == LossAt::EveryStep {
                    self.loss.call_primal((out, &mut x));
                }
            }
        });
        if self.loss_at == LossAt::Final {
            self.loss.call_primal((out, &mut x));
        }
    }

    /// The inverse run: `out -= L(…)`, and on gradient numbers the adjoints of `out` carried
    /// back to `x0` and the parameters, by the schedule.
    fn reverse<X: ?Sized, S, P: ?Sized>(&self, out: &mut X, x0: &mut S, p: &mut P)
    where
        S: Clone + ZeroLike + StateBytes + AlmostSame + Debug + 'static,
        F: for<'a, 'b, 'c> Reversible<(&'a mut S, &'b mut S, &'c mut P)>,
        L: for<'a, 'b> Reversible<(&'a mut X, &'b mut S)>,
    {
        let mut fresh = Tape::new();
        let mut own = self.tape.try_borrow_mut();
        let tape: &mut Tape = match own.as_deref_mut() {
            Ok(t) => t,
            Err(_) => &mut fresh,
        };
        let before = tape.stats().pushes;
        let mut log = TimeLoopLog {
            state_bytes: x0.state_bytes(),
            ..Default::default()
        };
        let n = self.n;
        let summed = self.loss_at == LossAt::EveryStep;
        tape.scope(|| match self.schedule {
            Schedule::StoreAll => {
                // forward: every state kept in the loop's own storage (refilled in place on
                // every call: no allocation after the first), every step's stored results
                // pushed in order
                let mut fresh = StatePool::default();
                let mut own = self.states.try_borrow_mut();
                let pool: &mut StatePool = match own.as_deref_mut() {
                    Ok(pool) => pool,
                    Err(_) => &mut fresh,
                };
                let states = pool.states::<S>(n + 1, x0, log.state_bytes);
                states[0].clone_from(x0);
                for i in 0..n {
                    let (done, rest) = states.split_at_mut(i + 1);
                    let (prev, next) = (&mut done[i], &mut rest[0]);
                    next.set_zero_like(prev);
                    self.step.call_primal((next, prev, &mut *p));
                }
                log.steps = n;
                log.peak_states = n + 1;
                self.loss.uncall((&mut *out, &mut states[n]));
                for i in (0..n).rev() {
                    let (done, rest) = states.split_at_mut(i + 1);
                    // the next state's values are not read again: adjoints only there
                    self.step
                        .uncall_dead((&mut rest[0], &mut done[i], &mut *p), NEXT_IS_DEAD);
                    if summed && i > 0 {
                        self.loss.uncall((&mut *out, &mut done[i]));
                    }
                }
                log.reversals = n;
                x0.clone_from(&states[0]);
                log.states_reserved_bytes = pool.reserved_bytes::<S>();
            }
            Schedule::Treeverse { .. } | Schedule::RecomputeAll => {
                let delta = match self.schedule {
                    Schedule::Treeverse { delta } => delta,
                    _ => 1,
                };
                // the states the schedule makes and drops reuse a few buffers
                let spares = RefCell::new(Vec::new());
                let ctx = RefCell::new((&mut *out, &mut *p));
                // whether the step stores anything (split mode): found out at the first step
                let mut split: Option<bool> = None;
                let mut tl = TreeverseLog::default();
                // `x ↦ step(x)`, the step's stored results pushed (or, inside `discarding`, not)
                // (on the state itself: a step gives its `prev` back unchanged, as the states
                // of store-all rely on too)
                let advance = |x: &Pooled<S>, p: &mut P| {
                    let mut next = Pooled::zero_of(&*x.get(), &spares);
                    self.step
                        .call_primal((next.get_mut(), &mut *x.borrow_mut(), &mut *p));
                    next
                };
                let step = |x: &Pooled<S>| {
                    let mut c = ctx.borrow_mut();
                    discarding(|| advance(x, &mut *c.1))
                };
                let vjp = |x: &Pooled<S>, mut carry: Pooled<S>| {
                    let mut c = ctx.borrow_mut();
                    let (_, p) = &mut *c;
                    if split != Some(false) {
                        // run the step forward storing its routines' results, to be taken
                        // back by its inverse just below (its result equals `carry`'s values)
                        let pushed = crate::tape::stats().pushes;
                        drop(advance(x, p));
                        split = Some(crate::tape::stats().pushes > pushed);
                    }
                    let mut src = Pooled::copy_of(&*x.get(), &spares);
                    // `carry` is dropped after: adjoints only there
                    self.step
                        .uncall_dead((carry.get_mut(), src.get_mut(), &mut **p), NEXT_IS_DEAD);
                    src
                };
                let seed = |x: &Pooled<S>| {
                    let mut carry = Pooled::copy_of(&*x.get(), &spares);
                    let mut c = ctx.borrow_mut();
                    self.loss.uncall((&mut *c.0, carry.get_mut()));
                    carry
                };
                let start = Pooled::copy_of(x0, &spares);
                let mut g = if summed {
                    // the loss of state i is seeded when its adjoint passes: wrap the vjp
                    let mut inner = vjp;
                    let mut pos = n;
                    let vjp_summed = |x: &Pooled<S>, carry: Pooled<S>| {
                        pos -= 1;
                        let mut src = inner(x, carry);
                        if pos > 0 {
                            let mut c = ctx.borrow_mut();
                            self.loss.uncall((&mut *c.0, src.get_mut()));
                        }
                        src
                    };
                    treeverse(&start, n, delta, step, vjp_summed, seed, Some(&mut tl))
                } else {
                    treeverse(&start, n, delta, step, vjp, seed, Some(&mut tl))
                };
                log.steps = tl.steps;
                log.reversals = n;
                log.peak_states = tl.peak_states;
                core::mem::swap(x0, g.get_mut());
            }
            Schedule::Bennett { k } => {
                let run = Bennett {
                    step: Bound {
                        step: &self.step,
                        params: RefCell::new(&mut *p),
                        split: Default::default(),
                        scratch: RefCell::new(None),
                    },
                    k,
                    n,
                };
                let mut bl = BennettLog {
                    counts_only: true,
                    ..Default::default()
                };
                let mut y = x0.zero_like();
                // forward to xₙ (Bennett's own reversible schedule), the loss, and back
                run.logged(Direction::Forward, &mut y, x0, &mut bl);
                let (f, _) = bl.counts();
                self.loss.uncall((&mut *out, &mut y));
                run.logged(Direction::Backward, &mut y, x0, &mut bl);
                log.steps = bl.counts().0;
                log.reversals = bl.counts().1 - f;
                log.peak_states = bl.peak_states;
            }
        });
        let s = tape.stats();
        log.tape_peak_bytes = s.peak_bytes;
        log.tape_reserved_bytes = s.reserved_bytes;
        log.tape_pushes = s.pushes - before;
        *self.log.borrow_mut() = log;
    }
}

impl<'a, 'b, 'c, X: ?Sized, S, P: ?Sized, F, L> Reversible<(&'a mut X, &'b mut S, &'c mut P)>
    for TimeLoop<F, L>
where
    S: Clone + ZeroLike + StateBytes + AlmostSame + Debug + 'static,
    F: for<'x, 'y, 'z> Reversible<(&'x mut S, &'y mut S, &'z mut P)>,
    L: for<'x, 'y> Reversible<(&'x mut X, &'y mut S)>,
{
    fn call(
        &self,
        (out, x0, p): (&'a mut X, &'b mut S, &'c mut P),
    ) -> (&'a mut X, &'b mut S, &'c mut P) {
        self.forward(out, x0, p);
        (out, x0, p)
    }
    fn uncall(
        &self,
        (out, x0, p): (&'a mut X, &'b mut S, &'c mut P),
    ) -> (&'a mut X, &'b mut S, &'c mut P) {
        self.reverse(out, x0, p);
        (out, x0, p)
    }
    /// Compute–copy–uncompute in the loss: its only lasting effect is `out += L`, so a
    /// gradient needs no separate forward pass (the schedule runs inside the inverse).
    fn additive(&self) -> crate::abi::ParamMask {
        1
    }
}
