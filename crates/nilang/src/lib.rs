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
pub mod kernel;
pub mod numbers;
mod reversible;
pub mod stdlib;
pub mod tape;

pub use ad::{gradient, GVar, Scalar};
pub use check::InvertibilityError;
pub use instr::basic::{
    ADD_CONST_inv, CONJ_inv, DEC_inv, FLIP_inv, HADAMARD_inv, INC_inv, INV_inv, IROT_inv, NEG_inv,
    ROT_inv, SUB_CONST_inv, SWAP_inv, ADD_CONST, CONJ, DEC, FLIP, HADAMARD, INC, INV, IROT, NEG,
    ROT, SUB_CONST, SWAP,
};
pub use nilang_macros::{i, primitive, AlmostSame};
pub use numbers::{Dual, Fixed32, Fixed43, Real, Tropical, ULog};
#[doc(hidden)]
pub use reversible::CallTuple;
pub use reversible::Reversible;

/// Everything a reversible program usually needs: `use nilang::prelude::*;`.
pub mod prelude {
    pub use crate::ad::{GVar, Ordered, Scalar, Value};
    pub use crate::check::InvertibilityError;
    pub use crate::instr::basic::*;
    pub use crate::numbers::{arg, complex, conj, Dual, Fixed32, Fixed43, Real, Tropical, ULog};
    pub use crate::{i, primitive, AlmostSame, Reversible};
}
