//! One element read twice by one `+=`/`-=` instruction: `y += x[a] * x[b]` with `a == b` at
//! run time is legal (both places are read, none written), but copying both into temporaries
//! and writing both back would keep only one read's adjoint. When the indices compare equal,
//! the later read is passed as a fan-out copy instead (`nilang::instr::fan_out`: `c += x[b]`
//! from zero, uncomputed by `fan_in` after every write-back, which adds its adjoint to
//! `x[b]`'s); otherwise it is the plain copy of `operands.rs`. Only places that are written
//! need distinct elements, so the runtime checks compare each written place with every other.
use super::Emitter;
use crate::analyze::{relation, Relation};
use crate::ir::*;
use proc_macro2::TokenStream;
use quote::quote;
use std::collections::HashSet;

impl Emitter {
    /// The distinctness checks of an instruction that writes `written` and only reads `read`:
    /// written places among themselves and against each read one (two reads may meet).
    pub(super) fn written_distinct_checks(
        &self,
        written: &[&Place],
        read: &[&Place],
        s: &Stmt,
    ) -> TokenStream {
        let mut out = self.distinct_checks(written, s);
        for r in read {
            for w in written {
                out.extend(self.distinct_checks(&[w, r], s));
            }
        }
        out
    }

    /// Pass the read-only operand `p`, read after the places `earlier` of the same
    /// instruction: a fan-out copy where its element equals one of theirs at run time (its
    /// uncomputation goes to `fan_in`, run after every write-back in `post`), else as
    /// [`Emitter::pass`] does.
    pub(super) fn pass_read(
        &mut self,
        p: &Place,
        earlier: &[&Place],
        shared_roots: &HashSet<String>,
        pre: &mut TokenStream,
        post: &mut TokenStream,
        fan_in: &mut TokenStream,
    ) -> TokenStream {
        let name = p.root.to_string();
        let same: Vec<TokenStream> = earlier
            .iter()
            .filter_map(|e| match relation(e, p) {
                Relation::MaybeSame(pairs)
                    if !pairs.iter().any(|(a, b)| different_literals(a, b)) =>
                {
                    let a: Vec<_> = pairs.iter().map(|(a, _)| self.expr(a)).collect();
                    let b: Vec<_> = pairs.iter().map(|(_, b)| self.expr(b)).collect();
                    Some(quote!(((#(#a,)*) == (#(#b,)*))))
                }
                _ => None,
            })
            .collect();
        if same.is_empty() || !self.is_writable(&name) || !shared_roots.contains(&name) {
            return self.pass(p, shared_roots, pre, post);
        }
        let (read, t, flag, e) = (
            self.read(p),
            self.fresh("t"),
            self.fresh("same"),
            self.fresh("e"),
        );
        let (put_e, put_t) = (self.write(p, quote!(#e)), self.write(p, quote!(#t)));
        pre.extend(quote! {
            let #flag = #(#same)||*;
            let mut #t = if #flag {
                let mut #e = #read;
                let __nilang_c = ::nilang::instr::fan_out(&mut #e);
                #put_e
                __nilang_c
            } else {
                #read
            };
        });
        let neg = if p.neg {
            quote!(::nilang::NEG(&mut #t);)
        } else {
            quote!()
        };
        pre.extend(neg.clone());
        // write-backs run in reverse order of the reads, the fan-out copies after all of them
        let old = std::mem::take(post);
        post.extend(quote!(#neg if !#flag { #put_t }));
        post.extend(old);
        fan_in.extend(quote! {
            if #flag {
                let mut #e = #read;
                ::nilang::instr::fan_in(&mut #t, &mut #e);
                #put_e
            }
        });
        quote!(&mut #t)
    }
}

/// `a` and `b` are integer literals of different values (`z[0]`, `z[1]`: never one element).
fn different_literals(a: &syn::Expr, b: &syn::Expr) -> bool {
    let int = |e: &syn::Expr| match e {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(i),
            ..
        }) => i.base10_parse::<u128>().ok(),
        _ => None,
    };
    matches!((int(a), int(b)), (Some(x), Some(y)) if x != y)
}
