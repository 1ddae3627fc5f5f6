//! `match` on an integer: the arm whose pattern (literals, ranges, `|`) the value matches runs;
//! the arm must leave the value matching its pattern (checked), so the inverse takes the same
//! arm, inverted.
use nilang::check::{catch, ErrorKind};
use nilang::prelude::*;

#[i]
fn by_case(y: &mut i64, x: &i64, k: &i64) {
    match k {
        0 => {
            y += x;
        }
        1 | 2 => y += x * 10,
        3..=5 => {
            y -= x;
            y += 1000;
        }
        6.. => y ^= 7,
        _ => {}
    }
}

#[test]
fn the_arm_the_value_matches_runs_and_the_inverse_runs_it_backwards() {
    let expect = |k: i64| match k {
        0 => 3,
        1 | 2 => 30,
        3..=5 => 997,
        6.. => 7,
        _ => 0,
    };
    for k in -2..9 {
        let mut y = 0;
        by_case(&mut y, &3, &k);
        assert_eq!(y, expect(k), "k = {k}");
        by_case_inv(&mut y, &3, &k);
        assert_eq!(y, 0, "k = {k}");
    }
}

// the scrutinee is any integer expression (here of a loop variable), the arms nested inside
// a loop and a routine
#[i]
fn mod_three(s: &mut i64, n: i64) {
    for j in 0..n {
        routine! {
            let t = 0i64;
            match j % 3 {
                0 => t += 1,
                1 => t += 10,
                _ => t += 100,
            }
        }
        s += t;
        unroutine!();
    }
}

#[test]
fn an_expression_scrutinee_inside_a_loop_and_a_routine() {
    let mut s = 0;
    mod_three(&mut s, 7);
    // j = 0..7: j % 3 = 0,1,2,0,1,2,0
    assert_eq!(s, 3 + 2 * 10 + 2 * 100);
    mod_three_inv(&mut s, 7);
    assert_eq!(s, 0);
}

// an arm that changes the value it was chosen by: the inverse would take another arm
#[i]
fn moves_its_value(k: &mut i64) {
    match k {
        0 => k += 1,
        _ => {}
    }
}

#[test]
fn an_arm_that_changes_the_matched_value_is_a_runtime_error() {
    let mut k = 0;
    let e = catch(|| moves_its_value(&mut k)).unwrap_err();
    assert_eq!(e.kind, ErrorKind::IfPostcondition);
    assert!(e.to_string().contains("k == 0"), "{e}");
    // the value of the `_` arm is left alone
    let mut k = 4;
    moves_its_value(&mut k);
    assert_eq!(k, 4);
}

#[i]
fn piecewise<T: Scalar>(y: &mut T, x: &mut T, k: i64) {
    match k {
        0 => y += sin(x),
        1 | 2 => y += x.powi(3),
        _ => y += x,
    }
}

#[test]
fn its_gradient_is_the_gradient_of_the_arm_taken() {
    let x = 0.7f64;
    for (k, dx) in [(0, x.cos()), (1, 3.0 * x * x), (2, 3.0 * x * x), (5, 1.0)] {
        let (_, gx, _) = nilang::gradient::<_, _, f64>(&Piecewise, (&mut 0.0f64, &mut { x }, k), 0);
        assert!((gx.g - dx).abs() < 1e-12, "k = {k}: {} vs {dx}", gx.g);
    }
}
