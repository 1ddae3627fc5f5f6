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
//! routine. A function body that stores opens one [`Cursor`] on the tape at its start (the
//! generated code does, with its [`Guard`]): the tape's end, its capacity and the top run's
//! type key and routine live in the body's local variables (registers, in a loop) until the
//! body ends or calls another reversible function, so a push or pop by the routine that stored
//! last compares two words, checks the capacity (or the run's length) and copies (no
//! `RefCell`, no thread-local, no dispatch per number, no header touched); a routine's
//! ancillas go two per call ([`Cursor::store2`]: one push for both when they are stored as
//! `f64`), and an array ancilla in one copy. Every gradient entry point ([`gradient`](crate::gradient),
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

/// A run of numbers of one type stored by one routine.
#[derive(Clone, Copy)]
struct Run {
    /// The `file:line:column` of the `#[store]` routine that stored them.
    site: &'static str,
    /// `size_of` one number.
    size: usize,
    /// The value of a stored number (for taking it back as another type).
    value: fn(*const u8) -> f64,
    type_name: fn() -> &'static str,
    /// The byte offset of its first number (it ends where the next run starts).
    start: usize,
    /// Its type's key ([`type_key`]) as last pushed or popped: the address of its `TypeId`.
    key: usize,
}

impl Run {
    /// Whether it holds `T`s.
    fn holds<T: 'static>(&self) -> bool {
        // SAFETY: `key` is the address of a `TypeKey::ID` (a `&'static TypeId`)
        unsafe { *(self.key as *const TypeId) == TypeId::of::<T>() }
    }
}

/// A static per type, holding its `TypeId`: its address is the type's key on the fast paths
/// (one comparison; equal addresses hold equal `TypeId`s, so the same type; a type whose
/// key has several addresses, in several codegen units, only takes the slow path, which
/// compares the `TypeId`s).
struct TypeKey<T>(core::marker::PhantomData<T>);

impl<T: 'static> TypeKey<T> {
    const ID: &'static TypeId = &TypeId::of::<T>();
}

/// The key of `T` (see [`TypeKey`]).
#[inline(always)]
fn type_key<T: 'static>() -> usize {
    TypeKey::<T>::ID as *const TypeId as usize
}

