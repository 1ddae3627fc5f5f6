//! Language cases 17, 20 and 22 of the inventory (§5.3): fields, tuple elements, nested
//! indexing, the negation view, element-wise ("broadcast") loops and reversible methods.
use nilang::prelude::*;
use num_complex::Complex;

// case 17: `(x, y) <-> @fields z`
#[i]
fn swap_fields(x: &mut i64, y: &mut i64, z: &mut Complex<i64>) {
    SWAP(x, &mut z.re);
    SWAP(y, &mut z.im);
}

#[i]
fn cadd(a: &mut Complex<i64>, b: &Complex<i64>) {
    a.re += b.re;
    a.im += b.im;
}

// "wrap, update, unwrap": NiLang's `add(Complex{}(x, y), Complex{}(a, b))`
#[i]
fn add_wrapped(x: &mut i64, y: &mut i64, a: &mut i64, b: &mut i64) {
    let z = Complex::new(0_i64, 0);
    let w = Complex::new(0_i64, 0);
    routine! {
        SWAP(x, &mut z.re);
        SWAP(y, &mut z.im);
        SWAP(a, &mut w.re);
        SWAP(b, &mut w.im);
    }
    cadd(&mut z, &w);
    unroutine!();
    dealloc!(w = Complex::new(0, 0));
    dealloc!(z = Complex::new(0, 0));
}

#[i]
fn tuple_fields(t: &mut (i64, i64, i64), d: &mut Complex<i64>) {
    t.0 += d.re;
    SWAP(&mut d.re, &mut d.im);
}

#[i]
fn nested_tuple(t: &mut ((i64, i64, i64),)) {
    t.0 .0 += t.0 .1 + t.0 .2;
}

#[derive(Clone, Copy, Debug, PartialEq)]
struct Ms {
    x: f64,
    y: f64,
    z: f64,
}

#[i]
fn struct_fields(ms: &mut Ms) {
    ms.x += 1;
    ms.y += 1;
    ms.z -= ms.x.powi(2);
}

#[test]
fn case17_fields_tuples_structs() {
    let (mut x, mut y, mut z) = (1, 2, Complex::new(3, 4));
    swap_fields(&mut x, &mut y, &mut z);
    assert_eq!((x, y, z), (3, 4, Complex::new(1, 2)));
    swap_fields_inv(&mut x, &mut y, &mut z);
    assert_eq!((x, y, z), (1, 2, Complex::new(3, 4)));

    let (mut x, mut y, mut a, mut b) = (1, 2, 3, 4);
    add_wrapped(&mut x, &mut y, &mut a, &mut b);
    assert_eq!((x, y, a, b), (4, 6, 3, 4));
    add_wrapped_inv(&mut x, &mut y, &mut a, &mut b);
    assert_eq!((x, y, a, b), (1, 2, 3, 4));

    let (mut t, mut d) = ((1, 2, 3), Complex::new(4, 5));
    tuple_fields(&mut t, &mut d);
    assert_eq!((t, d), ((5, 2, 3), Complex::new(5, 4)));
    tuple_fields_inv(&mut t, &mut d);
    assert_eq!((t, d), ((1, 2, 3), Complex::new(4, 5)));

    let mut t = ((1, 2, 3),);
    nested_tuple(&mut t);
    assert_eq!(t, ((6, 2, 3),));
    nested_tuple_inv(&mut t);
    assert_eq!(t, ((1, 2, 3),));

    let mut ms = Ms {
        x: 0.5,
        y: 0.6,
        z: 0.7,
    };
    struct_fields(&mut ms);
    assert_eq!(
        ms,
        Ms {
            x: 1.5,
            y: 1.6,
            z: 0.7 - 2.25
        }
    );
    struct_fields_inv(&mut ms);
    assert!((ms.x - 0.5).abs() < 1e-15 && (ms.y - 0.6).abs() < 1e-15);
    assert!((ms.z - 0.7).abs() < 1e-15);
}

// case 20: element-wise instructions over arrays (NiLang's broadcast)
#[i]
fn bcast(a: &mut [f64], b: &mut [f64], out: &mut [f64]) {
    for i in 0..a.len() {
        a[i] += b[i];
        out[i] += a[i] * b[i];
    }
}

#[test]
fn case20_elementwise() {
    let (mut a, mut b, mut out) = ([3.0, 1.0], [4.0, 2.0], [0.0, 1.0]);
    bcast(&mut a, &mut b, &mut out);
    assert_eq!(out, [28.0, 7.0]);
    bcast_inv(&mut a, &mut b, &mut out);
    assert_eq!((a, b, out), ([3.0, 1.0], [4.0, 2.0], [0.0, 1.0]));
}

// case 22: writable views: a sub-range, a field of an element, an element of a nested vector,
// the negation view
#[i]
fn subrange(x: &mut [f64], y: &[f64]) {
    for i in 0..y.len() {
        x[i] += y[i];
    }
}

