//! The store tape: where `#[store] routine! { ... }` keeps a routine's results for the
//! backward pass (split reversal) instead of uncomputing and recomputing them (joint
//! reversal, NiLang's default).
//!
//! In joint mode `routine! { R } body unroutine!()` runs `R, body, R⁻¹` forward and
//! `R, body⁻¹, R⁻¹` backward: `R` runs four times in a gradient. With `#[store]` the forward
//! run is `R, body, push` (the routine's ancillas move onto this tape and leave zero behind)
//! and the backward run `pop, body⁻¹, R⁻¹`: `R` runs twice and its results are kept in memory
//! between the two runs.
//!
//! **One tape per gradient call.** A [`Tape`] is a typed byte arena: the numbers are copied in
//! as raw bytes, with one small header per run of numbers of the same type pushed by the same
//! routine, so a push is a bounds check and a copy (no `RefCell`, no box, no dispatch per
//! number). Every gradient entry point ([`gradient`](crate::gradient),
//! [`value_and_gradient`](crate::ad::value_and_gradient), a [`Plan`](crate::ad::Plan), the time
//! loops of [`crate::ad::time_loop`]) runs its forward and backward passes inside
//! [`Tape::scope`] on a tape of its own (a `Plan` keeps its tape, so its capacity, sized by the
//! first call, is reused): two threads never share a tape, and whatever a forward run leaves
//! on it (a run that was never inverted) is dropped when the scope ends. Inside
//! [`discarding`] (the advancing steps of a checkpointing schedule, whose forward runs are never
//! inverted) nothing is stored at all.
//!
//! Outside any scope (a `#[store]` function called directly with `call`/`uncall`) the
//! thread's own tape is used; [`stats`] and [`clear`] read and empty it.
//!
//! Numbers are stored exactly; a gradient number `GVar<f64>` whose adjoint is zero (every
//! number a gradient's forward pass stores) is kept as its value alone, 8 bytes instead of 16,
//! and comes back with a zero adjoint. When the inverse runs on other numbers than the forward (a
//! forward run on `f64` and backward on [`GVar<f64>`](crate::GVar), as in
//! [`step_vjp`](crate::stdlib::treeverse::step_vjp)) a stored number is converted through its
//! value with zero derivative parts, which is exactly what the recomputation of joint mode
//! gives for first-order gradients. Each entry remembers the routine that stored it: an inverse
//! that takes back an entry another routine stored (a forward run that was never inverted) is a
//! [`Stack`](crate::check::ErrorKind::Stack) error naming both, raised before any argument is
//! changed.
use crate::ad::{GVar, Scalar};
use crate::check::{fail, ErrorKind};
use crate::numbers::Dual;
use core::any::{Any, TypeId};
use core::cell::{Cell, UnsafeCell};
use core::ptr::NonNull;

/// A run of numbers of one type stored by one routine.
#[derive(Clone, Copy)]
struct Run {
    ty: TypeId,
    /// The `file:line:column` of the `#[store]` routine that stored them.
    site: &'static str,
    /// `size_of` one number.
    size: usize,
    /// The value of a stored number (for taking it back as another type).
    value: fn(*const u8) -> f64,
    type_name: fn() -> &'static str,
    count: usize,
}

/// A store tape: the results of `#[store]` routines between a forward run and its inverse
/// (see the [module documentation](self)). Gradient entry points make their own; use one
/// directly to run `#[store]` functions forward and backward in a scope of your own.
///
/// ```
/// use nilang::tape::{store, store_inv, Tape};
/// let mut tape = Tape::new();
/// let mut x = 2.5;
/// tape.scope(|| store(&mut x, 0.0, "here"));
/// // the scope ended with the entry never taken back: it was dropped
/// assert_eq!((x, tape.stats().len, tape.stats().pushes), (0.0, 0, 1));
/// let y = tape.scope(|| {
///     let mut y = 1.5;
///     store(&mut y, 0.0, "here");
///     store_inv(&mut y, 0.0, "here");
///     y
/// });
/// assert_eq!(y, 1.5);
/// ```
#[derive(Default)]
pub struct Tape {
    bytes: Vec<u8>,
    runs: Vec<Run>,
    len: usize,
    peak_bytes: usize,
    pushes: usize,
}

impl Clone for Tape {
    /// A new empty tape (a clone of a plan does not share or copy the entries in flight).
    fn clone(&self) -> Self {
        Tape::new()
    }
}

impl core::fmt::Debug for Tape {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Tape")
            .field("stats", &self.stats())
            .finish()
    }
}

