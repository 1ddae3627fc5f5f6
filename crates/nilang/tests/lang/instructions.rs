//! Language cases 1, 2, 19, 21 and 23 of the inventory (§5.3): instructions, `+=` on operators
//! and built-ins, booleans, the shared-read workaround and the elementary instructions.
use nilang::check::{catch, ErrorKind};
use nilang::prelude::*;

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-12 * (1.0 + a.abs().max(b.abs()))
}

// case 1: `out += identity(x)`
#[i]
fn test1(out: &mut f64, x: &mut f64) {
    out += identity(x);
}

#[i]
fn mul_acc(y: &mut f64, a: &f64, b: &f64) {
    y += a * b;
}

#[i]
fn exp_acc(x: &mut f64) {
    x += exp(3.0);
}

#[test]
fn case01_basic_instruction() {
    let (mut out, mut x) = (0.2, 0.8);
    test1(&mut out, &mut x);
    assert_eq!((out, x), (1.0, 0.8));
    test1_inv(&mut out, &mut x);
    assert!(close(out, 0.2) && x == 0.8);

    let (mut y, a, b) = (0.0, 2.0, 3.0);
    mul_acc(&mut y, &a, &b);
    assert_eq!(y, 6.0);
    mul_acc_inv(&mut y, &a, &b);
    assert_eq!(y, 0.0);

    // the inverse of `x += exp(3.0)` is `x -= exp(3.0)`
    let mut x = 1.0;
    exp_acc(&mut x);
    assert_eq!(x, 1.0 + 3.0_f64.exp());
    exp_acc_inv(&mut x);
    assert!(close(x, 1.0));
}

// case 2: the norm example of the README
#[i]
fn norm(res: &mut f64, y: &mut f64, x: &[f64]) {
    for i in 0..x.len() {
        y += x[i].powi(2);
    }
    res += y.sqrt();
}

#[test]
fn case02_norm() {
    let (mut res, mut y, x) = (0.0, 0.0, vec![1.0, 2.0, 3.0]);
    norm(&mut res, &mut y, &x);
    assert_eq!((res, y), (3.7416573867739413, 14.0));
    assert_eq!(x, [1.0, 2.0, 3.0]);
    let (mut res, mut y) = (3.7416573867739413, 14.0);
    norm_inv(&mut res, &mut y, &x);
    assert_eq!((res, y), (0.0, 0.0));
    // through the `Reversible` value
    Norm.call((&mut res, &mut y, &x));
    Norm.uncall((&mut res, &mut y, &x));
    assert_eq!((res, y), (0.0, 0.0));
}

// case 19: booleans
#[i]
fn bools1(x: &mut bool, y: &mut [bool], z: &[bool]) {
    x ^= true;
    for i in 0..y.len() {
        y[i] ^= z[i];
    }
}

#[i]
fn bools2(x: &mut bool, y: &mut [bool], z: &mut [bool]) {
    z[1] ^= true && y[0];
    z[0] ^= z[1] || x;
}

#[i]
fn bools3(x: &mut bool, y: &bool) {
    x ^= !y;
    FLIP(x);
}

#[test]
fn case19_booleans() {
    let (mut x, mut y, z) = (false, [true, false], [true, false]);
    bools1(&mut x, &mut y, &z);
    assert_eq!((x, y, z), (true, [false, false], [true, false]));
    bools1_inv(&mut x, &mut y, &z);
    assert_eq!((x, y), (false, [true, false]));

    let (mut x, mut y, mut z) = (false, [true, false], [true, false]);
    bools2(&mut x, &mut y, &mut z);
    assert_eq!((x, y, z), (false, [true, false], [false, true]));
    bools2_inv(&mut x, &mut y, &mut z);
    assert_eq!((x, y, z), (false, [true, false], [true, false]));

    let mut x = false;
    bools3(&mut x, &false);
    assert!(!x);
    bools3(&mut x, &true);
    assert!(x);
    bools3_inv(&mut x, &true);
    assert!(!x);
}

// case 21: the shared-read workaround (`x -= y * y` is a compile error, see compile_fail/)
#[i]
fn square_sub(x: &mut f64, y: &mut f64) {
    let tmp = 0.0;
    tmp += y;
    x -= y * tmp;
    tmp -= y;
    dealloc!(tmp = 0.0);
}

#[test]
fn case21_shared_read_through_ancilla() {
    let (mut x, mut y) = (0.0, 3.0);
    square_sub(&mut x, &mut y);
    assert_eq!((x, y), (-9.0, 3.0));
    square_sub_inv(&mut x, &mut y);
    assert_eq!((x, y), (0.0, 3.0));
}

// case 23: elementary instructions
#[i]
fn elementary(a: &mut f64, b: &mut f64, c: &mut f64, f: &mut bool, k: &mut i32) {
    INV(a);
    ADD_CONST(b, 4.0);
    SUB_CONST(c, 4.0);
    FLIP(f);
    INC(k);
}

#[i]
fn rot(a: &mut f64, b: &mut f64, theta: &mut f64) {
    ROT(a, b, theta);
}

#[i]
fn hadamard(a: &mut f64, b: &mut f64) {
    HADAMARD(a, b);
}

#[i]
fn swap_neg(a: &mut i64, b: &mut i64) {
    SWAP(a, b);
    NEG(a);
    DEC(b);
}

