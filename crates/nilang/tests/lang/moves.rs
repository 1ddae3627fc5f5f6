//! `let a = take!(x);`: move an ancilla into a new one (NiLang's `a::∅ ↔ x`).
use nilang::prelude::*;

#[i]
fn rotate3(a: &mut i64, b: &mut i64, c: &mut i64) {
    // swap through moved ancillas: (a, b, c) -> (b, c, a)
    let t = 0i64;
    SWAP(&mut t, a);
    let u = take!(t);
    SWAP(&mut u, c);
    SWAP(&mut u, b);
    SWAP(&mut u, a);
    let v = take!(u);
    dealloc!(v = 0i64);
}

#[test]
fn move_forward_and_back() {
    let (mut a, mut b, mut c) = (1, 2, 3);
    rotate3(&mut a, &mut b, &mut c);
    assert_eq!((a, b, c), (2, 3, 1));
    rotate3_inv(&mut a, &mut b, &mut c);
    assert_eq!((a, b, c), (1, 2, 3));
}

#[test]
fn move_keeps_the_value_and_dealloc_checks_it() {
    #[i]
    fn f(y: &mut f64) {
        let t = 0.0;
        t += 2.0;
        let s = take!(t);
        y += s;
        dealloc!(s = 2.0);
    }
    let mut y = 1.0;
    f(&mut y);
    assert_eq!(y, 3.0);
    f_inv(&mut y);
    assert_eq!(y, 1.0);
}