/// The size and history of a store tape.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TapeStats {
    /// Numbers on the tape now.
    pub len: usize,
    /// Bytes they take now (the numbers and their run headers).
    pub bytes: usize,
    /// The most bytes held at once since the last [`reset_peak`] (or [`clear`]).
    pub peak_bytes: usize,
    /// Bytes the tape has allocated (its buffers' capacity, kept for the next call of a
    /// plan): what a counting allocator sees.
    pub reserved_bytes: usize,
    /// Numbers pushed since the last [`clear`].
    pub pushes: usize,
}

fn value_of_stored<T: Copy + 'static>(p: *const u8) -> f64 {
    // SAFETY: `p` points at a `T` written by `push_raw::<T>` (unaligned)
    let v: T = unsafe { core::ptr::read_unaligned(p as *const T) };
    value_of(&v)
}

/// The value of a stored number of one of the usual types, for taking it back as another
/// type (`NaN` for other types, such as batches, which must be taken back as themselves).
fn value_of(any: &dyn Any) -> f64 {
    if let Some(v) = any.downcast_ref::<f64>() {
        *v
    } else if let Some(v) = any.downcast_ref::<f32>() {
        *v as f64
    } else if let Some(v) = any.downcast_ref::<GVar<f64>>() {
        v.x
    } else if let Some(v) = any.downcast_ref::<Dual<f64>>() {
        v.x
    } else if let Some(v) = any.downcast_ref::<GVar<GVar<f64>>>() {
        v.x.x
    } else if let Some(v) = any.downcast_ref::<GVar<Dual<f64>>>() {
        v.x.x
    } else {
        f64::NAN
    }
}

fn same_site(a: &'static str, b: &'static str) -> bool {
    core::ptr::eq(a, b) || a == b
}

impl Tape {
    /// An empty tape (allocates nothing until the first push).
    pub const fn new() -> Self {
        Tape {
            bytes: Vec::new(),
            runs: Vec::new(),
            len: 0,
            peak_bytes: 0,
            pushes: 0,
        }
    }

    /// The tape's size and history.
    pub fn stats(&self) -> TapeStats {
        TapeStats {
            len: self.len,
            bytes: self.used(),
            peak_bytes: self.peak_bytes,
            reserved_bytes: self.bytes.capacity()
                + self.runs.capacity() * core::mem::size_of::<Run>(),
            pushes: self.pushes,
        }
    }

    #[inline(always)]
    fn used(&self) -> usize {
        self.bytes.len() + self.runs.len() * core::mem::size_of::<Run>()
    }

    /// Drop every entry (keeping the buffers' capacity).
    fn drop_entries(&mut self) {
        self.bytes.clear();
        self.runs.clear();
        self.len = 0;
    }

    /// Run `f` with this tape as the thread's store tape: the `#[store]` routines it runs push
    /// onto and pop from this tape (not another scope's, not another thread's). When `f`
    /// returns or unwinds the previous tape is restored, and entries `f` left on this tape (a
    /// forward run that was never inverted) are dropped; the buffers are kept for the next
    /// scope. Statistics accumulate over scopes ([`Tape::stats`]).
    pub fn scope<R>(&mut self, f: impl FnOnce() -> R) -> R {
        struct Restore(*mut Tape);
        impl Drop for Restore {
            fn drop(&mut self) {
                CURRENT.with(|c| {
                    let mine = c.replace(self.0);
                    // SAFETY: `mine` is the tape installed by this scope, still borrowed by it
                    unsafe { (*mine).drop_entries() }
                });
            }
        }
        let me: *mut Tape = self;
        let _restore = Restore(CURRENT.with(|c| c.replace(me)));
        f()
    }

