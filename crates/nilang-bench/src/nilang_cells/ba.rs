//! `ba` suite: reversible implementation cells.
use crate::hook::Kernel;
use crate::suites::ba::BaCase;

/// The nilang kernels of one case (none yet).
pub fn kernels(_case: &BaCase) -> Vec<Kernel<'_>> {
    Vec::new()
}