/// The contents of a [`Tape`], boxed: an open [`Cursor`] points at them (and a cursor that
/// outlives its scope keeps them alive, see [`Tape::scope`]).
struct Inner {
    bytes: Vec<u8>,
    runs: Vec<Run>,
    /// The top run's type key and the address of its routine's site (0: no run), copied out
    /// of `runs`: a push or pop by the routine that stored last compares these two and
    /// touches nothing else of the headers.
    top_key: usize,
    top_site: usize,
    /// Where the top run starts (a pop reaching it removes the run).
    top_start: usize,
    /// `peak_bytes` less the headers of the current runs: the numbers' bytes passing this mark
    /// raise the peak (one comparison, no header arithmetic).
    peak_mark: usize,
    peak_bytes: usize,
    pushes: usize,
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
    /// Allocated by the first `#[store]` routine that runs on it.
    inner: Option<Box<Inner>>,
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

impl Drop for Tape {
    fn drop(&mut self) {
        if let Some(b) = self.inner.take() {
            // a cursor still open on it (only the thread's own tape, at thread exit, with a
            // cursor kept in another thread-local): its contents stay allocated
            let open = ACTIVE
                .try_with(|a| a.get().inner)
                .unwrap_or(core::ptr::null_mut());
            if core::ptr::eq(open, &*b) {
                Box::leak(b);
            }
        }
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
    /// Bytes the tape has allocated (its buffers' capacity and their bookkeeping, kept for the
    /// next call of a plan): what a counting allocator sees.
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

impl Inner {
    fn new() -> Self {
        Inner {
            bytes: Vec::new(),
            runs: Vec::new(),
            top_key: 0,
            top_site: 0,
            top_start: 0,
            peak_mark: 0,
            peak_bytes: 0,
            pushes: 0,
        }
    }

    fn stats(&self) -> TapeStats {
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
            reserved_bytes: core::mem::size_of::<Inner>()
                + self.bytes.capacity()
                + self.runs.capacity() * RUN,
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
                (self.top_key, self.top_site, self.top_start) =
                    (r.key, r.site.as_ptr() as usize, r.start)
            }
            None => (self.top_key, self.top_site, self.top_start) = (0, 0, 0),
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

    /// Room for `size` more bytes in a run of `T`s from `site` (a new run unless the top run
    /// is one, its site spelled at another address).
    fn prepare<T: Copy + 'static>(&mut self, site: &'static str, size: usize) {
        if self.top_site != site.as_ptr() as usize || self.top_key != type_key::<T>() {
            match self.runs.last_mut() {
                Some(r) if r.holds::<T>() && same_site(r.site, site) => {
                    (r.site, r.key) = (site, type_key::<T>())
                }
                _ => self.runs.push(Run {
                    site,
                    size: core::mem::size_of::<T>(),
                    value: value_of_stored::<T>,
                    type_name: core::any::type_name::<T>,
                    start: self.bytes.len(),
                    key: type_key::<T>(),
                }),
            }
            self.runs_changed();
        }
        self.bytes.reserve(size);
    }

    /// The top run is empty: remove it.
    fn close_run(&mut self) {
        self.runs.pop();
        self.runs_changed();
    }

    /// A pop that is not the fast path's: an empty tape, another routine's entry, the same
    /// routine's site at another address, or a number stored as another type.
    fn pop_slow<T: Scalar>(&mut self, site: &'static str) -> T {
        let Some(r) = self.runs.last_mut() else {
            empty(site)
        };
        if !same_site(r.site, site) {
            let r = *r;
            let count = (self.bytes.len() - r.start) / r.size;
            mismatch(&r, count, site)
        }
        // the same routine: its site's address (and the type's key) from now on
        r.site = site;
        if r.holds::<T>() {
            r.key = type_key::<T>();
        }
        let r = *r;
        (self.top_site, self.top_key) = (site.as_ptr() as usize, r.key);
        let start = self.bytes.len() - r.size;
        // SAFETY: the run's last number occupies the last `r.size` bytes
        let p = unsafe { self.bytes.as_ptr().add(start) };
        let v = if r.holds::<T>() {
            // SAFETY: written as a `T` by `push_raw::<T>`
            unsafe { core::ptr::read_unaligned(p as *const T) }
        } else if TypeId::of::<T>() == TypeId::of::<GVar<f64>>() && r.holds::<f64>() {
            // SAFETY: written as an `f64` by `push_raw::<f64>`; `T` is `GVar<f64>`
            let x = unsafe { core::ptr::read_unaligned(p as *const f64) };
            unsafe { core::mem::transmute_copy(&GVar { x, g: 0.0 }) }
        } else {
            T::from_f64_lit((r.value)(p))
        };
        self.bytes.truncate(start);
        if start == self.top_start {
            self.close_run();
        }
        v
    }
}

impl Tape {
    /// An empty tape (allocates nothing until the first push).
    pub const fn new() -> Self {
        Tape { inner: None }
    }

    /// The tape's size and history.
    pub fn stats(&self) -> TapeStats {
        self.inner.as_ref().map(|i| i.stats()).unwrap_or_default()
    }

