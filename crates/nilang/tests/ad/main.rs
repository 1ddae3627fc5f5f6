//! Automatic differentiation: the gradient API, the cases and rules, complex numbers, one-pass gradients and plans, primitives, the check tolerance, and zero allocation per gradient call.
//!
//! One test binary (fewer binaries link faster); the counting allocator counts each thread's
//! allocations.

#[global_allocator]
static ALLOC: nilang_testkit::alloc::CountingAlloc = nilang_testkit::alloc::CountingAlloc;

mod adjoint_only;
mod api;
mod cases;
// The run-time invertibility checks are on in debug builds and with `release-checks` only
// (`nilang::check`): their tests run where the checks do (`cargo test --release` leaves them).
#[cfg(any(debug_assertions, feature = "release-checks"))]
mod check_tolerance;
mod complex;
mod glob_import;
mod loop_locals;
mod many_params;
mod no_alloc;
mod one_pass;
mod primal;
mod primitive;
mod read_only;
mod rules;
mod shared_reads;
mod term_sum;
mod time_loop;
