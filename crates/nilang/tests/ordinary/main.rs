//! `#[ad]`: ordinary Rust functions differentiated by source transformation: gradients
//! against finite differences, the gradient API, calls of `#[i]` functions, the value tape's
//! size, allocations, and random straight-line programs.
//!
//! One test binary; the counting allocator counts each thread's allocations.
// the programs are written as ordinary numerical code is (index loops, `a = a + ..`)
#![allow(clippy::needless_range_loop, clippy::assign_op_pattern)]

#[global_allocator]
static ALLOC: nilang_testkit::alloc::CountingAlloc = nilang_testkit::alloc::CountingAlloc;

mod api;
mod data;
mod from_i;
mod outputs;
mod programs;
mod random;
mod remat;
mod tape;
mod time_loop;
