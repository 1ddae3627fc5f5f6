//! Instructions per evaluation of our cells where Enzyme is faster (issue 23: embedding,
//! Bessel J2(1.0), the schedules steppers, BA per observation, sparse `mul!` per nonzero, and
//! the untuned suites `mlp` B=256 per sample, `pairwise` N=256 per pair, `logistic` n=10000 per
//! sample),
//! counted by
//! valgrind's callgrind:
//!
//! ```text
//! cargo build --release -p nilang-bench --example instructions
//! valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file=/tmp/ours.%p.out \
//!     target/release/examples/instructions /tmp/ours [embedding bessel schedules ba sparse mlp pairwise logistic]
//! ```
//!
//! The suites after the prefix select what is counted (default: all).
//!
//! Each cell's loop runs once and then `1 + N` times, each run bracketed by callgrind's client
//! requests (start instrumentation, zero, loop, dump, stop), so a dump holds that loop alone;
//! the difference of the two dumps over `N` is one evaluation's instructions. The argument is
//! the dump files' prefix (`--callgrind-out-file` without `.%p.out`). Outside valgrind the
//! requests do nothing and the program prints nothing useful. `peers/enzyme/instructions.py`
//! counts Enzyme's cells the same way.
use nilang::numbers::F64x8;
use nilang_apps::bessel::besselj_n_value_grad;
use nilang_apps::embedding::{embedding_loss, hessian_lanes, value_and_gradient_into, Workspace};
use nilang_bench::ad::Objective;
use nilang_bench::suites::bessel::besselj;
use nilang_bench::suites::embedding::Petersen;
use rand_distr::{Distribution, StandardNormal};
use std::hint::black_box;

const N: usize = 100;

/// A callgrind client request (valgrind.h's magic sequence for amd64; a no-op elsewhere).
#[cfg(target_arch = "x86_64")]
fn request(code: usize) {
    let args = [code, 0, 0, 0, 0, 0];
    let mut result: usize = 0;
    // SAFETY: the rotations of rdi by 3+13+61+51 = 128 bits leave it unchanged and
    // xchg rbx, rbx is a no-op; valgrind reads `args` through rax and writes rdx.
    unsafe {
        std::arch::asm!(
            "rol rdi, 3", "rol rdi, 13", "rol rdi, 61", "rol rdi, 51", "xchg rbx, rbx",
            in("rax") args.as_ptr(), inout("rdx") result, out("rdi") _,
        );
    }
    black_box(result);
}
#[cfg(not(target_arch = "x86_64"))]
fn request(_: usize) {}

const BASE: usize = ((b'C' as usize) << 24) | ((b'T' as usize) << 16);
const DUMP: usize = BASE;
const ZERO: usize = BASE + 1;
const START: usize = BASE + 4;
const STOP: usize = BASE + 5;

/// The instruction total of callgrind's newest dump under `prefix`.
fn newest_dump(prefix: &str) -> u64 {
    let dir = std::path::Path::new(prefix).parent().expect("a path");
    let stem = std::path::Path::new(prefix)
        .file_name()
        .expect("a file name");
    let mut best: Option<(u64, u64)> = None;
    for e in std::fs::read_dir(dir).expect("the dump folder").flatten() {
        let name = e.file_name().to_string_lossy().to_string();
        if !name.starts_with(&*stem.to_string_lossy()) {
            continue;
        }
        let Some(part) = name.rsplit('.').next().and_then(|s| s.parse::<u64>().ok()) else {
            continue;
        };
        let text = std::fs::read_to_string(e.path()).unwrap_or_default();
        let total = text
            .lines()
            .find_map(|l| {
                l.strip_prefix("totals:")
                    .or_else(|| l.strip_prefix("summary:"))
            })
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or(0);
        if best.is_none_or(|(p, _)| part > p) {
            best = Some((part, total));
        }
    }
    best.map_or(0, |(_, t)| t)
}

/// One evaluation's instructions of `f`.
fn count(prefix: &str, f: impl FnMut()) -> f64 {
    count_n(prefix, N, f)
}

/// One evaluation's instructions of `f`, from runs of 1 and `1 + n` evaluations.
fn count_n(prefix: &str, n: usize, mut f: impl FnMut()) -> f64 {
    let mut run = |reps: usize| {
        request(START);
        request(ZERO);
        for _ in 0..reps {
            f();
        }
        request(DUMP);
        request(STOP);
        newest_dump(prefix)
    };
    let one = run(1);
    let many = run(1 + n);
    many.saturating_sub(one) as f64 / n as f64
}