#[test]
fn case23_elementary_instructions() {
    let (mut a, mut b, mut c, mut f, mut k) = (0.2, 0.3, 0.3, false, 2_i32);
    elementary(&mut a, &mut b, &mut c, &mut f, &mut k);
    assert!(close(a, 5.0));
    assert_eq!(b, 4.3);
    assert_eq!(c, 0.3 - 4.0);
    assert!(f);
    assert_eq!(k, 3_i32);
    elementary_inv(&mut a, &mut b, &mut c, &mut f, &mut k);
    assert!(close(a, 0.2) && close(b, 0.3) && close(c, 0.3));
    assert_eq!((f, k), (false, 2));

    let (mut a, mut b, mut t) = (0.0, 1.0, std::f64::consts::PI);
    rot(&mut a, &mut b, &mut t);
    assert!(close(a, 0.0) && close(b, -1.0));
    rot_inv(&mut a, &mut b, &mut t);
    assert!(close(a, 0.0) && close(b, 1.0) && t == std::f64::consts::PI);

    let (mut a, mut b) = (0.5, 0.8);
    hadamard(&mut a, &mut b);
    assert!(close(a, 1.3 / 2f64.sqrt()) && close(b, -0.3 / 2f64.sqrt()));
    hadamard_inv(&mut a, &mut b);
    assert!(close(a, 0.5) && close(b, 0.8));

    let (mut a, mut b) = (1_i64, 2_i64);
    swap_neg(&mut a, &mut b);
    assert_eq!((a, b), (-2, 0));
    swap_neg_inv(&mut a, &mut b);
    assert_eq!((a, b), (1, 2));
}

// instructions over every built-in, checked to invert
#[i]
fn builtins(y: &mut f64, x: &f64, z: &f64) {
    y += sin(x);
    y += x.cos();
    y += tan(x);
    y += asin(x);
    y += acos(x);
    y += atan(x);
    y += atan2(x, z);
    y += x.sinh();
    y += cosh(x);
    y += tanh(x);
    y += exp(x);
    y += ln(z);
    y += x.ln_1p();
    y += exp_m1(x);
    y += sqrt(z);
    y += abs(x);
    y += abs2(x);
    y += powf(z, x);
    y += x.powi(3);
    y += hypot(x, z);
    y += inv(z);
    y += min(x, z);
    y += max(x, z);
    y += x / z;
    y -= x * 2.5;
    y += -x;
    y -= -z;
}

#[test]
fn builtins_forward_and_inverse() {
    let (x, z) = (0.3_f64, 1.7_f64);
    let mut y = 0.25;
    builtins(&mut y, &x, &z);
    let expect = 0.25
        + x.sin()
        + x.cos()
        + x.tan()
        + x.asin()
        + x.acos()
        + x.atan()
        + x.atan2(z)
        + x.sinh()
        + x.cosh()
        + x.tanh()
        + x.exp()
        + z.ln()
        + x.ln_1p()
        + x.exp_m1()
        + z.sqrt()
        + x.abs()
        + x * x
        + z.powf(x)
        + x.powi(3)
        + x.hypot(z)
        + 1.0 / z
        + x.min(z)
        + x.max(z)
        + x / z
        - x * 2.5
        - x
        + z;
    assert!(close(y, expect), "{y} vs {expect}");
    builtins_inv(&mut y, &x, &z);
    assert!(close(y, 0.25));
}

// tuple targets and the negation view (inventory case 24, second part, on real numbers)
#[i]
fn sincos_views(x: &mut [f64], y: &mut (f64, f64), theta: &f64) {
    (-x[1], y.0) += sincos(theta);
}

#[test]
fn tuple_target_and_negation_view() {
    let theta = std::f64::consts::PI / 6.0;
    let (mut x, mut y) = (vec![1.0, 3.0], (1.0, 2.0));
    sincos_views(&mut x, &mut y, &theta);
    assert!(close(x[1], 3.0 - 0.5));
    assert!(close(y.0, 1.0 + theta.cos()));
    sincos_views_inv(&mut x, &mut y, &theta);
    assert!(close(x[1], 3.0) && close(y.0, 1.0) && x[0] == 1.0 && y.1 == 2.0);
}

// runtime index distinctness: `x[i] += x[j]` needs `i != j`
#[i]
fn add_elem(x: &mut [i64], i: usize, j: usize) {
    x[i] += x[j];
}

#[test]
fn shared_element_is_a_runtime_error() {
    let mut x = vec![1_i64, 2, 3];
    add_elem(&mut x, 0, 2);
    assert_eq!(x, [4, 2, 3]);
    add_elem_inv(&mut x, 0, 2);
    assert_eq!(x, [1, 2, 3]);
    let e = catch(|| add_elem(&mut x, 1, 1)).unwrap_err();
    assert_eq!(e.kind, ErrorKind::SharedElement);
    assert_eq!(x, [1, 2, 3]);
}

// integer wrapping arithmetic is exact and invertible
#[i]
fn int_ops(a: &mut i64, b: &mut i64, c: &i64) {
    a += b * c;
    b ^= a;
    a -= c;
    b += -a;
}

#[test]
fn integer_instructions() {
    for &(a0, b0, c) in &[
        (1_i64, 2_i64, 3_i64),
        (-7, 11, 5),
        (0, 0, 0),
        (123456, -98765, 17),
    ] {
        let (mut a, mut b) = (a0, b0);
        int_ops(&mut a, &mut b, &c);
        let ea = a0 + b0 * c - c;
        let eb = (b0 ^ (a0 + b0 * c)) - ea;
        assert_eq!((a, b), (ea, eb));
        int_ops_inv(&mut a, &mut b, &c);
        assert_eq!((a, b), (a0, b0));
    }
}
