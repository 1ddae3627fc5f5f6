//! The yardstick of issue 8's target "generic time ≤ 1.1 × hand time, measured in the same
//! run" (Bessel `J₂(1)` G, embedding `k = 2..10` G, BA J): hand-written gradient drivers of
//! today's reversible routines, timed against the generic gradient API (`nilang::ad`) that
//! replaced them in `nilang-apps`. It exists only for that measurement; nothing else uses
//! these drivers.
//!
//! The hand drivers are those deleted at commit `d368313` (last version: `347888a`), ported
//! to today's routines: lift the inputs (and, where the old driver had a forward pass on
//! plain `f64`, the intermediates) to `GVar`, seed the output adjoints, run only the
//! generated inverses (`*_inv`) on `GVar`, read the gradients. Per case:
//!
//! - Bessel: the old one-pass recipe, unchanged (`ibesselj_n_inv` from the input).
//! - Embedding: one pass (`embedding_loss_inv` from the positions). The old recipe (routine
//!   and copy forward on `f64`, the 95 statistics lifted, inverses of copy and routine) is
//!   about 10% slower with today's compiler, which emits the inverse's recomputation of the
//!   routine value-only: an obvious improvement, so used.
//! - BA: the old recipe (`ba_routine` forward on `f64`, its ancillas lifted to
//!   `GVar<Lanes<2>>`, inverses of `ba_copy` and `ba_routine`); one pass through
//!   `ba_reproj_i_inv` measures the same. Improvements: the weight-error derivative is the
//!   inverse of `ba_w_err_i` by hand (the old driver called the gradient API's `w_err_grad`),
//!   and the residuals' values are not computed for the seed (the inverse of the copy does not
//!   read them).
//!
//! Fragile: each driver must stay the only caller of its routines' instantiations in this
//! file. LLVM inlines a generic routine with one call site into it whatever its size, and not
//! otherwise; a second driver instantiating the same routine (for instance both BA recipes at
//! once) made the hand BA Jacobian 1.6× slower.
//!
//! Codegen settings: the workspace compiles `nilang-bench` (so this example, so the hand
//! drivers) with one codegen unit and `nilang-apps` (the generic drivers, e.g.
//! `ba::ba_jacobian_into`) with the release default of four. That alone makes the generic BA
//! Jacobian about 1.17× the hand one; with equal settings it is about 1.05×. For equal
//! settings add `--config 'profile.release.package.nilang-bench.codegen-units=4'` (both four)
//! or `--config 'profile.release.package.nilang-apps.codegen-units=1'` (both one) to the
//! command below. Sub-microsecond cases (Bessel, embedding) also move by a few percent from
//! build to build with code layout alone.
//!
//! Each case is checked first (hand and generic results agree to a relative `1e-12`, BA
//! `1e-10`, measured as `|a − b| / max(1, |a| + |b|)`; the largest difference is printed), then
//! timed interleaved: `R` rounds, each running hand and generic once (the first of the two
//! alternating), and the minimum of each kept. Output: a Markdown table
//! `case | hand (s) | generic (s) | generic/hand`, times per call.
//!
//! ```text
//! cargo run --release -p nilang-bench --example generic_vs_hand [-- SUBSTRING]
//! ```
//!
//! `SUBSTRING` (case-insensitive) keeps the cases whose name contains it (`bessel`,
//! `embedding`, `k=10`, `ba3`, ...). The data: `$NILANG_DATA` or `../shared/data` (see
//! `nilang_adbench::oracle::data_dir`); BA runs the benchmark's quick cases `ba1`–`ba5`.
use nilang::ad::Lanes;
use nilang::GVar;
use nilang_apps::adbench::ba::{BaInput, BLOCK_LEN, CAM_LEN};
use nilang_apps::adbench::oracle::{data_dir, max_rel_err};
use nilang_apps::adbench::sparse::SparseJacobian;
use nilang_apps::ba::{self, anc, ba_copy_inv, ba_routine, ba_routine_inv, ba_w_err_i_inv, BaAnc};
use nilang_apps::bessel::{self, ibesselj_n_inv};
use nilang_apps::embedding::{self, embedding_loss_inv, NV};
use nilang_bench::harness::timing::interleaved_min;
use rand_distr::{Distribution, StandardNormal};
use std::hint::black_box;

// ---------------------------------------------------------------------------------------
// Bessel

/// `(J_NU(z), J_NU'(z))` by hand: [`bessel::ibesselj_n`] is compute–copy–uncompute, so its
/// inverse on `GVar`, from the input with the output's adjoint seeded, is the whole gradient
/// (the recomputation of the routine at its start moves no adjoint); the value is what the
/// inverse subtracted from the output.
#[inline]
fn besselj_n_value_grad_hand<const NU: i32>(z: f64) -> (f64, f64) {
    let (mut go, mut gz) = (GVar::new(0.0, 1.0), GVar::from(z));
    ibesselj_n_inv::<GVar<f64>, NU>(&mut go, &mut gz);
    (-go.x, gz.g)
}

// ---------------------------------------------------------------------------------------
// Embedding

