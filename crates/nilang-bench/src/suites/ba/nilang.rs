//! `ba` suite: `nilang_apps::ba`, the reprojection residual as a reversible
//! compute–copy–uncompute program per observation (checks compiled out): the residuals (O)
//! and the sparse Jacobian (J): per observation one
//! backward pass with two adjoint lanes after a value-only recomputation, assembled into
//! ADBench's CSR layout (structure built when the kernel is built; no allocation per call).
//!
//! The parallel cells (tools `nilang-t1`, `nilang-tN`): the Jacobian over chunks of
//! observations on a rayon pool of N threads (`nilang_apps::ba::ba_jacobian_into_par`), the
//! same result, bit for bit, for any N.
use super::BaCase;
use crate::harness::{Kernel, Pool};
use crate::report::Measure;
use nilang_apps::adbench::ba::BaInput;
use nilang_apps::adbench::sparse::SparseJacobian;
use nilang_apps::ba::{ba_jacobian_into, ba_jacobian_into_par, ba_objective_into};

/// Our tools and their kernels for one case: `nilang` (O, J), then the parallel Jacobian on
/// each pool.
pub fn cells<'a>(case: &'a BaCase, pools: &'a [Pool]) -> Vec<(String, Vec<Kernel<'a>>)> {
    let mut out = vec![("nilang".to_string(), kernels(case))];
    out.extend(pools.iter().map(|p| (p.tool.clone(), parallel(case, p))));
    out
}

/// The names of our tools (for the cells of a case that does not fit in memory).
pub fn tools(pools: &[Pool]) -> Vec<String> {
    let mut out = vec!["nilang".to_string()];
    out.extend(pools.iter().map(|p| p.tool.clone()));
    out
}

/// Residuals and Jacobian of the case's instance.
fn kernels(case: &BaCase) -> Vec<Kernel<'_>> {
    let b = case.inst.clone();
    let p = b.p;
    let jac = SparseJacobian::with_layout(&b);
    vec![
        Kernel::with_state(
            Measure::O,
            (b.clone(), vec![0.0; 3 * p]),
            |s: &mut (BaInput, Vec<f64>)| {
                let (b, out) = s;
                out.iter_mut().for_each(|v| *v = 0.0);
                let (e, z) = out.split_at_mut(2 * b.p);
                ba_objective_into(b, e, z);
            },
            |s| s.1.clone(),
        ),
        Kernel::with_state(
            Measure::J,
            (b, jac),
            |s: &mut (BaInput, SparseJacobian)| ba_jacobian_into(&s.0, &mut s.1),
            |s| s.1.vals.clone(),
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
