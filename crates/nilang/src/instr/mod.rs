//! Instructions: function markers, accumulating instructions, primitive instructions, stacks.
mod accumulate;
pub mod basic;
pub mod dealloc;
pub mod dict;
pub mod fresh;
mod func;
mod int_pow;
mod scalar;
pub mod show;
pub mod stack;

pub use accumulate::*;
pub use func::{fns, Func};
pub use scalar::{Ordered, Scalar};