fn main() {
    let prefix = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "/tmp/ours".into());
    let only: Vec<String> = std::env::args().skip(2).collect();
    let wants = |suite: &str| only.is_empty() || only.iter().any(|s| s == suite);
    if wants("ba") {
        ba(&prefix);
    }
    if wants("sparse") {
        sparse_matvec(&prefix);
    }
    untuned(&prefix, &wants);
    let mut rng = nilang_bench::suites::rng(3);
    for k in [2, 4, 6, 8, 10].into_iter().filter(|_| wants("embedding")) {
        let x: Vec<f64> = (0..10 * k)
            .map(|_| StandardNormal.sample(&mut rng))
            .collect();
        let p = Petersen::new(k);
        let o = count(&prefix, || {
            black_box(p.eval(black_box(&x[..])));
        });
        let mut xs = x.clone();
        let nil_o = count(&prefix, || {
            let mut out = 0.0;
            embedding_loss(&mut out, &mut xs, k);
            black_box(out);
        });
        let (mut ws, mut g) = (Workspace::new(k), vec![0.0; 10 * k]);
        let nil_g = count(&prefix, || {
            black_box(value_and_gradient_into(&x, k, &mut ws, &mut g));
        });
        let nil_h = count(&prefix, || {
            black_box(hessian_lanes::<F64x8>(&x, k));
        });
        println!("embedding k={k}\trust-O {o:.0}\tnilang-O {nil_o:.0}\tnilang-G {nil_g:.0}\tnilang-x8-H {nil_h:.0}");
    }
    if wants("bessel") {
        let o = count(&prefix, || {
            black_box(besselj(2, black_box(1.0f64)));
        });
        let g = count(&prefix, || {
            black_box(besselj_n_value_grad::<2>(black_box(1.0)));
        });
        println!("bessel J2(1.0)\trust-O {o:.0}\tnilang-G {g:.0}");
    }
    if wants("schedules") {
        // the schedules steppers, store-all (per gradient, and per step)
        use nilang_apps::lorenz::{gradient_store_all, integrate, START as X0};
        let t = 1000;
        let o = count(&prefix, || {
            black_box(integrate(black_box(&X0), t));
        });
        let g = count(&prefix, || {
            black_box(gradient_store_all(black_box(&X0), t));
        });
        println!("schedules T={t}\trust-O {o:.0}\tstore-all-G {g:.0}");
        use nilang::ad::time_loop::{Schedule, TimeLoop};
        use nilang_bench::suites::schedules::pde::{pde_forward, pde_gradient, Heat, Sumsq, STEPS};
        let tl = TimeLoop::new(Heat, Sumsq, STEPS, Schedule::StoreAll);
        let o = count(&prefix, || {
            black_box(pde_forward(&tl));
        });
        let g = count(&prefix, || {
            black_box(pde_gradient(&tl));
        });
        println!("schedules pde-128x{STEPS}\trust-O {o:.0}\tstore-all-G {g:.0}");
    }
}

/// BA per observation, on ba1 (every observation of the ADBench files holds the same camera,
/// point, weight and feature, so the count per observation does not depend on the instance):
/// the plain objective `rust-O`, the reversible one `nilang-O`, our Jacobian `nilang-J`.
fn ba(prefix: &str) {
    use nilang_adbench::ba::BaInput;
    use nilang_adbench::sparse::SparseJacobian;
    use nilang_apps::ba::{ba_jacobian_into, ba_objective_into};
    use nilang_bench::suites::ba::baselines::objective;
    let dir = nilang_adbench::oracle::data_dir().join("adbench/ba");
    let file = std::fs::read_dir(&dir)
        .expect("the BA data folder")
        .flatten()
        .map(|e| e.path())
        .find(|p| {
            p.file_name()
                .is_some_and(|f| f.to_string_lossy().starts_with("ba1_"))
        })
        .expect("ba1 in the BA data folder");
    let b = BaInput::from_file(&file).expect("ba1 loads");
    let per_obs = b.p as f64;
    let mut out = vec![0.0; 3 * b.p];
    let o = count_n(prefix, 10, || {
        objective(black_box(&b), &mut out);
        black_box(&out);
    });
    let (e, z) = out.split_at_mut(2 * b.p);
    let nil_o = count_n(prefix, 10, || {
        ba_objective_into(black_box(&b), e, z);
        black_box(&e);
    });
    let mut jac = SparseJacobian::with_layout(&b);
    let nil_j = count_n(prefix, 10, || {
        ba_jacobian_into(black_box(&b), &mut jac);
        black_box(&jac.vals);
    });
    println!(
        "ba per observation\trust-O {:.1}\tnilang-O {:.1}\tnilang-J {:.1}",
        o / per_obs,
        nil_o / per_obs,
        nil_j / per_obs
    );
}

