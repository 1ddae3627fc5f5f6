//! Instructions `y op= f(x, ..)`: one call of the instruction trait (`PlusEq2<F, _, _>` and
//! the like) on the passed operands.
use super::Emitter;
use crate::analyze::operand_places;
use crate::ir::*;
use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};

impl Emitter {
    pub(super) fn instr(&mut self, i: &Instr, s: &Stmt) -> TokenStream {
        let mut hoist = quote!();
        let mut i = i.clone();
        self.hoist_operand(&mut i.target, &mut hoist);
        for a in &mut i.args {
            self.hoist_operand(a, &mut hoist);
        }
        let body = self.instr_hoisted(&i, s);
        quote!({ #hoist #body })
    }

    fn instr_hoisted(&mut self, i: &Instr, s: &Stmt) -> TokenStream {
        let mut places = vec![];
        operand_places(&i.target, &mut places);
        let n_written = places.len();
        for a in &i.args {
            operand_places(a, &mut places);
        }
        let vars: Vec<&Place> = places
            .iter()
            .copied()
            .filter(|p| self.is_variable(&p.root.to_string()))
            .collect();
        // `+=`/`-=` read their arguments: two of them may reach one element (`fan_out.rs`)
        let accumulates = matches!(i.op, AccOp::Plus | AccOp::Minus);
        let checks = if accumulates {
            let n = places[..n_written]
                .iter()
                .filter(|p| self.is_variable(&p.root.to_string()))
                .count();
            let (written, read) = vars.split_at(n);
            self.written_distinct_checks(written, read, s)
        } else {
            self.distinct_checks(&vars, s)
        };
        let shared = self.shared_roots(&vars);
        let mut pre = quote!();
        let mut post = quote!();
        let mut fan_in = quote!();
        let mut reads: Vec<&Place> = vec![];
        // target
        let (target, target_like) = match &i.target {
            Operand::Place(p) => {
                let like = self.value_of(p);
                (self.pass(p, &shared, &mut pre, &mut post), like)
            }
            Operand::Tuple(elems, _) => {
                let t = self.fresh("y");
                let reads: Vec<TokenStream> = elems
                    .iter()
                    .map(|e| match e {
                        Operand::Place(p) => self.read(p),
                        _ => quote!(()),
                    })
                    .collect();
                pre.extend(quote!(let mut #t = (#(#reads,)*);));
                for (k, e) in elems.iter().enumerate() {
                    if let Operand::Place(p) = e {
                        let idx = syn::Index::from(k);
                        if p.neg {
                            // the negation view: read negated, written back negated
                            pre.extend(quote!(::nilang::NEG(&mut #t.#idx);));
                            post.extend(quote!(::nilang::NEG(&mut #t.#idx);));
                        }
                        post.extend(self.write(p, quote!(#t.#idx)));
                    }
                }
                let first = match elems.first() {
                    Some(Operand::Place(p)) => self.value_of(p),
                    _ => quote!(()),
                };
                (quote!(&mut #t), first)
            }
            _ => (quote!(&mut ()), quote!(())),
        };
        let mut args = vec![];
        for a in &i.args {
            args.push(match a {
                Operand::Place(p) if crate::data::is_float_datum(&self.float_data, p) => {
                    // read-only float data: converted to the target's number type
                    let t = self.fresh("c");
                    let pe = self.value_of(p);
                    let neg = if p.neg {
                        quote!(::nilang::NEG(&mut #t);)
                    } else {
                        quote!()
                    };
                    pre.extend(
                        quote!(let mut #t = ::nilang::instr::data_f(&#target_like, #pe); #neg),
                    );
                    quote!(&mut #t)
                }
                Operand::Place(p) if self.is_variable(&p.root.to_string()) && accumulates => {
                    let passed =
                        self.pass_read(p, &reads, &shared, &mut pre, &mut post, &mut fan_in);
                    reads.push(p);
                    passed
                }
                Operand::Place(p) if self.is_variable(&p.root.to_string()) => {
                    self.pass(p, &shared, &mut pre, &mut post)
                }
                Operand::Place(p) => {
                    let t = self.fresh("c");
                    let pe = self.place(p);
                    let neg = if p.neg {
                        quote!(::nilang::NEG(&mut #t);)
                    } else {
                        quote!()
                    };
                    pre.extend(quote!(let mut #t = #pe; #neg));
                    at_operand(&t, p.span)
                }
                Operand::Lit { lit, neg, span } => {
                    let t = self.fresh("c");
                    let sign = if *neg { quote!(-) } else { quote!() };
                    let f = if matches!(lit, syn::Lit::Int(_)) {
                        quote_spanned!(*span=> ::nilang::instr::lit_i)
                    } else {
                        quote_spanned!(*span=> ::nilang::instr::lit_f)
                    };
                    pre.extend(quote!(let mut #t = #f(&#target_like, #sign #lit);));
                    quote!(&mut #t)
                }
                Operand::Const { expr, .. } => {
                    let t = self.fresh("c");
                    let e = self.expr(expr);
                    pre.extend(quote!(let mut #t = #e;));
                    at_operand(&t, syn::spanned::Spanned::span(expr))
                }
                Operand::Tuple(..) => quote!(&mut ()),
            });
        }
        let n = args.len();
        let (tr, method) = match (i.op, n) {
            (AccOp::Plus, _) => (format!("PlusEq{n}"), "plus_eq"),
            (AccOp::Minus, _) => (format!("PlusEq{n}"), "minus_eq"),
            (AccOp::Xor, _) => (format!("XorEq{n}"), "xor_eq"),
            (AccOp::Mul, _) => (format!("MulEq{n}"), "mul_eq"),
            (AccOp::Div, _) => (format!("MulEq{n}"), "div_eq"),
        };
        let tr = format_ident!("{}", tr, span = s.span);
        let method = format_ident!("{}", method, span = s.span);
        let f = match &i.func {
            FuncRef::Builtin(b) => {
                let b = format_ident!("{}", b, span = s.span);
                quote!(::nilang::instr::fns::#b)
            }
            FuncRef::User(p) => quote!(#p),
        };
        let holes: Vec<TokenStream> = (0..n).map(|_| quote!(_)).collect();
        let mut call = quote_spanned! {s.span=>
            <_ as ::nilang::instr::#tr<#f, #(#holes),*>>::#method(#target, #(#args),*);
        };
        if let AccOp::Plus | AccOp::Minus = i.op {
            let pm = format_ident!("{}_primal", method, span = s.span);
            let primal = quote_spanned! {s.span=>
                <_ as ::nilang::instr::#tr<#f, #(#holes),*>>::#pm(#target, #(#args),*);
            };
            call = self.value_only_or(primal, call);
            if let Operand::Place(p) = &i.target {
                if let Some(dead) = self.adj_dead(p) {
                    let adj = format_ident!("{}_adjoint", method, span = s.span);
                    call = quote_spanned! {s.span=>
                        if #dead {
                            <_ as ::nilang::instr::#tr<#f, #(#holes),*>>::#adj(#target, #(#args),*);
                        } else {
                            #call
                        }
                    };
                }
            }
        }
        quote!({ #checks #pre #call #post #fan_in })
    }
}

/// `&mut t` for the temporary `t` holding a constant operand, located at the operand (`span`)
/// with the temporary's own hygiene, so that rustc's type errors on it (an `f64` constant where
/// a generic program's instruction wants `T`: `expected &mut T, found &mut f64`) point at the
/// operand rather than at `#[i]`.
fn at_operand(t: &syn::Ident, span: proc_macro2::Span) -> TokenStream {
    let at = span.resolved_at(t.span());
    let t = syn::Ident::new(&t.to_string(), at);
    quote_spanned!(at=> &mut #t)
}
