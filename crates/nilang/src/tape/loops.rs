//! The store tape inside a loop: one reservation per loop, and a bound comparison per push and
//! per pop instead of the cursor's key and capacity checks.
//!
//! A range loop whose every iteration stores a fixed number of values from one `#[store]`
//! routine (the per-cell routine of a stepper: `for i in 0..n { #[store] routine! { .. } ..
//! unroutine!() }`) pushes through a [`PushLoop`] and its reversed loop pops through a
//! [`PopLoop`], both taken from the body's [`Cursor`] around the loop by the generated code.
//! They hold a window on the top run of the tape (the write or read position, the run's end
//! or start, and the type of its numbers) in a few local variables: the first push of the
//! loop makes the run and reserves room for the whole loop (the loop's count of pushes times
//! the first push's size), and later pushes are a type comparison, a bound comparison and a
//! copy (the numbers pushed and the tape's peak are settled once, at [`PushLoop::end`]); a pop
//! is a type comparison, a bound comparison and a copy while the run holds more than it takes.
//! Whatever does not fit a window (the run's last numbers, a number of another type, an entry
//! of another routine, a discarding or released cursor) goes through the cursor's own push or
//! pop, with its errors, and the window is taken again after it.
use super::{type_key, Cursor, TapeValue};
use crate::ad::{GVar, Scalar};
use core::any::TypeId;

/// The pushes of a loop (one reservation for the whole loop): made by
/// [`Cursor::push_loop`] before the loop, handed back to the cursor by [`PushLoop::end`]
/// after it (a loop left by a panic hands nothing back: its cursor's guard repairs the tape).
///
/// ```
/// use nilang::tape::{Guard, Tape};
/// let mut tape = Tape::new();
/// let mut x = [0.0; 3];
/// tape.scope(|| {
///     let mut guard = Guard::new();
///     let mut c = guard.open();
///     let mut pushes = c.push_loop(3);
///     for i in 0..3 {
///         let (mut a, mut b) = (i as f64, 10.0 * i as f64);
///         pushes.store2(&mut a, &mut b, 0.0, 0.0, "here");
///     }
///     pushes.end();
///     let mut pops = c.pop_loop();
///     for i in (0..3).rev() {
///         let (mut a, mut b) = (0.0, 0.0);
///         pops.store2_inv(&mut a, &mut b, 0.0, 0.0, "here");
///         x[i] = a + b;
///     }
///     pops.end();
///     c.close();
/// });
/// assert_eq!(x, [0.0, 11.0, 22.0]);
/// assert_eq!((tape.stats().pushes, tape.stats().len), (6, 0));
/// ```
pub struct PushLoop<'c, 'g> {
    c: &'c mut Cursor<'g>,
    w: PushWindow,
    /// Inside [`discarding`](super::discarding): nothing is stored.
    discard: bool,
}

/// The window of a [`PushLoop`]: plain values (local variables of the loop), changed only by
/// what the out-of-line paths return.
#[derive(Clone, Copy)]
struct PushWindow {
    /// The tape's bytes.
    base: *mut u8,
    /// Where the next number goes.
    pos: usize,
    /// The end of the room the window may fill (`pos` when there is none).
    end: usize,
    /// The type key ([`type_key`]) of the window's numbers (0: no window).
    key: usize,
    /// `size_of` one of them (for counting the numbers pushed).
    size: usize,
    /// `pos` when the window was taken.
    start: usize,
    /// The pushes the loop makes, for the reservation at its first push (0: made).
    expect: usize,
}

impl<'g> Cursor<'g> {
    /// The pushes of a loop that makes `count` of them (its iterations times the store calls
    /// of its body; the first push reserves room for `count` pushes of its size): see
    /// [`PushLoop`].
    #[inline(always)]
    pub fn push_loop(&mut self, count: usize) -> PushLoop<'_, 'g> {
        let len = self.v.len;
        PushLoop {
            w: PushWindow {
                base: self.v.base,
                pos: len,
                end: len,
                key: 0,
                size: 1,
                start: len,
                expect: count,
            },
            discard: self.discard,
            c: self,
        }
    }