    #[inline(always)]
    fn push_one<T: Copy + 'static>(&mut self, v: T, site: &'static str) {
        if TypeId::of::<T>() == TypeId::of::<GVar<f64>>() {
            // SAFETY: `T` is `GVar<f64>`
            let v: GVar<f64> = unsafe { core::mem::transmute_copy(&v) };
            if v.g.to_bits() == 0 {
                // a gradient number with a zero adjoint (what a forward pass stores): its value
                return self.push_raw(v.x, site);
            }
        }
        self.push_raw(v, site)
    }

    #[inline(always)]
    fn push_raw<T: Copy + 'static>(&mut self, v: T, site: &'static str) {
        match self.runs.last_mut() {
            Some(r) if r.ty == TypeId::of::<T>() && core::ptr::eq(r.site, site) => r.count += 1,
            _ => self.new_run::<T>(site),
        }
        let n = self.bytes.len();
        let size = core::mem::size_of::<T>();
        if self.bytes.capacity() - n < size {
            self.grow(size);
        }
        // SAFETY: `size` bytes reserved after `n`; `T: Copy` has no drop
        unsafe {
            core::ptr::write_unaligned(self.bytes.as_mut_ptr().add(n) as *mut T, v);
            self.bytes.set_len(n + size);
        }
        self.len += 1;
        self.pushes += 1;
        let used = self.used();
        if used > self.peak_bytes {
            self.peak_bytes = used;
        }
    }

    /// Start a run of `T`s stored by the routine at `site` (out of the inlined push).
    #[inline(never)]
    fn new_run<T: Copy + 'static>(&mut self, site: &'static str) {
        self.runs.push(Run {
            ty: TypeId::of::<T>(),
            site,
            size: core::mem::size_of::<T>(),
            value: value_of_stored::<T>,
            type_name: core::any::type_name::<T>,
            count: 1,
        })
    }

    /// Room for `size` more bytes (out of the inlined push: the first call of a plan only).
    #[cold]
    #[inline(never)]
    fn grow(&mut self, size: usize) {
        self.bytes.reserve(size)
    }

    #[inline(always)]
    fn pop_one<T: Scalar>(&mut self, site: &'static str) -> T {
        let Some(r) = self.runs.last_mut() else {
            empty(site)
        };
        if !same_site(r.site, site) {
            let r = *r;
            mismatch(&r, site)
        }
        let start = self.bytes.len() - r.size;
        // SAFETY: the run's last number occupies the last `r.size` bytes
        let p = unsafe { self.bytes.as_ptr().add(start) };
        let v = if r.ty == TypeId::of::<T>() {
            // SAFETY: written as a `T` by `push_raw::<T>`
            unsafe { core::ptr::read_unaligned(p as *const T) }
        } else if TypeId::of::<T>() == TypeId::of::<GVar<f64>>() && r.ty == TypeId::of::<f64>() {
            // SAFETY: written as an `f64` by `push_raw::<f64>`; `T` is `GVar<f64>`
            let x = unsafe { core::ptr::read_unaligned(p as *const f64) };
            unsafe { core::mem::transmute_copy(&GVar { x, g: 0.0 }) }
        } else {
            T::from_f64_lit((r.value)(p))
        };
        r.count -= 1;
        if r.count == 0 {
            self.runs.pop();
        }
        self.bytes.truncate(start);
        self.len -= 1;
        v
    }
}

#[cold]
#[inline(never)]
fn empty(site: &'static str) -> ! {
    fail(
        ErrorKind::Stack,
        site,
        "#[store] routine: restore the stored results",
        "the store tape is empty: the inverse of a `#[store]` routine runs without its forward \
         run (or in another gradient call, tape scope or thread)"
            .into(),
    )
}

#[cold]
#[inline(never)]
fn mismatch(r: &Run, site: &'static str) -> ! {
    fail(
        ErrorKind::Stack,
        site,
        "#[store] routine: restore the stored results",
        format!(
            "the entry on top of the store tape ({} numbers of type {}) was stored by the \
             `#[store]` routine at {}, not by this one: a forward run there was never inverted \
             (nothing was changed; run forward and inverse calls in pairs, or each gradient in \
             its own `nilang::tape::Tape::scope`)",
            r.count,
            (r.type_name)(),
            r.site
        ),
    )
}

thread_local! {
    /// The tape of the innermost [`Tape::scope`]; null: the thread's own; [`DISCARD`]: none.
    static CURRENT: Cell<*mut Tape> = const { Cell::new(core::ptr::null_mut()) };
    /// The thread's own tape, for `#[store]` functions run outside any scope.
    static OWN: UnsafeCell<Tape> = const { UnsafeCell::new(Tape::new()) };
}

/// The marker of [`discarding`] in `CURRENT` (never the address of a tape).
fn discard_marker() -> *mut Tape {
    NonNull::<u8>::dangling().as_ptr() as *mut Tape
}

/// The current tape: null inside [`discarding`]. One thread-local read, no closure: the
/// `#[store]` calls of a routine inline to a few instructions each.
#[inline(always)]
fn current() -> *mut Tape {
    let p = CURRENT.with(|c| c.get());
    if p.is_null() {
        OWN.with(|t| t.get())
    } else if p == discard_marker() {
        core::ptr::null_mut()
    } else {
        p
    }
}

/// Run `f` on the current tape: `None` inside [`discarding`].
#[inline(always)]
fn with_current<R>(f: impl FnOnce(Option<&mut Tape>) -> R) -> R {
    // SAFETY: the thread's own tape, or one installed by a `Tape::scope` on this thread, which
    // holds its `&mut` until it ends and restores the previous one before that; `f` calls no
    // user code, so no other reference to it is alive meanwhile
    f(unsafe { current().as_mut() })
}

