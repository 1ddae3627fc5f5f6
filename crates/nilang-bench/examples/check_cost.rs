//! Issue 21 item 1: what the default runtime checks of `#[i]` code cost on release-build
//! gradients. Three programs written as a new user would from the guide (a pairwise
//! potential, a tanh MLP over a batch, an explicit PDE stepper), each compiled three ways:
//! `#[i]` (the default), `#[i(check)]` (checks forced on in every profile) and
//! `#[i(nocheck)]`; the gradient of each is timed.
//!
//! `cargo run --release -p nilang-bench --example check_cost [-- ROUNDS]`
//!
//! The variants of one program run interleaved (round-robin, the first rotating); the table
//! gives the minimum and the median seconds of one gradient over the rounds and their ratios
//! to `nocheck` (within this run). The gradients of the three variants are checked to agree
//! before anything is timed.
use nilang::prelude::*;
use std::hint::black_box;
use std::time::Instant;

/// The pairwise potential `e += Σ_{i<j} 1 / (1 + |x_i − x_j|²)` over 2-D points.
macro_rules! pairwise {
    ($name:ident, $($opt:ident)?) => {
        #[i($($opt)?)]
        fn $name<T: Scalar>(e: &mut T, x: &mut Vec<T>, y: &mut Vec<T>) {
            for i in 0..x.len() {
                for j in i + 1..x.len() {
                    routine! {
                        let (dx, dy, r2) = (T::default(), T::default(), T::default());
                        dx += x[i] - x[j];
                        dy += y[i] - y[j];
                        r2 += abs2(dx);
                        r2 += abs2(dy);
                        r2 += 1.0;
                    }
                    e += 1.0 / r2;
                    unroutine!();
                }
            }
        }
    };
}
pairwise!(pair_default,);
pairwise!(pair_check, check);
pairwise!(pair_nocheck, nocheck);

/// A 16 → 32 → 1 tanh MLP over a batch: `loss += Σ_s (w2 · tanh(W1 x_s + b1) − y_s)²`.
macro_rules! mlp {
    ($name:ident, $($opt:ident)?) => {
        #[i($($opt)?)]
        fn $name<T: Scalar>(
            loss: &mut T,
            w1: &mut Vec<T>,
            b1: &mut Vec<T>,
            w2: &mut Vec<T>,
            x: &[f64],
            t: &[f64],
        ) {
            for s in 0..t.len() {
                routine! {
                    let z = [T::default(); 32];
                    let a = [T::default(); 32];
                    let (out, r) = (T::default(), T::default());
                    for k in 0..32 {
                        z[k] += b1[k];
                        for m in 0..16 {
                            z[k] += w1[k * 16 + m] * x[s * 16 + m];
                        }
                        a[k] += tanh(z[k]);
                        out += w2[k] * a[k];
                    }
                    r += out - t[s];
                }
                loss += abs2(r);
                unroutine!();
            }
        }
    };
}
mlp!(mlp_default,);
mlp!(mlp_check, check);
mlp!(mlp_nocheck, nocheck);

/// An explicit PDE stepper over `steps` steps of `n` cells (all states kept in `u`), loss Σu².
macro_rules! pde {
    ($name:ident, $($opt:ident)?) => {
        #[i($($opt)?)]
        fn $name<T: Scalar>(loss: &mut T, u: &mut Vec<T>, p: &mut [T; 2], n: usize, steps: usize) {
            for s in 0..steps {
                for i in 0..n {
                    routine! {
                        let (lap, cube) = (T::default(), T::default());
                        lap += u[s * n + (i + 1) % n] + u[s * n + (i + n - 1) % n];
                        lap -= u[s * n + i] * 2.0;
                        cube += u[s * n + i].powi(3);
                    }
                    u[(s + 1) * n + i] += u[s * n + i];
                    u[(s + 1) * n + i] += lap * p[0];
                    u[(s + 1) * n + i] -= cube * 0.01;
                    u[(s + 1) * n + i] += p[1];
                    unroutine!();
                }
            }
            for i in 0..n {
                loss += abs2(u[steps * n + i]);
            }
        }
    };
}
pde!(pde_default,);
pde!(pde_check, check);
pde!(pde_nocheck, nocheck);