    /// Run `f` with this tape as the thread's store tape: the `#[store]` routines it runs push
    /// onto and pop from this tape (not another scope's, not another thread's). When `f`
    /// returns or unwinds the previous tape is restored, and entries `f` left on this tape (a
    /// forward run that was never inverted) are dropped; the buffers are kept for the next
    /// scope. Statistics accumulate over scopes ([`Tape::stats`]).
    pub fn scope<R>(&mut self, f: impl FnOnce() -> R) -> R {
        struct Restore {
            me: *mut Tape,
            prev: *mut Tape,
            active: Active,
        }
        impl Drop for Restore {
            fn drop(&mut self) {
                CURRENT.with(|c| c.set(self.prev));
                let open = ACTIVE.with(|a| a.replace(self.active));
                // SAFETY: the tape this scope borrows (`f` has returned or unwound)
                let me = unsafe { &mut *self.me };
                match me.inner.take() {
                    // a cursor opened in `f` is still open (it was moved out of its
                    // function): it keeps these contents, and this tape starts anew
                    Some(b) if core::ptr::eq(open.inner, &*b) => {
                        Box::leak(b);
                    }
                    Some(mut b) => {
                        b.drop_entries();
                        me.inner = Some(b);
                    }
                    None => {}
                }
            }
        }
        let me: *mut Tape = self;
        let _restore = Restore {
            me,
            prev: CURRENT.with(|c| c.replace(me)),
            active: ACTIVE.with(|a| a.replace(Active::NONE)),
        };
        f()
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

#[cold]
#[inline(never)]
fn in_use(site: &'static str) -> ! {
    fail(
        ErrorKind::Stack,
        site,
        "#[store] routine: the store tape",
        "the store tape is in use by the `#[store]` routines of an enclosing `#[i]` function: \
         code called from inside an instruction's expression cannot store on it (call \
         reversible functions as statements, or give the code a tape of its own with \
         `nilang::tape::Tape::scope`)"
            .into(),
    )
}

/// The open cursor of this thread (see [`Cursor`]): its number and the contents it holds.
#[derive(Clone, Copy)]
struct Active {
    /// 0: none.
    id: u64,
    inner: *mut Inner,
}

impl Active {
    const NONE: Active = Active {
        id: 0,
        inner: core::ptr::null_mut(),
    };
}

thread_local! {
    /// The tape of the innermost [`Tape::scope`]; null: the thread's own; the marker of
    /// [`discarding`]: none.
    static CURRENT: Cell<*mut Tape> = const { Cell::new(core::ptr::null_mut()) };
    /// The cursor open on the current tape, if any: the tape's fields are its to change.
    static ACTIVE: Cell<Active> = const { Cell::new(Active::NONE) };
    /// The number of the last cursor opened on this thread.
    static OPENED: Cell<u64> = const { Cell::new(0) };
    /// The thread's own tape, for `#[store]` functions run outside any scope.
    static OWN: UnsafeCell<Tape> = const { UnsafeCell::new(Tape::new()) };
}

/// The marker of [`discarding`] in `CURRENT` (never the address of a tape).
fn discard_marker() -> *mut Tape {
    core::ptr::NonNull::<u8>::dangling().as_ptr() as *mut Tape
}

/// The current tape: `None` inside [`discarding`].
#[inline]
fn current() -> Option<*mut Tape> {
    let p = CURRENT.with(|c| c.get());
    if p.is_null() {
        Some(OWN.with(|t| t.get()))
    } else if p == discard_marker() {
        None
    } else {
        Some(p)
    }
}

/// Run `f` on the current tape's contents (`None` inside [`discarding`] or before its first
/// push); `site` names the caller in the error raised while a cursor holds the tape.
fn with_current<R>(site: &'static str, f: impl FnOnce(Option<&mut Tape>) -> R) -> R {
    if ACTIVE.with(|a| a.get().id) != 0 && current().is_some() {
        in_use(site)
    }
    // SAFETY: the thread's own tape, or one installed by a `Tape::scope` on this thread, which
    // holds its `&mut` until it ends and restores the previous one before that; no cursor
    // holds it (checked above) and `f` calls no user code
    f(current().map(|t| unsafe { &mut *t }))
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
    with_current("nilang::tape::stats", |t| {
        t.map(|t| t.stats()).unwrap_or_default()
    })
}

/// Restart the peak measurement of the current tape at its current size.
pub fn reset_peak() {
    with_current("nilang::tape::reset_peak", |t| {
        if let Some(i) = t.and_then(|t| t.inner.as_mut()) {
            i.restart_peak();
        }
    })
}

/// Drop every entry of the current tape and reset its statistics (after forward runs that
/// are never inverted).
pub fn clear() {
    with_current("nilang::tape::clear", |t| {
        if let Some(t) = t {
            *t = Tape::new();
        }
    })
}

/// The store tape as the `#[store]` routines of one function body see it. Generated code
/// makes a [`Guard`] and opens its cursor at the start of a body that stores, calls
/// [`Cursor::store2`]/[`Cursor::store2_inv`] (and the one-ancilla forms) for its routines,
/// releases the cursor around the calls of other reversible functions ([`Cursor::release`],
/// [`Cursor::acquire`]) and closes it at the end ([`Cursor::close`]).
///
/// It keeps the tape's end, its capacity and the top run's key in local variables (registers,
/// in a loop), so a push is a key comparison, one capacity check and a copy, and a pop a key
/// and a length comparison and a copy; the tape is written back when the cursor is released or
/// closed. While it is open the tape is its own: a `#[store]` routine run from inside an
/// instruction's expression (not a statement) finds the tape in use, a
/// [`Stack`](crate::check::ErrorKind::Stack) error. Inside [`discarding`] it stores nothing.
///
/// ```
/// use nilang::tape::{Guard, Tape};
/// let mut tape = Tape::new();
/// tape.scope(|| {
///     let (mut a, mut b) = (1.5, 2.5);
///     let mut guard = Guard::new();
///     let mut c = guard.open();
///     c.store2(&mut a, &mut b, 0.0, 0.0, "here");
///     assert_eq!((a, b), (0.0, 0.0));
///     c.store2_inv(&mut a, &mut b, 0.0, 0.0, "here");
///     assert_eq!((a, b), (1.5, 2.5));
///     c.close();
/// });
/// assert_eq!(tape.stats().pushes, 2);
/// ```
pub struct Cursor<'g> {
    /// The contents written back to (null: discarding, or released).
    inner: *mut Inner,
    /// Its guard's number (`ACTIVE` holds it while the cursor is open).
    id: u64,
    /// Inside [`discarding`]: pushes store nothing.
    discard: bool,
    /// The tape as the cursor sees it.
    v: View,
    /// The most bytes `v.len` reached since the last write-back.
    high: usize,
    /// Numbers pushed since the last write-back.
    pushes: usize,
    /// It lives no longer than its guard.
    _guard: core::marker::PhantomData<&'g mut Guard>,
}

/// The part of a tape's contents a cursor reads: `bytes` (start, length, capacity) and the top
/// run's key and start.
#[derive(Clone, Copy)]
struct View {
    base: *mut u8,
    len: usize,
    cap: usize,
    top_key: usize,
    top_site: usize,
    top_start: usize,
}

impl View {
    /// The view of no tape: every push and pop takes the slow path.
    const NONE: View = View {
        base: core::ptr::null_mut(),
        len: 0,
        cap: 0,
        top_key: 0,
        top_site: 0,
        top_start: 0,
    };
}

impl Inner {
    fn view(&mut self) -> View {
        View {
            base: self.bytes.as_mut_ptr(),
            len: self.bytes.len(),
            cap: self.bytes.capacity(),
            top_key: self.top_key,
            top_site: self.top_site,
            top_start: self.top_start,
        }
    }

