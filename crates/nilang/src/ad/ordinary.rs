//! The runtime of `#[ad]` functions (ordinary Rust functions differentiated by source
//! transformation): the value tape their forward code records on, and the per-thread
//! workspace the gradient API runs them in.
//!
//! ```
//! use nilang::ad;
//! #[ad]
//! fn f(x: &[f64]) -> f64 {
//!     let mut p = 1.0;
//!     for i in 0..x.len() {
//!         p = p * x[i].sin();
//!     }
//!     p
//! }
//! let x = [0.5, 1.0];
//! let (y, back) = f_forward(&x);
//! let (gx,) = back(1.0);
//! assert_eq!(y, 0.5f64.sin() * 1.0f64.sin());
//! assert!((gx[0] - 0.5f64.cos() * 1.0f64.sin()).abs() < 1e-15);
//! ```
use core::cell::RefCell;

/// Where the adjoint code of an `#[ad]` function adds the adjoint of a scalar argument:
/// the caller's adjoint (`&mut f64`, or `&mut A` for an [`Adjoint`] `A` of several lanes),
/// or nowhere ([`NoAdjoint`]: the argument is a constant or data). The generated code takes
/// it; users do not call it.
///
/// ```
/// use nilang::ad::ordinary::{NoAdjoint, ScalarSlot};
/// let mut g = 1.0;
/// ScalarSlot::add(&mut &mut g, 0.5);
/// ScalarSlot::add(&mut NoAdjoint, 0.5);
/// assert_eq!(g, 1.5);
/// ```
pub trait ScalarSlot<A = f64> {
    /// Add `v` to the adjoint (or drop it).
    fn add(&mut self, v: A);
}

impl<A: Adjoint> ScalarSlot<A> for &mut A {
    #[inline(always)]
    fn add(&mut self, v: A) {
        **self += v;
    }
}

impl<A> ScalarSlot<A> for NoAdjoint {
    #[inline(always)]
    fn add(&mut self, _: A) {}
}

/// The adjoint numbers the generated adjoint code of an `#[ad]` function runs on: `f64`
/// (one output's adjoint) or [`Lanes<N>`](crate::ad::Lanes) (the adjoints of `N` outputs
/// of a one-pass Jacobian at once, so one forward and one backward pass serve them all).
/// Each lane computes exactly what an `f64` adjoint would.
///
/// ```
/// use nilang::ad::{ordinary::Adjoint, Lanes};
/// let mut a = <Lanes<2> as Adjoint>::ZERO;
/// a += Lanes([1.0, 2.0]) * 3.0;
/// a -= Lanes([0.5, 0.5]) / 2.0;
/// assert_eq!(a.0, [2.75, 5.75]);
/// ```
pub trait Adjoint:
    Copy
    + core::ops::AddAssign
    + core::ops::SubAssign
    + core::ops::Add<Output = Self>
    + core::ops::Sub<Output = Self>
    + core::ops::Neg<Output = Self>
    + core::ops::Mul<f64, Output = Self>
    + core::ops::Div<f64, Output = Self>
{
    /// `0.0` in every lane.
    const ZERO: Self;
    /// `-0.0` in every lane (the identity of `+` on floats).
    const NEG_ZERO: Self;
}

impl Adjoint for f64 {
    const ZERO: Self = 0.0;
    const NEG_ZERO: Self = -0.0;
}

impl<const N: usize> Adjoint for crate::ad::Lanes<N> {
    const ZERO: Self = crate::ad::Lanes([0.0; N]);
    const NEG_ZERO: Self = crate::ad::Lanes([-0.0; N]);
}

/// The adjoint slot of an argument without derivative (a constant, data) in the generated
/// adjoint call of an `#[ad]` function.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoAdjoint;

/// What a `#[data]` parameter of an `#[ad]` function takes in its generated adjoint code:
/// only [`NoAdjoint`], so that a value with a derivative passed to data (whose derivative
/// would be lost) does not compile.
#[diagnostic::on_unimplemented(
    message = "a value with a derivative is passed to a `#[data]` parameter of an `#[ad]` function",
    label = "a call in this function passes a value with a derivative to `#[data]`",
    note = "data has no derivative: pass data or a constant, or remove `#[data]` from the callee's parameter"
)]
pub trait DataSlot {}

impl DataSlot for NoAdjoint {}

/// The value tape of `#[ad]` forward code: overwritten values the adjoint reads (`f64`s)
/// and branch decisions, loop starts and trip counts (integers). The adjoint code takes
/// back, in reverse order, exactly what the forward code recorded; a tape reused across
/// calls allocates nothing once its capacity suffices.
///
/// ```
/// let mut t = nilang::ad::ordinary::ValueTape::new();
/// t.push(1.5);
/// t.push_int(3);
/// t.note_peak();
/// assert_eq!(t.bytes(), 16);
/// assert_eq!((t.pop_int(), t.pop()), (3, 1.5));
/// assert_eq!((t.len(), t.peak_bytes()), (0, 16));
/// ```
#[derive(Clone, Debug, Default)]
pub struct ValueTape {
    floats: Vec<f64>,
    ints: Vec<i64>,
    peak: usize,
}

