//! Bennett's time–space trade-off for a long chain of reversible steps.
//!
//! Running `n` steps `x₁ = f(x₀), x₂ = f(x₁), …` reversibly naively keeps all `n`
//! intermediate states. Bennett's k-ary scheme splits the chain into `k` segments, computes them
//! one after another (recursively), and uncomputes all but the last segment's end, so that only
//! `O(k log_k n)` states are alive at once, at the cost of `O(n^{log_k(2k−1)})` step calls.
//!
//! The step is any reversible function `step(dest, src)` that adds the next state to a zero
//! `dest` (an `#[i]` function's unit struct, or any [`Reversible`]); its inverse zeroes `dest`
//! again given `src`. [`bennett`] maps `(y = 0, x) → (y = xₙ, x)`, and [`bennett_inv`] undoes
//! it. Both are reversible programs themselves: run on gradient numbers (`GVar`), the inverse
//! back-propagates adjoints, so Bennett's schedule is differentiable (NiLang's `bennett`).
use crate::check::AlmostSame;
use crate::Reversible;
use core::fmt::Debug;

/// A value of the same shape with all numbers zero (the initial value of a fresh state).
pub trait ZeroLike {
    /// A zero of the same shape.
    fn zero_like(&self) -> Self;
    /// Make `self` a zero of `like`'s shape, reusing its heap where it has one (the storage
    /// of a time loop, refilled on every call). The default assigns [`ZeroLike::zero_like`].
    ///
    /// ```
    /// use nilang::stdlib::bennett::ZeroLike;
    /// let mut v = vec![1.0, 2.0, 3.0];
    /// v.set_zero_like(&vec![5.0, 6.0]);
    /// assert_eq!(v, [0.0, 0.0]);
    /// ```
    fn set_zero_like(&mut self, like: &Self)
    where
        Self: Sized,
    {
        *self = like.zero_like();
    }
}
macro_rules! zero_like_default {
    ($($t:ty),*) => {$(
        impl ZeroLike for $t {
            #[inline]
            fn zero_like(&self) -> Self {
                <$t>::default()
            }
        }
    )*};
}
zero_like_default!(f32, f64, i32, i64, isize, usize);
impl<T: Default> ZeroLike for crate::GVar<T> {
    fn zero_like(&self) -> Self {
        Self::default()
    }
}
impl<T: Default> ZeroLike for crate::numbers::Dual<T> {
    fn zero_like(&self) -> Self {
        Self::default()
    }
}
impl<T: Default> ZeroLike for num_complex::Complex<T> {
    fn zero_like(&self) -> Self {
        num_complex::Complex::new(T::default(), T::default())
    }
}
impl<T: ZeroLike> ZeroLike for Vec<T> {
    fn zero_like(&self) -> Self {
        self.iter().map(ZeroLike::zero_like).collect()
    }
    fn set_zero_like(&mut self, like: &Self) {
        self.truncate(like.len());
        for (a, b) in self.iter_mut().zip(like) {
            a.set_zero_like(b);
        }
        let have = self.len();
        self.extend(like[have..].iter().map(ZeroLike::zero_like));
    }
}
impl<T: ZeroLike, const N: usize> ZeroLike for [T; N] {
    fn zero_like(&self) -> Self {
        core::array::from_fn(|i| self[i].zero_like())
    }
    fn set_zero_like(&mut self, like: &Self) {
        for (a, b) in self.iter_mut().zip(like) {
            a.set_zero_like(b);
        }
    }
}

/// The direction of one logged step call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// `step(dest, src)`: compute a state.
    Forward,
    /// `step⁻¹(dest, src)`: uncompute a state.
    Backward,
}

