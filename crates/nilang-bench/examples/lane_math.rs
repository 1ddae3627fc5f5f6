//! Throughput of the vector elementary functions of the lanes (issue 21): each function of the
//! table with a SIMD lane implementation, on `F64x4` and `F64x8` (through `Func`, as a
//! program's `y += tanh(x)` and its reverse rule call it) against the plain loop of `f64`'s
//! function over the same 4096 inputs, and `nilang::stdlib::elementwise::i_map` over the slice
//! (`y[i] += f(x[i])` with `y` zeroed first: eight lanes compiled for this CPU's widest vectors).
//!
//! A second table times `i_map` of `tanh` on gradient numbers (`[GVar<f64>]`) as a gradient
//! runs it: the values pass (`ȳ` zero: the forward routine) and the adjoint pass of the
//! uncomputation (`i_map_inv` told that `y` holds `f(x)`, full and adjoint-only), against
//! `i_map` on `[f64]` plus one plain stream of adjoints (`x̄[i] += ȳ[i]·(1 − h[i]²)` on separate
//! arrays, compiled for this CPU): what the interleaved layout costs.
//!
//! `cargo run --release -p nilang-bench --example lane_math [-- ROUNDS [N_GRAD]]` (`N_GRAD`:
//! the slices' length in the second table, default 4096; the `mlp` suite's hidden layer at
//! B = 4096 is 131072).
//!
//! The loops of a row run interleaved (round-robin, the first rotating); the table
//! gives the minimum and the median nanoseconds per value over the rounds and the speed-up of
//! each lane loop over the scalar loop (minimum / minimum, within this run).
use nilang::abi::FRESH_TARGET;
use nilang::instr::{fns, Func};
use nilang::numbers::{F64x4, F64x8};
use nilang::stdlib::elementwise::{i_map, i_map_inv};
use nilang::GVar;
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

/// `gx[i] += gy[i]·(1 − h[i]²)`: the adjoint of `h += tanh(z)` on separate arrays (the
/// best plain loop: compiled for AVX-512 or AVX2 where the CPU has them, as `i_map`'s lanes).
fn tanh_adjoint_stream(gx: &mut [f64], gy: &[f64], h: &[f64]) {
    #[inline(always)]
    fn body(gx: &mut [f64], gy: &[f64], h: &[f64]) {
        for ((gx, &gy), &h) in gx.iter_mut().zip(gy).zip(h) {
            *gx += gy * (1.0 - h * h);
        }
    }
    #[cfg(target_arch = "x86_64")]
    {
        #[target_feature(enable = "avx512f")]
        fn avx512(gx: &mut [f64], gy: &[f64], h: &[f64]) {
            body(gx, gy, h)
        }
        #[target_feature(enable = "avx2")]
        fn avx2(gx: &mut [f64], gy: &[f64], h: &[f64]) {
            body(gx, gy, h)
        }
        if std::arch::is_x86_feature_detected!("avx512f") {
            // SAFETY: the CPU has AVX-512F
            return unsafe { avx512(gx, gy, h) };
        }
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2
            return unsafe { avx2(gx, gy, h) };
        }
    }
    body(gx, gy, h)
}

/// The second table: `i_map` of `tanh` on `[GVar<f64>]` of length `n` as a gradient runs it.
fn gradient_passes(rounds: usize, n: usize) {
    let reps = (REPS * N / n).max(1);
    let zs: Vec<f64> = (0..n)
        .map(|i| -5.0 + 10.0 * ((i * 7919) % n) as f64 / n as f64)
        .collect();
    // plain: values, then one stream of adjoints
    let (mut z, mut h) = (zs.clone(), vec![0.0; n]);
    let (mut gz, gh) = (vec![0.0; n], vec![0.5; n]);
    // gradient numbers
    let mut gv_z: Vec<GVar<f64>> = zs.iter().map(|&v| GVar::new(v, 0.0)).collect();
    let mut gv_h = vec![GVar::new(0.0, 0.0); n];
    i_map::__primal(i_map, (&mut gv_h[..], fns::Tanh, &mut gv_z[..]));
    let gv_h0: Vec<GVar<f64>> = gv_h.iter().map(|v| GVar::new(v.x, 0.5)).collect();
    let mut gv_hb = gv_h0.clone();
    let mut t = [Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new()];
    for r in 0..rounds {
        for j in 0..5 {
            let k = (r + j) % 5;
            let mut elapsed = 0.0;
            for _ in 0..reps {
                match k {
                    0 => {
                        h.fill(0.0);
                        let start = Instant::now();
                        i_map(&mut h, fns::Tanh, black_box(&mut z));
                        black_box(&h);
                        elapsed += start.elapsed().as_secs_f64();
                    }
                    1 => {
                        let start = Instant::now();
                        tanh_adjoint_stream(&mut gz, black_box(&gh), black_box(&h));
                        black_box(&gz);
                        elapsed += start.elapsed().as_secs_f64();
                    }
                    2 => {
                        for v in gv_hb.iter_mut() {
                            v.x = 0.0;
                        }
                        let start = Instant::now();
                        i_map::__primal(
                            i_map,
                            (&mut gv_hb[..], fns::Tanh, black_box(&mut gv_z[..])),
                        );
                        black_box(&gv_hb);
                        elapsed += start.elapsed().as_secs_f64();
                    }
                    3 | 4 => {
                        gv_hb.copy_from_slice(&gv_h0);
                        let dead = if k == 3 {
                            FRESH_TARGET
                        } else {
                            FRESH_TARGET | 1
                        };
                        let start = Instant::now();
                        i_map_inv::__adj(
                            i_map_inv,
                            dead,
                            (&mut gv_hb[..], fns::Tanh, black_box(&mut gv_z[..])),
                        );
                        black_box(&gv_z);
                        elapsed += start.elapsed().as_secs_f64();
                    }
                    _ => unreachable!(),
                }
            }
            t[k].push(elapsed * 1e9 / (reps * n) as f64);
        }
    }
    let [mv, ma, gv, gf, ga] = t.map(stats);
    println!();
    println!("tanh by i_map as a gradient runs it, n = {n}: ns per value, min / median over {rounds} rounds of {reps}×{n} values");
    println!("| pass                                        | ns/value        |");
    println!("|---------------------------------------------|-----------------|");
    let row = |name: &str, s: (f64, f64)| println!("| {name:<43} | {:>6.2} / {:>6.2} |", s.0, s.1);
    row("[f64] i_map (values)", mv);
    row("[f64] one adjoint stream (x̄ += ȳ(1-h²))", ma);
    row("[GVar] values (i_map::__primal)", gv);
    row("[GVar] adjoint, stored h (i_map_inv, full)", gf);
    row("[GVar] adjoint, stored h (adjoint-only)", ga);
    println!(
        "GVar values + adjoint-only / (f64 values + adjoint stream): {:.2}× (by the minima)",
        (gv.0 + ga.0) / (mv.0 + ma.0)
    );
}

fn main() {
    let rounds: usize = std::env::args()
        .nth(1)
        .map(|a| a.parse().expect("ROUNDS: a number"))
        .unwrap_or(30);
    let n_grad: usize = std::env::args()
        .nth(2)
        .map(|a| a.parse().expect("N_GRAD: a number"))
        .unwrap_or(N);
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
    gradient_passes(rounds, n_grad);
}
