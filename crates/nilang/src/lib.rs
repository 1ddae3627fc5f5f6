//! # NiLang.rs
//!
//! A reversible embedded language for Rust whose main use is reverse-mode automatic
//! differentiation without a tape. Write a function with `#[i]`; the compiler checks it is
//! reversible and generates its exact inverse; running the inverse on gradient numbers
//! ([`GVar`]) computes the gradient.
//!
//! ```
//! use nilang::prelude::*;
//!
//! /// `res += ‖x‖`, with `y += Σ xᵢ²` kept as a second output (so the program is reversible).
//! #[i]
//! fn norm<T: Scalar>(res: &mut T, y: &mut T, x: &mut [T]) {
//!     for i in 0..x.len() {
//!         y += x[i].powi(2);
//!     }
//!     res += y.sqrt();
//! }
//!
//! let (mut res, mut y, mut x) = (0.0, 0.0, vec![3.0, 4.0]);
//! norm(&mut res, &mut y, &mut x);
//! assert_eq!(res, 5.0);
//! norm_inv(&mut res, &mut y, &mut x); // the generated inverse restores the outputs
//! assert_eq!((res, y), (0.0, 0.0));
//!
//! // the gradient of argument 0 (the loss) with respect to every argument: ∂‖x‖/∂x = x / ‖x‖
//! let (_, _, gx) = nilang::gradient(&Norm, (&mut res, &mut y, &mut x[..]), 0);
//! assert!((gx[0].g - 0.6).abs() < 1e-12 && (gx[1].g - 0.8).abs() < 1e-12);
//! ```
//!
//! Where to read on:
//! - the [`guide`]: the language (statements, ancillas, control flow, static and runtime
//!   checks), automatic differentiation (gradients, Jacobians, Hessians, batches in SIMD lanes,
//!   time loops, the parallel gradient of sums), kernels on GPUs, and a look inside;
//! - [`guide::ordinary`]: gradients of ordinary Rust functions with `#[ad]`;
//! - the modules: [`ad`](mod@ad) (the gradient API: [`gradient`], [`ad::value_and_gradient`],
//!   [`ad::Plan`], Jacobians and Hessians), [`numbers`] (the number types), [`instr`] (the
//!   instructions), [`stdlib`] (the reversible standard library), [`check`] (runtime checks),
//!   [`kernel`] (device code), [`tape`] (the split reversal's store).
//!
//! The default build is lean; the integrations are features: `sprs`, `nalgebra`, `ndarray`,
//! `argmin` (and `release-checks`, the runtime checks in release builds).
#![warn(missing_docs)]
// `unsafe` only in the two modules that allow it below (each block with its SAFETY line)
#![deny(unsafe_code)]
extern crate self as nilang;