    /// The pops of a loop: see [`PopLoop`].
    #[inline(always)]
    pub fn pop_loop(&mut self) -> PopLoop<'_, 'g> {
        let len = self.v.len;
        PopLoop {
            w: PopWindow {
                base: self.v.base,
                pos: len,
                floor: len,
                key: 0,
            },
            c: self,
        }
    }

    /// Room for `want` more bytes if the allocator has it (a reservation ahead of a loop's
    /// pushes: the pushes themselves grow the tape when it fails).
    fn reserve_ahead(&mut self, want: usize) {
        if self.inner.is_null() || self.discard || self.v.cap - self.v.len >= want {
            return;
        }
        // SAFETY: the open cursor's contents
        let i = unsafe { &mut *self.inner };
        i.write_back(self.v.len, self.high, self.pushes);
        let _ = i.bytes.try_reserve(want);
        let v = i.view();
        self.set_view(v);
    }
}

impl PushWindow {
    /// Its state handed to the cursor `c`.
    #[inline(always)]
    fn sync(&self, c: &mut Cursor<'_>) {
        c.v.len = self.pos;
        if self.pos > self.start {
            c.high = c.high.max(self.pos);
            c.pushes += (self.pos - self.start) / self.size;
        }
    }

    /// The window taken again from the cursor `c` (no type yet).
    #[inline(always)]
    fn taken(c: &Cursor<'_>, expect: usize) -> PushWindow {
        PushWindow {
            base: c.v.base,
            pos: c.v.len,
            end: c.v.cap,
            key: 0,
            size: 1,
            start: c.v.len,
            expect,
        }
    }
}

/// Room for `size` bytes of `S`s when the window has none: a run of `S`s from `site` made on
/// top with room for them (for the whole loop at its first push), the new window returned
/// (its key is the caller's to set).
#[cold]
#[inline(never)]
fn push_room<S: Copy + 'static>(
    c: &mut Cursor<'_>,
    w: PushWindow,
    size: usize,
    site: &'static str,
) -> PushWindow {
    w.sync(c);
    if w.expect > 1 {
        c.reserve_ahead(size.saturating_mul(w.expect));
    }
    let stores = c.room::<S>(site, size);
    debug_assert!(stores, "a discarding loop writes nothing");
    let mut w = PushWindow::taken(c, 0);
    w.size = core::mem::size_of::<S>();
    w
}

/// Run `f` on the cursor `c` (a value a push window does not take), the new window returned.
#[cold]
#[inline(never)]
fn push_via_cursor_slow(
    c: &mut Cursor<'_>,
    w: PushWindow,
    f: impl FnOnce(&mut Cursor<'_>),
) -> PushWindow {
    w.sync(c);
    f(c);
    PushWindow::taken(c, w.expect)
}

impl PushLoop<'_, '_> {
    /// Push `vs`, `N` numbers of type `S` (not discarding): into the window when it holds
    /// `S`s with room for them, else after [`push_room`] made room.
    #[inline(always)]
    fn write<S: Copy + 'static, const N: usize>(&mut self, vs: [S; N], site: &'static str) {
        let size = core::mem::size_of::<[S; N]>();
        if size == 0 {
            return;
        }
        if self.w.key != type_key::<S>() || self.w.pos + size > self.w.end {
            self.w = push_room::<S>(self.c, self.w, size, site);
            // the run `push_room` made (said here: the key's address as this code spells it)
            self.w.key = type_key::<S>();
        }
        // SAFETY: `size` bytes of capacity after `pos` (the window's room); `S: Copy`
        unsafe {
            let p = self.w.base.add(self.w.pos) as *mut S;
            for (k, v) in vs.into_iter().enumerate() {
                core::ptr::write_unaligned(p.add(k), v);
            }
        }
        self.w.pos += size;
    }

    /// Run `f` on the cursor (a value this window does not take).
    #[inline(always)]
    fn via_cursor(&mut self, f: impl FnOnce(&mut Cursor<'_>)) {
        self.w = push_via_cursor_slow(self.c, self.w, f);
    }

    /// [`Cursor::store`] in the loop.
    #[inline(always)]
    pub fn store<X: TapeValue>(&mut self, x: &mut X, init: X, site: &'static str) {
        let v = core::mem::replace(x, init);
        if !self.discard {
            v.push_loop(self, site)
        }
    }

    /// [`Cursor::store2`] in the loop.
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
        if self.discard {
            return;
        }
        match (a.packed(), b.packed()) {
            (Some(x), Some(y)) => self.write::<f64, 2>([x, y], site),
            _ => {
                a.push_loop(self, site);
                b.push_loop(self, site);
            }
        }
    }

    /// The end of the loop: the window handed back to the cursor.
    #[inline(always)]
    pub fn end(self) {
        self.w.sync(self.c);
    }
}

