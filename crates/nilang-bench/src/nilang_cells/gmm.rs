//! `gmm` suite: `nilang_apps::gmm`, the ADBench objective as one reversible program
//! (compute–copy–uncompute per block of points, checks compiled out): call (O), call + uncall (U) and
//! the gradient (G) by the gradient API (`nilang_apps::gmm::gmm_value_grad`: one reverse
//! pass, chosen by the compiler's one-pass analysis). All
//! buffers (`O(K·d·block)`, independent of n) are allocated when the kernel is built.
//!
//! [`Batched`] (tools `nilang-x4`, `nilang-x8`): the same program's gradient with 4 or 8
//! points per instruction (`nilang_apps::gmm::gmm_value_grad_batched` on `F64x4`/`F64x8`).
use crate::hook::CellProvider;
use crate::hook::Kernel;
use crate::report::Measure;
use crate::suites::gmm::{GmmCase, GmmInstance};
use nilang::numbers::{F64x4, F64x8};
use nilang_apps::adbench::gmm::GmmInput;
use nilang_apps::gmm::{
    gmm_value_grad, gmm_value_grad_batched, GmmBatchWork, GmmGradWork, GmmWork,
};

fn input(g: &GmmInstance) -> GmmInput {
    g.clone()
}

struct Obj {
    g: GmmInput,
    p: Vec<f64>,
    w: GmmWork<f64>,
    out: f64,
}

impl Obj {
    fn new(case: &GmmCase) -> Obj {
        let g = input(&case.inst);
        Obj {
            p: g.params(),
            w: GmmWork::new(g.d, g.k),
            out: 0.0,
            g,
        }
    }
    fn call(&mut self) {
        let g = &self.g;
        self.w.objective(
            &mut self.out,
            &mut self.p,
            &g.x,
            g.d,
            g.k,
            g.n,
            g.gamma,
            g.m,
        );
    }
    fn uncall(&mut self) {
        let g = &self.g;
        self.w.objective_inv(
            &mut self.out,
            &mut self.p,
            &g.x,
            g.d,
            g.k,
            g.n,
            g.gamma,
            g.m,
        );
    }
}

/// Call, call + uncall and gradient of the case's instance.
pub fn kernels(case: &GmmCase) -> Vec<Kernel<'_>> {
    let g: &GmmInput = &case.inst;
    let np = g.n_params();
    let work = GmmGradWork::new(g.d, g.k);
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
            Obj::new(case),
            |s: &mut Obj| {
                s.out = 0.0;
                s.call();
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

/// The GMM gradient on batches of `lanes` (4 or 8) points (tool `nilang-x{lanes}`).
pub struct Batched {
    name: String,
    lanes: usize,
}

impl Batched {
    /// The cells of `lanes`-point batches (4 or 8).
    pub fn new(lanes: usize) -> Self {
        assert!(lanes == 4 || lanes == 8, "Batched: 4 or 8 lanes");
        Batched {
            name: format!("nilang-x{lanes}"),
            lanes,
        }
    }
}

impl CellProvider for Batched {
    fn tool(&self) -> &str {
        &self.name
    }
    fn gmm<'a>(&'a self, case: &'a GmmCase) -> Vec<Kernel<'a>> {
        let g: &GmmInput = &case.inst;
        let np = g.n_params();
        if self.lanes == 4 {
            vec![Kernel::with_state(
                Measure::G,
                (GmmBatchWork::<F64x4>::new(g.d, g.k), vec![0.0; np]),
                move |s: &mut (GmmBatchWork<'_, F64x4>, Vec<f64>)| {
                    gmm_value_grad_batched(g, &mut s.0, &mut s.1);
                },
                |s| s.1.clone(),
            )]
        } else {
            vec![Kernel::with_state(
                Measure::G,
                (GmmBatchWork::<F64x8>::new(g.d, g.k), vec![0.0; np]),
                move |s: &mut (GmmBatchWork<'_, F64x8>, Vec<f64>)| {
                    gmm_value_grad_batched(g, &mut s.0, &mut s.1);
                },
                |s| s.1.clone(),
            )]
        }
    }
}
