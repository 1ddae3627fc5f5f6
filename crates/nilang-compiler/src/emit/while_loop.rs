//! `while (pre, post)` and `while (pre, post, step)`: with checks, `post` is false at entry and
//! true after every iteration (the inverse loops on `post`, its step before its body).
use super::{loc, Emitter};
use crate::ir::*;
use proc_macro2::TokenStream;
use quote::quote;

impl Emitter {
    /// A `while` loop.
    pub(super) fn while_loop(&mut self, s: &Stmt) -> TokenStream {
        let StmtKind::While {
            pre,
            post,
            body,
            step,
            step_first,
        } = &s.kind
        else {
            unreachable!("a `while` statement")
        };
        let l = loc(s.span);
        let text = &s.text;
        let cx = self.condition_context(&[pre, post]);
        let pre = self.expr(pre);
        let postx = self.expr(post);
        let body = if step.is_empty() {
            self.block(body)
        } else {
            let (b, st) = if *step_first {
                let st = self.block(step);
                (self.block(body), st)
            } else {
                (self.block(body), self.block(step))
            };
            if *step_first {
                quote!({ #st } { #b })
            } else {
                quote!({ #b } { #st })
            }
        };
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
