//! The NiLang.rs compiler.
//!
//! A plain pipeline, usable without a proc-macro context (so it can be unit-tested and fuzzed):
//!
//! 1. [`parse`]: a `syn` function body to the [`ir`], statements as written;
//! 2. [`lower`]: the surface forms rewritten (`routine!`/`unroutine!()` paired, `inv! { ... }`
//!    inverted, slice loops and literal `powi` exponents substituted);
//! 3. [`analyze`]: static checks (ancilla balance per scope, read-only parameters, shared
//!    read/write, constant operands), every error collected with its span;
//! 4. [`facts`]: every analysis once, into one table: the AD analyses of [`ad`] (for which
//!    parameters the function is compute–copy–uncompute, so the gradient API needs no forward
//!    pass; what may run value-only or adjoint-only), locals, tracked ancillas;
//!    [`invert`]: the inverse program (statement ids kept);
//! 5. [`emit`]: Rust tokens for the forward and the inverse function and the AD variants, a
//!    function of (IR, [`facts::Facts`], [`emit::Mode`]), with runtime checks. The names
//!    and limits of the generated items are [`abi`]'s.
//!
//! Passes walk the IR with [`visit`]. `docs/architecture.md` follows one construct through
//! every stage.
//!
//! With `#[i(kernel)]`/`#[i(device)]`, [`opencl`] also emits OpenCL C for the forward, inverse
//! and gradient programs (run by the `nilang-gpu` crate).
//!
//! [`compile_fn`] runs the pipeline for `#[i] fn ...`; [`compile_primitive`] handles
//! `#[primitive] fn ...`.
#![warn(missing_docs)]
#![forbid(unsafe_code)]
pub mod abi;
pub mod ad;
pub mod analyze;
pub mod cond;
pub mod data;
pub mod derive;
mod diag;
pub mod emit;
pub mod errors;
pub mod facts;
pub mod function;
pub mod functions;
pub mod invert;
pub mod ir;
pub mod krate;
mod lanes;
pub mod lower;
pub mod opencl;
pub mod ordinary;
pub mod parse;
pub mod primitive;
pub mod show;
pub mod syntax;
#[cfg(test)]
mod tests;
pub mod visit;

use proc_macro2::TokenStream;

/// Compile `#[i(attr)] item`. Never panics: malformed input yields `compile_error!`s.
///
/// ```
/// let out = nilang_compiler::compile_fn(
///     quote::quote!(),
///     quote::quote!(fn f(y: &mut f64, x: &f64) { y += x * 2.0; }),
/// );
/// assert!(out.to_string().contains("f_inv"));
/// ```
pub fn compile_fn(attr: TokenStream, item: TokenStream) -> TokenStream {
    function::compile_fn(attr, item)
}

/// Compile `#[primitive(attr)] item`.
pub fn compile_primitive(attr: TokenStream, item: TokenStream) -> TokenStream {
    primitive::compile(attr, item)
}