#[i]
fn first_real(x: &mut [Complex<f64>]) {
    x[0].re += 3;
}

#[i]
fn nested_index(y: &mut Vec<Vec<f64>>, x: &[f64]) {
    for r in 0..y.len() {
        y[r][r] += x[r];
    }
    y[1][0] += x[4];
}

#[i]
fn negation_view(x: &mut f64, y: &mut f64, z: &mut f64) {
    -x += y;
    z += -y * x;
}

#[test]
fn case22_writable_views() {
    let (mut x, y) = ([1.0; 4], [1.0; 2]);
    subrange(&mut x, &y);
    assert_eq!(x, [2.0, 2.0, 1.0, 1.0]);
    subrange_inv(&mut x, &y);
    assert_eq!(x, [1.0; 4]);

    let mut x = [Complex::new(0.0, 1.0), Complex::new(2.0, 3.0)];
    first_real(&mut x);
    assert_eq!(x, [Complex::new(3.0, 1.0), Complex::new(2.0, 3.0)]);
    first_real_inv(&mut x);
    assert_eq!(x, [Complex::new(0.0, 1.0), Complex::new(2.0, 3.0)]);

    let (mut y, x) = (vec![vec![1.0; 5]; 5], [1.0; 5]);
    nested_index(&mut y, &x);
    assert_eq!(y[1][0], 2.0);
    assert_eq!(y[3][3], 2.0);
    assert_eq!(y[0][1], 1.0);
    nested_index_inv(&mut y, &x);
    assert_eq!(y, vec![vec![1.0; 5]; 5]);

    let (mut x, mut y, mut z) = (5.0, 2.0, 0.0);
    negation_view(&mut x, &mut y, &mut z);
    assert_eq!((x, y, z), (3.0, 2.0, -6.0));
    negation_view_inv(&mut x, &mut y, &mut z);
    assert_eq!((x, y, z), (5.0, 2.0, 0.0));
}

// reversible methods: `#[i]` on a method, called as `x.method(args)`
#[derive(Debug, PartialEq)]
struct Acc {
    total: i64,
    count: i64,
}

impl Acc {
    #[i]
    fn add(&mut self, v: &i64) {
        self.total += v;
        INC(&mut self.count);
    }
}

#[i]
fn use_method(acc: &mut Acc, xs: &[i64]) {
    for i in 0..xs.len() {
        acc.add(&xs[i]);
    }
}

#[test]
fn reversible_methods() {
    let mut acc = Acc { total: 0, count: 0 };
    use_method(&mut acc, &[3, 4, 5]);
    assert_eq!(
        acc,
        Acc {
            total: 12,
            count: 3
        }
    );
    use_method_inv(&mut acc, &[3, 4, 5]);
    assert_eq!(acc, Acc { total: 0, count: 0 });
}

/// Two different fields of one struct in one call are borrowed directly (no copies: a `Vec`
/// field is not cloned).
#[test]
fn disjoint_fields_are_borrowed_directly() {
    struct W {
        a: Vec<f64>,
        b: Vec<f64>,
    }
    #[i]
    fn add_into(y: &mut [f64], x: &mut [f64]) {
        for i in 0..y.len() {
            y[i] += x[i];
        }
    }
    #[i]
    fn g(w: &mut W) {
        add_into(&mut w.a, &mut w.b);
    }
    let mut w = W {
        a: vec![1.0, 2.0],
        b: vec![10.0, 20.0],
    };
    let pa = w.a.as_ptr();
    g(&mut w);
    assert_eq!(w.a, [11.0, 22.0]);
    assert_eq!(pa, w.a.as_ptr(), "the field was not replaced by a copy");
    g_inv(&mut w);
    assert_eq!(w.a, [1.0, 2.0]);
}

/// A read-only sub-slice whose bounds read a root passed in-out in the same call: the bounds
/// are evaluated before the borrows, the slice itself is borrowed, not copied (`[T]` has no
/// `Clone`).
#[test]
fn read_only_range_bounded_by_an_in_out_root() {
    struct Win {
        acc: f64,
        lo: usize,
        hi: usize,
    }
    #[i]
    fn add_all(y: &mut f64, x: &[f64]) {
        for i in 0..x.len() {
            y += x[i];
        }
    }
    #[i]
    fn add_one(y: &mut f64, x: &f64) {
        y += x;
    }
    #[i]
    fn window_sum(w: &mut Win, data: &[f64]) {
        add_all(&mut w.acc, &data[w.lo..w.hi]);
        add_one(&mut w.acc, &data[w.hi]);
    }
    let data = [1.0, 2.0, 4.0, 8.0, 16.0];
    let mut w = Win {
        acc: 0.5,
        lo: 1,
        hi: 3,
    };
    window_sum(&mut w, &data);
    assert_eq!(w.acc, 0.5 + 2.0 + 4.0 + 8.0);
    window_sum_inv(&mut w, &data);
    assert_eq!(w.acc, 0.5);
}