/// What a Bennett run did: every step call as `(depth, index, direction)` (index `i` computes
/// state `i + 1` from state `i`; depth 0 is the top level) and the largest number of states
/// stored at once (the input state included).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BennettLog {
    /// Every call of the step function, in order (empty with `counts_only`).
    pub calls: Vec<(usize, usize, Direction)>,
    /// The peak number of states alive at once.
    pub peak_states: usize,
    /// Count the calls without keeping them in `calls` (a long run's list is large: 24 bytes
    /// per call).
    pub counts_only: bool,
    /// Forward and backward step calls counted.
    pub forward_calls: usize,
    /// See `forward_calls`.
    pub backward_calls: usize,
}

impl BennettLog {
    /// The number of forward and backward step calls.
    pub fn counts(&self) -> (usize, usize) {
        (self.forward_calls, self.backward_calls)
    }
}

struct Run<'a, S, F> {
    step: &'a F,
    k: usize,
    states: Vec<Option<S>>,
    alive: usize,
    log: Option<&'a mut BennettLog>,
    /// Uncomputed states, reused for the next computed ones (no allocation per step).
    spares: Vec<S>,
    /// A zero of a state's shape, for checking that an uncomputed state is zero.
    zero: Option<S>,
}

impl<S, F> Run<'_, S, F>
where
    S: ZeroLike + AlmostSame + Debug,
    F: for<'x, 'y> Reversible<(&'x mut S, &'y mut S)>,
{
    fn split(len: usize, k: usize) -> (usize, usize) {
        let n = len.div_ceil(k);
        (n, len.div_ceil(n))
    }
    fn record(&mut self, depth: usize, index: usize, dir: Direction) {
        if let Some(log) = self.log.as_deref_mut() {
            match dir {
                Direction::Forward => log.forward_calls += 1,
                Direction::Backward => log.backward_calls += 1,
            }
            if !log.counts_only {
                log.calls.push((depth, index, dir));
            }
            log.peak_states = log.peak_states.max(self.alive);
        }
    }
    fn one(&mut self, base: usize, depth: usize, dir: Direction) {
        let (lo, hi) = self.states.split_at_mut(base + 1);
        let src = lo[base]
            .as_mut()
            .expect("nilang bennett: source state missing");
        match dir {
            Direction::Forward => {
                let mut dest = match self.spares.pop() {
                    Some(mut d) => {
                        d.set_zero_like(src);
                        d
                    }
                    None => src.zero_like(),
                };
                self.step.call((&mut dest, src));
                hi[0] = Some(dest);
                self.alive += 1;
            }
            Direction::Backward => {
                let mut dest = hi[0]
                    .take()
                    .expect("nilang bennett: state to uncompute missing");
                self.step.uncall((&mut dest, src));
                let zero = match &mut self.zero {
                    Some(z) => {
                        z.set_zero_like(&dest);
                        z
                    }
                    none => none.insert(dest.zero_like()),
                };
                crate::check::dealloc(
                    &dest,
                    zero,
                    concat!(file!(), ":", line!()),
                    "bennett: uncomputed state -> 0",
                );
                self.spares.push(dest);
                self.alive -= 1;
            }
        }
        self.record(depth, base, dir);
    }
    /// Compute state `base + len` from state `base`, leaving only the two of them.
    fn forward(&mut self, base: usize, len: usize, depth: usize) {
        if len == 1 {
            return self.one(base, depth, Direction::Forward);
        }
        let (n, nstep) = Self::split(len, self.k);
        for j in 0..nstep {
            self.forward(base + n * j, n.min(len - n * j), depth + 1);
        }
        for j in (0..nstep - 1).rev() {
            self.backward(base + n * j, n, depth + 1);
        }
    }
    /// The exact inverse of [`Run::forward`].
    fn backward(&mut self, base: usize, len: usize, depth: usize) {
        if len == 1 {
            return self.one(base, depth, Direction::Backward);
        }
        let (n, nstep) = Self::split(len, self.k);
        for j in 0..nstep - 1 {
            self.forward(base + n * j, n, depth + 1);
        }
        for j in (0..nstep).rev() {
            self.backward(base + n * j, n.min(len - n * j), depth + 1);
        }
    }
}

