//! Language cases 3-8, 12 and 13 of the inventory (§5.3): `if` with pre/post-conditions,
//! `else if` chains, `for`, `while`, `#[from]`, `routine!`/`unroutine!()`, `inv!` and `#[nocheck]`.
use nilang::check::{catch, ErrorKind};
use nilang::prelude::*;

#[i]
fn add(a: &mut i64, b: &i64) {
    a += b;
}

// case 3: `if (a > 8, a > 8)` after `a += b`
#[i]
fn if_gt8(a: &mut i64, b: &mut i64, out: &mut i64) {
    add(a, b);
    if (a > 8, a > 8) {
        out += a * b;
    }
}

#[i]
fn if_gt2(a: &mut i64, b: &mut i64, out: &mut i64) {
    add(a, b);
    if a > 2 {
        out += a * b;
    }
}

#[test]
fn case03_if_pre_post() {
    let (mut a, mut b, mut out) = (3, 4, 0);
    if_gt8(&mut a, &mut b, &mut out);
    assert_eq!((a, b, out), (7, 4, 0));
    if_gt8_inv(&mut a, &mut b, &mut out);
    assert_eq!((a, b, out), (3, 4, 0));

    if_gt2(&mut a, &mut b, &mut out);
    assert_eq!((a, b, out), (7, 4, 28));
    if_gt2_inv(&mut a, &mut b, &mut out);
    assert_eq!((a, b, out), (3, 4, 0));
}

// case 4: post-condition violations
#[i]
fn if_out_lt4(a: &mut i64, b: &mut i64, out: &mut i64) {
    add(a, b);
    if (out < 4, out < 4) {
        out += a * b;
    }
}

#[i]
fn if_body_breaks_condition(a: &mut f64, b: &mut f64) {
    a += b;
    if a > 8.0 {
        a -= b.powi(2);
    }
}

#[test]
fn case04_if_postcondition_violation() {
    let (mut a, mut b, mut out) = (3, 4, 0);
    let e = catch(|| if_out_lt4(&mut a, &mut b, &mut out)).unwrap_err();
    assert_eq!(e.kind, ErrorKind::IfPostcondition);
    assert!(e.statement.contains("out < 4"), "{}", e.statement);

    let (mut a, mut b) = (1.0, 8.0);
    let e = catch(|| if_body_breaks_condition(&mut a, &mut b)).unwrap_err();
    assert_eq!(e.kind, ErrorKind::IfPostcondition);
    // not taken: fine both ways
    let (mut a, mut b) = (-10.0, 8.0);
    if_body_breaks_condition(&mut a, &mut b);
    if_body_breaks_condition_inv(&mut a, &mut b);
    assert_eq!((a, b), (-10.0, 8.0));
}

// case 5: `else if` chains
#[i]
fn chain(x: &mut i64, y: &mut i64) {
    if (x > 0, _) {
        y += 1;
    } else if (x < 0, _) {
        y += 2;
    } else {
        y += 3;
    }
}

#[i]
fn chain_bad(x: &mut i64, y: &mut i64) {
    if (x > 0, x < 0) {
        y += 1;
    } else if (x < 0, x < 0) {
        y += 2;
    } else {
        y += 3;
    }
}

#[test]
fn case05_else_if_chain() {
    for (x, y) in [(1, 1), (-2, 2), (0, 3)] {
        let (mut xx, mut yy) = (x, 0);
        chain(&mut xx, &mut yy);
        assert_eq!((xx, yy), (x, y));
        chain_inv(&mut xx, &mut yy);
        assert_eq!((xx, yy), (x, 0));
    }
    // every post-condition is checked: branch 2 ran, yet the post-condition of branch 1 holds
    let (mut x, mut y) = (-1, 0);
    let e = catch(|| chain_bad(&mut x, &mut y)).unwrap_err();
    assert_eq!(e.kind, ErrorKind::IfPostcondition);
}

// case 6: `for` loops
#[i]
fn for_add(x: &mut f64, y: &mut f64, k: &mut i64) {
    for _i in (1..=k).step_by(1) {
        x += y;
    }
}

#[i]
fn for_changes_bound(x: &mut f64, y: &mut f64, k: &mut i64) {
    for _i in 1..=k {
        x += y;
        k += 18;
    }
}

