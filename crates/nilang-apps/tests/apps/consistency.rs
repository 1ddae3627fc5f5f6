//! Learn by consistency: f1 cannot be trained, f2 converges to the target.
use nilang::ad::check_grad;
use nilang_apps::consistency::*;

#[test]
fn f1_fails_f2_succeeds() {
    let (y1, p1) = train_f1(100);
    let (y2, p2) = train_f2(100);
    // f1: the backward pass restores p exactly; y never moves
    assert_eq!(p1, 1.6);
    let y0 = (1.6f64 + 0.3).exp() - 0.3f64.exp();
    assert!(y1.iter().all(|&y| (y - y0).abs() < 1e-12));
    // f2: y reaches the target 1 to machine precision, at the p solving e^{p+x} − e^x = 1
    assert!((y2[99] - 1.0).abs() < 1e-12, "{}", y2[99]);
    assert!((y2[0] - y0).abs() < 1e-12);
    let p_star = (1.0 + 0.3f64.exp()).ln() - 0.3;
    assert!((p2 - p_star).abs() < 1e-12, "{p2} vs {p_star}");
}

#[test]
fn both_compute_the_same_function_and_invert() {
    for f in [
        (
            f1 as fn(&mut f64, &mut f64, &mut f64),
            f1_inv as fn(&mut f64, &mut f64, &mut f64),
        ),
        (f2, f2_inv),
    ] {
        let (mut y, mut x, mut p) = (0.0, 0.3, 1.6);
        (f.0)(&mut y, &mut x, &mut p);
        assert!((y - ((1.9f64).exp() - 0.3f64.exp())).abs() < 1e-12);
        (f.1)(&mut y, &mut x, &mut p);
        assert!(y.abs() < 1e-14 && (x - 0.3).abs() < 1e-14 && (p - 1.6).abs() < 1e-14);
    }
    // f2 leaves x at zero (up to rounding): the output side no longer remembers x
    let (mut y, mut x, mut p) = (0.0_f64, 0.3_f64, 1.6_f64);
    f2(&mut y, &mut x, &mut p);
    assert!(x.abs() < 1e-15);
    // and both are differentiable programs
    let (mut y, mut x, mut p) = (0.0, 0.3, 1.6);
    check_grad(&F1, (&mut y, &mut x, &mut p), 0, 2, 1e-8, 1e-6).unwrap();
}
