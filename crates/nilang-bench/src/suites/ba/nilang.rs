//! `ba` suite: `nilang_apps::ba`, the reprojection residual as a reversible
//! compute–copy–uncompute program per observation (checks compiled out): the residuals (O)
//! and the sparse Jacobian (J): per observation one
//! backward pass with two adjoint lanes after a value-only recomputation, assembled into
//! ADBench's CSR layout (structure built when the kernel is built; no allocation per call).
//!
//! The parallel cells (tools `nilang-t1`, `nilang-tN`): the Jacobian over chunks of
//! observations on a rayon pool of N threads (`nilang_apps::ba::ba_jacobian_into_par`, by the
//! library's `nilang::ad::term_sum::for_each_term`), the same result, bit for bit, for any N.
use super::BaCase;
use crate::harness::{Kernel, Pool};
use crate::report::Measure;
use nilang_apps::adbench::ba::BaInput;
use nilang_apps::adbench::sparse::SparseJacobian;
use nilang_apps::ba::{ba_jacobian_into, ba_jacobian_into_par, ba_objective_into};

/// Our tools and their kernels for one case: `nilang` (O, J), then the parallel Jacobian on
/// each pool. Lazy: each tool's kernels (its Jacobian, about 500 bytes per observation) are
/// built when the iterator reaches it, so a caller that drops them before taking the next
/// tool holds one tool's buffers at a time, and the peak memory does not grow with the number
/// of pools (`--threads`).
pub fn cells<'a>(
    case: &'a BaCase,
    pools: &'a [Pool],
) -> impl Iterator<Item = (String, Vec<Kernel<'a>>)> + 'a {
    std::iter::once_with(move || ("nilang".to_string(), kernels(case))).chain(
        pools
            .iter()
            .map(move |p| (p.tool.clone(), parallel(case, p))),
    )
}

/// The names of our tools (for the cells of a case that does not fit in memory).
pub fn tools(pools: &[Pool]) -> Vec<String> {
    let mut out = vec!["nilang".to_string()];
    out.extend(pools.iter().map(|p| p.tool.clone()));
    out
}

/// Residuals and Jacobian of the case's instance (read in place: no copy of the instance).
fn kernels(case: &BaCase) -> Vec<Kernel<'_>> {
    let b: &BaInput = &case.inst;
    vec![
        Kernel::with_state(
            Measure::O,
            vec![0.0; 3 * b.p],
            move |out: &mut Vec<f64>| {
                out.iter_mut().for_each(|v| *v = 0.0);
                let (e, z) = out.split_at_mut(2 * b.p);
                ba_objective_into(b, e, z);
            },
            |out| out.clone(),
        ),
        Kernel::with_state(
            Measure::J,
            SparseJacobian::with_layout(b),
            move |j: &mut SparseJacobian| ba_jacobian_into(b, j),
            |j| j.vals.clone(),
        ),
    ]
}

/// The Jacobian on a pool of threads.
fn parallel<'a>(case: &'a BaCase, pool: &'a Pool) -> Vec<Kernel<'a>> {
    let b = &case.inst;
    vec![Kernel::with_state(
        Measure::J,
        SparseJacobian::with_layout(b),
        move |j: &mut SparseJacobian| pool.install(|| ba_jacobian_into_par(b, j)),
        |j| j.vals.clone(),
    )]
}
