//! Ring-neighbour loops (`next_index`/`prev_index` of the loop variable): the compiler runs
//! the iterations without wrap-around in a loop of their own (`i ± 1`); values, inverses and
//! gradients must be bit for bit those of the same stencil through an index function it does
//! not know, on every part of a range, on rings of 3 to 6 cells (on fewer, the two neighbours of the
//! stencil are one element: a runtime error).
use nilang::prelude::*;
use nilang::stdlib::ring::{next_index, prev_index};

/// `next_index` under another name: the compiler does not peel loops over it.
fn after(i: usize, n: usize) -> usize {
    next_index(i, n)
}
/// `prev_index` under another name.
fn before(i: usize, n: usize) -> usize {
    prev_index(i, n)
}

macro_rules! stencil {
    ($name:ident, $next:ident, $prev:ident) => {
        /// `y[i] += x[i + 1]·x[i] − x[i − 1]³ + c·(x[i + 1] − 2x[i] + x[i − 1])` for `i` in
        /// `s..e` on a ring of `x.len()` cells, through a routine (computed, used,
        /// uncomputed), and a reversed loop (the inverse order of a forward one).
        #[i]
        fn $name<T: Scalar>(y: &mut Vec<T>, x: &mut Vec<T>, c: &mut T, s: usize, e: usize) {
            for i in s..e {
                routine! {
                    let lap = T::default();
                    lap += x[$next(i, x.len())] + x[$prev(i, x.len())];
                    lap -= x[i] * 2.0;
                }
                y[i] += x[$next(i, x.len())] * x[i];
                y[i] -= x[$prev(i, x.len())].powi(3);
                y[i] += lap * c;
                unroutine!();
            }
            for i in (s..e).rev() {
                y[i] += x[$prev(i, x.len())] * c;
            }
        }
    };
}
stencil!(peeled, next_index, prev_index);
stencil!(plain, after, before);

/// [`peeled`] with the neighbours as remainders, `(i + 1) % n` and `(i + n - 1) % n` (also
/// peeled).
#[i]
fn modular<T: Scalar>(y: &mut Vec<T>, x: &mut Vec<T>, c: &mut T, s: usize, e: usize) {
    for i in s..e {
        routine! {
            let lap = T::default();
            lap += x[(i + 1) % x.len()] + x[(i + x.len() - 1) % x.len()];
            lap -= x[i] * 2.0;
        }
        y[i] += x[(i + 1) % x.len()] * x[i];
        y[i] -= x[(i + (x.len() - 1)) % x.len()].powi(3);
        y[i] += lap * c;
        unroutine!();
    }
    for i in (s..e).rev() {
        y[i] += x[(i + x.len() - 1) % x.len()] * c;
    }
}

/// A run of a stencil on `(y, x, c)`.
type Run<'a> = &'a dyn Fn(&mut Vec<f64>, &mut Vec<f64>, &mut f64);

fn cells(n: usize) -> Vec<f64> {
    (0..n)
        .map(|i| 0.3 + 0.17 * i as f64 - 0.01 * (i * i) as f64)
        .collect()
}

