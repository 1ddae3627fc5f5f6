//! Emission of Janus's do-first loop [`StmtKind::DoLoop`] (see `parse/do_loop.rs`).
use super::{loc, Emitter};
use crate::ir::*;
use proc_macro2::TokenStream;
use quote::quote;
use syn::Expr;

impl Emitter {
    /// `from a do s1 loop s2 until c` with its runtime checks: `a` true at entry, false after
    /// every `s2` (so the inverse, which runs until `a`, stops exactly where this loop began).
    pub(crate) fn do_loop(
        &mut self,
        from: &Expr,
        first: &[Stmt],
        until: &Expr,
        second: &[Stmt],
        s: &Stmt,
    ) -> TokenStream {
        let cx = self.condition_context(&[from, until]);
        let a = self.expr(from);
        let c = self.expr(until);
        let s1 = self.block(first);
        let s2 = self.block(second);
        if !s.check {
            return quote!(loop { { #s1 } if #c { break; } { #s2 } });
        }
        let (l, text) = (loc(s.span), &s.text);
        let a_text = crate::syntax::stmt_text(from);
        let entry = format!(
            "the `from` condition `{a_text}` is false at loop entry (it must hold when the \
             loop starts)"
        );
        let again = format!(
            "the `from` condition `{a_text}` holds again after an iteration (it must hold \
             only when the loop starts)"
        );
        quote! {
            if !(#a) { ::nilang::check::fail(::nilang::check::ErrorKind::WhileCondition, #l, #text, ::std::string::String::from(#entry) + &#cx); }
            loop {
                { #s1 }
                if #c { break; }
                { #s2 }
                if #a { ::nilang::check::fail(::nilang::check::ErrorKind::WhileCondition, #l, #text, ::std::string::String::from(#again) + &#cx); }
            }
        }
    }
}
