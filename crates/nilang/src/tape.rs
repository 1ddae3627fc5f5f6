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
//! routine. The top run's type and routine are kept next to the cursor, so a push or pop by
//! the routine that stored last compares two words, checks the capacity and copies (no
//! `RefCell`, no box, no dispatch per number, no header touched); a routine's ancillas go two
//! per call ([`store2`]: one push for both when they are stored as `f64`), and an array
//! ancilla in one copy. Every gradient entry point ([`gradient`](crate::gradient),
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
    /// The byte offset of its first number (it ends where the next run starts).
    start: usize,
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
pub struct Tape {
    bytes: Vec<u8>,
    runs: Vec<Run>,
    /// The top run's type and the address of its routine's site (0: no run), copied out of
    /// `runs`: a push or pop by the routine that stored last compares these two and touches
    /// nothing else of the headers.
    top_ty: TypeId,
    top_site: usize,
    /// Where the top run starts (a pop reaching it removes the run).
    top_start: usize,
    /// `peak_bytes` less the headers of the current runs: a push raises the peak when the
    /// numbers' bytes pass this mark (one comparison, no header arithmetic).
    peak_mark: usize,
    peak_bytes: usize,
    pushes: usize,
}

impl Default for Tape {
    fn default() -> Self {
        Tape::new()
    }
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

/// The size of one run header.
const RUN: usize = core::mem::size_of::<Run>();

/// The key of no run (never the type of a stored number).
struct NoRun;

impl Tape {
    /// An empty tape (allocates nothing until the first push).
    pub const fn new() -> Self {
        Tape {
            bytes: Vec::new(),
            runs: Vec::new(),
            top_ty: TypeId::of::<NoRun>(),
            top_site: 0,
            top_start: 0,
            peak_mark: 0,
            peak_bytes: 0,
            pushes: 0,
        }
    }

    /// The tape's size and history.
    pub fn stats(&self) -> TapeStats {
        let mut len = 0;
        let mut end = self.bytes.len();
        for r in self.runs.iter().rev() {
            len += (end - r.start) / r.size;
            end = r.start;
        }
        TapeStats {
            len,
            bytes: self.used(),
            peak_bytes: self.peak_bytes,
            reserved_bytes: self.bytes.capacity() + self.runs.capacity() * RUN,
            pushes: self.pushes,
        }
    }

    fn used(&self) -> usize {
        self.bytes.len() + self.runs.len() * RUN
    }

    /// After the runs changed: the top run's key copied out, the peak raised to what is held
    /// now and its mark moved by the headers' bytes.
    fn runs_changed(&mut self) {
        match self.runs.last() {
            Some(r) => {
                (self.top_ty, self.top_site, self.top_start) =
                    (r.ty, r.site.as_ptr() as usize, r.start)
            }
            None => (self.top_ty, self.top_site, self.top_start) = (TypeId::of::<NoRun>(), 0, 0),
        }
        self.peak_bytes = self.peak_bytes.max(self.used());
        self.peak_mark = self.peak_bytes - self.runs.len() * RUN;
    }

    /// Restart the peak at the current size.
    fn restart_peak(&mut self) {
        self.peak_bytes = self.used();
        self.peak_mark = self.bytes.len();
    }

    /// Drop every entry (keeping the buffers' capacity).
    fn drop_entries(&mut self) {
        self.bytes.clear();
        self.runs.clear();
        self.runs_changed();
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

    /// Whether the top run holds `T`s stored by the routine at `site` (the fast paths' test:
    /// two comparisons).
    #[inline(always)]
    fn on_top<T: 'static>(&self, site: &'static str) -> bool {
        self.top_site == site.as_ptr() as usize && self.top_ty == TypeId::of::<T>()
    }

    /// Room for `size` more bytes in a run of `T`s from `site`: afterwards `size` bytes can be
    /// written after `bytes.len()`.
    #[inline(always)]
    fn prepare<T: Copy + 'static>(&mut self, site: &'static str, size: usize) {
        if !self.on_top::<T>(site) {
            self.open_run::<T>(site);
        }
        if self.bytes.capacity() - self.bytes.len() < size {
            self.grow(size);
        }
    }

