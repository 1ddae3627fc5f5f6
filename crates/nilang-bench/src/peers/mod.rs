//! Peers: other AD systems measured in the same run, outside this process (`--peers`).
//!
//! [`jax`]: our own JAX implementations of every suite, run by `peers/jax/peer.py` in a Python
//! child process on the inputs this harness sends, checked against the suite's reference
//! derivative before they are timed, and reported as `jax-*` (one thread) and `jax-mt-*`
//! (all cores) cells.

pub mod jax;