/// The embedding loss and its gradient by hand, in one pass: [`embedding::embedding_loss`] is
/// compute–copy–uncompute, so its inverse on `GVar` from the positions, with the loss's
/// adjoint seeded, is the whole gradient (its recomputation of the routine moves no adjoint,
/// and the compiler emits it value-only); the value is what the inverse subtracted from the
/// loss. `gx`: `10·k` gradient numbers, reused.
///
/// This replaces the old driver's recipe (routine and copy forward on `f64`, statistics
/// lifted to `GVar`, inverses of copy and routine): with today's compiler that recipe is
/// about 10% slower than this one (generic/hand 0.90–0.92 against it).
fn embedding_value_grad_hand(x: &[f64], k: usize, gx: &mut [GVar<f64>], grad: &mut [f64]) -> f64 {
    assert_eq!(x.len(), NV * k, "embedding: 10·k positions");
    for (g, &v) in gx.iter_mut().zip(x) {
        *g = GVar::from(v);
    }
    let mut go = GVar::new(0.0, 1.0);
    embedding_loss_inv(&mut go, gx, k);
    for (g, v) in grad.iter_mut().zip(gx.iter()) {
        *g = v.g;
    }
    -go.x
}

// ---------------------------------------------------------------------------------------
// Bundle adjustment

type G2 = GVar<Lanes<2>>;

#[inline(always)]
fn lift2(v: f64) -> G2 {
    GVar::new(Lanes([v; 2]), Lanes([0.0; 2]))
}

/// The 2×15 block of one observation by hand: [`ba_routine`] forward on `f64`, its ancillas
/// lifted to `GVar<Lanes<2>>`, the adjoints of the two residuals seeded (lane `j` = residual
/// `j`), the inverses of the copy and of the routine run once.
#[inline]
fn ba_block_hand(
    cam: &[f64; CAM_LEN],
    x: &[f64; 3],
    w: f64,
    feat: &[f64; 2],
) -> [[f64; BLOCK_LEN]; 2] {
    // the routine, values only
    let mut af = BaAnc::<f64>::default();
    let (mut camf, mut xf) = (*cam, *x);
    ba_routine(&mut af, &mut camf, &mut xf, feat);
    // lift, seed the adjoints of e (the inverse of the copy does not read e's value)
    let mut a: BaAnc<G2> = af.map(lift2);
    let mut camg: [G2; CAM_LEN] = cam.map(lift2);
    let mut xg: [G2; 3] = x.map(lift2);
    let mut wg = lift2(w);
    let mut e = [
        GVar::new(Lanes([0.0; 2]), Lanes([1.0, 0.0])),
        GVar::new(Lanes([0.0; 2]), Lanes([0.0, 1.0])),
    ];
    ba_copy_inv(&mut e, &mut wg, &mut a[anc::PR..anc::PR + 2]);
    ba_routine_inv(&mut a, &mut camg, &mut xg, feat);
    let mut out = [[0.0; BLOCK_LEN]; 2];
    for (r, row) in out.iter_mut().enumerate() {
        for (o, v) in row.iter_mut().zip(camg.iter().chain(&xg).chain([&wg])) {
            *o = v.g.0[r];
        }
    }
    out
}

/// `dz/dw` of the weight error `z = 1 − w²` by hand: the inverse of `ba_w_err_i` on `GVar`
/// with `z`'s adjoint seeded (it is compute–copy in `z`: no forward pass).
#[inline]
fn w_err_grad_hand(w: f64) -> f64 {
    let (mut gz, mut gw) = (GVar::new(0.0, 1.0), GVar::from(w));
    ba_w_err_i_inv(&mut gz, &mut gw);
    gw.g
}

/// The sparse Jacobian by hand (the loop of `ba::ba_jacobian_into`).
fn ba_jacobian_into_hand(b: &BaInput, jac: &mut SparseJacobian) {
    assert_eq!(jac.vals.len(), 31 * b.p, "BA: layout of another instance");
    for (i, &(c, q)) in b.obs.iter().enumerate() {
        let block = ba_block_hand(b.cam(c), b.point(q), b.w[i], b.feat(i));
        jac.fill_block(i, &block);
        jac.fill_w(i, w_err_grad_hand(b.w[i]));
    }
}

// ---------------------------------------------------------------------------------------
// Measuring

/// Min over `rounds` of one run of `hand` and of `generic`, interleaved.
fn min_time(rounds: usize, mut hand: impl FnMut(), mut generic: impl FnMut()) -> (f64, f64) {
    let t = interleaved_min(rounds, &mut [&mut hand, &mut generic]);
    (t[0], t[1])
}

/// The largest relative difference ([`max_rel_err`]), asserted `≤ tol`.
fn agree(case: &str, a: &[f64], b: &[f64], tol: f64) -> f64 {
    let d = max_rel_err(a, b);
    assert!(
        d <= tol,
        "{case}: hand and generic differ by {d:e} (> {tol:e})"
    );
    d
}

struct Row {
    case: String,
    hand: f64,
    generic: f64,
    diff: f64,
}