#[track_caller]
fn run<S, F>(
    step: &F,
    y: &mut S,
    x: &mut S,
    k: usize,
    n: usize,
    log: Option<&mut BennettLog>,
    dir: Direction,
) where
    S: ZeroLike + AlmostSame + Debug,
    F: for<'x, 'y> Reversible<(&'x mut S, &'y mut S)>,
{
    use super::treeverse::schedule_error;
    if k < 2 {
        schedule_error(
            "bennett(step, y, x, k, n)",
            format!("k must be at least 2 (segments per level), got {k}"),
        );
    }
    if n < 1 {
        schedule_error(
            "bennett(step, y, x, k, n)",
            "the number of steps must be at least 1, got 0".into(),
        );
    }
    let mut states: Vec<Option<S>> = Vec::new();
    if n == usize::MAX || states.try_reserve_exact(n + 1).is_err() {
        schedule_error(
            "bennett(step, y, x, k, n)",
            format!(
                "n = {n} steps: the schedule's table of {} state slots ({} bytes each) cannot \
                 be allocated",
                n as u128 + 1,
                core::mem::size_of::<Option<S>>()
            ),
        );
    }
    states.extend((0..=n).map(|_| None));
    // the input becomes state 0 (moved, not copied: its adjoint travels with it)
    let zero = x.zero_like();
    states[0] = Some(core::mem::replace(x, zero));
    let mut r = Run {
        step,
        k,
        states,
        alive: 1,
        log,
        spares: Vec::new(),
        zero: None,
    };
    if let Some(l) = r.log.as_deref_mut() {
        l.peak_states = l.peak_states.max(1);
    }
    if dir == Direction::Forward {
        r.forward(0, n, 0);
        // y <-> state n; the old y must have been zero
        let last = r.states[n].as_mut().expect("nilang bennett: no result");
        core::mem::swap(y, last);
        let old = r.states[n].take().unwrap();
        crate::check::dealloc(
            &old,
            &old.zero_like(),
            concat!(file!(), ":", line!()),
            "bennett: y must be zero on entry",
        );
    } else {
        let zero = y.zero_like();
        r.states[n] = Some(core::mem::replace(y, zero));
        r.alive += 1;
        r.backward(0, n, 0);
    }
    *x = r.states[0].take().unwrap();
}

// hand-written pairs: no one-pass analysis
crate::additive!(bennett, bennett_inv: 0);

/// Run `n` steps of `step` from `x` with Bennett's k-ary time–space trade-off and add the
/// result to `y` (which must be zero, i.e. `x.zero_like()`, on entry): `(0, x) → (xₙ, x)`.
/// `k ≥ 2` is the number of segments per level.
///
/// ```
/// use nilang::prelude::*;
/// use nilang::stdlib::bennett::{bennett, bennett_inv};
/// // one step: dest += 2 src
/// #[i]
/// fn double<T: Scalar>(dest: &mut T, src: &mut T) {
///     dest += src * 2.0;
/// }
/// let (mut y, mut x) = (0.0, 1.5);
/// bennett(&Double, &mut y, &mut x, 2, 10);
/// assert_eq!((y, x), (1.5 * 1024.0, 1.5));
/// bennett_inv(&Double, &mut y, &mut x, 2, 10);
/// assert_eq!((y, x), (0.0, 1.5));
/// ```
#[track_caller]
pub fn bennett<S, F>(step: &F, y: &mut S, x: &mut S, k: usize, n: usize)
where
    S: ZeroLike + AlmostSame + Debug,
    F: for<'x, 'y> Reversible<(&'x mut S, &'y mut S)>,
{
    run(step, y, x, k, n, None, Direction::Forward)
}

/// The inverse of [`bennett`]: `(xₙ, x) → (0, x)`, running the schedule backwards.
#[track_caller]
pub fn bennett_inv<S, F>(step: &F, y: &mut S, x: &mut S, k: usize, n: usize)
where
    S: ZeroLike + AlmostSame + Debug,
    F: for<'x, 'y> Reversible<(&'x mut S, &'y mut S)>,
{
    run(step, y, x, k, n, None, Direction::Backward)
}

