//! Operand passing shared by the statements that take places: hoisted indices, direct `&mut`
//! borrows or copy-in temporaries with write-back, and the runtime checks that two places are
//! distinct.
use super::{loc, Emitter};
use crate::analyze::{relation, Relation};
use crate::ir::*;
use proc_macro2::TokenStream;
use quote::quote;
use std::collections::HashSet;

impl Emitter {
    pub(super) fn distinct_checks(&self, places: &[&Place], s: &Stmt) -> TokenStream {
        if !s.check {
            return quote!();
        }
        let mut out = quote!();
        let l = loc(s.span);
        let text = &s.text;
        for i in 0..places.len() {
            for j in 0..i {
                if !self.is_writable(&places[j].root.to_string()) {
                    continue;
                }
                if let Relation::MaybeSame(pairs) = relation(places[j], places[i]) {
                    let a: Vec<_> = pairs.iter().map(|(a, _)| self.expr(a)).collect();
                    let b: Vec<_> = pairs.iter().map(|(_, b)| self.expr(b)).collect();
                    out.extend(quote! {
                        ::nilang::check::distinct(&(#(#a,)*), &(#(#b,)*), #l, #text);
                    });
                }
            }
        }
        out
    }

    /// Operand passing: direct `&mut place` when the root is writable and not shared in the
    /// statement (an element of a slice parameter lent through `Places::at`: `places.rs`),
    /// else a copy-in temporary with write-back (through `Places::get`/`set` for an element of
    /// a slice parameter).
    pub(super) fn pass(
        &mut self,
        p: &Place,
        shared_roots: &HashSet<String>,
        pre: &mut TokenStream,
        post: &mut TokenStream,
    ) -> TokenStream {
        let name = p.root.to_string();
        let writable = self.is_writable(&name);
        if writable && !p.neg && !shared_roots.contains(&name) {
            if let Some(lent) = self.lend(p) {
                return lent;
            }
            return self.borrow_mut(p, pre, post);
        }
        let t = self.fresh("t");
        let read = self.read(p);
        pre.extend(quote!(let mut #t = #read;));
        if p.neg {
            pre.extend(quote!(::nilang::NEG(&mut #t);));
        }
        if writable {
            let mut wb = quote!();
            if p.neg {
                wb.extend(quote!(::nilang::NEG(&mut #t);));
            }
            wb.extend(self.write(p, quote!(#t)));
            // write-backs run in reverse order of the reads
            let old = std::mem::take(post);
            post.extend(wb);
            post.extend(old);
        }
        quote!(&mut #t)
    }

    /// Roots with two places in the statement that may overlap (provably different fields,
    /// `s.a` and `s.b`, do not count: they are borrowed directly).
    pub(super) fn shared_roots(&self, places: &[&Place]) -> HashSet<String> {
        let mut shared = HashSet::new();
        for (i, a) in places.iter().enumerate() {
            for b in &places[..i] {
                if !matches!(relation(a, b), Relation::Disjoint) {
                    shared.insert(a.root.to_string());
                }
            }
        }
        shared
    }

    /// Evaluate the non-trivial index expressions of a place into temporaries first, so that
    /// `&mut x[x.len() - 1]` does not borrow `x` twice and every index is evaluated once.
    /// A range index keeps its form (its ends hoisted): `x[a..b]` stays a sub-slice.
    pub(super) fn hoist_place(&mut self, p: &mut Place, out: &mut TokenStream) {
        for proj in &mut p.path {
            if let Proj::Index(e) = proj {
                match e {
                    syn::Expr::Range(r) => {
                        for end in [&mut r.start, &mut r.end].into_iter().flatten() {
                            self.hoist_index(end, out);
                        }
                    }
                    e => self.hoist_index(e, out),
                }
            }
        }
    }

    /// `e` evaluated into a temporary first, unless it is a literal or a name.
    fn hoist_index(&mut self, e: &mut syn::Expr, out: &mut TokenStream) {
        let trivial = match e {
            syn::Expr::Lit(_) => true,
            syn::Expr::Path(p) => p.path.get_ident().is_some(),
            _ => false,
        };
        if !trivial {
            let t = self.fresh("ix");
            let ee = self.expr(e);
            out.extend(quote!(let #t = #ee;));
            *e = syn::parse_quote!(#t);
        }
    }

    pub(super) fn hoist_operand(&mut self, o: &mut Operand, out: &mut TokenStream) {
        match o {
            Operand::Place(p) => self.hoist_place(p, out),
            Operand::Tuple(t, _) => t.iter_mut().for_each(|o| self.hoist_operand(o, out)),
            _ => {}
        }
    }
}
