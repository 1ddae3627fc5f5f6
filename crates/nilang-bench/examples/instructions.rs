//! Instructions per evaluation of our cells where Enzyme is faster (issue 23: embedding,
//! Bessel J2(1.0), the schedules steppers), counted by
//! valgrind's callgrind:
//!
//! ```text
//! cargo build --release -p nilang-bench --example instructions
//! valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file=/tmp/ours.%p.out \
//!     target/release/examples/instructions /tmp/ours
//! ```
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
fn count(prefix: &str, mut f: impl FnMut()) -> f64 {
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
    let many = run(1 + N);
    many.saturating_sub(one) as f64 / N as f64
}

fn main() {
    let prefix = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "/tmp/ours".into());
    let mut rng = nilang_bench::suites::rng(3);
    for k in [2, 4, 6, 8, 10] {
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
    let o = count(&prefix, || {
        black_box(besselj(2, black_box(1.0f64)));
    });
    let g = count(&prefix, || {
        black_box(besselj_n_value_grad::<2>(black_box(1.0)));
    });
    println!("bessel J2(1.0)\trust-O {o:.0}\tnilang-G {g:.0}");
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
