//! Fibonacci: recursive `rfib` and the `while`-loop search `rfibn`, forward and backward.
use nilang::check::catch;
use nilang_apps::fib::*;

fn fib(n: i64) -> i64 {
    let (mut a, mut b) = (1_i64, 1_i64);
    for _ in 2..n {
        (a, b) = (b, a + b);
    }
    if n <= 2 {
        1
    } else {
        b
    }
}

#[test]
fn rfib_values_and_inverse() {
    let mut out = 0;
    rfib(&mut out, 10);
    assert_eq!(out, 55);
    rfib_inv(&mut out, 10);
    assert_eq!(out, 0);
    for n in 1..20 {
        let mut out = 7;
        rfib(&mut out, n);
        assert_eq!(out, 7 + fib(n), "fib({n})");
        rfib_inv(&mut out, n);
        assert_eq!(out, 7);
    }
}

#[test]
fn rfibn_while_loop_and_inverse() {
    let mut n = 0;
    rfibn(&mut n, 100);
    assert_eq!(n, 12);
    rfibn_inv(&mut n, 100);
    assert_eq!(n, 0);
    for z in [1, 2, 3, 50, 1000, 4181, 4182] {
        let mut n = 0;
        rfibn(&mut n, z);
        assert!(
            fib(n) >= z && (n == 0 || fib(n - 1) < z || n <= 2),
            "z={z}: n={n}"
        );
        rfibn_inv(&mut n, z);
        assert_eq!(n, 0);
    }
    // the loop's condition checks are on where the default checks are (debug builds; a release
    // build compiles them out, as the guide says), so `cargo test --release` skips these
    if cfg!(debug_assertions) {
        // a starting n other than 0 is rejected
        let r = std::panic::catch_unwind(|| {
            let mut n = 3;
            rfibn(&mut n, 100);
        });
        assert!(r.is_err());
        // the inverse of a wrong answer is detected by the loop's condition checks
        let mut n = 5;
        assert!(catch(|| rfibn_inv(&mut n, 100)).is_err());
    }
}
