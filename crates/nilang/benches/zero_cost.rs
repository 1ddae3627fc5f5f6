//! Zero cost: a `#[i]` function with checks off runs as fast as hand-written Rust doing the
//! same arithmetic. `cargo bench -p nilang --bench zero_cost`.
use criterion::{black_box, criterion_group, criterion_main, Criterion};
use nilang::prelude::*;

/// The paper's complex logarithm: `y += log(x)` on `(re, im)` pairs.
#[i(nocheck)]
fn complex_log<T: Scalar>(yre: &mut T, yim: &mut T, xre: &mut T, xim: &mut T) {
    routine! {
        let n = T::default();
        n += hypot(xre, xim);
    }
    yre += ln(n);
    yim += atan2(xim, xre);
    unroutine!();
}

#[inline(never)]
fn complex_log_hand(y: &mut (f64, f64), x: (f64, f64)) {
    y.0 += x.0.hypot(x.1).ln();
    y.1 += x.1.atan2(x.0);
}

mod kernels;
use kernels::{loop_hand, loop_kernel};

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("complex_log");
    g.bench_function("nilang", |b| {
        let (mut yre, mut yim) = (0.0, 0.0);
        b.iter(|| {
            let (mut xr, mut xi) = (black_box(3.0), black_box(2.0));
            complex_log(&mut yre, &mut yim, &mut xr, &mut xi);
            black_box((yre, yim))
        })
    });
    g.bench_function("hand-written", |b| {
        let mut y = (0.0, 0.0);
        b.iter(|| {
            complex_log_hand(&mut y, (black_box(3.0), black_box(2.0)));
            black_box(y)
        })
    });
    g.finish();

    let n = 1_000_000;
    let x: Vec<f64> = (0..n).map(|i| (i as f64).sin()).collect();
    let mut g = c.benchmark_group("loop_1e6");
    g.bench_function("nilang", |b| {
        let mut y = vec![0.0; n];
        let mut s = 0.0;
        b.iter(|| {
            loop_kernel(&mut s, &mut y, &x, &black_box(0.5));
            black_box(s)
        })
    });
    g.bench_function("hand-written", |b| {
        let mut y = vec![0.0; n];
        let mut s = 0.0;
        b.iter(|| {
            loop_hand(&mut s, &mut y, &x, black_box(0.5));
            black_box(s)
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
