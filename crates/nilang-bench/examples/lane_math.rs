//! Throughput of the vector elementary functions of the lanes (issue 21): each function of the
//! table with a SIMD lane implementation, on `F64x4` and `F64x8` (through `Func`, as a
//! program's `y += tanh(x)` and its reverse rule call it) against the plain loop of `f64`'s
//! function over the same 4096 inputs, and `nilang::stdlib::elementwise::i_map` over the slice
//! (`y[i] += f(x[i])` with `y` zeroed first: eight lanes compiled for this CPU's widest vectors).
//!
//! `cargo run --release -p nilang-bench --example lane_math [-- ROUNDS]`
//!
//! The three loops of a function run interleaved (round-robin, the first rotating); the table
//! gives the minimum and the median nanoseconds per value over the rounds and the speed-up of
//! each lane loop over the scalar loop (minimum / minimum, within this run).
use nilang::instr::{fns, Func};
use nilang::numbers::{F64x4, F64x8};
use nilang::stdlib::elementwise::i_map;
use std::hint::black_box;
use std::time::Instant;

const N: usize = 4096;
const REPS: usize = 20;

fn stats(mut v: Vec<f64>) -> (f64, f64) {
    v.sort_by(f64::total_cmp);
    (v[0], v[v.len() / 2])
}

macro_rules! row {
    ($rounds:expr, $name:literal, $F:ident, $std:expr, $lo:expr, $hi:expr) => {{
        let xs: Vec<f64> = (0..N)
            .map(|i| $lo + ($hi - $lo) * ((i * 7919) % N) as f64 / N as f64)
            .collect();
        let x4: Vec<F64x4> = xs.chunks(4).map(|c| F64x4::from_fn(|k| c[k])).collect();
        let x8: Vec<F64x8> = xs.chunks(8).map(|c| F64x8::from_fn(|k| c[k])).collect();
        let mut out = vec![0.0; N];
        let mut o4 = vec![F64x4::splat(0.0); N / 4];
        let mut o8 = vec![F64x8::splat(0.0); N / 8];
        let std_fn: fn(f64) -> f64 = $std;
        let (mut xm, mut om) = (xs.clone(), vec![0.0; N]);
        let mut t = [Vec::new(), Vec::new(), Vec::new(), Vec::new()];
        for r in 0..$rounds {
            for j in 0..4 {
                let k = (r + j) % 4;
                let start = Instant::now();
                for _ in 0..REPS {
                    match k {
                        0 => {
                            for (o, &x) in out.iter_mut().zip(black_box(&xs)) {
                                *o = std_fn(x);
                            }
                            black_box(&out);
                        }
                        1 => {
                            for (o, &x) in o4.iter_mut().zip(black_box(&x4)) {
                                *o = <fns::$F as Func<(F64x4,)>>::eval((x,));
                            }
                            black_box(&o4);
                        }
                        2 => {
                            for (o, &x) in o8.iter_mut().zip(black_box(&x8)) {
                                *o = <fns::$F as Func<(F64x8,)>>::eval((x,));
                            }
                            black_box(&o8);
                        }
                        _ => {
                            om.fill(0.0);
                            i_map(&mut om, fns::$F, black_box(&mut xm));
                            black_box(&om);
                        }
                    }
                }
                t[k].push(start.elapsed().as_secs_f64() * 1e9 / (REPS * N) as f64);
            }
        }
        let [s, a, b, m] = t.map(stats);
        println!(
            "| {:<7} | {:>6.2} / {:>6.2} | {:>6.2} / {:>6.2} | {:>6.2} / {:>6.2} | {:>6.2} / {:>6.2} | {:>5.2}× | {:>5.2}× | {:>5.2}× |",
            $name,
            s.0,
            s.1,
            a.0,
            a.1,
            b.0,
            b.1,
            m.0,
            m.1,
            s.0 / a.0,
            s.0 / b.0,
            s.0 / m.0
        );
    }};
}

fn main() {
    let rounds: usize = std::env::args()
        .nth(1)
        .map(|a| a.parse().expect("ROUNDS: a number"))
        .unwrap_or(30);
    println!("ns per value, min / median over {rounds} rounds of {REPS}×{N} values");
    println!("| f       | f64 loop        | F64x4           | F64x8           | i_map on [f64]  | x4/f64 | x8/f64 | map/f64 |");
    println!("|---------|-----------------|-----------------|-----------------|-----------------|--------|--------|---------|");
    row!(rounds, "exp", Exp, f64::exp, -20.0, 20.0);
    row!(rounds, "tanh", Tanh, f64::tanh, -5.0, 5.0);
    row!(rounds, "exp_m1", ExpM1, f64::exp_m1, -5.0, 5.0);
    row!(rounds, "ln", Ln, f64::ln, 1e-3, 1e3);
    row!(rounds, "ln_1p", Ln1p, f64::ln_1p, -0.9, 10.0);
    row!(rounds, "sin", Sin, f64::sin, -10.0, 10.0);
    row!(rounds, "cos", Cos, f64::cos, -10.0, 10.0);
    row!(rounds, "sqrt", Sqrt, f64::sqrt, 0.0, 1e3);
    row!(
        rounds,
        "softplus",
        Softplus,
        nilang::Real::softplus,
        -10.0,
        10.0
    );
}