impl ValueTape {
    /// An empty tape.
    pub const fn new() -> Self {
        ValueTape {
            floats: Vec::new(),
            ints: Vec::new(),
            peak: 0,
        }
    }

    /// Count the bytes held now towards [`ValueTape::peak_bytes`]. The generated code calls
    /// it at the end of each forward run, where the tape is at its fullest (the adjoint only
    /// takes back, apart from the forward runs of the callees it differentiates, which note
    /// theirs), so a push needs no bookkeeping.
    #[inline(always)]
    pub fn note_peak(&mut self) {
        let b = self.bytes();
        if b > self.peak {
            self.peak = b;
        }
    }

    /// Record a value.
    #[inline(always)]
    pub fn push(&mut self, v: f64) {
        self.floats.push(v);
    }

    /// Take back the last value recorded.
    #[inline(always)]
    pub fn pop(&mut self) -> f64 {
        match self.floats.pop() {
            Some(v) => v,
            None => underflow(),
        }
    }

    /// Record an integer (a decision, a loop start, a trip count, an integer variable).
    #[inline(always)]
    pub fn push_int(&mut self, v: i64) {
        self.ints.push(v);
    }

    /// Take back the last integer recorded.
    #[inline(always)]
    pub fn pop_int(&mut self) -> i64 {
        match self.ints.pop() {
            Some(v) => v,
            None => underflow(),
        }
    }

    /// The numbers held now (values and integers).
    pub fn len(&self) -> usize {
        self.floats.len() + self.ints.len()
    }

    /// Whether nothing is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The bytes held now.
    pub fn bytes(&self) -> usize {
        8 * self.len()
    }

    /// The most bytes held at once since the tape was made or [`ValueTape::reset_peak`].
    pub fn peak_bytes(&self) -> usize {
        self.peak
    }

    /// Start counting [`ValueTape::peak_bytes`] afresh.
    pub fn reset_peak(&mut self) {
        self.peak = self.bytes();
    }
}

#[cold]
#[inline(never)]
fn underflow() -> ! {
    panic!("nilang: the value tape of an `#[ad]` function was read past its start (a bug of the generated code: please report it)")
}

/// The buffers a gradient call of an `#[ad]` function reuses: its value tape and the `f64`
/// copies of array arguments held as gradient numbers.
#[derive(Debug, Default)]
pub struct Workspace {
    /// The value tape.
    pub tape: ValueTape,
    bufs: Vec<Vec<f64>>,
    last_peak: usize,
}

impl Workspace {
    /// An empty buffer (reused when one was put back).
    #[inline]
    pub fn take(&mut self) -> Vec<f64> {
        self.bufs.pop().unwrap_or_default()
    }

    /// Give a buffer back for the next call.
    #[inline]
    pub fn put(&mut self, mut v: Vec<f64>) {
        v.clear();
        self.bufs.push(v);
    }
}

std::thread_local! {
    static WORKSPACE: RefCell<Workspace> = RefCell::new(Workspace::default());
}

/// Run `f` with this thread's workspace (a nested call gets a fresh one). After the first
/// call of the same shapes nothing is allocated.
#[inline]
pub fn with_workspace<R>(f: impl FnOnce(&mut Workspace) -> R) -> R {
    let mut ws = WORKSPACE.with(|c| c.take());
    ws.tape.reset_peak();
    let r = f(&mut ws);
    ws.last_peak = ws.tape.peak_bytes();
    WORKSPACE.with(|c| c.replace(ws));
    r
}

/// The most bytes the value tape held during this thread's last gradient call of an `#[ad]`
/// function through the gradient API (`gradient`, `value_and_gradient`, a `Plan`).
///
/// ```
/// use nilang::ad;
/// #[ad]
/// fn prod(x: &[f64]) -> f64 {
///     let mut p = 1.0;
///     for i in 0..x.len() {
///         p = p * x[i];
///     }
///     p
/// }
/// let mut x = vec![2.0; 10];
/// nilang::gradient(&Prod, (&mut 0.0, &mut x[..]), 0);
/// // ten overwrites of `p`, recorded (the loop's bounds are evaluated again)
/// assert_eq!(nilang::ad::ordinary::last_tape_bytes(), 8 * 10);
/// ```
pub fn last_tape_bytes() -> usize {
    WORKSPACE.with(|c| c.borrow().last_peak)
}