/// The pops of a loop (one check for the whole loop): made by [`Cursor::pop_loop`]
/// before the loop, handed back to the cursor by [`PopLoop::end`] after it (see
/// [`PushLoop`] for an example).
pub struct PopLoop<'c, 'g> {
    c: &'c mut Cursor<'g>,
    w: PopWindow,
}

/// The window of a [`PopLoop`] (see [`PushWindow`]).
#[derive(Clone, Copy)]
struct PopWindow {
    /// The tape's bytes.
    base: *const u8,
    /// The end of the numbers not yet taken.
    pos: usize,
    /// Where the window's run starts (its last numbers go through the cursor, which
    /// removes the run).
    floor: usize,
    /// The type key of the run's numbers (0: no window).
    key: usize,
}

/// Run `f` on the cursor `c` (a pop a window does not take, the window's end at `pos`), then
/// take the window on the top run if it is `site`'s: the result, the window and 1 when it
/// holds `S1`s, 2 when it holds `S2`s, else 0 (no window; the key is the caller's to set).
#[cold]
#[inline(never)]
fn pop_slow<R, S1: 'static, S2: 'static>(
    c: &mut Cursor<'_>,
    pos: usize,
    site: &'static str,
    f: impl FnOnce(&mut Cursor<'_>) -> R,
) -> (R, PopWindow, u8) {
    c.v.len = pos;
    let r = f(c);
    let w = PopWindow {
        base: c.v.base,
        pos: c.v.len,
        floor: c.v.top_start,
        key: 0,
    };
    if c.discard || c.inner.is_null() || c.v.top_site != site.as_ptr() as usize {
        return (r, w, 0);
    }
    // SAFETY: the open cursor's contents (its runs are up to date: only its slow paths
    // change them)
    let held = match unsafe { (*c.inner).runs.last() } {
        Some(r) if r.holds::<S1>() => 1,
        Some(r) if r.holds::<S2>() => 2,
        _ => 0,
    };
    (r, w, held)
}

impl PopLoop<'_, '_> {
    /// Take the last `size` bytes when the window holds `S`s and more than `size` bytes:
    /// where they start.
    #[inline(always)]
    fn take<S: 'static>(&mut self, size: usize) -> Option<*const u8> {
        if self.w.key == type_key::<S>() && self.w.pos > self.w.floor + size {
            self.w.pos -= size;
            // SAFETY: within the window's run
            Some(unsafe { self.w.base.add(self.w.pos) })
        } else {
            None
        }
    }

    /// Run `f` on the cursor and take the window again if the top run holds `S1`s or `S2`s.
    #[inline(always)]
    fn slow<R, S1: 'static, S2: 'static>(
        &mut self,
        site: &'static str,
        f: impl FnOnce(&mut Cursor<'_>) -> R,
    ) -> R {
        let (r, w, held) = pop_slow::<R, S1, S2>(self.c, self.w.pos, site, f);
        self.w = w;
        // the key's address as this code spells it
        self.w.key = match held {
            1 => type_key::<S1>(),
            2 => type_key::<S2>(),
            _ => 0,
        };
        r
    }

    /// [`Cursor::store_inv`] in the loop.
    #[inline(always)]
    pub fn store_inv<X: TapeValue>(&mut self, x: &mut X, init: X, site: &'static str) {
        let _ = init;
        *x = X::pop_loop(self, site);
    }

    /// [`Cursor::store2_inv`] in the loop.
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
            if let Some(p) = self.take::<f64>(16) {
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
        *b = B::pop_loop(self, site);
        *a = A::pop_loop(self, site);
    }

    /// The end of the loop: the window handed back to the cursor.
    #[inline(always)]
    pub fn end(self) {
        self.c.v.len = self.w.pos;
    }
}

/// `v` as a gradient number's value when `T` is `GVar<f64>` and its adjoint is zero (it is
/// stored as an `f64`).
#[inline(always)]
fn zero_adjoint<T: 'static>(v: &T) -> Option<f64> {
    if TypeId::of::<T>() == TypeId::of::<GVar<f64>>() {
        // SAFETY: `T` is `GVar<f64>`
        let v: GVar<f64> = unsafe { core::mem::transmute_copy(v) };
        (v.g.to_bits() == 0).then_some(v.x)
    } else {
        None
    }
}

