//! `gmm` suite: `nilang_apps::gmm`, the ADBench objective as one reversible program
//! (compute–copy–uncompute per block of points, checks compiled out): call (O), uncall (U: from
//! the output state, the loss's value restored before each run, as the other suites) and
//! the gradient (G) by the gradient API (`nilang_apps::gmm::gmm_value_grad`: one reverse
//! pass, chosen by the compiler's one-pass analysis). All
//! buffers (`O(K·d·block)`, independent of n) are allocated when the kernel is built.
//!
//! The parallel cells (tools `nilang-t1`, `nilang-tN`): the gradient over chunks of points on a
//! rayon pool of N threads (`nilang_apps::gmm::gmm_value_grad_par`, the library's data-parallel
//! gradient `nilang::ad::TermSum`), the same result, bit for bit, for any N.
//!
//! The batched cells (tools `nilang-x4`, `nilang-x8`): the same program's gradient with 4 or 8
//! points per instruction (`nilang_apps::gmm::gmm_value_grad_batched` on `F64x4`/`F64x8`).
use super::GmmCase;
use crate::harness::{Kernel, Pool};
use crate::report::Measure;
use nilang::numbers::{F64x4, F64x8};
use nilang_apps::adbench::gmm::GmmInput;
use nilang_apps::gmm::{
    gmm_value_grad, gmm_value_grad_batched, gmm_value_grad_par, GmmBatchWork, GmmGradWork,
    GmmParWork, GmmWork,
};

/// Our tools and their kernels for one case: `nilang` (O, U, G), then the parallel gradient
/// on each pool, then the batched gradients.
pub fn cells<'a>(case: &'a GmmCase, pools: &'a [Pool]) -> Vec<(String, Vec<Kernel<'a>>)> {
    let mut out = vec![("nilang".to_string(), kernels(case))];
    out.extend(pools.iter().map(|p| (p.tool.clone(), parallel(case, p))));
    out.push(("nilang-x4".to_string(), batched::<F64x4>(case)));
    out.push(("nilang-x8".to_string(), batched::<F64x8>(case)));
    out
}

/// The GMM gradient on batches of `B::LANES` points (tools `nilang-x4`, `nilang-x8`).
fn batched<B>(case: &GmmCase) -> Vec<Kernel<'_>>
where
    B: nilang::numbers::Batch + 'static,
    for<'g> GmmBatchWork<'g, B>: Send,
{
    let g: &GmmInput = &case.inst;
    let np = g.n_params();
    vec![Kernel::with_state(
        Measure::G,
        (GmmBatchWork::<B>::new(g.d, g.k), vec![0.0; np]),
        move |s: &mut (GmmBatchWork<'_, B>, Vec<f64>)| {
            gmm_value_grad_batched(g, &mut s.0, &mut s.1);
        },
        |s| s.1.clone(),
    )]
}

struct Obj {
    g: GmmInput,
    p: Vec<f64>,
    w: GmmWork<f64>,
    out: f64,
}

impl Obj {
    fn new(case: &GmmCase) -> Obj {
        let g = case.inst.clone();
        Obj {
            p: g.params(),
            w: GmmWork::new(g.d, g.k),
            out: 0.0,
            g,
        }
    }
    fn call(&mut self) {
        self.run(GmmWork::objective)
    }
    fn uncall(&mut self) {
        self.run(GmmWork::objective_inv)
    }
    /// `f` (the objective or its inverse) on this state.
    fn run(&mut self, f: fn(&mut GmmWork<f64>, &mut f64, &mut [f64], &GmmInput)) {
        f(&mut self.w, &mut self.out, &mut self.p, &self.g);
    }
}

/// Call, uncall and gradient of the case's instance.
fn kernels(case: &GmmCase) -> Vec<Kernel<'_>> {
    let g: &GmmInput = &case.inst;
    let np = g.n_params();
    let work = GmmGradWork::new(g.d, g.k);
    // the output state: the loss's value, the parameters and the (zero again) work buffers
    let mut after = Obj::new(case);
    after.call();
    let out0 = after.out;
    vec![
        Kernel::with_state(
            Measure::O,
            Obj::new(case),
            |s: &mut Obj| {
                s.out = 0.0;
                s.call();
            },
            |s| vec![s.out],
        ),
        Kernel::with_state(
            Measure::U,
            after,
            move |s: &mut Obj| {
                s.out = out0;
                s.uncall();
            },
            |s| s.p.clone(),
        ),
        Kernel::with_state(
            Measure::G,
            (work, vec![0.0; np]),
            move |s: &mut (GmmGradWork<'_>, Vec<f64>)| {
                gmm_value_grad(g, &mut s.0, &mut s.1);
            },
            |s| s.1.clone(),
        ),
    ]
}

/// The gradient on a pool of threads.
fn parallel<'a>(case: &'a GmmCase, pool: &'a Pool) -> Vec<Kernel<'a>> {
    let g = &case.inst;
    let work = GmmParWork::new(g.d, g.k, g.n);
    vec![Kernel::with_state(
        Measure::G,
        (work, vec![0.0; g.n_params()]),
        move |s: &mut (GmmParWork<'a>, Vec<f64>)| {
            pool.install(|| gmm_value_grad_par(g, &mut s.0, &mut s.1));
        },
        |s| s.1.clone(),
    )]
}