/// A deterministic pseudo-random number in [-1, 1).
fn rnd(k: usize) -> f64 {
    let h = (k as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    ((h >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
}

/// The gradient of the pairwise potential at `(e, x, y)`: the entries for `x` then `y`.
type PairGrad = dyn Fn(&mut f64, &mut Vec<f64>, &mut Vec<f64>) -> Vec<f64>;

/// One gradient as a closure returning the gradient's entries.
type Run<'a> = Box<dyn FnMut() -> Vec<f64> + 'a>;

/// Time the variants interleaved; print min, median and ratios to the last (`nocheck`).
fn table(title: &str, rounds: usize, rows: &mut [(&str, Run<'_>)]) {
    let reference = (rows.last_mut().expect("rows").1)();
    for (label, run) in rows.iter_mut() {
        let g = run();
        let worst = g
            .iter()
            .zip(&reference)
            .map(|(a, b)| (a - b).abs() / b.abs().max(1.0))
            .fold(0.0f64, f64::max);
        assert!(
            worst < 1e-12,
            "{title} {label}: gradient differs by {worst:e}"
        );
    }
    let n = rows.len();
    let mut samples = vec![Vec::new(); n];
    for r in 0..rounds {
        for k in 0..n {
            let k = (k + r) % n;
            let t = Instant::now();
            black_box((rows[k].1)());
            samples[k].push(t.elapsed().as_secs_f64());
        }
    }
    let stats: Vec<(f64, f64)> = samples
        .iter_mut()
        .map(|s| {
            s.sort_by(f64::total_cmp);
            (s[0], s[s.len() / 2])
        })
        .collect();
    let (bmin, bmed) = stats[n - 1];
    println!("\n{title}");
    println!(
        "| {:<9} | {:>11} | {:>11} | {:>10} | {:>10} |",
        "variant", "min s", "median s", "min/nochk", "med/nochk"
    );
    for ((label, _), (min, med)) in rows.iter().zip(&stats) {
        println!(
            "| {:<9} | {:>11.4e} | {:>11.4e} | {:>10.3} | {:>10.3} |",
            label,
            min,
            med,
            min / bmin,
            med / bmed
        );
    }
}

fn main() {
    let rounds: usize = std::env::args()
        .nth(1)
        .map(|a| a.parse().expect("ROUNDS: a number"))
        .unwrap_or(15);
    println!(
        "check_cost: {rounds} rounds, release={}",
        !cfg!(debug_assertions)
    );

    for n in [64usize, 256] {
        let x: Vec<f64> = (0..n).map(|k| 4.0 * rnd(k)).collect();
        let y: Vec<f64> = (0..n).map(|k| 4.0 * rnd(k + n)).collect();
        let run = |f: &'static PairGrad| {
            let (x, y) = (x.clone(), y.clone());
            Box::new(move || {
                let (mut x, mut y, mut e) = (x.clone(), y.clone(), 0.0);
                f(&mut e, &mut x, &mut y)
            }) as Run<'_>
        };
        macro_rules! grad {
            ($rev:ident) => {
                &|e: &mut f64, x: &mut Vec<f64>, y: &mut Vec<f64>| {
                    let (_, gx, gy) = nilang::gradient(&$rev, (e, x, y), 0);
                    gx.iter().chain(gy.iter()).map(|v| v.g).collect()
                }
            };
        }
        table(
            &format!("pairwise potential, N = {n}"),
            rounds,
            &mut [
                ("default", run(grad!(PairDefault))),
                ("check", run(grad!(PairCheck))),
                ("nocheck", run(grad!(PairNocheck))),
            ],
        );
    }

    for b in [256usize, 4096] {
        let w1: Vec<f64> = (0..512).map(|k| 0.3 * rnd(k)).collect();
        let b1: Vec<f64> = (0..32).map(|k| 0.1 * rnd(k + 600)).collect();
        let w2: Vec<f64> = (0..32).map(|k| 0.3 * rnd(k + 700)).collect();
        let x: Vec<f64> = (0..16 * b).map(|k| rnd(k + 1000)).collect();
        let t: Vec<f64> = (0..b).map(|k| rnd(k + 100_000)).collect();
        macro_rules! run {
            ($rev:ident) => {{
                let (w1, b1, w2, x, t) = (&w1, &b1, &w2, &x, &t);
                Box::new(move || {
                    let (mut w1, mut b1, mut w2, mut l) = (w1.clone(), b1.clone(), w2.clone(), 0.0);
                    let (_, g1, gb, g2, _, _) = nilang::gradient(
                        &$rev,
                        (&mut l, &mut w1, &mut b1, &mut w2, &x[..], &t[..]),
                        0,
                    );
                    g1.iter()
                        .chain(gb.iter())
                        .chain(g2.iter())
                        .map(|v| v.g)
                        .collect()
                }) as Run<'_>
            }};
        }
        table(
            &format!("tanh MLP 16 → 32 → 1, B = {b}"),
            rounds,
            &mut [
                ("default", run!(MlpDefault)),
                ("check", run!(MlpCheck)),
                ("nocheck", run!(MlpNocheck)),
            ],
        );
    }

    let (n, steps) = (128usize, 1000usize);
    let mut u0 = vec![0.0; (steps + 1) * n];
    for (i, u) in u0.iter_mut().take(n).enumerate() {
        *u = (2.0 * std::f64::consts::PI * i as f64 / n as f64).sin();
    }
    macro_rules! run {
        ($rev:ident) => {{
            let u0 = &u0;
            Box::new(move || {
                let (mut u, mut p, mut l) = (u0.clone(), [0.1, 0.01], 0.0);
                let (_, gu, gp, _, _) =
                    nilang::gradient(&$rev, (&mut l, &mut u, &mut p, n, steps), 0);
                gu[..n].iter().chain(gp.iter()).map(|v| v.g).collect()
            }) as Run<'_>
        }};
    }
    table(
        &format!("explicit PDE stepper, {n} cells, {steps} steps"),
        rounds,
        &mut [
            ("default", run!(PdeDefault)),
            ("check", run!(PdeCheck)),
            ("nocheck", run!(PdeNocheck)),
        ],
    );
}
