//! Janus's do-first loop `from a do s1 loop s2 until c`, written
//! `#[from(a)] loop { s1; if c { break } s2 }`, and integer squares (`abs2`, `powi`).
use nilang::check::{catch, ErrorKind};
use nilang::prelude::*;
use std::num::Wrapping;

// Janus's `doublebit`: bit *= 2, reversibly (the ancilla holds the old value)
#[i]
fn doublebit(bit: &mut i64) {
    let z = 0i64;
    z += bit;
    bit += z;
    z -= bit / 2;
    dealloc!(z = 0i64);
}

// Janus's integer square root, one to one:
//   local int bit = 1
//   from bit = 1 loop call doublebit(bit) until (bit * bit) > num
//   from (bit * bit) > num do
//       uncall doublebit(bit)
//       if ((root + bit) * (root + bit)) <= num then root += bit fi (root / bit) % 2 != 0
//   until bit = 1
//   delocal int bit = 1
//   num -= root * root
#[i]
fn isqrt(num: &mut i64, root: &mut i64) {
    let bit = 1i64;
    #[from(bit == 1)]
    loop {
        if bit * bit > num {
            break;
        }
        doublebit(&mut bit);
    }
    #[from(bit * bit > num)]
    loop {
        inv! { doublebit(&mut bit) }
        if ((root + bit) * (root + bit) <= num, (root / bit) % 2 != 0) {
            root += bit;
        }
        if bit == 1 {
            break;
        }
    }
    dealloc!(bit = 1i64);
    num -= root.powi(2);
}

#[test]
fn janus_integer_square_root_inverts_exactly() {
    // as in Janus, num >= 1 (for 0 the second loop would halve bit = 1)
    for n in 1..2000_i64 {
        let (mut num, mut root) = (n, 0);
        isqrt(&mut num, &mut root);
        let r = (n as f64).sqrt() as i64;
        assert_eq!((num, root), (n - r * r, r), "n = {n}");
        isqrt_inv(&mut num, &mut root);
        assert_eq!((num, root), (n, 0), "n = {n}");
    }
    // the inverse from the outputs alone: (remainder, root) -> n
    let (mut num, mut root) = (5, 12);
    isqrt_inv(&mut num, &mut root);
    assert_eq!((num, root), (149, 0));
}

// do-first with both parts non-empty: count up `k` while summing, until `k == n`
#[i]
fn triangle(sum: &mut i64, k: &mut i64, n: i64) {
    #[from(k == 0)]
    loop {
        k += 1;
        if k == n {
            break;
        }
        sum += k;
    }
}

#[test]
fn both_parts_run_in_janus_order_and_invert() {
    // s1 runs n times, s2 n - 1 times: sum = 1 + ... + (n-1)
    for n in 1..20 {
        let (mut sum, mut k) = (0, 0);
        triangle(&mut sum, &mut k, n);
        assert_eq!((sum, k), (n * (n - 1) / 2, n));
        triangle_inv(&mut sum, &mut k, n);
        assert_eq!((sum, k), (0, 0));
    }
}

#[test]
fn do_loop_conditions_are_checked() {
    // `from` false at entry
    let (mut sum, mut k) = (0, 3);
    let e = catch(|| triangle(&mut sum, &mut k, 5)).unwrap_err();
    assert_eq!(e.kind, ErrorKind::WhileCondition);
    assert!(
        e.detail.contains("`k == 0` is false at loop entry"),
        "{}",
        e.detail
    );
    assert!(
        e.statement.starts_with("#[from(k == 0)] loop"),
        "{}",
        e.statement
    );
    // the inverse's `from` is the forward `until`: `k == n` must hold where the inverse starts
    let (mut sum, mut k) = (0, 4);
    let e = catch(|| triangle_inv(&mut sum, &mut k, 5)).unwrap_err();
    assert_eq!(e.kind, ErrorKind::WhileCondition);
    assert!(
        e.detail.contains("`k == n` is false at loop entry"),
        "{}",
        e.detail
    );
}

#[i]
fn squares(y: &mut i64, w: &mut Wrapping<i64>, x: i64, v: Wrapping<i64>) {
    y += abs2(x);
    y += x.powi(3);
    y += powi(x, 2);
    w += v.powi(2);
    w += abs2(v);
}

#[test]
fn integer_squares() {
    let (mut y, mut w) = (1, Wrapping(0_i64));
    squares(&mut y, &mut w, -3, Wrapping(i64::MAX));
    assert_eq!(y, 1 + 9 - 27 + 9);
    assert_eq!(w, Wrapping(i64::MAX.wrapping_mul(i64::MAX)) * Wrapping(2));
    squares_inv(&mut y, &mut w, -3, Wrapping(i64::MAX));
    assert_eq!((y, w), (1, Wrapping(0)));
}
