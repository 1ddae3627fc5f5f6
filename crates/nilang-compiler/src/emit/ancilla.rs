//! Ancillas: allocation `let mut x = v;`, the deallocation check (with the magnitude history
//! of `Emitter::stmts`), and moves.
use super::{loc, Emitter};
use crate::ir::*;
use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};

impl Emitter {
    /// `let x = value;`
    pub(super) fn alloc(&mut self, a: &Anc, s: &Stmt) -> TokenStream {
        let v = self.expr(&a.value);
        let ty = a.ty.as_ref().map(|t| quote!(: #t));
        if a.tuple {
            let names = &a.names;
            quote_spanned!(s.span=> let (#(mut #names),*) #ty = #v;)
        } else {
            let n = &a.names[0];
            quote_spanned!(s.span=> let mut #n #ty = #v;)
        }
    }

    /// `dealloc!(x = value)`: checked to hold `value` (when checks are on).
    pub(super) fn dealloc(&mut self, a: &Anc, s: &Stmt) -> TokenStream {
        let l = loc(s.span);
        let text = &s.text;
        let k = self
            .tracked
            .iter()
            .rposition(|(n, _)| !a.tuple && *n == a.names[0]);
        let history = k.and_then(|k| self.tracked.remove(k).1);
        if !s.check {
            return quote!();
        }
        let names = &a.names;
        let x = if a.tuple {
            quote!((#(#names),*))
        } else {
            quote!(#(#names)*)
        };
        let v = self.anc_value(a, &x);
        // `AlmostSame` when the type has it, else `PartialEq` (see `nilang::instr::dealloc`)
        match history {
            Some(h) => {
                let origin = super::origin_of(&h);
                quote_spanned!(s.span=> {
                    #[allow(unused_imports)]
                    use ::nilang::instr::dealloc::{ViaAlmostSame as _, ViaPartialEq as _};
                    (&::nilang::instr::dealloc::Probe(&#x)).nilang_dealloc_from(&(#v), #h, #origin, #l, #text);
                })
            }
            None => quote_spanned!(s.span=> {
                #[allow(unused_imports)]
                use ::nilang::instr::dealloc::{ViaAlmostSame as _, ViaPartialEq as _};
                (&::nilang::instr::dealloc::Probe(&#x)).nilang_dealloc(&(#v), #l, #text);
            }),
        }
    }

    /// `let dst = take!(src);`
    pub(super) fn take(&mut self, dst: &syn::Ident, src: &syn::Ident, s: &Stmt) -> TokenStream {
        quote_spanned!(s.span=> let mut #dst = ::core::mem::take(&mut #src);)
    }

    fn anc_value(&self, a: &Anc, like: &TokenStream) -> TokenStream {
        match &a.value {
            syn::Expr::Lit(l) if matches!(l.lit, syn::Lit::Float(_)) && !a.tuple => {
                quote!(::nilang::instr::lit_f(&#like, #l))
            }
            v => self.expr(v),
        }
    }
}
