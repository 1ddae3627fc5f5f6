//! Instructions: function markers, accumulating instructions, primitive instructions, stacks.
mod accumulate;
pub mod basic;
mod func;
pub mod stack;

pub use accumulate::*;
pub use func::{fns, Func};
