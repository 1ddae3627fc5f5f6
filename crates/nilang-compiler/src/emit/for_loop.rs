//! `for`: a range (its bounds checked unchanged at the end, when checks are on) or the
//! indices of a slice (its length checked unchanged).
use super::{loc, Emitter};
use crate::ir::*;
use proc_macro2::TokenStream;
use quote::quote;

impl Emitter {
    /// A `for` loop.
    pub(super) fn for_loop(
        &mut self,
        var: &syn::Ident,
        iter: &ForIter,
        body: &[Stmt],
        s: &Stmt,
    ) -> TokenStream {
        let l = loc(s.span);
        let text = &s.text;
        self.loop_vars.push(var.to_string());
        let out = match iter {
            ForIter::Range(r) => {
                let (sv, ev, stv) = (self.fresh("s"), self.fresh("e"), self.fresh("st"));
                let (st, en) = (self.expr(&r.start), self.expr(&r.end));
                let range = if r.inclusive {
                    quote!((#sv..=#ev))
                } else {
                    quote!((#sv..#ev))
                };
                // a stepped range reversed: from its last element down, by the step
                // (`StepBy` of an `i64` range is not double-ended)
                let last = self.fresh("last");
                let (it, guard) = match (r.step.is_some(), r.rev) {
                    (true, true) => (
                        quote!((#sv..=#last).rev().step_by(#stv)),
                        quote!(if let ::core::option::Option::Some(#last) = ::core::iter::Iterator::last(#range.step_by(#stv))),
                    ),
                    (true, false) => (quote!(#range.step_by(#stv)), quote!()),
                    (false, true) => (quote!(#range.rev()), quote!()),
                    (false, false) => (range, quote!()),
                };
                let body = self.block(body);
                let (step_let, cap, now) = match &r.step {
                    Some(stp) => {
                        let stp = self.expr(stp);
                        (
                            quote!(let #stv = #stp;),
                            quote!((#sv, #ev, #stv)),
                            quote!((#st, #en, #stp)),
                        )
                    }
                    None => (quote!(), quote!((#sv, #ev)), quote!((#st, #en))),
                };
                let check = if s.check {
                    quote!(::nilang::check::bounds(&#cap, &#now, #l, #text);)
                } else {
                    quote!()
                };
                quote!({ let #sv = #st; let #ev = #en; #step_let #guard { for #var in #it { #body } } #check })
            }
            ForIter::Indices { slice, rev } => {
                let idx = slice_index(var);
                let sl = self.place(slice);
                let n = self.fresh("n");
                let it = if *rev {
                    quote!((0..#n).rev())
                } else {
                    quote!((0..#n))
                };
                self.loop_vars.push(idx.to_string());
                let body = self.block(body);
                self.loop_vars.pop();
                let check = if s.check {
                    quote!(::nilang::check::bounds(&#n, &#sl.len(), #l, #text);)
                } else {
                    quote!()
                };
                quote!({ let #n = #sl.len(); for #idx in #it { #body } #check })
            }
        };
        self.loop_vars.pop();
        out
    }
}