    /// Take in a cursor's state: `len` bytes written, at most `high` held since its last
    /// write-back, `pushes` numbers pushed.
    #[inline(always)]
    fn write_back(&mut self, len: usize, high: usize, pushes: usize) {
        // SAFETY: a cursor wrote the first `len` bytes (`len <= capacity`)
        unsafe { self.bytes.set_len(len) };
        self.pushes += pushes;
        if high > self.peak_mark {
            self.peak_bytes += high - self.peak_mark;
            self.peak_mark = high;
        }
    }

    /// After a cursor was dropped without writing back (a panic): the runs its pushes opened
    /// and never filled removed.
    fn repair(&mut self) {
        while self
            .runs
            .last()
            .is_some_and(|r| r.start >= self.bytes.len())
        {
            self.runs.pop();
        }
        self.runs_changed();
    }
}

/// Hands the tape back if its cursor did not (a panic, or a cursor never closed): made at the
/// start of a function body that stores, before its [`Cursor`] (see there).
pub struct Guard {
    id: u64,
}

impl Guard {
    /// A guard with a number of its own (no cursor open yet).
    #[inline]
    #[allow(clippy::new_without_default)]
    pub fn new() -> Guard {
        Guard {
            id: OPENED.with(|o| {
                o.set(o.get() + 1);
                o.get()
            }),
        }
    }

