//! Ancillas: allocation `let mut x = v;`, the deallocation check (with the magnitude history
//! of `Emitter::stmts`), and moves.
use super::{loc, Emitter};
use crate::ir::*;
use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};

impl Emitter {
    /// `let x = value;`
    pub(super) fn alloc(&mut self, a: &Anc, s: &Stmt) -> TokenStream {
        let v = match &a.value {
            syn::Expr::Tuple(t) if a.tuple && t.elems.len() == a.names.len() => {
                let elems: Vec<TokenStream> = t.elems.iter().map(|e| self.start(e)).collect();
                quote!((#(#elems),*))
            }
            e => self.start(e),
        };
        let ty = a.ty.as_ref().map(|t| quote!(: #t));
        if a.tuple {
            let names = &a.names;
            quote_spanned!(s.span=> let (#(mut #names),*) #ty = #v;)
        } else {
            let n = &a.names[0];
            quote_spanned!(s.span=> let mut #n #ty = #v;)
        }
    }

    /// The value an ancilla starts from: `P::default()` and `P::zero()` through
    /// `nilang::instr::fresh::Start` (a gradient number's adjoint starts from −0.0, the
    /// identity of addition, so the backward pass's first update into it is a move:
    /// `Fresh::ancilla`), any other value, and every value in a body that stores on the
    /// tape, as written.
    fn start(&mut self, e: &syn::Expr) -> TokenStream {
        let v = self.expr(e);
        let zero = match e {
            syn::Expr::Call(c) if c.args.is_empty() => match &*c.func {
                syn::Expr::Path(p) => {
                    let segs = &p.path.segments;
                    p.qself.is_none()
                        && segs.len() == 2
                        && segs[0].arguments.is_none()
                        && segs[1].arguments.is_none()
                        && (segs[1].ident == "default" || segs[1].ident == "zero")
                }
                _ => false,
            },
            _ => false,
        };
        // a body that stores on the tape keeps zero adjoints as +0.0: the tape stores a
        // gradient number whose adjoint has the bits of 0.0 as its value alone
        if !zero || self.cursor {
            return v;
        }
        quote!({
            #[allow(unused_imports)]
            use ::nilang::instr::fresh::{StartAny as _, StartFresh as _};
            (&::nilang::instr::fresh::Start::new(#v)).nilang_start()
        })
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
