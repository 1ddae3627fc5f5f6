//! The applications: one module per application (values, inverses, gradients against the oracle files), the README examples and the consistency checks.
//!
//! One test binary (fewer binaries link faster); the counting allocator counts each thread's
//! allocations.

#[global_allocator]
static ALLOC: nilang_testkit::alloc::CountingAlloc = nilang_testkit::alloc::CountingAlloc;

mod ba;
mod bessel;
mod bessel_batch;
mod bessel_no_alloc;
mod boxmuller;
mod consistency;
mod embedding;
mod fft;
mod fib;
mod fit;
mod gmm;
mod gmm_batched;
mod hessian_lanes;
mod load;
mod lorenz;
mod nice;
mod ordinary;
mod parallel;
mod qr;
mod readme_examples;
mod simd_dispatch;
mod sparse;
mod unitary;

/// ADBench's metric (tolerance 1e-8) on every entry; the message names `what` and the worst
/// entry.
fn assert_all_close(what: &str, got: &[f64], want: &[f64]) {
    nilang_apps::adbench::oracle::compare(got, want, 1e-8)
        .unwrap_or_else(|e| panic!("{what}: {e}"));
}