    /// Open a cursor on the current tape (the innermost [`Tape::scope`]'s, or the thread's
    /// own; inside [`discarding`], a cursor that stores nothing). A
    /// [`Stack`](crate::check::ErrorKind::Stack) error while another cursor holds it.
    #[inline(always)]
    pub fn open(&mut self) -> Cursor<'_> {
        let mut c = Cursor {
            inner: core::ptr::null_mut(),
            id: self.id,
            discard: false,
            v: View::NONE,
            high: 0,
            pushes: 0,
            _guard: core::marker::PhantomData,
        };
        c.acquire();
        c
    }
}

impl Drop for Guard {
    #[inline]
    fn drop(&mut self) {
        if ACTIVE.with(|a| a.get().id) == self.id {
            abandoned()
        }
    }
}

/// The open cursor's guard is dropped: its cursor is gone without writing back.
#[cold]
#[inline(never)]
fn abandoned() {
    let a = ACTIVE.with(|a| a.replace(Active::NONE));
    // SAFETY: the contents the cursor held (alive: see `Tape::scope`), which nothing else
    // uses while it is open
    unsafe { (*a.inner).repair() }
}

/// Open the cursor numbered `id` on the current tape (out of line): its contents, null inside
/// [`discarding`].
#[inline(never)]
fn open_current(id: u64) -> (*mut Inner, View) {
    let Some(t) = current() else {
        return (core::ptr::null_mut(), View::NONE);
    };
    if ACTIVE.with(|a| a.get().id) != 0 {
        in_use("nilang::tape::Guard::open")
    }
    // SAFETY: as in `with_current` (no cursor holds the tape)
    let t = unsafe { &mut *t };
    let inner = t.inner.get_or_insert_with(|| Box::new(Inner::new()));
    let view = inner.view();
    let inner: *mut Inner = &mut **inner;
    ACTIVE.with(|a| a.set(Active { id, inner }));
    (inner, view)
}

/// Close the cursor numbered `id` (out of line): its state written back.
#[inline(never)]
fn close(id: u64, inner: *mut Inner, len: usize, high: usize, pushes: usize) {
    // SAFETY: the open cursor's contents
    unsafe { (*inner).write_back(len, high, pushes) };
    ACTIVE.with(|a| {
        if a.get().id == id {
            a.set(Active::NONE)
        }
    })
}

/// A new run or more capacity (out of the inlined push): the cursor's state written back,
/// room made, the new view.
#[cold]
#[inline(never)]
fn prepare<T: Copy + 'static>(
    inner: *mut Inner,
    (len, high, pushes): (usize, usize, usize),
    site: &'static str,
    size: usize,
) -> View {
    if inner.is_null() {
        released(site)
    }
    // SAFETY: the open cursor's contents
    let i = unsafe { &mut *inner };
    i.write_back(len, high, pushes);
    i.prepare::<T>(site, size);
    i.view()
}

/// The top run is empty: written back, the run removed, the new view (out of the inlined pop).
#[cold]
#[inline(never)]
fn close_run(inner: *mut Inner, (len, high, pushes): (usize, usize, usize)) -> View {
    // SAFETY: the open cursor's contents (a pop found the run on top)
    let i = unsafe { &mut *inner };
    i.write_back(len, high, pushes);
    i.close_run();
    i.view()
}

/// A pop that is not the fast path's (see [`Inner::pop_slow`]), or inside [`discarding`].
#[cold]
#[inline(never)]
fn pop_slow<T: Scalar>(
    inner: *mut Inner,
    discard: bool,
    (len, high, pushes): (usize, usize, usize),
    site: &'static str,
) -> (T, View) {
    if discard {
        discarded(site)
    }
    if inner.is_null() {
        released(site)
    }
    // SAFETY: the open cursor's contents
    let i = unsafe { &mut *inner };
    i.write_back(len, high, pushes);
    let v = i.pop_slow::<T>(site);
    (v, i.view())
}

impl Cursor<'_> {
    /// The state a slow path writes back.
    #[inline(always)]
    fn state(&self) -> (usize, usize, usize) {
        (self.v.len, self.high, self.pushes)
    }

    /// Take in a new view (after a slow path wrote the state back).
    #[inline(always)]
    fn set_view(&mut self, v: View) {
        self.v = v;
        self.high = v.len;
        self.pushes = 0;
    }

    /// Hand the tape back before a call that may store on it (the cursor holds nothing until
    /// [`Cursor::acquire`]).
    #[inline(always)]
    pub fn release(&mut self) {
        if !self.inner.is_null() {
            close(self.id, self.inner, self.v.len, self.high, self.pushes);
        }
        self.inner = core::ptr::null_mut();
        self.discard = false;
        self.set_view(View::NONE);
    }

