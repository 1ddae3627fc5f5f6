//! `#[ad]`: ordinary Rust functions differentiated by source transformation: gradients
//! against finite differences, the gradient API, calls of `#[i]` functions, the value tape's
//! size, allocations, and random straight-line programs.
//!
//! One test binary; the counting allocator counts each thread's allocations.

#[global_allocator]
static ALLOC: nilang_testkit::alloc::CountingAlloc = nilang_testkit::alloc::CountingAlloc;

mod api;
mod programs;
mod random;
mod tape;
