//! Tape-free reverse-mode automatic differentiation.
mod gvar;
pub use gvar::GVar;
