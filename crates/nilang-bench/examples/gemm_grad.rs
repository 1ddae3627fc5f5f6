//! Issue 21 item 2: the dense primitive `C += A·B` (`nilang::stdlib::blas::i_gemm`) at
//! 256 × 256 × 256, forward and gradient, against `matrixmultiply::dgemm` called directly.
//!
//! `cargo run --release -p nilang-bench --example gemm_grad [-- ROUNDS]`
//!
//! Cells (one call each, interleaved round-robin; minimum and median over the rounds, and
//! their ratio to `i_gemm` on `f64`, within this run):
//! - `dgemm`: `matrixmultiply::dgemm` on plain row-major arrays (the crate's own speed);
//! - `i_gemm f64`: the primitive on `f64` (the forward GEMM);
//! - `vjp`: the primitive's backward rule, `i_gemm_inv` on `GVar<f64>` with `C̄` seeded
//!   (uncompute `C`, `Ā += C̄ Bᵀ`, `B̄ += Aᵀ C̄`: three GEMMs on the interleaved values and
//!   adjoints, in place) — what a gradient pass runs for this statement;
//! - `Plan`: a whole gradient through `nilang::ad::Plan` of `routine { C += A·B }; l += C·W;
//!   undo` with `C` a `zero(c)` workspace (lifting the arguments to `GVar`s, the routine
//!   recomputed on values, the dot, the rule adjoint-only: `Ā`, `B̄` without uncomputing `C`).
//!
//! Before timing, the `vjp` and `Plan` adjoints are checked against `C̄ Bᵀ` and `Aᵀ C̄`
//! computed by `dgemm`.
use nilang::ad::Plan;
use nilang::prelude::*;
use nilang::stdlib::blas::{i_dot, i_dot_inv, i_gemm, i_gemm_inv};
use std::hint::black_box;
use std::time::Instant;

const N: usize = 256;

#[i(zero(c))]
fn gemm_loss<T: Scalar>(l: &mut T, c: &mut [T], a: &mut [T], b: &mut [T], w: &mut [T], n: usize) {
    routine! {
        i_gemm(c, a, b, n, n, n);
    }
    i_dot(l, c, w);
    unroutine!();
}

fn rnd(n: usize, seed: u64) -> Vec<f64> {
    let mut s = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s >> 11) as f64 / (1u64 << 53) as f64 - 0.5
        })
        .collect()
}

/// `c += a·b` (`transpose_a`/`transpose_b`: the stored matrix is the transpose), n × n.
fn dgemm(a: &[f64], ta: bool, b: &[f64], tb: bool, c: &mut [f64]) {
    let s = |t: bool| if t { (1, N as isize) } else { (N as isize, 1) };
    let ((rsa, csa), (rsb, csb)) = (s(ta), s(tb));
    assert!(a.len() == N * N && b.len() == N * N && c.len() == N * N);
    // SAFETY: n × n arrays, `c` distinct
    unsafe {
        matrixmultiply::dgemm(
            N,
            N,
            N,
            1.0,
            a.as_ptr(),
            rsa,
            csa,
            b.as_ptr(),
            rsb,
            csb,
            1.0,
            c.as_mut_ptr(),
            N as isize,
            1,
        )
    }
}

fn close(a: &[f64], b: &[f64]) -> bool {
    a.iter()
        .zip(b)
        .all(|(x, y)| (x - y).abs() <= 1e-12 * (1.0 + y.abs()))
}

fn main() {
    let rounds: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(30);
    let (a, b, w) = (rnd(N * N, 1), rnd(N * N, 2), rnd(N * N, 3));
    let lift = |v: &[f64], g: &[f64]| -> Vec<GVar<f64>> {
        v.iter().zip(g).map(|(&x, &g)| GVar::new(x, g)).collect()
    };
    // the references: Ā = W Bᵀ, B̄ = Aᵀ W
    let (mut da, mut db) = (vec![0.0; N * N], vec![0.0; N * N]);
    dgemm(&w, false, &b, true, &mut da);
    dgemm(&a, true, &w, false, &mut db);
    let zeros = vec![0.0; N * N];
    let (mut ga, mut gb, mut gc) = (lift(&a, &zeros), lift(&b, &zeros), lift(&zeros, &w));
    i_gemm_inv(&mut gc, &mut ga, &mut gb, N, N, N);
    let adj = |v: &[GVar<f64>]| v.iter().map(|v| v.g).collect::<Vec<_>>();
    assert!(
        close(&adj(&ga), &da) && close(&adj(&gb), &db),
        "vjp adjoints"
    );
    let mut plan = Plan::new();
    let (mut pa, mut pb, mut pc, mut pw) = (a.clone(), b.clone(), zeros.clone(), w.clone());
    {
        let (_, (_, _, ga, gb, ..)) = plan.value_and_gradient(
            &GemmLoss,
            (
                &mut 0.0,
                &mut pc[..],
                &mut pa[..],
                &mut pb[..],
                &mut pw[..],
                N,
            ),
            0,
        );
        assert!(
            close(&adj(ga), &da) && close(&adj(gb), &db),
            "Plan adjoints"
        );
    }

    let (mut fa, mut fb, mut fc) = (a.clone(), b.clone(), zeros.clone());
    let names = ["dgemm", "i_gemm f64", "vjp", "Plan"];
    let mut times = vec![Vec::new(); names.len()];
    for r in 0..rounds {
        for k in 0..names.len() {
            let cell = (k + r) % names.len();
            let t0 = Instant::now();
            match cell {
                0 => dgemm(black_box(&a), false, &b, false, &mut fc),
                1 => i_gemm(&mut fc, black_box(&mut fa), &mut fb, N, N, N),
                2 => i_gemm_inv(&mut gc, black_box(&mut ga), &mut gb, N, N, N),
                _ => {
                    let args = (
                        &mut 0.0,
                        &mut pc[..],
                        &mut pa[..],
                        &mut pb[..],
                        &mut pw[..],
                        N,
                    );
                    black_box(plan.value_and_gradient(&GemmLoss, args, 0).0);
                }
            }
            times[cell].push(t0.elapsed().as_secs_f64());
        }
    }
    let stats = |t: &mut Vec<f64>| {
        t.sort_by(f64::total_cmp);
        (t[0], t[t.len() / 2])
    };
    let st: Vec<(f64, f64)> = times.iter_mut().map(stats).collect();
    println!("C += A·B at {N}×{N}×{N}, {rounds} rounds (min / median ms, ratio to `i_gemm f64`)");
    for (name, &(min, med)) in names.iter().zip(&st) {
        println!(
            "{name:>12}: {:8.3} / {:8.3} ms   {:5.2}× / {:5.2}×",
            min * 1e3,
            med * 1e3,
            min / st[1].0,
            med / st[1].1
        );
    }
}
