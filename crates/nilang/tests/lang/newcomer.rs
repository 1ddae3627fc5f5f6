//! What a new user writes on the first try (issue 14): a parameter named like its function,
//! a bare read-only slice passed on to a callee, a constructor on a right-hand side, a struct
//! ancilla checked through `PartialEq`, `#[i(crate = ...)]`.
use nilang::check::{catch, ErrorKind};
use nilang::prelude::*;
use std::num::Wrapping;

// a parameter named like its function: the generated `Reversible` impl still calls the function
#[i]
fn square(square: &mut i64, x: i64) {
    square += x * x;
}

#[test]
fn parameter_named_like_its_function() {
    let mut s = 1;
    square(&mut s, 7);
    assert_eq!(s, 50);
    let (s2, _) = Square.call((&mut s, 3));
    assert_eq!(*s2, 59);
    let (s3, _) = Square.uncall((s2, 3));
    assert_eq!(*s3, 50);
}

// a read-only slice parameter passed on by name arrives as the slice reference it is
#[i]
fn sum_into(out: &mut i64, xs: &[i64]) {
    for i in 0..xs.len() {
        out += xs[i];
    }
}

#[i]
fn weighted(out: &mut i64, xs: &[i64], w: &i64) {
    sum_into(out, xs);
    take_ref(out, w);
}

#[i]
fn take_ref(out: &mut i64, w: &i64) {
    out += w * 2;
}

#[test]
fn bare_read_only_references_are_passed_as_written() {
    let xs = [1, 2, 3, 4];
    let mut out = 0;
    weighted(&mut out, &xs, &5);
    assert_eq!(out, 20);
    weighted_inv(&mut out, &xs, &5);
    assert_eq!(out, 0);
}

// a tuple-struct constructor on a right-hand side is a constant value, not a primitive
#[i]
fn wrapping_sum(acc: &mut Wrapping<i64>, n: i64) {
    for i in 0..n {
        acc += Wrapping(i);
    }
    acc += Wrapping(i64::MAX);
}

#[test]
fn constructor_on_the_right_hand_side() {
    let mut acc = Wrapping(0_i64);
    wrapping_sum(&mut acc, 5);
    assert_eq!(acc, Wrapping(10_i64) + Wrapping(i64::MAX));
    wrapping_sum_inv(&mut acc, 5);
    assert_eq!(acc, Wrapping(0));
}

// a struct ancilla with `#[derive(PartialEq, Debug)]`: no hand-written `AlmostSame`
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Pair {
    a: i64,
    b: i64,
}

#[i]
fn via_pair(out: &mut i64, x: i64) {
    let p = Pair::default();
    p.a += x;
    p.b += 3 * x;
    out += p.a * p.b;
    p.b -= 3 * x;
    p.a -= x;
    dealloc!(p = Pair::default());
}

#[i]
fn leaky_pair(out: &mut i64, x: i64) {
    let p = Pair::default();
    p.a += x;
    out += p.a;
    dealloc!(p = Pair::default());
}

#[test]
fn struct_ancilla_checked_with_partial_eq() {
    let mut out = 0;
    via_pair(&mut out, 2);
    assert_eq!(out, 12);
    via_pair_inv(&mut out, 2);
    assert_eq!(out, 0);
    let e = catch(|| leaky_pair(&mut out, 2)).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Deallocation);
    assert!(e.detail.contains("Pair { a: 2, b: 0 }"), "{}", e.detail);
    assert!(
        e.statement.contains("dealloc!(p = Pair::default())"),
        "{}",
        e.statement
    );
}

// the crate path given explicitly (what a renamed dependency needs when it is not found)
mod renamed {
    extern crate nilang as nl;
    #[nl::i(crate = nl)]
    pub fn twice(y: &mut f64, x: f64) {
        y += 2.0 * x;
    }
}

#[test]
fn explicit_crate_path() {
    let mut y = 1.0;
    renamed::twice(&mut y, 3.0);
    assert_eq!(y, 7.0);
    renamed::twice_inv(&mut y, 3.0);
    assert_eq!(y, 1.0);
}

// `#[derive(AlmostSame)]`: the float tolerance on float fields (a `PartialEq` check would fail
// after a rounding residue), generic structs and enums
#[derive(Clone, Copy, Debug, Default, AlmostSame)]
struct State<T> {
    x: T,
    n: i64,
}

#[derive(Clone, Copy, Debug, AlmostSame)]
enum Mode {
    Off,
    On(f64),
}

#[test]
fn derived_almost_same() {
    use nilang::check::AlmostSame;
    let a = State { x: 0.1 + 0.2, n: 3 };
    let b = State { x: 0.3, n: 3 };
    assert!(a.almost_same(&b));
    assert!(!a.almost_same(&State { x: 0.3, n: 4 }));
    assert!(!a.almost_same(&State { x: 0.31, n: 3 }));
    assert!(Mode::On(0.1 + 0.2).almost_same(&Mode::On(0.3)));
    assert!(!Mode::On(0.3).almost_same(&Mode::Off));
    assert!(Mode::Off.almost_same(&Mode::Off));
}

#[i]
fn via_state(out: &mut f64, x: f64) {
    let s = State::<f64>::default();
    s.x += x * 3.0;
    s.n += 1;
    out += abs2(s.x);
    s.n -= 1;
    s.x -= x * 3.0;
    dealloc!(s = State::<f64>::default());
}

#[test]
fn struct_ancilla_with_derived_almost_same() {
    let mut out = 0.0;
    via_state(&mut out, 0.1);
    assert!((out - 0.09).abs() < 1e-15);
    via_state_inv(&mut out, 0.1);
    assert!(out.abs() < 1e-15);
}
