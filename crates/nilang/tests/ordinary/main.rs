//! `#[ad]`: ordinary Rust functions differentiated by source transformation.
mod programs;