/// Invokes `$mac!` once for each tuple arity from 1 to 32, with the fields as
/// `index TypeParameter` pairs (`$mac!(0 A0); $mac!(0 A0, 1 A1); ...`): the trait impls for
/// argument tuples.
macro_rules! for_tuples {
    ($mac:ident) => {
        $mac!(0 A0);
        $mac!(0 A0, 1 A1);
        $mac!(0 A0, 1 A1, 2 A2);
        $mac!(0 A0, 1 A1, 2 A2, 3 A3);
        $mac!(0 A0, 1 A1, 2 A2, 3 A3, 4 A4);
        $mac!(0 A0, 1 A1, 2 A2, 3 A3, 4 A4, 5 A5);
        $mac!(0 A0, 1 A1, 2 A2, 3 A3, 4 A4, 5 A5, 6 A6);
        $mac!(0 A0, 1 A1, 2 A2, 3 A3, 4 A4, 5 A5, 6 A6, 7 A7);
        $mac!(0 A0, 1 A1, 2 A2, 3 A3, 4 A4, 5 A5, 6 A6, 7 A7, 8 A8);
        $mac!(0 A0, 1 A1, 2 A2, 3 A3, 4 A4, 5 A5, 6 A6, 7 A7, 8 A8, 9 A9);
        $mac!(0 A0, 1 A1, 2 A2, 3 A3, 4 A4, 5 A5, 6 A6, 7 A7, 8 A8, 9 A9, 10 A10);
        $mac!(0 A0, 1 A1, 2 A2, 3 A3, 4 A4, 5 A5, 6 A6, 7 A7, 8 A8, 9 A9, 10 A10, 11 A11);
        $mac!(0 A0, 1 A1, 2 A2, 3 A3, 4 A4, 5 A5, 6 A6, 7 A7, 8 A8, 9 A9, 10 A10, 11 A11, 12 A12);
        $mac!(0 A0, 1 A1, 2 A2, 3 A3, 4 A4, 5 A5, 6 A6, 7 A7, 8 A8, 9 A9, 10 A10, 11 A11, 12 A12, 13 A13);
        $mac!(0 A0, 1 A1, 2 A2, 3 A3, 4 A4, 5 A5, 6 A6, 7 A7, 8 A8, 9 A9, 10 A10, 11 A11, 12 A12, 13 A13, 14 A14);
        $mac!(0 A0, 1 A1, 2 A2, 3 A3, 4 A4, 5 A5, 6 A6, 7 A7, 8 A8, 9 A9, 10 A10, 11 A11, 12 A12, 13 A13, 14 A14, 15 A15);
        $mac!(0 A0, 1 A1, 2 A2, 3 A3, 4 A4, 5 A5, 6 A6, 7 A7, 8 A8, 9 A9, 10 A10, 11 A11, 12 A12, 13 A13, 14 A14, 15 A15, 16 A16);
        $mac!(0 A0, 1 A1, 2 A2, 3 A3, 4 A4, 5 A5, 6 A6, 7 A7, 8 A8, 9 A9, 10 A10, 11 A11, 12 A12, 13 A13, 14 A14, 15 A15, 16 A16, 17 A17);
        $mac!(0 A0, 1 A1, 2 A2, 3 A3, 4 A4, 5 A5, 6 A6, 7 A7, 8 A8, 9 A9, 10 A10, 11 A11, 12 A12, 13 A13, 14 A14, 15 A15, 16 A16, 17 A17, 18 A18);
        $mac!(0 A0, 1 A1, 2 A2, 3 A3, 4 A4, 5 A5, 6 A6, 7 A7, 8 A8, 9 A9, 10 A10, 11 A11, 12 A12, 13 A13, 14 A14, 15 A15, 16 A16, 17 A17, 18 A18, 19 A19);
        $mac!(0 A0, 1 A1, 2 A2, 3 A3, 4 A4, 5 A5, 6 A6, 7 A7, 8 A8, 9 A9, 10 A10, 11 A11, 12 A12, 13 A13, 14 A14, 15 A15, 16 A16, 17 A17, 18 A18, 19 A19, 20 A20);
        $mac!(0 A0, 1 A1, 2 A2, 3 A3, 4 A4, 5 A5, 6 A6, 7 A7, 8 A8, 9 A9, 10 A10, 11 A11, 12 A12, 13 A13, 14 A14, 15 A15, 16 A16, 17 A17, 18 A18, 19 A19, 20 A20, 21 A21);
        $mac!(0 A0, 1 A1, 2 A2, 3 A3, 4 A4, 5 A5, 6 A6, 7 A7, 8 A8, 9 A9, 10 A10, 11 A11, 12 A12, 13 A13, 14 A14, 15 A15, 16 A16, 17 A17, 18 A18, 19 A19, 20 A20, 21 A21, 22 A22);
        $mac!(0 A0, 1 A1, 2 A2, 3 A3, 4 A4, 5 A5, 6 A6, 7 A7, 8 A8, 9 A9, 10 A10, 11 A11, 12 A12, 13 A13, 14 A14, 15 A15, 16 A16, 17 A17, 18 A18, 19 A19, 20 A20, 21 A21, 22 A22, 23 A23);
        $mac!(0 A0, 1 A1, 2 A2, 3 A3, 4 A4, 5 A5, 6 A6, 7 A7, 8 A8, 9 A9, 10 A10, 11 A11, 12 A12, 13 A13, 14 A14, 15 A15, 16 A16, 17 A17, 18 A18, 19 A19, 20 A20, 21 A21, 22 A22, 23 A23, 24 A24);
        $mac!(0 A0, 1 A1, 2 A2, 3 A3, 4 A4, 5 A5, 6 A6, 7 A7, 8 A8, 9 A9, 10 A10, 11 A11, 12 A12, 13 A13, 14 A14, 15 A15, 16 A16, 17 A17, 18 A18, 19 A19, 20 A20, 21 A21, 22 A22, 23 A23, 24 A24, 25 A25);
        $mac!(0 A0, 1 A1, 2 A2, 3 A3, 4 A4, 5 A5, 6 A6, 7 A7, 8 A8, 9 A9, 10 A10, 11 A11, 12 A12, 13 A13, 14 A14, 15 A15, 16 A16, 17 A17, 18 A18, 19 A19, 20 A20, 21 A21, 22 A22, 23 A23, 24 A24, 25 A25, 26 A26);
        $mac!(0 A0, 1 A1, 2 A2, 3 A3, 4 A4, 5 A5, 6 A6, 7 A7, 8 A8, 9 A9, 10 A10, 11 A11, 12 A12, 13 A13, 14 A14, 15 A15, 16 A16, 17 A17, 18 A18, 19 A19, 20 A20, 21 A21, 22 A22, 23 A23, 24 A24, 25 A25, 26 A26, 27 A27);
        $mac!(0 A0, 1 A1, 2 A2, 3 A3, 4 A4, 5 A5, 6 A6, 7 A7, 8 A8, 9 A9, 10 A10, 11 A11, 12 A12, 13 A13, 14 A14, 15 A15, 16 A16, 17 A17, 18 A18, 19 A19, 20 A20, 21 A21, 22 A22, 23 A23, 24 A24, 25 A25, 26 A26, 27 A27, 28 A28);
        $mac!(0 A0, 1 A1, 2 A2, 3 A3, 4 A4, 5 A5, 6 A6, 7 A7, 8 A8, 9 A9, 10 A10, 11 A11, 12 A12, 13 A13, 14 A14, 15 A15, 16 A16, 17 A17, 18 A18, 19 A19, 20 A20, 21 A21, 22 A22, 23 A23, 24 A24, 25 A25, 26 A26, 27 A27, 28 A28, 29 A29);
        $mac!(0 A0, 1 A1, 2 A2, 3 A3, 4 A4, 5 A5, 6 A6, 7 A7, 8 A8, 9 A9, 10 A10, 11 A11, 12 A12, 13 A13, 14 A14, 15 A15, 16 A16, 17 A17, 18 A18, 19 A19, 20 A20, 21 A21, 22 A22, 23 A23, 24 A24, 25 A25, 26 A26, 27 A27, 28 A28, 29 A29, 30 A30);
        $mac!(0 A0, 1 A1, 2 A2, 3 A3, 4 A4, 5 A5, 6 A6, 7 A7, 8 A8, 9 A9, 10 A10, 11 A11, 12 A12, 13 A13, 14 A14, 15 A15, 16 A16, 17 A17, 18 A18, 19 A19, 20 A20, 21 A21, 22 A22, 23 A23, 24 A24, 25 A25, 26 A26, 27 A27, 28 A28, 29 A29, 30 A30, 31 A31);
    };
}