/// Sparse complex `mul!` per nonzero, on the suite's shape (1000 × 1000, density 0.05): the
/// plain `y = A x` (`rust-O`), our reversible one (`nilang-O`), our backward pass `nilang-B`
/// and the hand-written one `manual-B` (the counts depend on the pattern only through nnz).
fn sparse_matvec(prefix: &str) {
    use nilang_apps::sparse::{
        i_sparse_dot, i_sparse_matvec, sparse_matvec_vjp, SparseMatvecScratch, SparseView,
    };
    use nilang_bench::suites::sparse::{dot_scatter, matvec, matvec_backward, Csc};
    use num_complex::Complex64;
    use rand::Rng;
    let n = 1000;
    let mut rng = nilang_bench::suites::rng(2);
    let c = |r: &mut dyn rand::RngCore| Complex64::new(r.gen::<f64>(), r.gen::<f64>());
    let a = Csc::random(n, n, 0.05, &mut rng, c);
    let x: Vec<Complex64> = (0..n).map(|_| c(&mut rng)).collect();
    let ybar: Vec<Complex64> = (0..n).map(|_| c(&mut rng)).collect();
    let nnz = a.nnz() as f64;
    let mut y = vec![Complex64::new(0.0, 0.0); n];
    let o = count(prefix, || {
        matvec(black_box(&a), black_box(&x), &mut y);
        black_box(&y);
    });
    let (mut xbar, mut abar) = (vec![y[0]; n], vec![y[0]; a.nnz()]);
    let manual = count(prefix, || {
        matvec_backward(black_box(&a), black_box(&x), &ybar, &mut xbar, &mut abar);
        black_box(&abar);
    });
    let flat = |z: &[Complex64]| -> Vec<f64> { z.iter().flat_map(|c| [c.re, c.im]).collect() };
    let view = SparseView {
        nrows: a.m,
        ncols: a.n,
        indptr: &a.colptr,
        indices: &a.rowval,
    };
    let (mut av, mut xv, yb) = (a.nzval.clone(), x.clone(), flat(&ybar));
    let mut yv = vec![Complex64::new(0.0, 0.0); n];
    let nil_o = count(prefix, || {
        yv.iter_mut().for_each(|v| *v = Complex64::new(0.0, 0.0));
        i_sparse_matvec(&mut yv, &view, &mut av, &mut xv);
        black_box(&yv);
    });
    let mut scratch = SparseMatvecScratch::new(n);
    let nil_b = count(prefix, || {
        sparse_matvec_vjp(&yb, &view, &mut av, &mut xv, &mut scratch);
        black_box(&scratch);
    });
    // the Frobenius dot's objective: the plain scatter-gather against the reversible one
    let ra = Csc::random(n, n, 0.05, &mut rng, |r| r.gen::<f64>());
    let rb = Csc::random(n, n, 0.05, &mut rng, |r| r.gen::<f64>());
    let mut w = vec![0.0; n];
    let dot_o = count(prefix, || {
        black_box(dot_scatter(black_box(&ra), black_box(&rb), &mut w));
    });
    let (va, vb) = (
        SparseView {
            nrows: n,
            ncols: n,
            indptr: &ra.colptr,
            indices: &ra.rowval,
        },
        SparseView {
            nrows: n,
            ncols: n,
            indptr: &rb.colptr,
            indices: &rb.rowval,
        },
    );
    let (mut na, mut nb) = (ra.nzval.clone(), rb.nzval.clone());
    let dot_nil = count(prefix, || {
        let mut r = 0.0;
        i_sparse_dot(&mut r, &va, &mut na, &vb, &mut nb, &mut w);
        black_box(r);
    });
    let dnnz = (ra.nnz() + rb.nnz()) as f64;
    println!(
        "sparse dot per nonzero of A and B (nnz {dnnz})\trust-O {:.2}\tnilang-O {:.2}",
        dot_o / dnnz,
        dot_nil / dnnz
    );
    println!(
        "sparse mul! per nonzero (nnz {nnz})\trust-O {:.2}\tnilang-O {:.2}\tnilang-B {:.2}\tmanual-B {:.2}",
        o / nnz,
        nil_o / nnz,
        nil_b / nnz,
        manual / nnz
    );
}