/// Run `f` with nothing stored: the forward runs of `#[store]` routines inside it leave their
/// ancillas at their initial values (as uncomputing would) and push nothing. For forward runs
/// that are never inverted, such as the advancing steps of a checkpointing schedule; an
/// inverse inside it is a [`Stack`](crate::check::ErrorKind::Stack) error.
///
/// ```
/// let mut x = 2.5;
/// nilang::tape::discarding(|| nilang::tape::store(&mut x, 0.0, "here"));
/// assert_eq!((x, nilang::tape::stats().len), (0.0, 0));
/// ```
pub fn discarding<R>(f: impl FnOnce() -> R) -> R {
    struct Restore(*mut Tape);
    impl Drop for Restore {
        fn drop(&mut self) {
            CURRENT.with(|c| c.set(self.0));
        }
    }
    let _restore = Restore(CURRENT.with(|c| c.replace(discard_marker())));
    f()
}

/// The statistics of the current tape (the innermost [`Tape::scope`]'s, or the thread's own).
///
/// ```
/// let s = nilang::tape::stats();
/// assert!(s.peak_bytes >= s.bytes);
/// ```
pub fn stats() -> TapeStats {
    with_current(|t| t.map(|t| t.stats()).unwrap_or_default())
}

/// Restart the peak measurement of the current tape at its current size.
pub fn reset_peak() {
    with_current(|t| {
        if let Some(t) = t {
            t.peak_bytes = t.used();
        }
    })
}

/// Drop every entry of the current tape and reset its statistics (after forward runs that
/// are never inverted).
pub fn clear() {
    with_current(|t| {
        if let Some(t) = t {
            *t = Tape::new();
        }
    })
}

/// A value a `#[store]` routine can keep: a number ([`Scalar`]) or an array of them.
pub trait TapeValue: Sized {
    /// Move onto `tape` (the last number pushed last), remembering the routine at `site`.
    fn push_tape(self, tape: &mut Tape, site: &'static str);
    /// Take back from `tape` (the inverse of [`TapeValue::push_tape`]).
    fn pop_tape(tape: &mut Tape, site: &'static str) -> Self;
}

impl<T: Scalar> TapeValue for T {
    #[inline(always)]
    fn push_tape(self, tape: &mut Tape, site: &'static str) {
        tape.push_one(self, site)
    }
    #[inline(always)]
    fn pop_tape(tape: &mut Tape, site: &'static str) -> Self {
        tape.pop_one(site)
    }
}

impl<T: TapeValue, const N: usize> TapeValue for [T; N] {
    #[inline]
    fn push_tape(self, tape: &mut Tape, site: &'static str) {
        for v in self {
            v.push_tape(tape, site);
        }
    }
    #[inline]
    fn pop_tape(tape: &mut Tape, site: &'static str) -> Self {
        let mut a: [T; N] = core::array::from_fn(|_| T::pop_tape(tape, site));
        a.reverse();
        a
    }
}

/// `#[store]` routines, forward: move `x` onto the current tape and leave it at its initial
/// value `init` (what uncomputing would have left); `site` names the routine. Generated code
/// calls this; its inverse is [`store_inv`].
///
/// ```
/// let mut x = 2.5;
/// nilang::tape::store(&mut x, 0.0, "here");
/// assert_eq!(x, 0.0);
/// nilang::tape::store_inv(&mut x, 0.0, "here");
/// assert_eq!(x, 2.5);
/// ```
#[inline(always)]
pub fn store<X: TapeValue>(x: &mut X, init: X, site: &'static str) {
    let v = core::mem::replace(x, init);
    // SAFETY: as in `with_current`; `push_tape` calls no user code
    if let Some(t) = unsafe { current().as_mut() } {
        v.push_tape(t, site)
    }
}

/// The inverse of [`store`]: `x` (at its initial value) takes back the stored value.
#[inline(always)]
pub fn store_inv<X: TapeValue>(x: &mut X, init: X, site: &'static str) {
    let _ = init;
    // SAFETY: as in `with_current`; `pop_tape` calls no user code
    *x = match unsafe { current().as_mut() } {
        Some(t) => X::pop_tape(t, site),
        None => discarded(site),
    };
}

#[cold]
#[inline(never)]
fn discarded(site: &'static str) -> ! {
    fail(
        ErrorKind::Stack,
        site,
        "#[store] routine: restore the stored results",
        "the inverse of a `#[store]` routine runs inside `nilang::tape::discarding`, where \
         nothing is stored"
            .into(),
    )
}

// `#[store]` routines call the pair from generated code: its analyses (never one-pass; it may
// write `x`) and its value-only variant (itself)
crate::additive!(store, store_inv: 0);
