//! `sparse` suite: reversible implementation cells.
use crate::hook::Kernel;
use crate::suites::sparse::SparseCase;

/// The nilang kernels of one case (none yet).
pub fn kernels(_case: &SparseCase) -> Vec<Kernel<'_>> {
    Vec::new()
}
