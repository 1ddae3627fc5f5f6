//! `ba` suite: `nilang_apps::ba`, the reprojection residual as a reversible
//! compute–copy–uncompute program per observation (checks compiled out): the residuals (O)
//! and the sparse Jacobian (J): per observation one
//! backward pass with two adjoint lanes after a value-only recomputation, assembled into
//! ADBench's CSR layout (structure built when the kernel is built; no allocation per call).
use crate::hook::Kernel;
use crate::report::Measure;
use crate::suites::ba::{BaCase, BaInstance};
use nilang_apps::adbench::ba::BaInput;
use nilang_apps::adbench::sparse::SparseJacobian;
use nilang_apps::ba::{ba_jacobian_into, ba_objective_into};

fn input(b: &BaInstance) -> BaInput {
    b.clone()
}

/// Residuals and Jacobian of the case's instance.
pub fn kernels(case: &BaCase) -> Vec<Kernel<'_>> {
    let b = input(&case.inst);
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