    /// `count` numbers, `size` bytes, were written after `bytes.len()`: take them in.
    #[inline(always)]
    fn pushed(&mut self, size: usize, count: usize) {
        let n = self.bytes.len() + size;
        // SAFETY: `prepare` reserved the bytes, which the caller wrote
        unsafe { self.bytes.set_len(n) };
        self.pushes += count;
        if n > self.peak_mark {
            self.peak_bytes += n - self.peak_mark;
            self.peak_mark = n;
        }
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
        let size = core::mem::size_of::<T>();
        self.prepare::<T>(site, size);
        // SAFETY: `size` bytes reserved after the end; `T: Copy` has no drop
        unsafe {
            let p = self.bytes.as_mut_ptr().add(self.bytes.len());
            core::ptr::write_unaligned(p as *mut T, v);
        }
        self.pushed(size, 1);
    }

    /// Push the numbers of an array in one go (one key test, one capacity check, one copy).
    #[inline(always)]
    fn push_many<T: Copy + 'static>(&mut self, vs: &[T], site: &'static str) {
        if vs.is_empty() {
            return;
        }
        if TypeId::of::<T>() == TypeId::of::<GVar<f64>>() {
            // SAFETY: `T` is `GVar<f64>`
            let gs: &[GVar<f64>] = unsafe { &*(vs as *const [T] as *const [GVar<f64>]) };
            if gs.iter().all(|v| v.g.to_bits() == 0) {
                let size = 8 * gs.len();
                self.prepare::<f64>(site, size);
                // SAFETY: `size` bytes reserved after the end
                unsafe {
                    let p = self.bytes.as_mut_ptr().add(self.bytes.len()) as *mut f64;
                    for (k, v) in gs.iter().enumerate() {
                        core::ptr::write_unaligned(p.add(k), v.x);
                    }
                }
                return self.pushed(size, gs.len());
            }
        }
        let size = core::mem::size_of_val(vs);
        self.prepare::<T>(site, size);
        // SAFETY: `size` bytes reserved after the end; `T: Copy`
        unsafe {
            let p = self.bytes.as_mut_ptr().add(self.bytes.len());
            core::ptr::copy_nonoverlapping(vs.as_ptr() as *const u8, p, size);
        }
        self.pushed(size, vs.len())
    }

    /// Make the top run one of `T`s from `site` (out of the inlined push): the top run when
    /// it is one (its site spelled at another address), else a new one.
    #[inline(never)]
    fn open_run<T: Copy + 'static>(&mut self, site: &'static str) {
        match self.runs.last_mut() {
            Some(r) if r.ty == TypeId::of::<T>() && same_site(r.site, site) => r.site = site,
            _ => self.runs.push(Run {
                ty: TypeId::of::<T>(),
                site,
                size: core::mem::size_of::<T>(),
                value: value_of_stored::<T>,
                type_name: core::any::type_name::<T>,
                start: self.bytes.len(),
            }),
        }
        self.runs_changed();
    }

    /// Room for `size` more bytes (out of the inlined push: the first call of a plan only).
    #[cold]
    #[inline(never)]
    fn grow(&mut self, size: usize) {
        self.bytes.reserve(size)
    }

    /// The last `size` bytes were taken back: drop them, and the top run when it is empty.
    #[inline(always)]
    fn popped(&mut self, size: usize) {
        let n = self.bytes.len() - size;
        // SAFETY: shrinking
        unsafe { self.bytes.set_len(n) };
        if n == self.top_start {
            self.close_run();
        }
    }

    /// The top run is empty: remove it (out of the inlined pop).
    #[inline(never)]
    fn close_run(&mut self) {
        self.runs.pop();
        self.runs_changed();
    }

    #[inline(always)]
    fn pop_one<T: Scalar>(&mut self, site: &'static str) -> T {
        let end = self.bytes.len();
        if self.on_top::<T>(site) {
            let size = core::mem::size_of::<T>();
            // SAFETY: the top run holds at least one `T`, written by `push_raw::<T>`
            let v = unsafe {
                core::ptr::read_unaligned(self.bytes.as_ptr().add(end - size) as *const T)
            };
            self.popped(size);
            return v;
        }
        if TypeId::of::<T>() == TypeId::of::<GVar<f64>>() && self.on_top::<f64>(site) {
            // SAFETY: the top run holds at least one `f64`; `T` is `GVar<f64>`
            let x = unsafe {
                core::ptr::read_unaligned(self.bytes.as_ptr().add(end - 8) as *const f64)
            };
            self.popped(8);
            return unsafe { core::mem::transmute_copy(&GVar { x, g: 0.0 }) };
        }
        self.pop_slow(site)
    }

    /// Take back the numbers of an array (the inverse of [`Tape::push_many`]): one copy when
    /// they are on top as they were pushed.
    #[inline(always)]
    fn pop_many<T: Scalar>(&mut self, out: &mut [T], site: &'static str) {
        let end = self.bytes.len();
        let held = end - self.top_start;
        if self.on_top::<T>(site) && held >= core::mem::size_of_val(out) {
            let size = core::mem::size_of_val(out);
            // SAFETY: the top run's last `size` bytes are `out.len()` `T`s
            unsafe {
                core::ptr::copy_nonoverlapping(
                    self.bytes.as_ptr().add(end - size),
                    out.as_mut_ptr() as *mut u8,
                    size,
                )
            };
            return self.popped(size);
        }
        if TypeId::of::<T>() == TypeId::of::<GVar<f64>>()
            && self.on_top::<f64>(site)
            && held >= 8 * out.len()
        {
            let size = 8 * out.len();
            // SAFETY: the top run's last `size` bytes are `out.len()` `f64`s; `T` is `GVar<f64>`
            unsafe {
                let p = self.bytes.as_ptr().add(end - size) as *const f64;
                for (k, o) in out.iter_mut().enumerate() {
                    let x = core::ptr::read_unaligned(p.add(k));
                    *o = core::mem::transmute_copy(&GVar { x, g: 0.0 });
                }
            }
            return self.popped(size);
        }
        for o in out.iter_mut().rev() {
            *o = self.pop_one(site);
        }
    }

    /// A pop that is not the fast path's: an empty tape, another routine's entry, the same
    /// routine's site at another address, or a number stored as another type.
    #[inline(never)]
    fn pop_slow<T: Scalar>(&mut self, site: &'static str) -> T {
        let Some(r) = self.runs.last_mut() else {
            empty(site)
        };
        if !same_site(r.site, site) {
            let r = *r;
            let count = (self.bytes.len() - r.start) / r.size;
            mismatch(&r, count, site)
        }
        // the same routine: its site's address from now on
        r.site = site;
        let r = *r;
        self.top_site = site.as_ptr() as usize;
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
        self.popped(r.size);
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
fn mismatch(r: &Run, count: usize, site: &'static str) -> ! {
    fail(
        ErrorKind::Stack,
        site,
        "#[store] routine: restore the stored results",
        format!(
            "the entry on top of the store tape ({} numbers of type {}) was stored by the \
             `#[store]` routine at {}, not by this one: a forward run there was never inverted \
             (nothing was changed; run forward and inverse calls in pairs, or each gradient in \
             its own `nilang::tape::Tape::scope`)",
            count,
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
            t.restart_peak();
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

/// A value a `#[store]` routine can keep: a number ([`Scalar`]) or an array of them (an array
/// of numbers is pushed and taken back as one copy).
pub trait TapeValue: Sized {
    /// Move onto `tape` (the last number pushed last), remembering the routine at `site`.
    fn push_tape(self, tape: &mut Tape, site: &'static str);
    /// Take back from `tape` (the inverse of [`TapeValue::push_tape`]).
    fn pop_tape(tape: &mut Tape, site: &'static str) -> Self;
    /// Push an array of these (by default one by one; numbers in one copy).
    fn push_array<const N: usize>(a: [Self; N], tape: &mut Tape, site: &'static str) {
        for v in a {
            v.push_tape(tape, site);
        }
    }
    /// Take back an array pushed by [`TapeValue::push_array`].
    fn pop_array<const N: usize>(tape: &mut Tape, site: &'static str) -> [Self; N] {
        let mut a: [Self; N] = core::array::from_fn(|_| Self::pop_tape(tape, site));
        a.reverse();
        a
    }
    /// The value as the `f64` it is stored as, if it is one (an `f64`, or a `GVar<f64>` with a
    /// zero adjoint): the results of one routine packed into one push ([`store2`]).
    #[inline(always)]
    fn packed(&self) -> Option<f64> {
        None
    }
    /// The inverse of [`TapeValue::packed`] (`None` for a type never packed).
    #[inline(always)]
    fn unpacked(x: f64) -> Option<Self> {
        let _ = x;
        None
    }
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
    #[inline(always)]
    fn push_array<const N: usize>(a: [Self; N], tape: &mut Tape, site: &'static str) {
        tape.push_many(&a, site)
    }
    #[inline(always)]
    fn pop_array<const N: usize>(tape: &mut Tape, site: &'static str) -> [Self; N] {
        let mut a = [T::default(); N];
        tape.pop_many(&mut a, site);
        a
    }
    #[inline(always)]
    fn packed(&self) -> Option<f64> {
        if TypeId::of::<T>() == TypeId::of::<f64>() {
            // SAFETY: `T` is `f64`
            Some(unsafe { core::mem::transmute_copy(self) })
        } else if TypeId::of::<T>() == TypeId::of::<GVar<f64>>() {
            // SAFETY: `T` is `GVar<f64>`
            let v: GVar<f64> = unsafe { core::mem::transmute_copy(self) };
            (v.g.to_bits() == 0).then_some(v.x)
        } else {
            None
        }
    }
    #[inline(always)]
    fn unpacked(x: f64) -> Option<Self> {
        if TypeId::of::<T>() == TypeId::of::<f64>() {
            // SAFETY: `T` is `f64`
            Some(unsafe { core::mem::transmute_copy(&x) })
        } else if TypeId::of::<T>() == TypeId::of::<GVar<f64>>() {
            // SAFETY: `T` is `GVar<f64>`
            Some(unsafe { core::mem::transmute_copy(&GVar { x, g: 0.0 }) })
        } else {
            None
        }
    }
}

impl<T: TapeValue, const N: usize> TapeValue for [T; N] {
    #[inline]
    fn push_tape(self, tape: &mut Tape, site: &'static str) {
        T::push_array(self, tape, site)
    }
    #[inline]
    fn pop_tape(tape: &mut Tape, site: &'static str) -> Self {
        T::pop_array(tape, site)
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

/// [`store`] for the results of one routine at once (what `#[store]` routines with several
/// ancillas call): when they are all stored as `f64` (plain numbers, or gradient numbers with
/// zero adjoints, as in a gradient's forward pass) one push takes them all (one tape lookup,
/// one capacity check, one copy); otherwise they are pushed one by one, `a` first.
///
/// ```
/// use nilang::tape::{store2, store2_inv};
/// let (mut a, mut b) = (1.5, 2.5);
/// store2(&mut a, &mut b, 0.0, 0.0, "here");
/// assert_eq!((a, b, nilang::tape::stats().len), (0.0, 0.0, 2));
/// store2_inv(&mut a, &mut b, 0.0, 0.0, "here");
/// assert_eq!((a, b, nilang::tape::stats().len), (1.5, 2.5, 0));
/// ```
#[inline(always)]
pub fn store2<A: TapeValue, B: TapeValue>(a: &mut A, b: &mut B, ia: A, ib: B, site: &'static str) {
    let (a, b) = (core::mem::replace(a, ia), core::mem::replace(b, ib));
    // SAFETY: as in `with_current`; `push_tape` calls no user code
    if let Some(t) = unsafe { current().as_mut() } {
        match (a.packed(), b.packed()) {
            (Some(x), Some(y)) => t.push_many::<f64>(&[x, y], site),
            _ => {
                a.push_tape(t, site);
                b.push_tape(t, site);
            }
        }
    }
}

/// The inverse of [`store2`].
#[inline(always)]
pub fn store2_inv<A: TapeValue, B: TapeValue>(
    a: &mut A,
    b: &mut B,
    ia: A,
    ib: B,
    site: &'static str,
) {
    let _ = (ia, ib);
    // SAFETY: as in `with_current`; `pop_tape` calls no user code
    let Some(t) = (unsafe { current().as_mut() }) else {
        discarded(site)
    };
    if let (Some(_), Some(_)) = (A::unpacked(0.0), B::unpacked(0.0)) {
        if t.on_top::<f64>(site) && t.bytes.len() - t.top_start >= 16 {
            let mut v = [0.0; 2];
            t.pop_many::<f64>(&mut v, site);
            if let (Some(x), Some(y)) = (A::unpacked(v[0]), B::unpacked(v[1])) {
                (*a, *b) = (x, y);
                return;
            }
        }
    }
    *b = B::pop_tape(t, site);
    *a = A::pop_tape(t, site);
}

// `#[store]` routines call these from generated code: their analyses (never one-pass; they
// may write their ancillas) and their value-only variants (themselves)
crate::additive!(store, store_inv: 0);
crate::additive!(store2, store2_inv: 0);
