//! The benchmark binary, run as a user runs it: a smoke run, faults (bad arguments, missing data, a crash), the JAX and Enzyme peers.
//!
//! One test binary (fewer binaries link faster).

mod enzyme_peer;
mod faults;
mod jax_peer;
mod smoke;
