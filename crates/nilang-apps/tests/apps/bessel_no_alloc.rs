//! A Bessel gradient call allocates nothing on the heap (the binary's counting allocator, per
//! thread).
use nilang_testkit::alloc::allocs;

#[test]
fn bessel_gradients_allocate_nothing() {
    use nilang_apps::bessel::*;
    let (mut out, mut z) = (0.0_f64, 1.0_f64);
    // warm up (lazy statics, thread-locals)
    let _ = nilang::gradient(&Ibesselj, (&mut out, 2usize, &mut z), 0);
    let before = allocs();
    let (_, _, g1) = nilang::gradient(&Ibesselj, (&mut out, 2usize, &mut z), 0);
    let (_, _, g2) = nilang::gradient(&IbesseljLog, (&mut out, 2usize, &mut z), 0);
    let (_, g3) = besselj_grad(2, 1.0);
    let after = allocs();
    assert_eq!(
        after - before,
        0,
        "heap allocations during Bessel gradients"
    );
    assert!((g1.g - 0.210243615881133).abs() < 1e-9);
    assert!((g2.g - 0.210243615881133).abs() < 1e-9);
    assert!((g3 - 0.210243615881133).abs() < 1e-9);
}
