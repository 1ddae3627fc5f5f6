//! The parallel cells (tools `nilang-t1`, `nilang-tN`): the GMM gradient over chunks of points
//! and the BA Jacobian over chunks of observations on a rayon pool of N threads, through the
//! generic gradient API (`nilang_apps::gmm::gmm_value_grad_par`,
//! `nilang_apps::ba::ba_jacobian_into_par`). The result is the same, bit for bit, for any N.
use crate::hook::{CellProvider, Kernel};
use crate::report::Measure;
use crate::suites::{ba::BaCase, gmm::GmmCase};
use nilang_apps::adbench::sparse::SparseJacobian;
use nilang_apps::ba::ba_jacobian_into_par;
use nilang_apps::gmm::{gmm_value_grad_par, GmmParWork};

/// Parallel gradients on a pool of `threads` threads.
pub struct Parallel {
    name: String,
    threads: usize,
    pool: rayon::ThreadPool,
}

impl Parallel {
    /// The cells of a pool of `threads` threads (tool `nilang-t{threads}`).
    pub fn new(threads: usize) -> Self {
        Parallel {
            name: format!("nilang-t{threads}"),
            threads,
            pool: rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .expect("a rayon pool"),
        }
    }
}

impl CellProvider for Parallel {
    fn tool(&self) -> &str {
        &self.name
    }
    fn gmm<'a>(&'a self, case: &'a GmmCase) -> Vec<Kernel<'a>> {
        let g = &case.inst;
        let work = GmmParWork::new(g.d, g.k, g.n, self.threads);
        vec![Kernel::with_state(
            Measure::G,
            (work, vec![0.0; g.n_params()]),
            move |s: &mut (GmmParWork<'a>, Vec<f64>)| {
                self.pool
                    .install(|| gmm_value_grad_par(g, &mut s.0, &mut s.1));
            },
            |s| s.1.clone(),
        )]
    }
    fn ba<'a>(&'a self, case: &'a BaCase) -> Vec<Kernel<'a>> {
        let b = &case.inst;
        vec![Kernel::with_state(
            Measure::J,
            SparseJacobian::with_layout(b),
            move |j: &mut SparseJacobian| self.pool.install(|| ba_jacobian_into_par(b, j)),
            |j| j.vals.clone(),
        )]
    }
}