#[test]
fn case06_for_loop() {
    let (mut x, mut y, mut k) = (0.0, 1.0, 3);
    for_add(&mut x, &mut y, &mut k);
    assert_eq!((x, y, k), (3.0, 1.0, 3));
    for_add_inv(&mut x, &mut y, &mut k);
    assert_eq!((x, y, k), (0.0, 1.0, 3));

    let (mut x, mut y, mut k) = (0.0, 1.0, 3);
    let e = catch(|| for_changes_bound(&mut x, &mut y, &mut k)).unwrap_err();
    assert_eq!(e.kind, ErrorKind::ForBounds);
}

#[i]
fn for_forms(v: &mut Vec<i64>, s: &mut i64, n: usize) {
    // the inverse iterates the same indices backwards, also when the step does not divide
    for i in (1..n).step_by(3) {
        v[i] += s;
        s += 1;
    }
    for i in (0..n).rev() {
        v[i] += i as i64;
    }
    for i in 0..=2 {
        s += i as i64;
    }
    for x in v {
        x += 2;
    }
}

#[test]
fn for_forms_invert() {
    let mut v = vec![0_i64; 10];
    let mut s = 100;
    for_forms(&mut v, &mut s, 10);
    assert_eq!(v, [2, 103, 4, 5, 107, 7, 8, 111, 10, 11]);
    assert_eq!(s, 103 + 3);
    for_forms_inv(&mut v, &mut s, 10);
    assert_eq!(v, [0; 10]);
    assert_eq!(s, 100);
}

/// Loops accumulating into one place that they do not move (the compiler keeps the target in
/// a local over the loop): row sums of squares, and a target out of range behind an empty
/// range.
#[i]
fn row_sums<T: Scalar>(s: &mut [T], x: &mut [T], k: usize, m: usize) {
    for e in 0..s.len() {
        for c in 0..k {
            s[e] += abs2(x[e * k + c]);
        }
    }
    for c in 0..m {
        s[s.len() + 5] -= x[c];
    }
}

#[test]
fn for_accumulation_into_a_fixed_place() {
    let x0: Vec<f64> = (0..6).map(|i| 0.5 + i as f64).collect();
    let (mut s, mut x) = (vec![1.0, 2.0], x0.clone());
    row_sums(&mut s, &mut x, 3, 0);
    let want = [1.0 + 0.25 + 2.25 + 6.25, 2.0 + 12.25 + 20.25 + 30.25];
    assert_eq!(s, want);
    row_sums_inv(&mut s, &mut x, 3, 0);
    assert_eq!((s, x), (vec![1.0, 2.0], x0.clone()));
    // gradient of s[1]: 2 x in the second row, nothing in the first
    let mut s = [0.0; 2];
    let mut x = x0.clone();
    let mut plan = nilang::ad::Plan::new();
    let (_, gx, _, _) = plan.vjp(&RowSums, (&mut s[..], &mut x[..], 3, 0), 0, &[0.0, 1.0]);
    let g: Vec<f64> = gx.iter().map(|v| v.g).collect();
    assert_eq!(g, [0.0, 0.0, 0.0, 7.0, 9.0, 11.0]);
}

// case 7: `while (pre, post)`
#[i]
fn while_add(x: &mut i64, y: &mut i64) {
    while (x < 100, x > 0) {
        x += y;
    }
}

#[i]
fn while_bad(x: &mut i64, y: &mut i64) {
    while (x < 100, x > -10) {
        x += y;
    }
}

#[test]
fn case07_while_loop() {
    let (mut x, mut y) = (0, 9);
    while_add(&mut x, &mut y);
    assert_eq!((x, y), (108, 9));
    while_add_inv(&mut x, &mut y);
    assert_eq!((x, y), (0, 9));

    let (mut x, mut y) = (0, 9);
    let e = catch(|| while_bad(&mut x, &mut y)).unwrap_err();
    assert_eq!(e.kind, ErrorKind::WhileCondition);
    // the post-condition must also hold after every iteration
    let (mut x, mut y) = (0, -1);
    let e = catch(|| while_add(&mut x, &mut y)).unwrap_err();
    assert_eq!(e.kind, ErrorKind::WhileCondition);
}