/// A gradient number of value `x` and zero adjoint, as `T` (which is `GVar<f64>`).
#[inline(always)]
fn from_value<T: 'static>(x: f64) -> T {
    debug_assert!(TypeId::of::<T>() == TypeId::of::<GVar<f64>>());
    // SAFETY: `T` is `GVar<f64>` (callers test it)
    unsafe { core::mem::transmute_copy(&GVar { x, g: 0.0 }) }
}

/// [`TapeValue`]'s loop forms for numbers (see [`TapeValue::push_loop`]).
#[inline(always)]
pub(super) fn push_number<T: Scalar>(v: T, l: &mut PushLoop<'_, '_>, site: &'static str) {
    match zero_adjoint(&v) {
        Some(x) => l.write::<f64, 1>([x], site),
        None => l.write::<T, 1>([v], site),
    }
}

#[inline(always)]
pub(super) fn pop_number<T: Scalar>(l: &mut PopLoop<'_, '_>, site: &'static str) -> T {
    if let Some(p) = l.take::<T>(core::mem::size_of::<T>()) {
        // SAFETY: a `T` written by a push of `T`s
        return unsafe { core::ptr::read_unaligned(p as *const T) };
    }
    if TypeId::of::<T>() == TypeId::of::<GVar<f64>>() {
        if let Some(p) = l.take::<f64>(8) {
            // SAFETY: an `f64`
            return from_value(unsafe { core::ptr::read_unaligned(p as *const f64) });
        }
    }
    l.slow::<T, T, f64>(site, |c| c.pop_one::<T>(site))
}

#[inline(always)]
pub(super) fn push_numbers<T: Scalar, const N: usize>(
    a: [T; N],
    l: &mut PushLoop<'_, '_>,
    site: &'static str,
) {
    if TypeId::of::<T>() == TypeId::of::<GVar<f64>>() && a.iter().all(|v| zero_adjoint(v).is_some())
    {
        let xs: [f64; N] = core::array::from_fn(|k| zero_adjoint(&a[k]).unwrap_or(0.0));
        return l.write::<f64, N>(xs, site);
    }
    l.write::<T, N>(a, site)
}

#[inline(always)]
pub(super) fn pop_numbers<T: Scalar, const N: usize>(
    l: &mut PopLoop<'_, '_>,
    site: &'static str,
) -> [T; N] {
    let size = N * core::mem::size_of::<T>();
    if let Some(p) = l.take::<T>(size) {
        let mut a = [T::default(); N];
        // SAFETY: `N` `T`s
        unsafe { core::ptr::copy_nonoverlapping(p, a.as_mut_ptr() as *mut u8, size) };
        return a;
    }
    if TypeId::of::<T>() == TypeId::of::<GVar<f64>>() {
        if let Some(p) = l.take::<f64>(8 * N) {
            let p = p as *const f64;
            // SAFETY: `N` `f64`s
            return core::array::from_fn(|k| {
                from_value(unsafe { core::ptr::read_unaligned(p.add(k)) })
            });
        }
    }
    l.slow::<[T; N], T, f64>(site, |c| {
        let mut a = [T::default(); N];
        c.pop_many(&mut a, site);
        a
    })
}

/// [`TapeValue::push_loop`]'s default: through the cursor.
#[inline(always)]
pub(super) fn push_via_cursor<X: TapeValue>(v: X, l: &mut PushLoop<'_, '_>, site: &'static str) {
    l.via_cursor(|c| v.push_tape(c, site))
}

/// [`TapeValue::pop_loop`]'s default: through the cursor.
#[inline(always)]
pub(super) fn pop_via_cursor<X: TapeValue>(l: &mut PopLoop<'_, '_>, site: &'static str) -> X {
    // no window after it
    l.slow::<X, (), ()>(site, |c| X::pop_tape(c, site))
}