fn main() {
    let filter = std::env::args().nth(1).map(|s| s.to_lowercase());
    let wants = |case: &str| {
        filter
            .as_deref()
            .is_none_or(|f| case.to_lowercase().contains(f))
    };
    let data = data_dir();
    let mut rows: Vec<Row> = Vec::new();
    let mut push = |row: Row| {
        eprintln!(
            "{}: hand {:.3e} s, generic {:.3e} s, generic/hand {:.3}, max diff {:.1e}",
            row.case,
            row.hand,
            row.generic,
            row.generic / row.hand,
            row.diff
        );
        rows.push(row);
    };

    // Bessel J2(1) G, as the benchmark's single-point case
    let case = "Bessel J2(1) G";
    if wants(case) {
        let z = 1.0;
        let (vh, gh) = besselj_n_value_grad_hand::<2>(z);
        let (vg, gg) = bessel::besselj_n_value_grad::<2>(z);
        let diff = agree(case, &[vh, gh], &[vg, gg], 1e-12);
        let reps = 200_000;
        let (th, tg) = min_time(
            21,
            || {
                for _ in 0..reps {
                    black_box(besselj_n_value_grad_hand::<2>(black_box(z)));
                }
            },
            || {
                for _ in 0..reps {
                    black_box(bessel::besselj_n_value_grad::<2>(black_box(z)));
                }
            },
        );
        push(Row {
            case: case.into(),
            hand: th / reps as f64,
            generic: tg / reps as f64,
            diff,
        });
    }

    // embedding k = 2..10 G, the benchmark's inputs (k = 2: the oracle's positions, else
    // standard normal from the suite's generator, in the suite's order)
    let oracle = embedding::load_oracle(&data.join("oracle-reference/petersen_k2_seed0.json"))
        .expect("oracle-reference/petersen_k2_seed0.json");
    let mut rng = nilang_bench::suites::rng(3);
    for k in [2, 4, 6, 8, 10] {
        let x: Vec<f64> = if k == 2 {
            oracle.x.clone()
        } else {
            (0..NV * k)
                .map(|_| StandardNormal.sample(&mut rng))
                .collect()
        };
        let case = format!("embedding k={k} G");
        if !wants(&case) {
            continue;
        }
        let (mut gh, mut gg) = (vec![0.0; NV * k], vec![0.0; NV * k]);
        let mut wh = vec![GVar::default(); NV * k];
        let mut wg = embedding::Workspace::new(k);
        let vh = embedding_value_grad_hand(&x, k, &mut wh, &mut gh);
        let vg = embedding::value_and_gradient_into(&x, k, &mut wg, &mut gg);
        let diff = agree(&case, &[vh], &[vg], 1e-12).max(agree(&case, &gh, &gg, 1e-12));
        let reps = 20_000;
        let (th, tg) = min_time(
            15,
            || {
                for _ in 0..reps {
                    black_box(embedding_value_grad_hand(
                        black_box(&x),
                        k,
                        &mut wh,
                        &mut gh,
                    ));
                }
            },
            || {
                for _ in 0..reps {
                    black_box(embedding::value_and_gradient_into(
                        black_box(&x),
                        k,
                        &mut wg,
                        &mut gg,
                    ));
                }
            },
        );
        push(Row {
            case,
            hand: th / reps as f64,
            generic: tg / reps as f64,
            diff,
        });
    }

    // BA J on the benchmark's quick cases (ba1..ba5)
    let dir = data.join("adbench/ba");
    let mut files: Vec<(usize, String)> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter_map(|f| {
            let num = f.strip_prefix("ba")?.split('_').next()?.parse().ok()?;
            Some((num, f))
        })
        .filter(|(num, _)| *num <= 5)
        .collect();
    files.sort();
    for (num, file) in files {
        let case = format!("BA ba{num} J");
        if !wants(&case) {
            continue;
        }
        let b = BaInput::from_file(dir.join(&file)).expect("BA data");
        let (mut jh, mut jg) = (
            SparseJacobian::with_layout(&b),
            SparseJacobian::with_layout(&b),
        );
        ba_jacobian_into_hand(&b, &mut jh);
        ba::ba_jacobian_into(&b, &mut jg);
        let diff = agree(&case, &jh.vals, &jg.vals, 1e-10);
        let rounds = if b.p < 100_000 { 15 } else { 9 };
        let (th, tg) = min_time(
            rounds,
            || ba_jacobian_into_hand(black_box(&b), &mut jh),
            || ba::ba_jacobian_into(black_box(&b), &mut jg),
        );
        push(Row {
            case: format!("BA ba{num} (p = {}) J", b.p),
            hand: th,
            generic: tg,
            diff,
        });
    }

    println!("| case | hand (s) | generic (s) | generic/hand | max diff |");
    println!("|---|---:|---:|---:|---:|");
    for r in &rows {
        println!(
            "| {} | {:.3e} | {:.3e} | {:.3} | {:.0e} |",
            r.case,
            r.hand,
            r.generic,
            r.generic / r.hand,
            r.diff
        );
    }
}
