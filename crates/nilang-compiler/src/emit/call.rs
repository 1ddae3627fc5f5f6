//! Calls of reversible functions: the function itself, or its inverse (`f_inv`,
//! `uncall`) in inverted code.
use super::{loc, Emitter};
use crate::analyze::ParamKind;
use crate::ir::*;
use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use std::collections::HashSet;

impl Emitter {
    pub(super) fn call(&mut self, c: &Call, s: &Stmt) -> TokenStream {
        let mut hoist = quote!();
        let mut c = c.clone();
        if let Callee::Method { receiver, .. } = &mut c.callee {
            self.hoist_place(receiver, &mut hoist);
        }
        for a in &mut c.args {
            if let CallArg::InOut(p) | CallArg::Name(p) = a {
                self.hoist_place(p, &mut hoist);
            }
        }
        let body = self.call_hoisted(&c, s);
        quote!({ #hoist #body })
    }

    /// A read-only argument that reads a root passed in-out in the same call, evaluated
    /// before the borrows: a `&place` of such a root is copied into a temporary; a `&place` of
    /// another root (only its indices read them) is borrowed after its indices are evaluated,
    /// so a sub-slice is not copied.
    fn read_copy(
        &mut self,
        e: &syn::Expr,
        inout_roots: &HashSet<String>,
        pre: &mut TokenStream,
    ) -> TokenStream {
        let t = self.fresh("r");
        match crate::syntax::read_place(e) {
            Some(mut p) if !inout_roots.contains(&p.root.to_string()) => {
                self.hoist_place(&mut p, pre);
                let pe = self.value_of(&p);
                quote!(&#pe)
            }
            Some(p) => {
                let read = self.read(&p);
                pre.extend(quote!(let #t = #read;));
                quote!(&#t)
            }
            None => {
                let ee = self.expr(e);
                pre.extend(quote!(let #t = #ee;));
                quote!(#t)
            }
        }
    }

    /// `&z` with `z` a variable of this function that can change (an `&mut` parameter, an
    /// ancilla): on gradient numbers its derivative would be dropped by the callee's read-only
    /// parameter, so a probe raises `DroppedDerivative` there (nothing on plain numbers; see
    /// `nilang::ad::read_only`). `cst!(&z)` declares the constant: no probe.
    fn read_only_probe(&self, e: &syn::Expr, s: &Stmt) -> TokenStream {
        let Some(p) = crate::syntax::read_place(e) else {
            return quote!();
        };
        let root = p.root.to_string();
        if !self.is_writable(&root) {
            return quote!();
        }
        let pe = self.value_of(&p);
        let l = loc(s.span);
        let text = &s.text;
        let arg = quote!(#e).to_string();
        let arg = arg.strip_prefix("& ").unwrap_or(&arg).to_string();
        quote! {{
            #[allow(unused_imports)]
            use ::nilang::ad::read_only::{Unchecked as _, ViaAdjoints as _};
            (&::nilang::ad::read_only::Probe(&#pe)).nilang_read_only(#l, #text, #arg);
        }}
    }

    fn call_hoisted(&mut self, c: &Call, s: &Stmt) -> TokenStream {
        let mut inout: Vec<&Place> = vec![];
        if let Callee::Method { receiver, .. } = &c.callee {
            inout.push(receiver);
        }
        let params = &self.params;
        let inout_param = |n: &str| params.get(n) == Some(&ParamKind::InOut);
        for a in &c.args {
            inout.extend(a.inout_place(inout_param));
        }
        let vars: Vec<&Place> = inout
            .iter()
            .copied()
            .filter(|p| self.is_variable(&p.root.to_string()))
            .collect();
        // read-only arguments reading a root that is passed in-out: copied before the borrows,
        // and checked to be other elements than the in-out ones
        let inout_roots: HashSet<String> = vars.iter().map(|p| p.root.to_string()).collect();
        let reads: Vec<Place> = c
            .read_places()
            .filter(|p| inout_roots.contains(&p.root.to_string()))
            .collect();
        let mut all = vars.clone();
        all.extend(reads.iter());
        let checks = self.distinct_checks(&all, s);
        let shared = self.shared_roots(&vars);
        let mut pre = quote!();
        let mut post = quote!();
        let mut args = vec![];
        for a in &c.args {
            if let CallArg::Read(e) = a {
                pre.extend(self.read_only_probe(e, s));
                if crate::syntax::mentions(e, &inout_roots) {
                    args.push(self.read_copy(e, &inout_roots, &mut pre));
                    continue;
                }
            }
            let params = &self.params;
            let inout = a
                .inout_place(|n| params.get(n) == Some(&ParamKind::InOut))
                .cloned();
            args.push(match (inout, a) {
                (Some(p), _) => self.pass(&p, &shared, &mut pre, &mut post),
                // a read-only reference parameter is passed as written: the reference itself
                (None, CallArg::Name(p))
                    if self.params.get(&p.root.to_string()) == Some(&ParamKind::ReadRef)
                        && !self.loop_vars.contains(&p.root.to_string()) =>
                {
                    let root = &p.root;
                    quote!(#root)
                }
                (None, CallArg::Name(p)) => {
                    let root = &p.root;
                    self.expr(&syn::parse_quote!(#root))
                }
                (None, CallArg::Read(e)) => self.expr(e),
                (None, CallArg::InOut(_)) => quote!(),
            });
        }
        let tape = self.tape_call(c, &args, s);
        let call = match &c.callee {
            Callee::Path(_) if tape.is_some() => tape.unwrap_or_default(),
            Callee::Path(p) => {
                let mut p = p.clone();
                if c.inverse {
                    if let Some(last) = p.path.segments.last_mut() {
                        last.ident = crate::abi::inverse_name(&last.ident);
                    }
                }
                let ordinary = quote_spanned!(s.span=> #p(#(#args),*););
                match crate::abi::primal_callee(c) {
                    Some(marker) => self.value_only_or(
                        {
                            let primal = crate::abi::item(crate::abi::PRIMAL);
                            // the function value tagged with this code's instruction-set
                            // level, as in adjoint-only calls (`emit::adjoint`): each level
                            // calls an instance of its own, inlined into that level's code
                            // (a callee of more parameters: untagged, see `adj_call`)
                            let f = if c.args.len() <= crate::abi::MAX_CALL_TUPLE {
                                quote!(::nilang::simd::Level::<__NILANG_ISA, _>(#p))
                            } else {
                                quote!(#p)
                            };
                            let primal = marker.item(quote!(#primal(#f, (#(#args,)*))));
                            quote_spanned!(s.span=> #primal;)
                        },
                        ordinary,
                    ),
                    None => ordinary,
                }
            }
            Callee::Method {
                receiver,
                method,
                turbofish,
            } => {
                let recv = self.place(receiver);
                // `Reversible` values are called with `f.call(args)`, inverted by `f.uncall(args)`
                let m = match (c.inverse, method.to_string().as_str()) {
                    (false, _) => method.clone(),
                    (true, "call") => format_ident!("uncall", span = method.span()),
                    (true, "uncall") => format_ident!("call", span = method.span()),
                    (true, _) => crate::abi::inverse_name(method),
                };
                let tf = turbofish.as_ref().map(|t| quote!(::#t));
                quote_spanned!(s.span=> #recv.#m #tf(#(#args),*);)
            }
        };
        quote!({ #checks #pre #call #post })
    }
}
