//! The ADBench data crate: readers and their errors, objectives and hand-written derivatives against the golden and oracle values, a fuzzed reader.
//!
//! One test binary (fewer binaries link faster); the counting allocator counts each thread's
//! allocations.

#[global_allocator]
static ALLOC: nilang_testkit::alloc::CountingAlloc = nilang_testkit::alloc::CountingAlloc;

mod ba;
mod fuzz;
mod gmm;
mod parse;
