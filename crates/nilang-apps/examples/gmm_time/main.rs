//! Scratch timing: plain objective (the bench's `rust-O`, copied for f64, and
//! `adbench::gmm_objective`) vs `gmm::gmm_value_grad` for several block sizes and the
//! unblocked version of commit 725cf7d (`old.rs`), all interleaved, min of `reps` runs.
//!
//! ```text
//! cargo run --release -p nilang-apps --example gmm_time -- d K n [reps [block...]]
//! ```
use nilang_apps::adbench::gmm::{gmm_generate, gmm_objective, GmmInput};
use nilang_apps::gmm::{gmm_value_grad, GmmGradWork};
use std::hint::black_box;
use std::time::Instant;

/// The bench's `Gmm::eval` on f64 (data-free terms left out: they are O(K·d²) once).
#[allow(clippy::needless_range_loop)] // kept as the bench writes it
fn bench_o(g: &GmmInput, p: &[f64]) -> f64 {
    let (d, k, n) = (g.d, g.k, g.n);
    let il = d * (d + 1) / 2;
    let alpha = &p[..k];
    let mu = &p[k..k + k * d];
    let icf = &p[k + k * d..];
    let mut qdiag = vec![0.0; k * d];
    let mut sum_q = vec![0.0; k];
    for c in 0..k {
        let mut s = 0.0;
        for r in 0..d {
            let q = icf[c * il + r];
            qdiag[c * d + r] = q.exp();
            s += q;
        }
        sum_q[c] = s;
    }
    let mut xc = vec![0.0; d];
    let mut qx = vec![0.0; d];
    let mut main = vec![0.0; k];
    let mut slse = 0.0;
    for i in 0..n {
        let xi = &g.x[i * d..(i + 1) * d];
        for c in 0..k {
            let muc = &mu[c * d..(c + 1) * d];
            for r in 0..d {
                xc[r] = xi[r] - muc[r];
            }
            for r in 0..d {
                qx[r] = qdiag[c * d + r] * xc[r];
            }
            let l = &icf[c * il + d..(c + 1) * il];
            let mut li = 0;
            for col in 0..d {
                for row in col + 1..d {
                    qx[row] += l[li] * xc[col];
                    li += 1;
                }
            }
            let mut sq = 0.0;
            for &v in qx.iter() {
                sq += v * v;
            }
            main[c] = alpha[c] + sum_q[c] - 0.5 * sq;
        }
        let mx = main.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        let s: f64 = main.iter().map(|a| (a - mx).exp()).sum();
        slse += s.ln() + mx;
    }
    slse
}

#[allow(dead_code, clippy::all)]
mod old;

fn main() {
    let a: Vec<usize> = std::env::args()
        .skip(1)
        .map(|s| s.parse().unwrap())
        .collect();
    let (d, k, n) = (a[0], a[1], a[2]);
    let reps = a.get(3).copied().unwrap_or(5);
    let bss: Vec<usize> = if a.len() > 4 {
        a[4..].to_vec()
    } else {
        vec![nilang_apps::gmm::GMM_BLOCK]
    };
    let g = gmm_generate(d, k, n, 7);
    let p = g.params();
    let mut works: Vec<GmmGradWork> = bss
        .iter()
        .map(|&bs| GmmGradWork::with_block(d, k, bs))
        .collect();
    let mut wold = old::GmmGradWork::new(d, k);
    let mut grad = vec![0.0; g.n_params()];
    let mut g0 = vec![0.0; g.n_params()];
    let f0 = old::gmm_value_grad(&g, &mut wold, &mut g0);
    let (mut tb, mut ta, mut to) = (f64::MAX, f64::MAX, f64::MAX);
    let mut tg = vec![f64::MAX; bss.len()];
    if let Ok(only) = std::env::var("GMM_ONLY") {
        // profiling aid: run one variant only (`old` or a block size)
        for _ in 0..reps {
            if only == "old" {
                black_box(old::gmm_value_grad(&g, &mut wold, &mut grad));
            } else {
                let mut w = GmmGradWork::with_block(d, k, only.parse().unwrap());
                black_box(gmm_value_grad(&g, &mut w, &mut grad));
            }
        }
        return;
    }
    // rounds: each variant runs `BURST` times in a row (warm caches, as the bench's repeated
    // calls), variants alternate (background noise hits all alike); min over everything
    const BURST: usize = 3;
    let time = |t: &mut f64, f: &mut dyn FnMut()| {
        for _ in 0..BURST {
            let s = Instant::now();
            f();
            *t = t.min(s.elapsed().as_secs_f64());
        }
    };
    for _ in 0..reps {
        time(&mut tb, &mut || {
            black_box(bench_o(black_box(&g), black_box(&p)));
        });
        time(&mut ta, &mut || {
            black_box(gmm_objective(black_box(&g)));
        });
        time(&mut to, &mut || {
            black_box(old::gmm_value_grad(black_box(&g), &mut wold, &mut grad));
        });
        for (w, tg) in works.iter_mut().zip(tg.iter_mut()) {
            let mut f = 0.0;
            time(tg, &mut || {
                f = black_box(gmm_value_grad(black_box(&g), w, &mut grad));
            });
            let err = grad
                .iter()
                .zip(&g0)
                .map(|(a, b)| (a - b).abs() / b.abs().max(1.0))
                .fold((f - f0).abs() / f0.abs().max(1.0), f64::max);
            assert!(err < 1e-9, "gradient differs from the old one: {err:e}");
        }
    }
    println!(
        "d={d} K={k} n={n} reps={reps}: rust-O {:.3} ms, adbench-O {:.3} ms; G/rust-O, G/adbench-O:",
        tb * 1e3,
        ta * 1e3
    );
    println!(
        "  old (725cf7d): G {:.3} ms  {:.2} {:.2}",
        to * 1e3,
        to / tb,
        to / ta
    );
    for (bs, tg) in bss.iter().zip(&tg) {
        println!(
            "  bs={bs:3}: G {:.3} ms  {:.2} {:.2}",
            tg * 1e3,
            tg / tb,
            tg / ta
        );
    }
}