#[test]
fn ring_loops_match_the_unpeeled_stencil_bit_for_bit() {
    for n in 3..=6 {
        for s in 0..=n {
            for e in s..=n {
                let x0 = cells(n);
                let run = |f: Run| {
                    let (mut y, mut x, mut c) = (vec![0.5; n], x0.clone(), 0.7);
                    f(&mut y, &mut x, &mut c);
                    (y, x, c)
                };
                let a = run(&|y, x, c| peeled(y, x, c, s, e));
                let b = run(&|y, x, c| plain(y, x, c, s, e));
                assert_eq!(a, b, "n = {n}, {s}..{e}");
                assert_eq!(
                    run(&|y, x, c| modular(y, x, c, s, e)),
                    b,
                    "n = {n}, {s}..{e}"
                );
                if s < e {
                    assert_ne!(a.0, vec![0.5; n], "n = {n}, {s}..{e}: the loop ran");
                }
                // the inverse takes the forward back (up to round-off), the same as unpeeled
                let back = |f: Run| {
                    let (mut y, mut x, mut c) = a.clone();
                    f(&mut y, &mut x, &mut c);
                    (y, x, c)
                };
                let (ia, ib) = (
                    back(&|y, x, c| peeled_inv(y, x, c, s, e)),
                    back(&|y, x, c| plain_inv(y, x, c, s, e)),
                );
                assert_eq!(ia, ib, "n = {n}, {s}..{e}");
                assert!(ia.0.iter().all(|y| (y - 0.5).abs() < 1e-15), "{ia:?}");
                assert_eq!((&ia.1, ia.2), (&x0, 0.7), "n = {n}, {s}..{e}");
                // gradients: the inverse on gradient numbers
                let grad = |f: Peeled, g: Plain, peel: bool| {
                    let mut y: Vec<GVar<f64>> = a.0.iter().map(|&v| GVar::new(v, 1.0)).collect();
                    let mut x: Vec<GVar<f64>> = a.1.iter().map(|&v| GVar::from(v)).collect();
                    let mut c = GVar::from(a.2);
                    if peel {
                        f.uncall((&mut y, &mut x, &mut c, s, e));
                    } else {
                        g.uncall((&mut y, &mut x, &mut c, s, e));
                    }
                    let gx: Vec<f64> = x.iter().map(|v| v.g).collect();
                    (gx, c.g)
                };
                let (ga, gb) = (grad(Peeled, Plain, true), grad(Peeled, Plain, false));
                assert_eq!(ga, gb, "n = {n}, {s}..{e}");
                let mut y: Vec<GVar<f64>> = a.0.iter().map(|&v| GVar::new(v, 1.0)).collect();
                let mut x: Vec<GVar<f64>> = a.1.iter().map(|&v| GVar::from(v)).collect();
                let mut c = GVar::from(a.2);
                Modular.uncall((&mut y, &mut x, &mut c, s, e));
                let gx: Vec<f64> = x.iter().map(|v| v.g).collect();
                assert_eq!((gx, c.g), gb, "n = {n}, {s}..{e}");
            }
        }
    }
}

macro_rules! grid {
    ($name:ident, $next:ident, $prev:ident) => {
        /// A 2-D stencil on a `w × h` torus: a ring loop inside a ring loop (both peeled).
        #[i]
        fn $name<T: Scalar>(y: &mut Vec<T>, x: &mut Vec<T>, w: usize, h: usize) {
            for j in 0..h {
                for i in 0..w {
                    y[j * w + i] += x[j * w + $next(i, w)] * x[$prev(j, h) * w + i];
                }
            }
        }
    };
}
grid!(grid_peeled, next_index, prev_index);
grid!(grid_plain, after, before);

#[test]
fn nested_ring_loops_match_the_unpeeled_stencil_bit_for_bit() {
    for (w, h) in [(2, 2), (2, 3), (3, 2), (4, 3), (5, 4)] {
        let x0 = cells(w * h);
        let (mut ya, mut xa) = (vec![0.25; w * h], x0.clone());
        let (mut yb, mut xb) = (ya.clone(), x0.clone());
        grid_peeled(&mut ya, &mut xa, w, h);
        grid_plain(&mut yb, &mut xb, w, h);
        assert_eq!(ya, yb, "{w} × {h}");
        // the gradient of Σ y with respect to x
        let lift =
            |v: &[f64], g: f64| -> Vec<GVar<f64>> { v.iter().map(|&v| GVar::new(v, g)).collect() };
        let (mut ga, mut gxa) = (lift(&ya, 1.0), lift(&x0, 0.0));
        let (mut gb, mut gxb) = (lift(&yb, 1.0), lift(&x0, 0.0));
        GridPeeled.uncall((&mut ga, &mut gxa, w, h));
        GridPlain.uncall((&mut gb, &mut gxb, w, h));
        assert_eq!(gxa, gxb, "{w} × {h}");
        assert!(gxa.iter().all(|g| g.g != 0.0), "{gxa:?}");
    }
}
