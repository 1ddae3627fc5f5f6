//! The `logistic` suite's NiLang.rs gradient (`nilang-G`: `Plan::value_and_gradient` of
//! `logistic_nll`) and its objective (`nilang-O`) run `reps` times each at `n` samples (the
//! arguments `n reps`, 10000 and 5 by default; a third argument `g` runs the gradient alone, for a
//! profile of it), in functions of their own, for an instruction count of each under callgrind
//! (issue 21: what a `Plan` does per call for a program nobody tuned):
//!
//! ```text
//! CARGO_PROFILE_RELEASE_DEBUG=line-tables-only cargo build --release -p nilang-bench --example logistic_cost
//! valgrind --tool=callgrind --callgrind-out-file=/tmp/logistic.out target/release/examples/logistic_cost
//! callgrind_annotate --inclusive=yes /tmp/logistic.out | head -40
//! ```
use nilang::ad::Plan;
use nilang_bench::suites::logistic::nilang::{logistic_nll, LogisticNll, NllStore};
use nilang_bench::suites::logistic::{LogisticCase, D};

#[inline(never)]
fn run_objective(reps: usize, c: &LogisticCase, w: &mut [f64], ws: &mut [Vec<f64>; 2]) -> f64 {
    let mut l = 0.0;
    for _ in 0..reps {
        l = 0.0;
        let [z, s] = ws;
        let (wd, b) = w.split_at_mut(D);
        logistic_nll(&mut l, wd, b, z, s, &c.x, &c.y);
    }
    l
}

#[inline(never)]
fn run_gradient<'a>(
    reps: usize,
    plan: &mut Plan<NllStore<'a>>,
    c: &'a LogisticCase,
    w: &mut [f64],
    ws: &mut [Vec<f64>; 2],
    g: &mut [f64],
) -> f64 {
    let mut v = 0.0;
    for _ in 0..reps {
        let (wd, b) = w.split_at_mut(D);
        let [z, s] = ws;
        let args = (&mut 0.0, wd, b, &mut z[..], &mut s[..], &c.x[..], &c.y[..]);
        let (l, st) = plan.value_and_gradient(&LogisticNll, args, 0);
        v = l;
        for (o, x) in g.iter_mut().zip(st.1.iter().chain(st.2.iter())) {
            *o = x.g;
        }
    }
    v
}

fn main() {
    let arg = |i: usize, v: usize| {
        std::env::args()
            .nth(i)
            .map_or(v, |a| a.parse().expect("a number"))
    };
    let (n, reps) = (arg(1, 10_000), arg(2, 5));
    let gradient_only = std::env::args().nth(3).is_some_and(|a| a == "g");
    let c = LogisticCase::random(n, &mut nilang_bench::suites::rng(22));
    let mut w = c.w.clone();
    let mut ws: [Vec<f64>; 2] = std::array::from_fn(|_| vec![0.0; n]);
    let l = if gradient_only {
        f64::NAN
    } else {
        run_objective(reps, &c, &mut w, &mut ws)
    };
    let mut plan = Plan::new();
    let mut g = vec![0.0; D + 1];
    let v = run_gradient(reps, &mut plan, &c, &mut w, &mut ws, &mut g);
    println!("n={n}: loss {l} (gradient pass {v}), ∂L/∂b {}", g[D]);
    // the least time of one call of each (a loaded machine: the minimum is the signal)
    let least = |f: &mut dyn FnMut()| {
        (0..reps.max(1))
            .map(|_| {
                let t = std::time::Instant::now();
                f();
                t.elapsed().as_secs_f64()
            })
            .fold(f64::INFINITY, f64::min)
    };
    let to = least(&mut || {
        run_objective(1, &c, &mut w, &mut ws);
    });
    let tg = least(&mut || {
        run_gradient(1, &mut plan, &c, &mut w, &mut ws, &mut g);
    });
    println!("least time of a call: objective {to:.3e} s, gradient {tg:.3e} s");
}