pub mod ad;
/// The generated-item ABI: the names and limits of the items `#[i]` generates next to a
/// function (`f_inv`, `f::__primal`, `f::__adj`, `f::ADDITIVE`, `f::WRITES`, `f::READS`),
/// which hand-written reversible functions provide too (`nilang::additive!`).
pub use nilang_functions::abi;
pub mod check;
pub mod instr;
pub mod kernel;
pub mod number;
pub mod numbers;
mod reversible;
#[allow(unsafe_code)] // calling the `#[target_feature]` copies after detecting the features
pub mod simd;
pub mod stdlib;
#[allow(unsafe_code)] // the typed byte arena: raw reads of the bytes it wrote, the current tape
pub mod tape;

pub use ad::{gradient, GVar, Scalar};
pub use check::InvertibilityError;
pub use instr::basic::{
    ADD_CONST_inv, CONJ_inv, DEC_inv, FLIP_inv, HADAMARD_inv, INC_inv, INV_inv, IROT_inv, NEG_inv,
    ROT_inv, SUB_CONST_inv, SWAP_inv, ADD_CONST, CONJ, DEC, FLIP, HADAMARD, INC, INV, IROT, NEG,
    ROT, SUB_CONST, SWAP,
};
pub use nilang_macros::{ad, i, primitive, AlmostSame};
pub use numbers::{Dual, Fixed32, Fixed43, Real, Tropical, ULog};
#[doc(hidden)]
pub use reversible::CallTuple;
pub use reversible::Reversible;

/// Everything a reversible program usually needs: `use nilang::prelude::*;`.
pub mod prelude {
    pub use crate::ad::{AbsAbove, GVar, Ordered, Scalar, Value};
    pub use crate::check::InvertibilityError;
    pub use crate::instr::basic::*;
    pub use crate::numbers::{arg, complex, conj, Dual, Fixed32, Fixed43, Real, Tropical, ULog};
    pub use crate::{ad, i, primitive, AlmostSame, Reversible};
}

/// The user guide (`docs/guide.md` of the repository), with its examples run as doctests.
pub mod guide {
    // The guide's relative links, for rustdoc (the first definition of a label wins; the
    // guide's own definitions at its end serve GitHub).
    #![doc = ""]
    #![doc = "[ordinary-page]: crate::guide::ordinary"]
    #![doc = "[norm-svg]: <https://github.com/nilang-rs/nilang/raw/main/docs/pictures/norm.svg>"]
    #![doc = "[i-dist-svg]: <https://github.com/nilang-rs/nilang/raw/main/docs/pictures/i_dist.svg>"]
    #![doc = ""]
    #![doc = include_str!("../docs/guide.md")]

    /// Gradients of ordinary Rust functions (`docs/ordinary.md` of the repository).
    pub mod ordinary {
        #![doc = include_str!("../docs/ordinary.md")]
    }
}

/// The crate README's example, compiled and run as a doctest (it is what a new user copies).
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeExample;