    /// Take the current tape again after [`Cursor::release`].
    #[inline(always)]
    pub fn acquire(&mut self) {
        if !self.inner.is_null() {
            self.release();
        }
        let (inner, v) = open_current(self.id);
        self.inner = inner;
        self.discard = inner.is_null();
        self.set_view(v);
    }

    /// Hand the tape back for good (the end of the function body).
    #[inline(always)]
    pub fn close(mut self) {
        self.release();
    }

    /// Whether the top run holds `T`s stored by the routine at `site` (two comparisons).
    #[inline(always)]
    fn on_top<T: 'static>(&self, site: &'static str) -> bool {
        self.v.top_site == site.as_ptr() as usize && self.v.top_key == type_key::<T>()
    }

    /// Room for `size` more bytes in a run of `T`s from `site` after `len`; `false`: discard.
    #[inline(always)]
    fn room<T: Copy + 'static>(&mut self, site: &'static str, size: usize) -> bool {
        if self.discard {
            return false;
        }
        if !self.on_top::<T>(site) || self.v.cap - self.v.len < size {
            let v = prepare::<T>(self.inner, self.state(), site, size);
            self.set_view(v);
            // what `prepare` made (said here, so that in a loop of one routine the key is
            // known after the first push)
            (self.v.top_site, self.v.top_key) = (site.as_ptr() as usize, type_key::<T>());
        }
        true
    }

    /// `count` numbers, `size` bytes, were written after `len`: take them in.
    #[inline(always)]
    fn pushed(&mut self, size: usize, count: usize) {
        self.v.len += size;
        self.pushes += count;
        self.high = self.high.max(self.v.len);
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
        if self.room::<T>(site, size) {
            // SAFETY: `size` bytes of capacity after `len`; `T: Copy` has no drop
            unsafe { core::ptr::write_unaligned(self.v.base.add(self.v.len) as *mut T, v) };
            self.pushed(size, 1);
        }
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
                if self.room::<f64>(site, size) {
                    // SAFETY: `size` bytes of capacity after `len`
                    unsafe {
                        let p = self.v.base.add(self.v.len) as *mut f64;
                        for (k, v) in gs.iter().enumerate() {
                            core::ptr::write_unaligned(p.add(k), v.x);
                        }
                    }
                    self.pushed(size, gs.len());
                }
                return;
            }
        }
        let size = core::mem::size_of_val(vs);
        if self.room::<T>(site, size) {
            // SAFETY: `size` bytes of capacity after `len`; `T: Copy`
            unsafe {
                core::ptr::copy_nonoverlapping(
                    vs.as_ptr() as *const u8,
                    self.v.base.add(self.v.len),
                    size,
                )
            };
            self.pushed(size, vs.len());
        }
    }

    /// Take the last `size` bytes of the top run when it holds `T`s from `site` and at least
    /// that many: where they start (one key and one length comparison when more remain).
    #[inline(always)]
    fn take<T: 'static>(&mut self, site: &'static str, size: usize) -> Option<*const u8> {
        if !self.on_top::<T>(site) {
            return None;
        }
        let held = self.v.len - self.v.top_start;
        if held > size {
            self.v.len -= size;
            // SAFETY: within the top run
            return Some(unsafe { self.v.base.add(self.v.len) });
        }
        if held == size {
            // the run's last numbers: the run goes too (its bytes stay where they are)
            self.v.len -= size;
            // SAFETY: within the top run
            let p = unsafe { self.v.base.add(self.v.len) };
            let v = close_run(self.inner, self.state());
            self.set_view(v);
            return Some(p);
        }
        None
    }

    #[inline(always)]
    fn pop_one<T: Scalar>(&mut self, site: &'static str) -> T {
        if let Some(p) = self.take::<T>(site, core::mem::size_of::<T>()) {
            // SAFETY: a `T` written by `push_raw::<T>`
            return unsafe { core::ptr::read_unaligned(p as *const T) };
        }
        if TypeId::of::<T>() == TypeId::of::<GVar<f64>>() {
            if let Some(p) = self.take::<f64>(site, 8) {
                // SAFETY: an `f64`; `T` is `GVar<f64>`
                let x = unsafe { core::ptr::read_unaligned(p as *const f64) };
                return unsafe { core::mem::transmute_copy(&GVar { x, g: 0.0 }) };
            }
        }
        let (x, v) = pop_slow::<T>(self.inner, self.discard, self.state(), site);
        self.set_view(v);
        x
    }

    /// Take back the numbers of an array (the inverse of [`Cursor::push_many`]): one copy when
    /// they are on top as they were pushed.
    #[inline(always)]
    fn pop_many<T: Scalar>(&mut self, out: &mut [T], site: &'static str) {
        let size = core::mem::size_of_val(out);
        if size == 0 {
            return;
        }
        if let Some(p) = self.take::<T>(site, size) {
            // SAFETY: `out.len()` `T`s
            unsafe { core::ptr::copy_nonoverlapping(p, out.as_mut_ptr() as *mut u8, size) };
            return;
        }
        if TypeId::of::<T>() == TypeId::of::<GVar<f64>>() {
            if let Some(p) = self.take::<f64>(site, 8 * out.len()) {
                // SAFETY: `out.len()` `f64`s; `T` is `GVar<f64>`
                unsafe {
                    let p = p as *const f64;
                    for (k, o) in out.iter_mut().enumerate() {
                        let x = core::ptr::read_unaligned(p.add(k));
                        *o = core::mem::transmute_copy(&GVar { x, g: 0.0 });
                    }
                }
                return;
            }
        }
        for o in out.iter_mut().rev() {
            *o = self.pop_one(site);
        }
    }

    /// `#[store]` routines, forward: move `x` onto the tape and leave it at its initial value
    /// `init` (what uncomputing would have left); `site` names the routine.
    #[inline(always)]
    pub fn store<X: TapeValue>(&mut self, x: &mut X, init: X, site: &'static str) {
        core::mem::replace(x, init).push_tape(self, site)
    }

    /// The inverse of [`Cursor::store`]: `x` (at its initial value) takes back the stored value.
    #[inline(always)]
    pub fn store_inv<X: TapeValue>(&mut self, x: &mut X, init: X, site: &'static str) {
        let _ = init;
        *x = X::pop_tape(self, site);
    }

    /// [`Cursor::store`] for the results of one routine at once: when they are both stored as
    /// `f64` (plain numbers, or gradient numbers with zero adjoints, as in a gradient's forward
    /// pass) one push takes both; otherwise they are pushed one by one, `a` first.
    #[inline(always)]
    pub fn store2<A: TapeValue, B: TapeValue>(
        &mut self,
        a: &mut A,
        b: &mut B,
        ia: A,
        ib: B,
        site: &'static str,
    ) {
        let (a, b) = (core::mem::replace(a, ia), core::mem::replace(b, ib));
        match (a.packed(), b.packed()) {
            (Some(x), Some(y)) => self.push_many::<f64>(&[x, y], site),
            _ => {
                a.push_tape(self, site);
                b.push_tape(self, site);
            }
        }
    }

    /// The inverse of [`Cursor::store2`].
    #[inline(always)]
    pub fn store2_inv<A: TapeValue, B: TapeValue>(
        &mut self,
        a: &mut A,
        b: &mut B,
        ia: A,
        ib: B,
        site: &'static str,
    ) {
        let _ = (ia, ib);
        if let (Some(_), Some(_)) = (A::unpacked(0.0), B::unpacked(0.0)) {
            if let Some(p) = self.take::<f64>(site, 16) {
                // SAFETY: two `f64`s
                let (x, y) = unsafe {
                    let p = p as *const f64;
                    (
                        core::ptr::read_unaligned(p),
                        core::ptr::read_unaligned(p.add(1)),
                    )
                };
                if let (Some(x), Some(y)) = (A::unpacked(x), B::unpacked(y)) {
                    (*a, *b) = (x, y);
                    return;
                }
            }
        }
        *b = B::pop_tape(self, site);
        *a = A::pop_tape(self, site);
    }
}

