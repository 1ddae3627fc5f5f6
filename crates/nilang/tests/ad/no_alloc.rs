//! A gradient call of a scalar function allocates nothing on the heap (the binary's counting
//! allocator, per thread).
use nilang::prelude::*;
use nilang_testkit::alloc::allocs;

/// Several instructions, an ancilla, `ROT`, `HADAMARD`, `NEG`, `INV`, a branch and a loop.
#[i]
fn scalar_prog<T>(y: &mut T, a: &mut T, b: &mut T, t: &mut T, x: &mut [T; 4])
where
    T: Ordered + Rotate<T> + Hadamard + Reciprocate,
{
    ROT(a, b, t);
    HADAMARD(a, b);
    let s = T::default();
    s += sin(a);
    y += s * b;
    s -= sin(a);
    dealloc!(s = T::default());
    NEG(b);
    INV(t);
    y += exp(t);
    IROT(&mut x[0], &mut x[1], &mut x[2]);
    for i in 0..4 {
        y += x[i] * a;
    }
    if a > T::default() {
        y += abs2(a);
    }
    y += atan2(a, b);
}

#[test]
fn scalar_gradient_allocates_nothing() {
    let (mut y, mut a, mut b, mut t, mut x) = (0.0, 0.4, -0.7, 1.3, [0.2, -0.5, 0.9, 1.1]);
    // warm up (lazy statics, thread-locals)
    let _ = nilang::gradient(&ScalarProg, (&mut y, &mut a, &mut b, &mut t, &mut x), 0);
    let before = allocs();
    let (_, ga, gb, gt, gx) =
        nilang::gradient(&ScalarProg, (&mut y, &mut a, &mut b, &mut t, &mut x), 0);
    let (mut gy, mut ga2, mut gb2, mut gt2) = (
        GVar::from(0.0),
        GVar::from(0.4),
        GVar::from(-0.7),
        GVar::from(1.3),
    );
    let mut gx2 = [0.2, -0.5, 0.9, 1.1].map(GVar::from);
    let g = nilang::ad::Grad::new(ScalarProg, 0);
    g.call((&mut gy, &mut ga2, &mut gb2, &mut gt2, &mut gx2));
    g.uncall((&mut gy, &mut ga2, &mut gb2, &mut gt2, &mut gx2));
    g.call((&mut gy, &mut ga2, &mut gb2, &mut gt2, &mut gx2));
    let after = allocs();
    assert_eq!(
        after - before,
        0,
        "heap allocations during a scalar gradient"
    );
    assert!((ga.g - ga2.g).abs() < 1e-14);
    // the gradient is right
    nilang::ad::check_grad(
        &ScalarProg,
        (&mut y, &mut a, &mut b, &mut t, &mut x),
        0,
        4,
        1e-8,
        1e-6,
    )
    .unwrap();
    assert!(ga.g.is_finite() && gb.g.is_finite() && gt.g.is_finite());
    assert!(gx[3].g != 0.0);
}
