//! Runtime error messages of conditions: the values of the variables a condition reads, and
//! whether the failure happened in the generated inverse.
use crate::emit::Emitter;
use proc_macro2::TokenStream;
use quote::{quote, ToTokens};

impl Emitter {
    /// The variables (parameters, ancillas, loop variables) mentioned by `exprs`, in order.
    fn mentioned_vars(&self, exprs: &[&syn::Expr]) -> Vec<syn::Ident> {
        fn walk_dots(t: TokenStream, out: &mut Vec<syn::Ident>) {
            let mut prev_dot = false;
            for tt in t {
                let is_dot = matches!(&tt, proc_macro2::TokenTree::Punct(p) if p.as_char() == '.');
                match tt {
                    proc_macro2::TokenTree::Ident(i) if !prev_dot => out.push(i),
                    proc_macro2::TokenTree::Group(g) => walk_dots(g.stream(), out),
                    _ => {}
                }
                prev_dot = is_dot;
            }
        }
        let mut all = vec![];
        for e in exprs {
            walk_dots(e.to_token_stream(), &mut all);
        }
        let mut seen = std::collections::HashSet::new();
        all.into_iter()
            .filter(|i| self.is_variable_name(&i.to_string()))
            .filter(|i| seen.insert(i.to_string()))
            .collect()
    }

    /// An expression of type `String`: `"; x = 3, y = [1, 2]"` for the variables `exprs` read,
    /// then `" (in the inverse `f_inv`)"` when emitting an inverse. Evaluated only on failure.
    pub(crate) fn condition_context(&self, exprs: &[&syn::Expr]) -> TokenStream {
        let vars = self.mentioned_vars(exprs);
        let names: Vec<String> = vars.iter().map(|v| v.to_string()).collect();
        let values: Vec<TokenStream> = vars
            .iter()
            .map(|v| self.expr(&syn::parse_quote!(#v)))
            .collect();
        let dir = self.inverse_suffix();
        quote!({
            #[allow(unused_imports)]
            use ::nilang::instr::show::{ViaDebug as _, ViaNothing as _};
            let mut __nilang_s = ::std::string::String::new();
            #(
                __nilang_s.push_str(if __nilang_s.is_empty() { "; values: " } else { ", " });
                __nilang_s.push_str(#names);
                __nilang_s.push_str(" = ");
                __nilang_s.push_str(&(&::nilang::instr::show::Show(&#values)).nilang_show());
            )*
            __nilang_s.push_str(#dir);
            __nilang_s
        })
    }

    /// `" (while running the inverse `f_inv`)"` when emitting an inverse, else empty: the end
    /// of every runtime error message.
    pub(crate) fn inverse_suffix(&self) -> String {
        match &self.inverse_of {
            Some(f) => format!(" (while running the inverse `{f}`)"),
            None => String::new(),
        }
    }
}
