//! `gmm` suite: reversible implementation cells.
use crate::hook::Kernel;
use crate::suites::gmm::GmmCase;

/// The nilang kernels of one case (none yet).
pub fn kernels(_case: &GmmCase) -> Vec<Kernel<'_>> {
    Vec::new()
}
