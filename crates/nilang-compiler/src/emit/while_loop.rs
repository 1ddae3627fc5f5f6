//! `while (pre, post)`: with checks, `post` is false at entry and true after every iteration
//! (the inverse loops on `post`).
use super::{loc, Emitter};
use crate::ir::*;
use proc_macro2::TokenStream;
use quote::quote;

impl Emitter {
    /// A `while` loop.
    pub(super) fn while_loop(
        &mut self,
        pre: &syn::Expr,
        post: &syn::Expr,
        body: &[Stmt],
        s: &Stmt,
    ) -> TokenStream {
        let l = loc(s.span);
        let text = &s.text;
        let cx = self.condition_context(&[pre, post]);
        let pre = self.expr(pre);
        let postx = self.expr(post);
        let body = self.block(body);
        if s.check {
            quote! {
                if #postx { ::nilang::check::fail(::nilang::check::ErrorKind::WhileCondition, #l, #text, ::std::string::String::from("post-condition holds at loop entry (it must be false before the first iteration)") + &#cx); }
                while #pre {
                    #body
                    if !(#postx) { ::nilang::check::fail(::nilang::check::ErrorKind::WhileCondition, #l, #text, ::std::string::String::from("post-condition is false after an iteration (it must be true after every iteration)") + &#cx); }
                }
            }
        } else {
            quote!(while #pre { #body })
        }
    }
}
