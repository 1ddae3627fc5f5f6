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

/// ADBench's metric (tolerance 1e-8) on every entry; the message names `what` and the worst
/// entry.
fn assert_all_close(what: &str, got: &[f64], want: &[f64]) {
    nilang_adbench::oracle::compare(got, want, 1e-8).unwrap_or_else(|e| panic!("{what}: {e}"));
}
