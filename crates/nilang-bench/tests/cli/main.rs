//! The benchmark binary, run as a user runs it: a smoke run, faults (bad arguments, missing data, a crash) and the JAX peer.
//!
//! One test binary (fewer binaries link faster).

mod faults;
mod jax_peer;
mod smoke;
