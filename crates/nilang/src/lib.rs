//! # NiLang.rs
//!
//! A reversible embedded language for Rust whose main use is reverse-mode automatic
//! differentiation without a tape. Write a function with `#[i]`; the compiler checks it is
//! reversible and generates its exact inverse; running the inverse on gradient numbers
//! ([`GVar`]) computes the gradient.
extern crate self as nilang;

pub mod ad;
pub mod check;
pub mod instr;
pub mod numbers;

pub use ad::GVar;
pub use check::InvertibilityError;
pub use instr::basic::{
    ADD_CONST, ADD_CONST_inv, CONJ, CONJ_inv, DEC, DEC_inv, FLIP, FLIP_inv, HADAMARD,
    HADAMARD_inv, INC, INC_inv, INV, INV_inv, IROT, IROT_inv, NEG, NEG_inv, ROT, ROT_inv,
    SUB_CONST, SUB_CONST_inv, SWAP, SWAP_inv,
};
pub use numbers::Real;
