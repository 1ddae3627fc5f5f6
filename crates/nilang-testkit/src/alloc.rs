//! A counting global allocator: number of allocations, current and peak heap bytes.
//!
//! A binary (the benchmark, a test binary) installs [`CountingAlloc`] as its
//! `#[global_allocator]`; [`measure`] then reports what a closure allocated. Without the
//! allocator installed every count reads zero.
//!
//! Counters are per thread (a measured call runs on one thread), so parallel test threads
//! do not disturb each other.
//!
//! ```
//! use nilang_testkit::alloc::{measure, CountingAlloc};
//! #[global_allocator]
//! static A: CountingAlloc = CountingAlloc;
//! # fn main() {
//! let (v, heap) = measure(|| vec![0u8; 4096]);
//! assert_eq!((v.len(), heap.allocs), (4096, 1));
//! assert!(heap.peak_bytes >= 4096);
//! # }
//! ```

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};

static INSTALLED: AtomicBool = AtomicBool::new(false);

thread_local! {
    static ALLOCS: Cell<usize> = const { Cell::new(0) };
    static CURRENT: Cell<isize> = const { Cell::new(0) };
    static PEAK: Cell<isize> = const { Cell::new(0) };
}

#[inline]
fn on_free(size: usize) {
    let _ = CURRENT.try_with(|c| c.set(c.get() - size as isize));
}

/// The counting allocator (wraps [`System`]).
pub struct CountingAlloc;

#[inline]
fn on_alloc(size: usize) {
    let _ = ALLOCS.try_with(|a| a.set(a.get() + 1));
    let _ = CURRENT.try_with(|c| {
        let now = c.get() + size as isize;
        c.set(now);
        let _ = PEAK.try_with(|p| {
            if now > p.get() {
                p.set(now)
            }
        });
    });
}

// SAFETY: every method forwards to `System` with the same arguments; the counters are
// side effects only.
unsafe impl GlobalAlloc for CountingAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        INSTALLED.store(true, Relaxed);
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            on_alloc(layout.size());
        }
        p
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        INSTALLED.store(true, Relaxed);
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            on_alloc(layout.size());
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        on_free(layout.size());
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            // A reallocation counts as one allocation of the new size.
            on_free(layout.size());
            on_alloc(new_size);
        }
        p
    }
}

/// What a measured scope allocated.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AllocStats {
    /// Number of allocations (including reallocations) made inside the scope.
    pub allocs: usize,
    /// Peak heap bytes above the level at the start of the scope.
    pub peak_bytes: usize,
    /// Heap bytes still held at the end of the scope (above the start level).
    pub retained_bytes: isize,
}

/// Whether the counting allocator is the global allocator of this process
/// (it has seen at least one allocation).
pub fn installed() -> bool {
    INSTALLED.load(Relaxed)
}

/// How many allocations (including reallocations) this thread has made so far: the
/// difference of two readings counts what ran between them.
///
/// ```
/// use nilang_testkit::alloc::{allocs, CountingAlloc};
/// #[global_allocator]
/// static A: CountingAlloc = CountingAlloc;
/// # fn main() {
/// let before = allocs();
/// let v = vec![1u8; 10];
/// assert_eq!(allocs() - before, 1);
/// # drop(v);
/// # }
/// ```
pub fn allocs() -> usize {
    ALLOCS.with(Cell::get)
}

/// Run `f` and report its allocations. Not meaningful if other threads allocate at the same time.
pub fn measure<T>(f: impl FnOnce() -> T) -> (T, AllocStats) {
    let start_allocs = ALLOCS.with(Cell::get);
    let start_bytes = CURRENT.with(Cell::get);
    PEAK.with(|p| p.set(start_bytes));
    let out = f();
    let stats = AllocStats {
        allocs: ALLOCS.with(Cell::get) - start_allocs,
        peak_bytes: (PEAK.with(Cell::get) - start_bytes).max(0) as usize,
        retained_bytes: CURRENT.with(Cell::get) - start_bytes,
    };
    (out, stats)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[global_allocator]
    static TEST_ALLOC: CountingAlloc = CountingAlloc;

    #[test]
    fn counts_a_vector() {
        let (v, s) = measure(|| vec![0u8; 4096]);
        assert_eq!(v.len(), 4096);
        assert!(installed());
        assert!(s.allocs >= 1);
        assert!(s.peak_bytes >= 4096);
        let (_, s) = measure(|| 1 + 1);
        assert_eq!(s.allocs, 0);
        assert_eq!(s.peak_bytes, 0);
    }
}
