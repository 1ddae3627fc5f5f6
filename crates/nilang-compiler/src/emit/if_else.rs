//! `if (pre, post)`: the branches on their pre-conditions, each followed (when checks are on)
//! by the check that its post-condition, and no earlier branch's, holds: what the inverse
//! branches on.
use super::{loc, Emitter};
use crate::ir::*;
use proc_macro2::TokenStream;
use quote::quote;

impl Emitter {
    /// An `if` chain.
    pub(super) fn if_else(
        &mut self,
        branches: &[Branch],
        otherwise: Option<&[Stmt]>,
        s: &Stmt,
    ) -> TokenStream {
        let l = loc(s.span);
        let text = &s.text;
        let mut out = quote!();
        let posts: Vec<TokenStream> = branches.iter().map(|b| self.expr(&b.post)).collect();
        let post_texts: Vec<String> = branches
            .iter()
            .map(|b| crate::syntax::stmt_text(&b.post))
            .collect();
        let contexts: Vec<TokenStream> = branches
            .iter()
            .map(|b| self.condition_context(&[&b.pre, &b.post]))
            .collect();
        let post_check = |k: Option<usize>| -> TokenStream {
            if !s.check {
                return quote!();
            }
            let mut c = quote!();
            let upto = k.unwrap_or(posts.len());
            for j in 0..upto {
                let p = &posts[j];
                let msg = format!(
                        "after {} ran, the post-condition `{}` of an earlier branch holds, so the inverse would take that branch",
                        k.map(|k| format!("branch {}", k + 1)).unwrap_or_else(|| "the else branch".into()),
                        post_texts[j]
                    );
                let cx = &contexts[j];
                c.extend(quote!(if #p { ::nilang::check::fail(::nilang::check::ErrorKind::IfPostcondition, #l, #text, ::std::string::String::from(#msg) + &#cx); }));
            }
            if let Some(k) = k {
                let p = &posts[k];
                let msg = format!("post-condition `{}` is false after its branch ran (it must equal the pre-condition)", post_texts[k]);
                let cx = &contexts[k];
                c.extend(quote!(if !(#p) { ::nilang::check::fail(::nilang::check::ErrorKind::IfPostcondition, #l, #text, ::std::string::String::from(#msg) + &#cx); }));
            }
            c
        };
        let checks: Vec<TokenStream> = (0..branches.len()).map(|k| post_check(Some(k))).collect();
        let else_check = post_check(None);
        for (k, b) in branches.iter().enumerate() {
            let pre = self.expr(&b.pre);
            let body = self.block(&b.body);
            let ck = &checks[k];
            if k == 0 {
                out.extend(quote!(if #pre { #body #ck }));
            } else {
                out.extend(quote!(else if #pre { #body #ck }));
            }
        }
        let body = otherwise
            .as_ref()
            .map(|o| self.block(o))
            .unwrap_or_default();
        out.extend(quote!(else { #body #else_check }));
        out
    }
}
