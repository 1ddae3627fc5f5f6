//! `embedding` suite: reversible implementation cells.
use crate::hook::Kernel;
use crate::suites::embedding::EmbeddingCase;

/// The nilang kernels of one case (none yet).
pub fn kernels(_case: &EmbeddingCase) -> Vec<Kernel<'_>> {
    Vec::new()
}