/// A number the struct of an `#[ad]` function runs on: `f64` (values only) or
/// [`GVar<f64>`](crate::GVar) (values and adjoints). One generic implementation of
/// [`Reversible`](crate::Reversible) serves both, as the gradient API needs; `#[i]` code
/// calling an `#[ad]` function (`f_add(out, args..)`) bounds its number type by it.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a number an `#[ad]` function runs on",
    label = "an `#[ad]` function is called on `{Self}`",
    note = "`#[ad]` functions run on `f64` and on gradient numbers `GVar<f64>`: bound the number type of the `#[i]` function that calls one, `T: Scalar + nilang::ad::ordinary::AdNum`"
)]
pub trait AdNum: Copy {
    /// Whether the number carries an adjoint.
    const ADJOINT: bool;
    /// The adjoint lanes it carries: one for `GVar<f64>`, `N` for `GVar<Lanes<N>>` (the
    /// outputs of a one-pass Jacobian).
    const LANES: usize;
    /// The value (lane 0 of a broadcast value).
    fn value(&self) -> f64;
    /// The adjoint in lane `l` (zero for `f64`).
    fn lane_adjoint(&self, l: usize) -> f64;
    /// Add to the value (to every lane of a broadcast value).
    fn add_value(&mut self, v: f64);
    /// Add to the adjoint in lane `l` (nothing for `f64`).
    fn add_lane_adjoint(&mut self, l: usize, g: f64);
    /// Zero, value and adjoints (the unused result of a function with outputs only, run as a
    /// time-loop step).
    fn zero() -> Self;
    /// The adjoints of all lanes as one number (what the adjoint code runs on).
    type Adj: Adjoint;
    /// The adjoints of all lanes (zero for `f64`).
    fn adjoint(&self) -> Self::Adj;
    /// Add to the adjoints of all lanes (nothing for `f64`).
    fn add_adjoint(&mut self, g: Self::Adj);
}

impl AdNum for f64 {
    const ADJOINT: bool = false;
    const LANES: usize = 1;
    #[inline(always)]
    fn value(&self) -> f64 {
        *self
    }
    #[inline(always)]
    fn lane_adjoint(&self, _: usize) -> f64 {
        0.0
    }
    #[inline(always)]
    fn add_value(&mut self, v: f64) {
        *self += v;
    }
    #[inline(always)]
    fn add_lane_adjoint(&mut self, _: usize, _: f64) {}
    #[inline(always)]
    fn zero() -> Self {
        0.0
    }
    type Adj = f64;
    #[inline(always)]
    fn adjoint(&self) -> f64 {
        0.0
    }
    #[inline(always)]
    fn add_adjoint(&mut self, _: f64) {}
}

impl AdNum for crate::GVar<f64> {
    const ADJOINT: bool = true;
    const LANES: usize = 1;
    #[inline(always)]
    fn value(&self) -> f64 {
        self.x
    }
    #[inline(always)]
    fn lane_adjoint(&self, _: usize) -> f64 {
        self.g
    }
    #[inline(always)]
    fn add_value(&mut self, v: f64) {
        self.x += v;
    }
    #[inline(always)]
    fn add_lane_adjoint(&mut self, _: usize, g: f64) {
        self.g += g;
    }
    #[inline(always)]
    fn zero() -> Self {
        crate::GVar { x: 0.0, g: 0.0 }
    }
    type Adj = f64;
    #[inline(always)]
    fn adjoint(&self) -> f64 {
        self.g
    }
    #[inline(always)]
    fn add_adjoint(&mut self, g: f64) {
        self.g += g;
    }
}

/// The numbers of a one-pass Jacobian (`nilang::ad::jacobian::<_, _, N>`): the value broadcast
/// in every lane, lane `l` the adjoint of output `l`. An `#[ad]` function without calls runs one
/// forward and one backward pass on [`Lanes<N>`](crate::ad::Lanes) adjoints; one with calls,
/// one pullback per lane.
impl<const N: usize> AdNum for crate::GVar<crate::ad::Lanes<N>> {
    const ADJOINT: bool = true;
    const LANES: usize = N;
    #[inline(always)]
    fn value(&self) -> f64 {
        self.x.0[0]
    }
    #[inline(always)]
    fn lane_adjoint(&self, l: usize) -> f64 {
        self.g.0[l]
    }
    #[inline(always)]
    fn add_value(&mut self, v: f64) {
        for x in &mut self.x.0 {
            *x += v;
        }
    }
    #[inline(always)]
    fn add_lane_adjoint(&mut self, l: usize, g: f64) {
        self.g.0[l] += g;
    }
    #[inline(always)]
    fn zero() -> Self {
        crate::GVar {
            x: crate::ad::Lanes([0.0; N]),
            g: crate::ad::Lanes([0.0; N]),
        }
    }
    type Adj = crate::ad::Lanes<N>;
    #[inline(always)]
    fn adjoint(&self) -> Self::Adj {
        self.g
    }
    #[inline(always)]
    fn add_adjoint(&mut self, g: Self::Adj) {
        self.g += g;
    }
}