// a stepped `while (pre, post, step)`: `k += 1` runs after the body in every iteration, before
// the post-condition `k > 0` is checked (it is false after the first body, true after its step)
#[i]
fn stepped_sum(s: &mut i64, k: &mut i64, n: &i64) {
    while (k < n, k > 0, k += 1) {
        s += k;
    }
}

#[i]
fn stepped_squares<T: Scalar>(s: &mut T, x: &mut T, k: &mut i64, n: i64) {
    while (k < n, k > 0, k += 1) {
        s += x.powi(2);
    }
}

#[test]
fn stepped_while_runs_its_step_after_the_body_and_first_in_the_inverse() {
    let (mut s, mut k) = (0, 0);
    stepped_sum(&mut s, &mut k, &4);
    assert_eq!((s, k), (1 + 2 + 3, 4));
    // the inverse: `k -= 1` before `s -= k`, while `k > 0`
    stepped_sum_inv(&mut s, &mut k, &4);
    assert_eq!((s, k), (0, 0));
    // the post-condition is checked after the step: started at `k = 1`, it holds at entry
    let (mut s, mut k) = (0, 1);
    let e = catch(|| stepped_sum(&mut s, &mut k, &4)).unwrap_err();
    assert_eq!(e.kind, ErrorKind::WhileCondition);
    // its gradient: `s = n·x²`, `∂s/∂x = 2·n·x`
    let (mut s, mut x, mut k) = (0.0, 1.5, 0);
    stepped_squares(&mut s, &mut x, &mut k, 5);
    assert_eq!((s, k), (5.0 * 2.25, 5));
    let (_, gx, _, _) = nilang::gradient::<_, _, f64>(
        &SteppedSquares,
        (&mut 0.0f64, &mut 1.5f64, &mut 0i64, 5i64),
        0,
    );
    assert_eq!(gx.g, 2.0 * 5.0 * 1.5);
}

// case 8: `#[from(start)] while pre`
#[i]
fn f7d(x: &mut i64, i: &mut i64) {
    #[from(i == 0)]
    while i < 10 {
        i += 1;
        x += 1;
    }
}

#[i]
fn from_ancillas() {
    let x = 5_i64;
    let z = 0_i64;
    #[from(z == 0)]
    while x > 0 {
        x -= 1;
        z += 1;
    }
    dealloc!(z = 5);
    dealloc!(x = 0);
}

#[test]
fn case08_from_while() {
    let (mut x, mut i) = (1, 0);
    f7d(&mut x, &mut i);
    assert_eq!((x, i), (11, 10));
    f7d_inv(&mut x, &mut i);
    assert_eq!((x, i), (1, 0));
    from_ancillas();
    from_ancillas_inv();
}

// case 10: the runtime ancilla value check
#[i]
fn anc_bad(x: &mut f64, y: &f64, one: &f64, ten: &f64) {
    let z = 0.0;
    x += y;
    z += one;
    z -= ten;
    dealloc!(z = 0.0);
}

#[i]
fn anc_good(x: &mut f64, y: &f64, one: &f64, ten: &f64) {
    let z = 0.0;
    x += y;
    z += one;
    z -= one;
    dealloc!(z = 0.0);
    let w = 1.5;
    w += ten;
    dealloc!(w = 11.5);
}

#[test]
fn case10_ancilla_value_check() {
    let mut x = 0.0;
    let e = catch(|| anc_bad(&mut x, &9.0, &1.0, &10.0)).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Deallocation);
    assert!(e.detail.contains("-9"), "{}", e.detail);

    let mut x = 0.0;
    anc_good(&mut x, &9.0, &1.0, &10.0);
    assert_eq!(x, 9.0);
    anc_good_inv(&mut x, &9.0, &1.0, &10.0);
    assert_eq!(x, 0.0);
}

// case 9 (runtime part): balanced ancillas in every branch of an `if` chain are fine
#[i]
fn anc_branches(x: &mut i64, out: &mut i64) {
    if x > 0 {
        let y = 0_i64;
        y += x;
        out += y;
        y -= x;
        dealloc!(y = 0);
    } else if x < -5 {
        let y = 1_i64;
        out -= y;
        dealloc!(y = 1);
    } else {
        let y = 2_i64;
        out += y;
        dealloc!(y = 2);
    }
}

