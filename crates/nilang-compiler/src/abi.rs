//! The generated-item ABI as the compiler writes it: the names and limits of
//! [`nilang_functions::abi`] (re-exported here and, in the runtime, as `nilang::abi`) turned
//! into tokens. Every generated name of an item next to a function (`f_inv`, `f::__primal`,
//! `f::__adj`, `f::ADDITIVE`, `f::WRITES`, `f::READS`), every parameter mask and every
//! call-tuple limit is written through this module.
//!
//! ```
//! use nilang_compiler::abi;
//! let f: syn::Ident = syn::parse_quote!(f);
//! assert_eq!(abi::inverse_name(&f).to_string(), "f_inv");
//! assert_eq!(abi::mask_lit(0).to_string(), "0u64");
//! assert_eq!(abi::param_bit(64), None);
//! ```
use crate::ir::{Call, Callee};
pub use nilang_functions::abi::*;
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};
use syn::Ident;

/// `f_inv` for `f` (with `f`'s span).
pub fn inverse_name(f: &Ident) -> Ident {
    format_ident!("{}{}", f, INVERSE_SUFFIX, span = f.span())
}

/// `f_inv` for the name `f`.
pub fn inverse_str(f: &str) -> String {
    format!("{f}{INVERSE_SUFFIX}")
}

/// The name of an ABI item ([`PRIMAL`], [`ADJOINT`], [`ADDITIVE`], [`WRITES`], [`READS`]).
pub fn item(name: &str) -> Ident {
    Ident::new(name, Span::call_site())
}

/// The mask type ([`ParamMask`]) in generated code.
pub fn mask_type() -> TokenStream {
    let t = Ident::new(MASK_TYPE, Span::call_site());
    quote!(#t)
}

/// A mask literal of the mask type (`0u64`).
pub fn mask_lit(v: ParamMask) -> TokenStream {
    let l = syn::LitInt::new(&format!("{v}{MASK_TYPE}"), Span::call_site());
    quote!(#l)
}

/// Every parameter: `u64::MAX`.
pub fn all_params() -> TokenStream {
    let t = mask_type();
    quote!(#t::MAX)
}

/// The bit of parameter `k` as a shift amount, if a mask can name it.
pub fn param_bit(k: usize) -> Option<u32> {
    (k < MASK_BITS).then_some(k as u32)
}

/// The bit of parameter `k` in an adjoint-only variant's `dead` mask, if it can name it (the
/// last bit is [`FRESH_TARGET`]).
pub fn dead_bit(k: usize) -> Option<u32> {
    (k < DEAD_BITS).then_some(k as u32)
}

/// The declaration (`#[i]` or `nilang::additive!`) of a callee called by path: where its
/// analyses and variants are found.
/// A callee called by path that may have a recorded analysis: not a built-in instruction or
/// an associated function (an upper-case segment), no `<T as Tr>::` form.
pub fn analysed_callee(p: &syn::ExprPath) -> bool {
    p.qself.is_none()
        && !p
            .path
            .segments
            .iter()
            .any(|s| s.ident.to_string().starts_with(|c: char| c.is_uppercase()))
}

/// The type-namespace item of a callee (its path without generic arguments, `_inv` for an
/// inverse call), which `#[i]` and `nilang::additive!` declare next to the function.
pub fn marker_path(p: &syn::ExprPath, inverse: bool) -> Marker {
    let mut path = p.path.clone();
    if let Some(last) = path.segments.last_mut() {
        last.arguments = syn::PathArguments::None;
        if inverse {
            last.ident = inverse_name(&last.ident);
        }
    }
    Marker(path)
}

/// The declaration (`#[i]` or `nilang::additive!`) of a callee: where its analyses
/// (`ADDITIVE`, `WRITES`, `READS`) and variants (`__primal`, `__adj`) live.
#[derive(Clone)]
pub struct Marker(pub syn::Path);

impl Marker {
    /// The constant `name` of the declaration ([`ADDITIVE`], [`WRITES`], [`READS`]).
    pub fn constant(&self, name: &str) -> TokenStream {
        let c = item(name);
        self.item(quote!(#c))
    }

    /// `item` (a constant or a call) of the declaration, read through an alias that names what
    /// is missing when the callee has none: rustc then says "function
    /// `g__is_called_from_i_code__declare_it_with_i_or_nilang_additive` is not a crate or
    /// module" at the call, instead of "function `g` is not a crate or module".
    pub fn item(&self, item: TokenStream) -> TokenStream {
        let path = &self.0;
        let last = &path
            .segments
            .last()
            .expect("a callee path has a segment")
            .ident;
        let alias = quote::format_ident!(
            "{}__is_called_from_i_code__declare_it_with_i_or_nilang_additive",
            last,
            span = last.span()
        );
        quote!({
            #[allow(unused_imports)]
            use #path as #alias;
            #alias::#item
        })
    }
}

/// The value-only variant `g::__primal((args..))` applies to this call: a forward call by
/// path of a function without explicit generic arguments.
pub fn primal_callee(c: &Call) -> Option<Marker> {
    let p = plain_analysed_callee(c)?;
    (!c.inverse).then(|| marker_path(p, false))
}

/// The path of a call's callee when it has a recorded analysis ([`analysed_callee`]) and no
/// explicit generic arguments.
pub fn plain_analysed_callee(c: &Call) -> Option<&syn::ExprPath> {
    let Callee::Path(p) = &c.callee else {
        return None;
    };
    let plain = p
        .path
        .segments
        .iter()
        .all(|s| matches!(s.arguments, syn::PathArguments::None));
    (analysed_callee(p) && plain).then_some(p)
}

#[cfg(test)]
mod tests {
    #[test]
    fn mask_type_is_the_runtime_type() {
        assert_eq!(core::any::type_name::<super::ParamMask>(), super::MASK_TYPE);
    }
}
