//! The AD analyses: what the gradient's programs may skip. The language compiler (parse,
//! lower, analyze, invert, emit) reads without them; they produce facts ([`crate::facts`])
//! that emission reads.
//!
//! - [`one_pass`]: in which parameters a function is compute–copy–uncompute (`ADDITIVE`);
//! - [`primal`]: which routines write only places without adjoint (value-only recomputation,
//!   `WRITES`);
//! - [`adjoint`]: which value updates nothing reads afterwards (adjoint-only uncomputation,
//!   `READS`);
//! - [`value_dead`]: which calls of a recomputed routine nothing reads (skipped in a gradient
//!   that does not return the loss's value).
pub mod adjoint;
pub mod one_pass;
pub mod primal;
pub mod value_dead;
