//! Zero cost, measured robustly on a loaded machine: the minimum of 60 interleaved runs of a
//! `#[i(nocheck)]` loop and the same loop hand-written. `cargo run --release -p nilang --example zero_cost`
use std::time::Instant;

#[path = "../benches/kernels/mod.rs"]
mod kernels;
use kernels::{loop_hand, loop_kernel};

fn main() {
    let n = 1_000_000;
    let x: Vec<f64> = (0..n).map(|i| (i as f64).sin()).collect();
    let (mut y1, mut y2) = (vec![0.0; n], vec![0.0; n]);
    let (mut s1, mut s2) = (0.0, 0.0);
    let (mut t1, mut t2) = (f64::MAX, f64::MAX);
    for _ in 0..60 {
        let t = Instant::now();
        loop_kernel(&mut s1, &mut y1, &x, &std::hint::black_box(0.5));
        t1 = t1.min(t.elapsed().as_secs_f64());
        let t = Instant::now();
        loop_hand(&mut s2, &mut y2, &x, std::hint::black_box(0.5));
        t2 = t2.min(t.elapsed().as_secs_f64());
    }
    println!(
        "min of 60: nilang {:.1} µs, hand {:.1} µs, ratio {:.3} (s equal: {})",
        t1 * 1e6,
        t2 * 1e6,
        t1 / t2,
        s1 == s2
    );
}