#[cold]
#[inline(never)]
fn released(site: &'static str) -> ! {
    fail(
        ErrorKind::Stack,
        site,
        "#[store] routine: the store tape",
        "a released `nilang::tape::Cursor` was used (acquire it again first)".into(),
    )
}

/// A value a `#[store]` routine can keep: a number ([`Scalar`]) or an array of them (an array
/// of numbers is pushed and taken back as one copy).
pub trait TapeValue: Sized {
    /// Move onto the tape (the last number pushed last), remembering the routine at `site`.
    fn push_tape(self, tape: &mut Cursor<'_>, site: &'static str);
    /// Take back from the tape (the inverse of [`TapeValue::push_tape`]).
    fn pop_tape(tape: &mut Cursor<'_>, site: &'static str) -> Self;
    /// Push an array of these (by default one by one; numbers in one copy).
    fn push_array<const N: usize>(a: [Self; N], tape: &mut Cursor<'_>, site: &'static str) {
        for v in a {
            v.push_tape(tape, site);
        }
    }
    /// Take back an array pushed by [`TapeValue::push_array`].
    fn pop_array<const N: usize>(tape: &mut Cursor<'_>, site: &'static str) -> [Self; N] {
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
    fn push_tape(self, tape: &mut Cursor<'_>, site: &'static str) {
        tape.push_one(self, site)
    }
    #[inline(always)]
    fn pop_tape(tape: &mut Cursor<'_>, site: &'static str) -> Self {
        tape.pop_one(site)
    }
    #[inline(always)]
    fn push_array<const N: usize>(a: [Self; N], tape: &mut Cursor<'_>, site: &'static str) {
        tape.push_many(&a, site)
    }
    #[inline(always)]
    fn pop_array<const N: usize>(tape: &mut Cursor<'_>, site: &'static str) -> [Self; N] {
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
    fn push_tape(self, tape: &mut Cursor<'_>, site: &'static str) {
        T::push_array(self, tape, site)
    }
    #[inline]
    fn pop_tape(tape: &mut Cursor<'_>, site: &'static str) -> Self {
        T::pop_array(tape, site)
    }
}

/// `#[store]` routines, forward: move `x` onto the current tape and leave it at its initial
/// value `init` (what uncomputing would have left); `site` names the routine. Its inverse is
/// [`store_inv`]. (Generated code calls [`Cursor::store`] on a cursor opened once per function.)
///
/// ```
/// let mut x = 2.5;
/// nilang::tape::store(&mut x, 0.0, "here");
/// assert_eq!(x, 0.0);
/// nilang::tape::store_inv(&mut x, 0.0, "here");
/// assert_eq!(x, 2.5);
/// ```
#[inline]
pub fn store<X: TapeValue>(x: &mut X, init: X, site: &'static str) {
    let mut g = Guard::new();
    let mut c = g.open();
    c.store(x, init, site);
    c.close();
}

/// The inverse of [`store`]: `x` (at its initial value) takes back the stored value.
#[inline]
pub fn store_inv<X: TapeValue>(x: &mut X, init: X, site: &'static str) {
    let mut g = Guard::new();
    let mut c = g.open();
    c.store_inv(x, init, site);
    c.close();
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

/// [`store`] for the results of one routine at once (see [`Cursor::store2`]).
///
/// ```
/// use nilang::tape::{store2, store2_inv};
/// let (mut a, mut b) = (1.5, 2.5);
/// store2(&mut a, &mut b, 0.0, 0.0, "here");
/// assert_eq!((a, b, nilang::tape::stats().len), (0.0, 0.0, 2));
/// store2_inv(&mut a, &mut b, 0.0, 0.0, "here");
/// assert_eq!((a, b, nilang::tape::stats().len), (1.5, 2.5, 0));
/// ```
#[inline]
pub fn store2<A: TapeValue, B: TapeValue>(a: &mut A, b: &mut B, ia: A, ib: B, site: &'static str) {
    let mut g = Guard::new();
    let mut c = g.open();
    c.store2(a, b, ia, ib, site);
    c.close();
}

/// The inverse of [`store2`].
#[inline]
pub fn store2_inv<A: TapeValue, B: TapeValue>(
    a: &mut A,
    b: &mut B,
    ia: A,
    ib: B,
    site: &'static str,
) {
    let mut g = Guard::new();
    let mut c = g.open();
    c.store2_inv(a, b, ia, ib, site);
    c.close();
}

// `#[store]` routines call these from generated code: their analyses (never one-pass; they
// may write their ancillas) and their value-only variants (themselves)
crate::additive!(store, store_inv: 0);
crate::additive!(store2, store2_inv: 0);
