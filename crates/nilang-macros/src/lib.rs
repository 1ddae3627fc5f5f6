//! Procedural-macro shim of NiLang.rs: every macro forwards to [`nilang_compiler`].
#![forbid(unsafe_code)]
#![warn(missing_docs)]
use proc_macro::TokenStream;

/// Compile a reversible function: `#[i] fn f(...) { ... }` generates `f`, its inverse `f_inv`
/// and a `Reversible` value `F`. Options: `#[i(nocheck)]`, `#[i(norev)]`, `#[i(rev = Name)]`.
/// See the `nilang` crate documentation for the language.
#[proc_macro_attribute]
pub fn i(attr: TokenStream, item: TokenStream) -> TokenStream {
    nilang_compiler::compile_fn(attr.into(), item.into()).into()
}

/// `#[derive(AlmostSame)]`: field-wise `nilang::check::AlmostSame` (struct ancillas checked
/// at deallocation with the float tolerance on their float fields).
#[proc_macro_derive(AlmostSame)]
pub fn derive_almost_same(item: TokenStream) -> TokenStream {
    nilang_compiler::derive::almost_same(item.into()).into()
}

/// Register a pure function for use in instructions (`y += f(x)`); with `grad = df` (returning
/// the partial derivatives) it becomes differentiable.
#[proc_macro_attribute]
pub fn primitive(attr: TokenStream, item: TokenStream) -> TokenStream {
    nilang_compiler::compile_primitive(attr.into(), item.into()).into()
}

/// Differentiate an ordinary Rust function: `#[ad] fn f(x: &[f64], a: f64) -> f64 { .. }`
/// keeps `f` and generates `f_forward` (value and pullback) and the unit struct `F` that the
/// gradient API takes. See the guide's page on ordinary functions.
#[proc_macro_attribute]
pub fn ad(attr: TokenStream, item: TokenStream) -> TokenStream {
    nilang_compiler::ordinary::compile(attr.into(), item.into()).into()
}
