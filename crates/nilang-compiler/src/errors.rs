//! Error accumulation: every problem is reported at once, each at its own span.
use proc_macro2::{Span, TokenStream};

/// Collected compile errors.
#[derive(Default)]
pub struct Errors {
    list: Vec<syn::Error>,
}

impl Errors {
    /// Record an error at `span`.
    pub fn push(&mut self, span: Span, msg: impl std::fmt::Display) {
        self.list.push(syn::Error::new(span, msg));
    }
    /// Record an error underlining `start..end` (a multi-token range on stable Rust).
    pub fn push_range(&mut self, start: Span, end: Span, msg: impl std::fmt::Display) {
        let a = proc_macro2::Ident::new("a", start);
        let b = proc_macro2::Ident::new("b", end);
        self.list
            .push(syn::Error::new_spanned(quote::quote!(#a #b), msg));
    }
    /// Record an error underlining the tokens `t`.
    pub fn push_tokens(&mut self, t: &impl quote::ToTokens, msg: impl std::fmt::Display) {
        self.list.push(syn::Error::new_spanned(t, msg));
    }
    /// Record a `syn` error.
    pub fn push_err(&mut self, e: syn::Error) {
        self.list.push(e);
    }
    /// Whether nothing was recorded.
    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }
    /// The number of errors.
    pub fn len(&self) -> usize {
        self.list.len()
    }
    /// The errors as `compile_error!` invocations.
    pub fn to_compile_errors(&self) -> TokenStream {
        self.list.iter().map(|e| e.to_compile_error()).collect()
    }
    /// All errors combined into one `syn::Error` (each keeps its span), if any.
    pub fn into_error(self) -> Option<syn::Error> {
        self.list.into_iter().reduce(|mut a, b| {
            a.combine(b);
            a
        })
    }
    /// The messages (for tests).
    pub fn messages(&self) -> Vec<String> {
        self.list.iter().map(|e| e.to_string()).collect()
    }
}
