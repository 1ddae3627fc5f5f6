//! The forward code: the program as written, lowered, that records on the value tape what
//! the adjoint needs and cannot recompute (the old value of an overwritten variable the
//! adjoint reads, each branch decision, each loop's start and trip count).
use super::emit::{bar_of, tape, Emitter};
use super::ir::*;
use super::lower::done;
use proc_macro2::TokenStream;
use quote::{format_ident, quote};

impl Emitter<'_> {
    /// The forward code of a block.
    pub fn forward(&self, b: &[Stmt]) -> TokenStream {
        b.iter().map(|s| self.forward_stmt(s)).collect()
    }

    fn push_old(&self, s: &Stmt, p: &Place) -> TokenStream {
        let tp = tape();
        if self.layout.records(self.f, s, Self::root(p)) {
            let pl = self.place(p);
            quote!(#tp.push(#pl);)
        } else {
            quote!()
        }
    }

    /// The forward code of one statement.
    pub fn forward_stmt(&self, s: &Stmt) -> TokenStream {
        let tp = tape();
        match s {
            Stmt::Assign { target, value } => {
                let ssa = Ssa::of(value);
                let ops = self.ops(&ssa);
                let last = super::emit::t(ssa.ops.len() - 1);
                let push = self.push_old(s, target);
                let pl = self.place(target);
                quote!({ #ops #push #pl = #last; })
            }
            Stmt::Inactive { target, value } => {
                let push = if self.layout.records(self.f, s, target) {
                    quote!(#tp.push_int((#target) as i64);)
                } else {
                    quote!()
                };
                quote!(#push #target = #value;)
            }
            Stmt::Call { target, func, args } => {
                let push = self.push_old(s, &Place::Var(target.clone()));
                let args = args.iter().map(|a| self.arg_value(a));
                quote!(#push #target = #func(#(#args),*);)
            }
            Stmt::Reversible { func, args } => {
                let args = args.iter().map(|p| {
                    let pl = self.place(p);
                    quote!(&mut #pl)
                });
                quote!(#func(#(#args),*);)
            }
            Stmt::Array { name, init } => {
                let bar = bar_of(name);
                if self.f.is_passive(name) {
                    // no adjoint
                    return match init {
                        ArrayInit::Repeat { init, .. } => quote!(let mut #name = #init;),
                        ArrayInit::CopyOf(x) => quote!(let mut #name = #x.to_vec();),
                    };
                }
                match init {
                    ArrayInit::Repeat { init, zeros } => {
                        quote!(let mut #name = #init; let mut #bar = #zeros;)
                    }
                    ArrayInit::CopyOf(x) => quote! {
                        let mut #name = #x.to_vec();
                        let mut #bar = ::std::vec![__ad_zero; #x.len()];
                    },
                }
            }
            Stmt::If { arms, otherwise } => {
                let record = !self.reverse_if_empty(arms, otherwise);
                let mut out = quote!();
                for (k, (c, body)) in arms.iter().enumerate() {
                    let k = k as i64;
                    let rec = if record {
                        quote!(#tp.push_int(#k);)
                    } else {
                        quote!()
                    };
                    let body = self.forward(body);
                    let kw = if k == 0 { quote!(if) } else { quote!(else if) };
                    out.extend(quote!(#kw #c { #body #rec }));
                }
                let k = arms.len() as i64;
                let rec = if record {
                    quote!(#tp.push_int(#k);)
                } else {
                    quote!()
                };
                let body = self.forward(otherwise);
                out.extend(quote!(else { #body #rec }));
                out
            }
            Stmt::For { var, lo, hi, body } => {
                let record = !self.reverse(body).is_empty() && !self.layout.stable_bounds(s);
                let b = self.forward(body);
                let (lo_v, n, it) = (
                    format_ident!("__ad_lo"),
                    format_ident!("__ad_n"),
                    format_ident!("__ad_it"),
                );
                let stop = self.stop();
                let rec = if record {
                    quote!(#tp.push_int(#lo_v as i64); #tp.push_int(#n);)
                } else {
                    quote!()
                };
                quote!({
                    let #lo_v = #lo;
                    let mut #n: i64 = 0;
                    for #it in #lo_v..#hi {
                        #stop
                        #var = #it;
                        #n += 1;
                        #b
                    }
                    #rec
                })
            }
            Stmt::While { cond, body } => {
                let record = !self.reverse(body).is_empty();
                let b = self.forward(body);
                let n = format_ident!("__ad_n");
                let stop = self.stop();
                let rec = if record {
                    quote!(#tp.push_int(#n);)
                } else {
                    quote!()
                };
                quote!({
                    let mut #n: i64 = 0;
                    while #cond {
                        #stop
                        #n += 1;
                        #b
                    }
                    #rec
                })
            }
            Stmt::Return(_) => quote!(),
        }
    }

    /// A loop's exit after an early `return`.
    fn stop(&self) -> TokenStream {
        if self.early {
            let d = done();
            quote!(if #d { break; })
        } else {
            quote!()
        }
    }
}