#[test]
fn case09_balanced_ancillas_in_branches() {
    for (x, o) in [(4, 4), (-7, -1), (-1, 2)] {
        let (mut xx, mut out) = (x, 0);
        anc_branches(&mut xx, &mut out);
        assert_eq!(out, o);
        anc_branches_inv(&mut xx, &mut out);
        assert_eq!((xx, out), (x, 0));
    }
}

// case 12: routines and inverse blocks
#[i]
fn routine_pair(out: &mut f64, x: &mut f64) {
    routine! {
        out += x;
    }
    unroutine!();
}

#[i]
fn inverse_blocks(out: &mut f64, x: &mut f64) {
    inv! {
        out += x;
        out += x;
    }
    inv! {
        for _i in 1..=3 {
            out += x;
        }
    }
}

// compute - copy - uncompute
#[i]
fn square_copy(y: &mut f64, x: &f64) {
    let t = 0.0;
    routine! {
        t += x * x;
    }
    y += t;
    unroutine!();
    dealloc!(t = 0.0);
}

#[test]
fn case12_routines_and_inverse_blocks() {
    let (mut out, mut x) = (0.0, 1.0);
    routine_pair(&mut out, &mut x);
    assert_eq!((out, x), (0.0, 1.0));
    inverse_blocks(&mut out, &mut x);
    assert_eq!((out, x), (-5.0, 1.0));
    inverse_blocks_inv(&mut out, &mut x);
    assert_eq!((out, x), (0.0, 1.0));

    let mut y = 0.5;
    square_copy(&mut y, &3.0);
    assert_eq!(y, 9.5);
    square_copy_inv(&mut y, &3.0);
    assert_eq!(y, 0.5);
}

// case 13: `#[nocheck]` removes the runtime checks
#[i]
fn nocheck_stmts(out: &mut i64, x: &mut i64) {
    let anc = 0_i64;
    #[nocheck]
    for _i in 0..x {
        x -= 1;
    }
    #[nocheck]
    while (anc < 3, anc < 3) {
        anc += 1;
    }
    out += anc;
    #[nocheck]
    dealloc!(anc = 0);
}

#[i(nocheck)]
fn nocheck_fn(out: &mut i64, x: &mut i64) {
    let anc = 0_i64;
    for _i in 0..x {
        x -= 1;
    }
    while (anc < 3, anc < 3) {
        anc += 1;
    }
    out += anc;
    dealloc!(anc = 0);
}

#[test]
fn case13_nocheck() {
    let (mut out, mut x) = (0, 7);
    nocheck_stmts(&mut out, &mut x);
    assert_eq!((out, x), (3, 0));
    let (mut out, mut x) = (0, 7);
    nocheck_fn(&mut out, &mut x);
    assert_eq!((out, x), (3, 0));
}

// `safe!` runs in both directions; nested blocks are ancilla scopes
#[i]
fn safe_and_blocks(x: &mut i64, log: &mut Vec<i64>) {
    {
        let t = 2_i64;
        x += t;
        dealloc!(t = 2);
    }
    safe! {
        log.push(*x);
    }
}

#[test]
fn safe_runs_both_ways() {
    let (mut x, mut log) = (1, vec![]);
    safe_and_blocks(&mut x, &mut log);
    safe_and_blocks_inv(&mut x, &mut log);
    assert_eq!(x, 1);
    assert_eq!(log, [3, 3]);
}

// the order of iterations of stepped and reversed ranges, forward and inverse
#[i]
fn loop_order(log: &mut Vec<i64>, a: i64, b: i64) {
    for k in (a..=b).step_by(4) {
        safe! { log.push(k); }
    }
    for k in ((a..b).step_by(3)).rev() {
        safe! { log.push(100 + k); }
    }
}

#[test]
fn stepped_ranges_invert_exactly() {
    let mut log = vec![];
    loop_order(&mut log, 0, 10);
    assert_eq!(log, [0, 4, 8, 109, 106, 103, 100]);
    log.clear();
    loop_order_inv(&mut log, 0, 10);
    assert_eq!(log, [100, 103, 106, 109, 8, 4, 0]);
    log.clear();
    loop_order(&mut log, 5, 4);
    loop_order_inv(&mut log, 5, 4);
    assert!(log.is_empty());
}