/// The untuned suites, on the bench's own cells (`rust-O`, the hand-written `manual-G`/`rust-G`,
/// and our kernels `nilang-O`, `nilang-G` exactly as the bench runs them), per unit of work:
/// mlp B=256 per sample, pairwise N=256 per pair, logistic n=10000 per sample.
fn untuned(prefix: &str, wants: &dyn Fn(&str) -> bool) {
    use nilang_bench::harness::Kernel;
    let ours = |kernels: &mut [Kernel<'_>]| -> (f64, f64) {
        let mut c = kernels.iter_mut().map(|k| count(prefix, || k.run()));
        (c.next().expect("O"), c.next().expect("G"))
    };
    if wants("mlp") {
        use nilang_bench::suites::mlp::{self, MlpCase, PlainWs, Tanh};
        let c = MlpCase::new(256);
        let mut ws = PlainWs::new(c.batch);
        let o = count(prefix, || {
            black_box(mlp::objective(
                black_box(&c.p),
                &c.x,
                &c.t,
                &mut ws,
                Tanh::Lanes,
            ));
        });
        let mut g = vec![0.0; mlp::N_PARAMS];
        let hand = count(prefix, || {
            black_box(mlp::value_grad(
                black_box(&c.p),
                &c.x,
                &c.t,
                &mut ws,
                &mut g,
                Tanh::Lanes,
            ));
        });
        let (nil_o, nil_g) = ours(&mut mlp::nilang::kernels(&c));
        let per = c.batch as f64;
        println!(
            "mlp B={} per sample\trust-O {:.1}\tmanual-G {:.1}\tnilang-O {:.1}\tnilang-G {:.1}",
            c.batch,
            o / per,
            hand / per,
            nil_o / per,
            nil_g / per
        );
    }
    if wants("pairwise") {
        use nilang_bench::suites::pairwise::{self, PairwiseCase};
        let c = PairwiseCase::random(256, &mut nilang_bench::suites::rng(21));
        let o = count(prefix, || {
            black_box(pairwise::energy(black_box(&c.x)));
        });
        let mut g = vec![0.0; c.x.len()];
        let hand = count(prefix, || {
            black_box(pairwise::energy_gradient(black_box(&c.x), &mut g));
        });
        let mut cells = pairwise::nilang::cells(&c, &[]);
        let (nil_o, nil_g) = ours(&mut cells[0].1);
        let per = (c.n * (c.n - 1) / 2) as f64;
        println!(
            "pairwise N={} per pair\trust-O {:.2}\trust-G {:.2}\tnilang-O {:.2}\tnilang-G {:.2}",
            c.n,
            o / per,
            hand / per,
            nil_o / per,
            nil_g / per
        );
    }
    if wants("logistic") {
        use nilang_bench::suites::logistic::{self, LogisticCase};
        let c = LogisticCase::random(10000, &mut nilang_bench::suites::rng(22));
        let o = count_n(prefix, 10, || {
            black_box(logistic::nll(black_box(&c.w), &c.x, &c.y));
        });
        let mut g = vec![0.0; c.w.len()];
        let hand = count_n(prefix, 10, || {
            black_box(logistic::nll_gradient(black_box(&c.w), &c.x, &c.y, &mut g));
        });
        let mut cells = logistic::nilang::cells(&c, &[]);
        let mut c2 = cells[0]
            .1
            .iter_mut()
            .map(|k| count_n(prefix, 10, || k.run()));
        let (nil_o, nil_g) = (c2.next().expect("O"), c2.next().expect("G"));
        let per = c.n as f64;
        println!(
            "logistic n={} per sample\trust-O {:.1}\trust-G {:.1}\tnilang-O {:.1}\tnilang-G {:.1}",
            c.n,
            o / per,
            hand / per,
            nil_o / per,
            nil_g / per
        );
    }
}
