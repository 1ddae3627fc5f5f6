//! The complex sparse `mul!` backward pass (the `sparse` suite's `mul! complex 1000x1000`
//! case): the hand-written scatter–gather (`manual-B`) and the gradient API
//! (`nilang-B`, `sparse_matvec_vjp`) run `REPS` times each, in functions of their own, for an
//! instruction count of each under callgrind (issue 28: what the generic backward pass costs
//! against the hand one):
//!
//! ```text
//! cargo build --release -p nilang-bench --example sparse_cost
//! target/release/examples/sparse_cost        # minimum times, 1000x1000 (or: sparse_cost 300)
//! valgrind --tool=callgrind --callgrind-out-file=/tmp/sparse.out target/release/examples/sparse_cost
//! callgrind_annotate --inclusive=yes /tmp/sparse.out | grep -E 'run_manual|run_nilang'
//! ```
//!
//! It then times the two parts of `nilang-B` on their own, by the library's code: the
//! refresh of the plan's storage of the values (`GradArg::refresh`: the values lifted into
//! `Complex<GVar<f64>>`, zero adjoints) and the adjoint-only backward pass
//! (`Reversible::uncall_dead` on storage already lifted and seeded).
use nilang::ad::GradArg;
use nilang::{GVar, Reversible};
use nilang_apps::sparse::{sparse_matvec_vjp, ISparseMatvec, SparseMatvecScratch, SparseView};
use nilang_bench::suites::sparse::{matvec_backward, Csc};
use num_complex::{Complex, Complex64};
use rand::Rng;

const REPS: usize = 5;

/// Complex gradient numbers, as the plan stores a `&mut [Complex64]` argument.
type Stored = Vec<Complex<GVar<f64>>>;

/// The plan's refresh of the values' storage (values lifted, adjoints zeroed).
#[inline(never)]
fn run_refresh(av: &mut [Complex64], st: &mut Stored) {
    for _ in 0..REPS {
        let arg: &mut [Complex64] = &mut *av;
        <&mut [Complex64] as GradArg<f64>>::refresh::<f64>(&arg, st);
    }
}

/// The adjoint-only backward pass (`y` dead) on lifted, seeded storage.
#[inline(never)]
fn run_backward(y: &mut Stored, p: &SparseView<'_>, av: &mut Stored, x: &mut Stored) {
    for _ in 0..REPS {
        ISparseMatvec.uncall_dead((&mut y[..], p, &mut av[..], &mut x[..]), 1);
    }
}

#[inline(never)]
fn run_manual(
    a: &Csc<Complex64>,
    x: &[Complex64],
    ybar: &[Complex64],
    xbar: &mut [Complex64],
    abar: &mut [Complex64],
) {
    for _ in 0..REPS {
        matvec_backward(a, x, ybar, xbar, abar);
    }
}

#[inline(never)]
fn run_nilang<'p>(
    ybar: &[f64],
    p: &'p SparseView<'p>,
    av: &mut [Complex64],
    x: &mut [Complex64],
    s: &mut SparseMatvecScratch<'p>,
) {
    for _ in 0..REPS {
        sparse_matvec_vjp(ybar, p, av, x, s);
    }
}

fn main() {
    // `sparse_cost N` for an N×N matrix (the suite's quick case: 1000)
    let n = std::env::args()
        .nth(1)
        .map_or(1000, |a| a.parse().expect("a size"));
    let mut rng = nilang_bench::suites::rng(2);
    let z = |r: &mut dyn rand::RngCore| Complex64::new(r.gen::<f64>(), r.gen::<f64>());
    let a = Csc::random(n, n, 0.05, &mut rng, z);
    let x: Vec<Complex64> = (0..n).map(|_| z(&mut rng)).collect();
    let ybar: Vec<Complex64> = (0..n).map(|_| z(&mut rng)).collect();
    let il = |v: &[Complex64]| -> Vec<f64> { v.iter().flat_map(|c| [c.re, c.im]).collect() };
    let (mut av, mut xv, yb) = (a.nzval.clone(), x.clone(), il(&ybar));
    let p = SparseView {
        nrows: a.m,
        ncols: a.n,
        indptr: &a.colptr,
        indices: &a.rowval,
    };
    let mut s = SparseMatvecScratch::new(n);
    let (mut xbar, mut abar) = (
        vec![Complex64::default(); n],
        vec![Complex64::default(); a.nnz()],
    );
    run_manual(&a, &x, &ybar, &mut xbar, &mut abar);
    run_nilang(&yb, &p, &mut av, &mut xv, &mut s);
    let err = s
        .grad_x()
        .zip(il(&xbar))
        .chain(s.grad_values().zip(il(&abar)))
        .map(|(u, v)| (u - v).abs())
        .fold(0.0, f64::max);
    // minimum over alternating timed runs (per call)
    let (mut tm, mut tn) = (f64::INFINITY, f64::INFINITY);
    for _ in 0..40 {
        let t = std::time::Instant::now();
        run_manual(&a, &x, &ybar, &mut xbar, &mut abar);
        tm = tm.min(t.elapsed().as_secs_f64() / REPS as f64);
        let t = std::time::Instant::now();
        run_nilang(&yb, &p, &mut av, &mut xv, &mut s);
        tn = tn.min(t.elapsed().as_secs_f64() / REPS as f64);
    }
    println!(
        "nnz {}; max |nilang - manual| {err:.1e}; minimum per call: manual {tm:.3e} s, nilang {tn:.3e} s ({:.2}x)",
        a.nnz(),
        tn / tm
    );
    // nilang-B's parts: the refresh of the values' storage and the backward pass alone
    let lift = |v: &mut [Complex64]| -> Stored {
        let arg: &mut [Complex64] = v;
        <&mut [Complex64] as GradArg<f64>>::store::<f64>(&arg)
    };
    let (mut sa, mut sx) = (lift(&mut av), lift(&mut xv));
    let mut sy = lift(&mut vec![Complex64::default(); n]);
    for (v, g) in sy.iter_mut().zip(&ybar) {
        (v.re.g, v.im.g) = (g.re, g.im);
    }
    let (mut tr, mut tb) = (f64::INFINITY, f64::INFINITY);
    for _ in 0..40 {
        let t = std::time::Instant::now();
        run_refresh(&mut av, &mut sa);
        tr = tr.min(t.elapsed().as_secs_f64() / REPS as f64);
        let t = std::time::Instant::now();
        run_backward(&mut sy, &p, &mut sa, &mut sx);
        tb = tb.min(t.elapsed().as_secs_f64() / REPS as f64);
    }
    println!(
        "nilang-B's parts: refresh of the values' storage {tr:.3e} s ({:.2}x manual), backward pass alone {tb:.3e} s ({:.2}x manual)",
        tr / tm,
        tb / tm
    );
}
