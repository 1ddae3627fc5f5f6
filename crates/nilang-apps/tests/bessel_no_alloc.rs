//! A Bessel gradient call allocates nothing on the heap (counting global allocator).
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

struct Counting;
static ALLOCS: AtomicUsize = AtomicUsize::new(0);
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::SeqCst);
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        unsafe { System.dealloc(p, l) }
    }
}
#[global_allocator]
static GLOBAL: Counting = Counting;

#[test]
fn bessel_gradients_allocate_nothing() {
    use nilang_apps::bessel::*;
    let (mut out, mut z) = (0.0_f64, 1.0_f64);
    // warm up (lazy statics, thread-locals)
    let _ = nilang::gradient(&Ibesselj, (&mut out, 2usize, &mut z), 0);
    let before = ALLOCS.load(Ordering::SeqCst);
    let (_, _, g1) = nilang::gradient(&Ibesselj, (&mut out, 2usize, &mut z), 0);
    let (_, _, g2) = nilang::gradient(&IbesseljLog, (&mut out, 2usize, &mut z), 0);
    let (_, g3) = besselj_grad(2, 1.0);
    let after = ALLOCS.load(Ordering::SeqCst);
    assert_eq!(
        after - before,
        0,
        "heap allocations during Bessel gradients"
    );
    assert!((g1.g - 0.210243615881133).abs() < 1e-9);
    assert!((g2.g - 0.210243615881133).abs() < 1e-9);
    assert!((g3 - 0.210243615881133).abs() < 1e-9);
}
