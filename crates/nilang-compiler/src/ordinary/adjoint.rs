//! The adjoint code: the lowered statements in reverse order, each restoring what it
//! overwrote (from the value tape), recomputing its operations and propagating the adjoint
//! of what it wrote into the adjoints of what it read. Branches and loops replay the
//! decisions and trip counts the forward run recorded; a call of an `#[ad]` function runs
//! that function's forward and adjoint code (on the restored arguments); a call of an `#[i]`
//! function runs its inverse on gradient numbers, which restores its arguments, so nothing
//! of it was recorded.
use super::emit::{b, t, tape, Emitter};
use super::ir::*;
use super::rules;
use proc_macro2::TokenStream;
use quote::{format_ident, quote};

impl Emitter<'_> {
    /// The adjoint code of a block.
    pub fn reverse(&self, body: &[Stmt]) -> TokenStream {
        let r: TokenStream = body.iter().rev().map(|s| self.reverse_stmt(s)).collect();
        if r.is_empty() {
            return r;
        }
        // the integer assignments and the assignments of parameters' values executed again
        // (their values for this run of the block), in the block's order
        let again = body.iter().filter_map(|s| match s {
            Stmt::Inactive { target, value } if self.layout.recomputes(s) => {
                Some(quote!(#target = #value;))
            }
            s if self.layout.rematerializes(s) => Some(self.forward_stmt(s)),
            _ => None,
        });
        quote!(#(#again)* #r)
    }

    /// Whether no arm of an `if` has adjoint code (its decision then is not recorded).
    pub fn reverse_if_empty(&self, arms: &[(TokenStream, Vec<Stmt>)], otherwise: &[Stmt]) -> bool {
        arms.iter().all(|(_, b)| self.reverse(b).is_empty()) && self.reverse(otherwise).is_empty()
    }

    fn pop_old(&self, s: &Stmt, p: &Place) -> TokenStream {
        let tp = tape();
        if self.layout.records(self.f, s, Self::root(p)) {
            let pl = self.place(p);
            quote!(#pl = #tp.pop();)
        } else {
            quote!()
        }
    }

    fn reverse_stmt(&self, s: &Stmt) -> TokenStream {
        let tp = tape();
        let krate = &self.krate;
        match s {
            Stmt::Assign { target, value } => {
                let pop = self.pop_old(s, target);
                let Some(tbar) = self.bar(target) else {
                    return pop;
                };
                let ssa = Ssa::of(value);
                let act = ssa.active(|p| self.f.is_active(p));
                let n = ssa.ops.len();
                if !act[n - 1] {
                    return quote!({ #tbar = __ad_zero; #pop });
                }
                // only the values the adjoint reads are computed again
                let need = ssa.needed(&act);
                let ops = self.ops_where(&ssa, &need);
                let last = b(n - 1);
                // the operations' adjoints start at −0.0, the identity of `+` on floats
                // (`0.0 + x` is not `x` for `x = −0.0`, so `0.0` would cost an addition)
                let bars = (0..n - 1).filter(|&k| act[k]).map(|k| {
                    let bk = b(k);
                    quote!(let mut #bk = __ad_nzero;)
                });
                let mut adj = quote!();
                for k in (0..n).rev() {
                    adj.extend(rules::adjoint(&ssa.ops[k], k, t, b, |j| act[j]));
                    if let Op::Read(p) = &ssa.ops[k] {
                        if let Some(pb) = self.bar(p) {
                            let bk = b(k);
                            adj.extend(quote!(#pb += #bk;));
                        }
                    }
                }
                quote!({
                    let #last = #tbar;
                    #tbar = __ad_zero;
                    #pop
                    #ops
                    #(#bars)*
                    #adj
                })
            }
            Stmt::Inactive { target, .. } => {
                if self.layout.records(self.f, s, target) {
                    quote!(#target = #tp.pop_int() as _;)
                } else {
                    quote!()
                }
            }
            Stmt::Call { target, func, args } => {
                let p = Place::Var(target.clone());
                let pop = self.pop_old(s, &p);
                let tbar = self.bar(&p).expect("a call's result is differentiated");
                let vjp = vjp_path(func);
                let values = args.iter().map(|a| self.arg_value(a));
                let grads: Vec<TokenStream> = args
                    .iter()
                    .filter_map(|a| match a {
                        Arg::Value(Expr::Read(p)) => Some(match self.bar(p) {
                            Some(pb) => pb,
                            None => quote!(0.0),
                        }),
                        Arg::Value(_) | Arg::Data(_) => Some(quote!(0.0)),
                        // a local array without derivative: the callee's adjoints of it
                        // into a buffer no one reads
                        Arg::Array(a, _) if self.f.is_passive(a) => {
                            Some(quote!(::std::vec![__ad_zero; #a.len()][..]))
                        }
                        Arg::Array(a, _) => {
                            let ab = super::emit::bar_of(a);
                            Some(quote!(#ab[..]))
                        }
                        Arg::Const(_) => None,
                    })
                    .collect();
                // an adjoint passed twice (`f(x, x)`): the second one into a buffer, added after
                let mut seen = std::collections::HashSet::new();
                let (mut before, mut after, mut passed) = (quote!(), quote!(), vec![]);
                for (k, g) in grads.iter().enumerate() {
                    let key = g.to_string();
                    if key == "0.0" {
                        // no derivative: a slot that drops what the callee adds (which a
                        // `#[data]` parameter of the callee requires)
                        passed.push(quote!(#krate::ad::ordinary::NoAdjoint));
                    } else if seen.insert(key.clone()) {
                        passed.push(quote!(&mut #g));
                    } else {
                        let d = format_ident!("__ad_dup{}", k);
                        if key.ends_with("[..]") {
                            before.extend(quote!(let mut #d = ::std::vec![__ad_zero; #g.len()];));
                            after.extend(
                                quote!(for (s, d) in #g.iter_mut().zip(#d.iter()) { *s += *d; }),
                            );
                            passed.push(quote!(&mut #d[..]));
                        } else {
                            before.extend(quote!(let mut #d = __ad_zero;));
                            after.extend(quote!(#g += #d;));
                            passed.push(quote!(&mut #d));
                        }
                    }
                }
                quote!({
                    let __ad_g = #tbar;
                    #tbar = __ad_zero;
                    #pop
                    #before
                    #vjp(#(#values,)* #tp, __ad_g, #(#passed),*);
                    #after
                })
            }
            Stmt::Reversible { func, args } => {
                let inv = inv_path(func);
                let names: Vec<_> = (0..args.len())
                    .map(|k| format_ident!("__ad_a{}", k))
                    .collect();
                let mut make = quote!();
                let mut back = quote!();
                for (p, n) in args.iter().zip(&names) {
                    let pl = self.place(p);
                    let pb = self.bar(p).expect("an `#[i]` argument is differentiated");
                    make.extend(quote!(let mut #n = #krate::GVar { x: #pl, g: #pb };));
                    back.extend(quote!(#pl = #n.x; #pb = #n.g;));
                }
                quote!({
                    #make
                    #inv(#(&mut #names),*);
                    #back
                })
            }
            Stmt::Array { name, init } => match init {
                // a copy of data: no adjoint to pass on
                ArrayInit::CopyOf(x) if self.f.kind(x) != Some(Kind::Array) => quote!(),
                ArrayInit::CopyOf(x) => {
                    let (xb, nb) = (super::emit::bar_of(x), super::emit::bar_of(name));
                    quote!(for __ad_k in 0..#name.len() { #xb[__ad_k] += #nb[__ad_k]; })
                }
                ArrayInit::Repeat { .. } => quote!(),
            },
            Stmt::If { arms, otherwise } => {
                if self.reverse_if_empty(arms, otherwise) {
                    return quote!();
                }
                let arms_r = arms.iter().enumerate().map(|(k, (_, body))| {
                    let k = k as i64;
                    let r = self.reverse(body);
                    quote!(#k => { #r })
                });
                let r = self.reverse(otherwise);
                quote!(match #tp.pop_int() {
                    #(#arms_r)*
                    _ => { #r }
                })
            }
            Stmt::For { var, lo, hi, body } => {
                let r = self.reverse(body);
                if r.is_empty() {
                    return r;
                }
                let bounds = if self.layout.stable_bounds(s) {
                    // evaluated again: they read nothing the loop or what follows changes
                    quote! {
                        let __ad_lo: i64 = (#lo) as i64;
                        let __ad_hi: i64 = (#hi) as i64;
                        let __ad_n: i64 = if __ad_hi > __ad_lo { __ad_hi - __ad_lo } else { 0 };
                    }
                } else {
                    quote! {
                        let __ad_n: i64 = #tp.pop_int();
                        let __ad_lo: i64 = #tp.pop_int();
                    }
                };
                quote!({
                    #bounds
                    let mut __ad_k: i64 = __ad_n;
                    while __ad_k > 0 {
                        __ad_k -= 1;
                        #var = (__ad_lo + __ad_k) as _;
                        #r
                    }
                })
            }
            Stmt::While { body, .. } => {
                let r = self.reverse(body);
                if r.is_empty() {
                    return r;
                }
                quote!({
                    let __ad_n: i64 = #tp.pop_int();
                    for _ in 0..__ad_n {
                        #r
                    }
                })
            }
            Stmt::Return(_) => quote!(),
        }
    }
}

/// The forward-and-adjoint function of an `#[ad]` function's path.
pub fn vjp_path(func: &syn::Path) -> syn::Path {
    let mut p = func.clone();
    if let Some(last) = p.segments.last_mut() {
        last.ident = format_ident!("{}__ad_vjp", last.ident);
    }
    p
}

/// The inverse of an `#[i]` function's path.
pub fn inv_path(func: &syn::Path) -> syn::Path {
    let mut p = func.clone();
    if let Some(last) = p.segments.last_mut() {
        last.ident = crate::abi::inverse_name(&last.ident);
    }
    p
}
