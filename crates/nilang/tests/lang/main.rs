//! The language: instructions, control flow, ancillas and stacks, data views, dictionaries, do-loops, moves, stores, runtime messages, runtime checks by profile, the classic programs, the newcomer walk-through, the README and a downstream crate.
//!
//! One test binary (fewer binaries link faster); the counting allocator counts each thread's
//! allocations.

#[global_allocator]
static ALLOC: nilang_testkit::alloc::CountingAlloc = nilang_testkit::alloc::CountingAlloc;

mod ancillas_stacks;
mod checks_by_profile;
mod classics;
mod control;
mod dataviews;
mod dict;
mod do_loop;
mod downstream;
mod float_data;
mod instructions;
mod match_int;
mod moves;
mod newcomer;
mod prop_inverse;
mod readme;
mod ring_loops;
mod runtime_messages;
mod store;
