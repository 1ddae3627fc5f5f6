//! Runtime checks by profile: a default `#[i]` function checks itself where this test crate
//! is built with `debug_assertions` (`cargo test`) or `nilang` with `release-checks`;
//! `#[i(check)]` always, `#[i(nocheck)]` never. (`cargo test --release` runs the other side.)
use nilang::check::{catch, ErrorKind, RELEASE_CHECKS};
use nilang::prelude::*;

/// A wrong program: the ancilla is not zero when deallocated (for `y ≠ 0`).
macro_rules! wrong_dealloc {
    ($name:ident, $($opt:ident)?) => {
        #[i($($opt)?)]
        fn $name<T: Scalar>(s: &mut T, y: &mut T) {
            let t = T::default();
            t += y;
            s += t * y;
            dealloc!(t = T::default());
        }
    };
}
wrong_dealloc!(by_profile,);
wrong_dealloc!(always, check);
wrong_dealloc!(never, nocheck);

/// The error kind raised by `f(0, 2)`, `None` when it ran through.
fn raised(f: fn(&mut f64, &mut f64)) -> Option<ErrorKind> {
    catch(|| f(&mut 0.0, &mut 2.0)).err().map(|e| e.kind)
}

#[test]
fn default_checks_follow_the_profile_and_check_forces_them() {
    let on = cfg!(debug_assertions) || RELEASE_CHECKS;
    assert_eq!(raised(by_profile), on.then_some(ErrorKind::Deallocation));
    assert_eq!(raised(always), Some(ErrorKind::Deallocation));
    assert_eq!(raised(never), None);
    // the inverse ends with the same ancilla at `-y`: the same
    assert_eq!(
        raised(by_profile_inv),
        on.then_some(ErrorKind::Deallocation)
    );
    assert_eq!(raised(always_inv), Some(ErrorKind::Deallocation));
    assert_eq!(raised(never_inv), None);
    // the unchecked program computes what the checked one does up to the check
    let (mut s, mut y) = (1.0, 3.0);
    never(&mut s, &mut y);
    assert_eq!((s, y), (10.0, 3.0));
}

/// `y += Σ_i x_i²` through an ancilla per element.
macro_rules! sum_sq {
    ($name:ident, $($opt:ident)?) => {
        #[i($($opt)?)]
        fn $name<T: Scalar>(y: &mut T, x: &mut Vec<T>) {
            for i in 0..x.len() {
                routine! { let t = T::default(); t += x[i]; }
                y += t * x[i];
                unroutine!();
            }
        }
    };
}
sum_sq!(sum_default,);
sum_sq!(sum_check, check);
sum_sq!(sum_nocheck, nocheck);

#[test]
fn gradients_agree_in_every_setting() {
    let grad =
        |g: &dyn Fn(&mut f64, &mut Vec<f64>) -> Vec<f64>| g(&mut 0.0, &mut vec![1.0, -2.0, 0.5]);
    let expected = vec![2.0, -4.0, 1.0];
    assert_eq!(
        grad(&|y, x| nilang::gradient(&SumDefault, (y, x), 0)
            .1
            .iter()
            .map(|v| v.g)
            .collect()),
        expected
    );
    assert_eq!(
        grad(&|y, x| nilang::gradient(&SumCheck, (y, x), 0)
            .1
            .iter()
            .map(|v| v.g)
            .collect()),
        expected
    );
    assert_eq!(
        grad(&|y, x| nilang::gradient(&SumNocheck, (y, x), 0)
            .1
            .iter()
            .map(|v| v.g)
            .collect()),
        expected
    );
}
