//! The standard library: arguments, Bennett, dense (blas, linalg, statistics, base), nnlib and sparse, Treeverse.
//!
//! One test binary (fewer binaries link faster); the counting allocator counts each thread's
//! allocations.

#[global_allocator]
static ALLOC: nilang_testkit::alloc::CountingAlloc = nilang_testkit::alloc::CountingAlloc;

mod arguments;
mod bennett;
mod blas;
mod dense;
mod elementwise;
mod gemm;
#[cfg(feature = "sprs")]
mod nn_sparse;
mod treeverse;
