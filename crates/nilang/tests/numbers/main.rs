//! The number types: complex, dual, fixed-point, tropical and log numbers.
//!
//! One test binary (fewer binaries link faster); the counting allocator counts each thread's
//! allocations.

#[global_allocator]
static ALLOC: nilang_testkit::alloc::CountingAlloc = nilang_testkit::alloc::CountingAlloc;

mod batch;
mod complex;
mod dual;
mod fixed;
mod lane_math;
mod tropical;
mod ulog;