/// Bennett's schedule as a reversible value: `Bennett { step, k, n }` is itself a
/// `Reversible<(&mut S, &mut S)>` step (`(0, x) → (xₙ, x)`), so it can be nested, passed to
/// the gradient API, or called from `#[i]` code through [`bennett`].
#[derive(Clone, Copy, Debug)]
pub struct Bennett<F> {
    /// The step function.
    pub step: F,
    /// Segments per level (≥ 2).
    pub k: usize,
    /// The number of steps.
    pub n: usize,
}

impl<F> Bennett<F> {
    /// Run the schedule forward ([`Direction::Forward`], as [`bennett`]) or backward
    /// ([`Direction::Backward`], as [`bennett_inv`]), recording every step call and the peak
    /// number of stored states in `log`.
    ///
    /// ```
    /// use nilang::prelude::*;
    /// use nilang::stdlib::bennett::{Bennett, BennettLog, Direction};
    /// #[i]
    /// fn inc<T: Scalar>(dest: &mut T, src: &mut T) {
    ///     dest += src;
    ///     dest += 1.0;
    /// }
    /// let schedule = Bennett { step: Inc, k: 4, n: 100 };
    /// let (mut y, mut x, mut log) = (0.0, 0.0, BennettLog::default());
    /// schedule.logged(Direction::Forward, &mut y, &mut x, &mut log);
    /// assert_eq!(y, 100.0);
    /// let (f, b) = log.counts();
    /// assert_eq!(f - b, 1); // every state but the last is uncomputed
    /// assert!(f + b > 100); // more calls than the direct 100 steps...
    /// assert!(log.peak_states < 20); // ...but far fewer than 101 stored states
    /// schedule.logged(Direction::Backward, &mut y, &mut x, &mut BennettLog::default());
    /// assert_eq!((y, x), (0.0, 0.0));
    /// ```
    pub fn logged<S>(&self, dir: Direction, y: &mut S, x: &mut S, log: &mut BennettLog)
    where
        S: ZeroLike + AlmostSame + Debug,
        F: for<'x, 'y> Reversible<(&'x mut S, &'y mut S)>,
    {
        run(&self.step, y, x, self.k, self.n, Some(log), dir)
    }
}

impl<'x, 'y, S, F> Reversible<(&'x mut S, &'y mut S)> for Bennett<F>
where
    S: ZeroLike + AlmostSame + Debug,
    F: for<'a, 'b> Reversible<(&'a mut S, &'b mut S)>,
{
    fn call(&self, (y, x): (&'x mut S, &'y mut S)) -> (&'x mut S, &'y mut S) {
        bennett(&self.step, y, x, self.k, self.n);
        (y, x)
    }
    fn uncall(&self, (y, x): (&'x mut S, &'y mut S)) -> (&'x mut S, &'y mut S) {
        bennett_inv(&self.step, y, x, self.k, self.n);
        (y, x)
    }
}

/// The irreversible reference: apply `step` `n` times, keeping only the latest state.
///
/// ```
/// use nilang::prelude::*;
/// use nilang::stdlib::bennett::direct_emulate;
/// #[i]
/// fn double<T: Scalar>(dest: &mut T, src: &mut T) {
///     dest += src * 2.0;
/// }
/// assert_eq!(direct_emulate(&Double, &1.0, 5), 32.0);
/// ```
pub fn direct_emulate<S, F>(step: &F, x: &S, n: usize) -> S
where
    S: ZeroLike + Clone,
    F: for<'a, 'b> Reversible<(&'a mut S, &'b mut S)>,
{
    let mut cur = x.clone();
    for _ in 0..n {
        let mut next = cur.zero_like();
        step.call((&mut next, &mut cur));
        cur = next;
    }
    cur
}
