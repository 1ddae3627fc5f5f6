//! Tropical (max-plus) numbers in reversible programs: `*=` and `/=` only.
use nilang::prelude::*;

type T = Tropical<f64>;

/// `out ⊗= ⊗_i (a_i ⊕ b_i)`: the tropical product of pairwise tropical sums (max).
#[i]
fn prod_of_sums(out: &mut T, a: &[T], b: &[T]) {
    for i in 0..a.len() {
        out *= a[i] + b[i];
    }
}

#[i]
fn ops(out: &mut Tropical<i64>, a: &Tropical<i64>, b: &Tropical<i64>) {
    out *= a * b;
    out /= a;
    out *= a / b;
    out *= a.powi(3);
    out *= 2;
}

#[test]
fn tropical_programs() {
    let a = [Tropical::new(1.0), Tropical::new(-3.0), Tropical::new(2.5)];
    let b = [Tropical::new(0.5), Tropical::new(4.0), Tropical::new(2.5)];
    let mut out = T::one();
    prod_of_sums(&mut out, &a, &b);
    assert_eq!(out, Tropical::new(1.0 + 4.0 + 2.5));
    prod_of_sums_inv(&mut out, &a, &b);
    assert_eq!(out, T::one());

    let (a, b) = (Tropical::new(3_i64), Tropical::new(-5_i64));
    let mut out = Tropical::new(10_i64);
    ops(&mut out, &a, &b);
    assert_eq!(out, Tropical::new(10 + (3 - 5) - 3 + (3 + 5) + 9 + 2));
    ops_inv(&mut out, &a, &b);
    assert_eq!(out, Tropical::new(10));
}
