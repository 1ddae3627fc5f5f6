//! The reversible implementation's cells (tool `nilang`), one module per suite.
use crate::hook::{CellProvider, Kernel};
use crate::suites::{
    ba::BaCase, bessel::BesselCase, embedding::EmbeddingCase, gmm::GmmCase, sparse::SparseCase,
};

mod ba;
mod bessel;
mod embedding;
mod gmm;
mod parallel;
mod sparse;

pub use gmm::Batched;
pub use parallel::Parallel;

/// NiLang.rs: the reversible programs of `nilang-apps`, their inverses and gradients.
pub struct Nilang;

impl CellProvider for Nilang {
    fn tool(&self) -> &str {
        "nilang"
    }
    fn bessel<'a>(&'a self, case: &'a BesselCase) -> Vec<Kernel<'a>> {
        bessel::kernels(case)
    }
    fn sparse<'a>(&'a self, case: &'a SparseCase) -> Vec<Kernel<'a>> {
        sparse::kernels(case)
    }
    fn embedding<'a>(&'a self, case: &'a EmbeddingCase) -> Vec<Kernel<'a>> {
        embedding::kernels(case)
    }
    fn gmm<'a>(&'a self, case: &'a GmmCase) -> Vec<Kernel<'a>> {
        gmm::kernels(case)
    }
    fn ba<'a>(&'a self, case: &'a BaCase) -> Vec<Kernel<'a>> {
        ba::kernels(case)
    }
}
