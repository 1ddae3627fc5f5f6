//! `#[ad]`: reverse-mode AD of ordinary Rust functions by source transformation.
//!
//! A plain pipeline, like the reversible compiler's:
//!
//! 1. [`parse`]: the `fn` to the [`ir`] (parameters classified, scalar locals hoisted to
//!    function-wide variables, everything outside the subset reported at its tokens);
//! 2. [`lower`]: calls of `#[ad]` functions as their own statements, early `return`s as a
//!    result variable and a flag; [`activity`]: the locals that depend on `#[data]` and
//!    constants only (no adjoint);
//! 3. [`ir::Ssa`]: each right-hand side in single-assignment (three-address) form;
//! 4. [`tape`]: which overwrites the forward code records (the value tape's layout), and
//!    [`remat`]: which assignments the adjoint executes again instead;
//! 5. [`forward`] and [`adjoint`]: the forward code and the adjoint code, both plain Rust,
//!    in one function `f__ad_vjp`, the derivatives from [`rules`] (the table of elementary
//!    functions for the functions of one argument).
//!
//! [`compile`] emits, for `#[ad] fn f(..) -> f64`: `f` unchanged, `f_forward` (the value and
//! its pullback), `f__ad_vjp`, and the unit struct `F` that the gradient API takes
//! (`nilang::gradient(&F, (&mut out, args..), 0)`: `F` is `out += f(args)`, a
//! compute–copy–uncompute function). [`show`] returns the single-assignment form, the tape
//! layout and the generated code as text.
pub mod activity;
pub mod adjoint;
pub mod emit;
pub mod forward;
pub mod ir;
pub mod lower;
pub mod parse;
pub mod remat;
pub mod rules;
pub mod tape;

use crate::function::camel;
use emit::{bar_of, Emitter};
use ir::*;
use proc_macro2::TokenStream;
use quote::{format_ident, quote, ToTokens};

/// What [`show`] returns: the stages of one `#[ad]` function as text.
#[derive(Debug, Clone)]
pub struct Shown {
    /// The lowered statements with each right-hand side in single-assignment form, and what
    /// each write records on the tape.
    pub ssa: String,
    /// The variables whose overwrites are recorded (the tape layout besides decisions and
    /// trip counts).
    pub tape: String,
    /// The generated forward-and-adjoint function `f__ad_vjp`.
    pub vjp: String,
}

/// The stages of `#[ad] item` as text (the same text the generated `F::SSA`, `F::TAPE` and
/// `F::VJP` hold).
///
/// ```
/// let s = nilang_compiler::ordinary::show(quote::quote!(
///     fn f(x: &[f64]) -> f64 {
///         let mut p = 1.0;
///         for i in 0..x.len() {
///             p *= x[i].sin();
///         }
///         p
///     }
/// ))
/// .unwrap();
/// assert!(s.ssa.contains("t2 = sin(t1)"), "{}", s.ssa);
/// assert!(s.tape.contains("p"), "{}", s.tape);
/// ```
pub fn show(item: TokenStream) -> Result<Shown, syn::Error> {
    let item: syn::ItemFn = syn::parse2(item)?;
    let mut f = parse::parse(item).map_err(|e| e.into_error().expect("an error"))?;
    lower::lower(&mut f);
    activity::analyze(&mut f);
    let layout = tape::Layout::of(&f);
    let vjp = vjp_fn(&f, &layout, &quote!(::nilang));
    Ok(Shown {
        ssa: render(&f, &layout),
        tape: tape_text(&f, &layout),
        vjp: vjp.to_string(),
    })
}

/// Compile `#[ad] item`. Never panics: malformed input yields `compile_error!`s.
///
/// ```
/// let out = nilang_compiler::ordinary::compile(
///     quote::quote!(),
///     quote::quote!(fn f(x: f64) -> f64 { x.sin() * x }),
/// );
/// assert!(out.to_string().contains("f__ad_vjp"));
/// ```
pub fn compile(attr: TokenStream, item: TokenStream) -> TokenStream {
    if !attr.is_empty() {
        return syn::Error::new_spanned(attr, "`#[ad]` takes no options").to_compile_error();
    }
    let item: syn::ItemFn = match syn::parse2(item.clone()) {
        Ok(i) => i,
        Err(_) => {
            return syn::Error::new_spanned(item, "`#[ad]` applies to a `fn`").to_compile_error()
        }
    };
    let mut f = match parse::parse(item.clone()) {
        Ok(f) => f,
        Err(e) => {
            // the errors, and the signature alone, so that uses elsewhere report nothing more
            let errs = e.to_compile_errors();
            let mut item = item;
            parse::strip_data(&mut item);
            let (attrs, vis, sig) = (&item.attrs, &item.vis, &item.sig);
            return quote! {
                #errs
                #(#attrs)*
                #[allow(unused_variables)]
                #vis #sig {
                    ::core::unreachable!("`#[ad]` reported compile errors for this function")
                }
            };
        }
    };
    lower::lower(&mut f);
    activity::analyze(&mut f);
    let krate = crate::krate::resolve(None);
    let layout = tape::Layout::of(&f);
    let vjp = vjp_fn(&f, &layout, &krate);
    let forward = forward_fn(&f, &krate);
    let value = value_struct(&f, &layout, &krate, &vjp);
    let pairs = additive_pairs(&f, &krate);
    let item = &f.item;
    let out = quote!(#item #vjp #forward #value #pairs);
    crate::krate::rewrite(out, &krate)
}

/// The adjoint arguments of `f__ad_vjp`: one per differentiated parameter (a scalar's
/// [`ScalarSlot`](::nilang::ad::ordinary::ScalarSlot), an array's `&mut [f64]`) and one
/// per `#[data]` parameter (which takes only `NoAdjoint`).
fn grad_params(f: &Func, krate: &TokenStream, adj: &TokenStream) -> Vec<TokenStream> {
    f.params
        .iter()
        .filter_map(|p| {
            let b = bar_of(&p.name);
            match p.kind {
                Kind::Active => {
                    let g = format_ident!("{}__grad", p.name);
                    Some(quote!(mut #g: impl #krate::ad::ordinary::ScalarSlot<#adj>))
                }
                Kind::Array => Some(quote!(#b: &mut [#adj])),
                Kind::Inactive if p.data => {
                    let g = format_ident!("{}__data", p.name);
                    Some(quote!(#g: impl #krate::ad::ordinary::DataSlot))
                }
                Kind::Inactive => None,
            }
        })
        .collect()
}

/// `f__ad_vjp(params, tape, dy, adjoints) -> f64`: the forward code, then the adjoint code
/// with the result's adjoint `dy`, adding the parameters' adjoints to `adjoints`; returns
/// the value.
fn vjp_fn(f: &Func, layout: &tape::Layout, krate: &TokenStream) -> TokenStream {
    let name = format_ident!("{}__ad_vjp", f.item.sig.ident);
    let vis = &f.item.vis;
    let params = f.item.sig.inputs.iter();
    // without calls the adjoint code is generic over its adjoint numbers (`f64`, or the lanes
    // of a one-pass Jacobian); a call's callee may take `f64` adjoints only
    let generic = !has_calls(&f.body);
    let adj = if generic { quote!(__AdA) } else { quote!(f64) };
    let generics = if generic {
        quote!(<__AdA: #krate::ad::ordinary::Adjoint>)
    } else {
        quote!()
    };
    let grads = grad_params(f, krate, &adj);
    let tp = emit::tape();
    let early = f.vars.iter().any(|v| v.name == lower::done());
    let e = Emitter {
        f,
        layout,
        early,
        krate: krate.clone(),
    };
    let decls = f.vars.iter().filter_map(|v| {
        let n = &v.name;
        let b = bar_of(n);
        match v.kind {
            Kind::Active => Some(quote!(let mut #n: f64 = 0.0; let mut #b: #adj = __ad_zero;)),
            Kind::Inactive => Some(match &v.ty {
                Some(t) => quote!(let mut #n: #t = ::core::default::Default::default();),
                None => quote!(let mut #n = ::core::default::Default::default();),
            }),
            Kind::Array => None,
        }
    });
    let scalar_bars = f.params.iter().filter(|p| p.kind == Kind::Active).map(|p| {
        let b = bar_of(&p.name);
        quote!(let mut #b: #adj = __ad_zero;)
    });
    // each array's adjoint as long as the array (the callers pass them so): one length for
    // both in the bounds checks
    let same_len = f.params.iter().filter(|p| p.kind == Kind::Array).map(|p| {
        let (n, b) = (&p.name, bar_of(&p.name));
        quote!(let #b: &mut [#adj] = &mut #b[..#n.len()];)
    });
    let out_bars = f.params.iter().filter(|p| p.kind == Kind::Active).map(|p| {
        let b = bar_of(&p.name);
        let g = format_ident!("{}__grad", p.name);
        quote!(#krate::ad::ordinary::ScalarSlot::add(&mut #g, #b);)
    });
    let fwd = e.forward(&f.body);
    let rev = e.reverse(&f.body);
    let ret = lower::ret();
    let ret_bar = bar_of(&ret);
    // not inlined into the gradient API's closure (inlined there, the generic adjoint code of
    // the embedding example ran 13% slower; before it was generic it could not be inlined
    // across crates)
    quote! {
        #[doc(hidden)]
        #[inline(never)]
        #[allow(unused_mut, unused_variables, unused_assignments, unused_parens, unused_braces, non_snake_case, clippy::all)]
        #vis fn #name #generics (#(#params,)* #tp: &mut #krate::ad::ordinary::ValueTape, __ad_dy: #adj, #(#grads),*) -> f64 {
            let __ad_zero: #adj = <#adj as #krate::ad::ordinary::Adjoint>::ZERO;
            let __ad_nzero: #adj = <#adj as #krate::ad::ordinary::Adjoint>::NEG_ZERO;
            #(#decls)*
            #(#scalar_bars)*
            #(#same_len)*
            #fwd
            #tp.note_peak();
            let __ad_value: f64 = #ret;
            #ret_bar = __ad_dy;
            #rev
            #(#out_bars)*
            __ad_value
        }
    }
}

/// The length of a fixed-size array parameter's type (`&[f64; 3]`, `&mut [f64; 3]`).
fn fixed_len(t: &syn::Type) -> Option<&syn::Expr> {
    match t {
        syn::Type::Reference(r) => match &*r.elem {
            syn::Type::Array(a) => Some(&a.len),
            _ => None,
        },
        _ => None,
    }
}

/// Whether a one-pass Jacobian runs `f`'s adjoint code once on all adjoint lanes: where that
/// code is generic (no calls) and every array parameter has a fixed size, so that the lanes of
/// its adjoints live on the stack (a slice's would take a heap buffer per call; a Jacobian
/// through a `Plan` allocates nothing after the first call).
fn one_pass(f: &Func) -> bool {
    !has_calls(&f.body)
        && f.params
            .iter()
            .filter(|p| p.kind == Kind::Array)
            .all(|p| fixed_len(&p.ty).is_some())
}

/// Whether a block calls an `#[ad]` or an `#[i]` function (anywhere inside).
pub(crate) fn has_calls(body: &[Stmt]) -> bool {
    body.iter().any(|s| match s {
        Stmt::Call { .. } | Stmt::Reversible { .. } => true,
        Stmt::If { arms, otherwise } => {
            arms.iter().any(|(_, b)| has_calls(b)) || has_calls(otherwise)
        }
        Stmt::For { body, .. } | Stmt::While { body, .. } => has_calls(body),
        _ => false,
    })
}

/// A parameter's type with `'ad` on its outer reference.
fn with_lifetime(t: &syn::Type) -> syn::Type {
    match t {
        syn::Type::Reference(r) => {
            let mut r = r.clone();
            r.lifetime = Some(syn::Lifetime::new("'ad", proc_macro2::Span::call_site()));
            syn::Type::Reference(r)
        }
        t => t.clone(),
    }
}

/// `f_forward(params) -> (value, pullback)`: the seed's `forward(f, x)`.
fn forward_fn(f: &Func, krate: &TokenStream) -> TokenStream {
    let fname = &f.item.sig.ident;
    let name = format_ident!("{}_forward", fname);
    let vjp = format_ident!("{}__ad_vjp", fname);
    let vis = &f.item.vis;
    let names: Vec<_> = f.params.iter().map(|p| &p.name).collect();
    let params = f.params.iter().map(|p| {
        let (n, t) = (&p.name, with_lifetime(&p.ty));
        quote!(#n: #t)
    });
    let mut tys = vec![];
    let mut makes = vec![];
    let mut grads = vec![];
    let mut outs = vec![];
    let mut seeds = vec![];
    for p in &f.params {
        let (n, b) = (&p.name, bar_of(&p.name));
        match p.kind {
            Kind::Array if p.output => {
                let sd = format_ident!("{}__seed", n);
                seeds.push(quote!(#sd: &[f64]));
                let msg = format!(
                    "nilang: the adjoint passed for output `{n}` has {{}} numbers; `{n}` has {{}}"
                );
                makes.push(quote! {
                    if #sd.len() != #n.len() {
                        ::core::panic!(#msg, #sd.len(), #n.len());
                    }
                    let mut #b = #sd.to_vec();
                });
                grads.push(quote!(&mut #b[..]));
                tys.push(quote!(()));
                outs.push(quote!(()));
            }
            Kind::Active => {
                tys.push(quote!(f64));
                makes.push(quote!(let mut #b: f64 = 0.0;));
                grads.push(quote!(&mut #b));
                outs.push(quote!(#b));
            }
            Kind::Array => {
                tys.push(quote!(::std::vec::Vec<f64>));
                makes.push(quote!(let mut #b = ::std::vec![0.0f64; #n.len()];));
                grads.push(quote!(&mut #b[..]));
                outs.push(quote!(#b));
            }
            Kind::Inactive => {
                if p.data {
                    grads.push(quote!(#krate::ad::ordinary::NoAdjoint));
                }
                tys.push(quote!(()));
                outs.push(quote!(()));
            }
        }
    }
    let seed_tys: Vec<_> = seeds.iter().map(|_| quote!(&[f64])).collect();
    let value = if f.returns_value() {
        quote!(#fname(#(#names),*))
    } else {
        quote!({ #fname(#(#names),*); 0.0 })
    };
    let doc = format!(
        "The value of [`{fname}`] and its pullback (with outputs `&mut [f64]`, the pullback takes each output's adjoint after `dy`): `let (y, back) = {fname}_forward(..); let grads = back(dy);` gives the adjoint `dy · ∂y/∂p` of every parameter `p` (`()` for parameters without derivative). The pullback runs the forward code of `{fname}` (recording its value tape) and then its adjoint code."
    );
    quote! {
        #[doc = #doc]
        #[allow(non_snake_case, clippy::type_complexity, clippy::too_many_arguments)]
        #vis fn #name<'ad>(#(#params),*) -> (f64, impl FnOnce(f64, #(#seed_tys),*) -> (#(#tys,)*) + 'ad) {
            let __ad_y = #value;
            (__ad_y, move |__ad_dy: f64, #(#seeds),*| {
                let mut __ad_tape = #krate::ad::ordinary::ValueTape::new();
                #(#makes)*
                #vjp(#(#names,)* &mut __ad_tape, __ad_dy, #(#grads),*);
                (#(#outs,)*)
            })
        }
    }
}

/// The unit struct `F` of `#[ad] fn f`: `out += f(args)` as a `Reversible` function on
/// `f64`s and on gradient numbers, so every gradient entry point takes it.
fn value_struct(
    f: &Func,
    layout: &tape::Layout,
    krate: &TokenStream,
    _vjp: &TokenStream,
) -> TokenStream {
    let fname = &f.item.sig.ident;
    let sname = format_ident!("{}", camel(&fname.to_string()));
    let vjp = format_ident!("{}__ad_vjp", fname);
    let vis = &f.item.vis;
    let shown_ssa = render(f, layout);
    let shown_tape = tape_text(f, layout);
    let shown_vjp = vjp_fn(f, layout, &quote!(::nilang)).to_string();
    // the argument tuple, over a number `__AdT` (`f64` or `GVar<f64>`): `&mut __AdT` for a
    // scalar, `&mut [__AdT]` (or the array, the Vec) for an array, an inactive parameter as
    // written
    let lts: Vec<_> = (0..=f.params.len())
        .map(|k| syn::Lifetime::new(&format!("'a{k}"), proc_macro2::Span::call_site()))
        .collect();
    let num = quote!(__AdT);
    let elems = arg_types(f, &lts, &num);
    let l0 = &lts[0];
    let tuple = quote!((&#l0 mut #num, #(#elems,)*));
    let names: Vec<_> = f.params.iter().map(|p| &p.name).collect();
    // values copied into workspace buffers (arrays) or read (scalars); per adjoint lane, the
    // adjoints zeroed (outputs: seeded), the pullback run and its adjoints added in that lane
    let ad = quote!(#krate::ad::ordinary::AdNum);
    let mut gv_in = quote!();
    let mut gv_args = vec![];
    let mut gv_grads = vec![];
    let mut lane_in = quote!();
    let mut lane_out = quote!();
    let mut outs = quote!();
    let mut gv_free = quote!();
    // on several lanes (a one-pass Jacobian) with adjoint code generic over its numbers: the
    // adjoints of all lanes at once (`<__AdT as AdNum>::Adj`), one forward and one backward pass
    let adj_ty = quote!(<__AdT as #ad>::Adj);
    let adj_zero = quote!(<#adj_ty as #krate::ad::ordinary::Adjoint>::ZERO);
    let (mut all_in, mut all_grads, mut all_out) = (quote!(), vec![], quote!());
    for (k, p) in f.params.iter().enumerate() {
        let n = &p.name;
        let (v, g) = (format_ident!("__ad_v{}", k), format_ident!("__ad_g{}", k));
        let h = format_ident!("__ad_h{}", k);
        match p.kind {
            Kind::Active => {
                all_in.extend(quote!(let mut #h: #adj_ty = #adj_zero;));
                all_grads.push(quote!(&mut #h));
                all_out.extend(quote!(#ad::add_adjoint(&mut *#n, #h);));
                gv_args.push(quote!(#ad::value(&*#n)));
                lane_in.extend(quote!(let mut #g: f64 = 0.0;));
                gv_grads.push(quote!(&mut #g));
                lane_out.extend(quote!(#ad::add_lane_adjoint(&mut *#n, __ad_l, #g);));
            }
            Kind::Array if p.output => {
                gv_in.extend(quote! {
                    let mut #v = __ad_ws.take();
                    #v.resize(#n.len(), 0.0);
                });
                let fixed = matches!(&p.ty, syn::Type::Reference(r) if matches!(&*r.elem, syn::Type::Array(_)));
                let is_vec = matches!(&p.ty, syn::Type::Reference(r) if matches!(&*r.elem, syn::Type::Path(_)));
                if fixed {
                    gv_args.push(quote!(::core::convert::TryInto::try_into(&mut #v[..]).expect("nilang: an array argument has its declared length")));
                } else if is_vec {
                    gv_args.push(quote!(&mut #v));
                } else {
                    gv_args.push(quote!(&mut #v[..]));
                }
                all_in.extend(match fixed_len(&p.ty) {
                    Some(len) => quote! {
                        let mut #h: [#adj_ty; #len] = ::core::array::from_fn(|i| #ad::adjoint(&#n[i]) * -sign);
                    },
                    // not taken (`one_pass`): a slice's lanes would need a buffer per call
                    None => quote!(),
                });
                all_grads.push(quote!(&mut #h[..]));
                // the seed: the output's adjoint in this lane
                lane_in.extend(quote! {
                    #v.fill(0.0);
                    #g.clear();
                    #g.extend(#n.iter().map(|z| -sign * #ad::lane_adjoint(z, __ad_l)));
                });
                gv_grads.push(quote!(&mut #g[..]));
                outs.extend(quote! {
                    for (z, y) in #n.iter_mut().zip(#v.iter()) {
                        #ad::add_value(z, sign * *y);
                    }
                });
                gv_free.extend(quote!(__ad_ws.put(#v);));
            }
            Kind::Array => {
                gv_in.extend(quote! {
                    let mut #v = __ad_ws.take();
                    #v.extend(#n.iter().map(#ad::value));
                });
                let is_vec = matches!(&p.ty, syn::Type::Reference(r) if matches!(&*r.elem, syn::Type::Path(_)));
                if is_vec {
                    gv_args.push(quote!(&#v));
                } else {
                    gv_args.push(quote!(::core::convert::TryInto::try_into(&#v[..]).expect("nilang: an array argument has its declared length")));
                }
                lane_in.extend(quote!(#g.fill(0.0);));
                gv_grads.push(quote!(&mut #g[..]));
                all_in.extend(match fixed_len(&p.ty) {
                    Some(len) => quote!(let mut #h: [#adj_ty; #len] = [#adj_zero; #len];),
                    None => quote!(let mut #h = ::std::vec![#adj_zero; #n.len()];),
                });
                all_grads.push(quote!(&mut #h[..]));
                all_out.extend(quote! {
                    for (e, d) in #n.iter_mut().zip(#h.iter()) {
                        #ad::add_adjoint(e, *d);
                    }
                });
                gv_free.extend(quote!(__ad_ws.put(#v);));
                lane_out.extend(quote! {
                    for (e, d) in #n.iter_mut().zip(#g.iter()) {
                        #ad::add_lane_adjoint(e, __ad_l, *d);
                    }
                });
            }
            Kind::Inactive => {
                if p.data {
                    gv_grads.push(quote!(#krate::ad::ordinary::NoAdjoint));
                    all_grads.push(quote!(#krate::ad::ordinary::NoAdjoint));
                }
                gv_args.push(quote!(#n))
            }
        }
    }
    let arrays: Vec<_> = f
        .params
        .iter()
        .enumerate()
        .filter(|(_, p)| p.kind == Kind::Array)
        .map(|(k, p)| (format_ident!("__ad_g{}", k), &p.name))
        .collect();
    let grad_bufs = arrays
        .iter()
        .map(|(g, n)| quote!(let mut #g = __ad_ws.take(); #g.resize(#n.len(), 0.0);));
    let grad_free = arrays.iter().map(|(g, _)| quote!(__ad_ws.put(#g);));
    let gv_args2 = gv_args.clone();
    let gv_args3 = gv_args.clone();
    let value_call = |args: &[TokenStream]| {
        if f.returns_value() {
            quote!(#fname(#(#args),*))
        } else {
            quote!({ #fname(#(#args),*); 0.0 })
        }
    };
    let (mask, mask_ty) = (additive_mask(f), crate::abi::mask_type());
    // one pass for all lanes where the adjoint code is generic and every array's adjoint lanes
    // fit on the stack (else one pullback per lane)
    let all_branch = if !one_pass(f) {
        quote!()
    } else {
        quote! {
            if <__AdT as #ad>::ADJOINT && <__AdT as #ad>::LANES > 1 {
                #all_in
                let __ad_dy = #ad::adjoint(&*out) * -sign;
                let __ad_y = #vjp(#(#gv_args,)* &mut __ad_ws.tape, __ad_dy, #(#all_grads),*);
                #all_out
                #ad::add_value(&mut *out, sign * __ad_y);
                #outs
            } else
        }
    };
    let call2 = value_call(&gv_args2);
    let call3 = value_call(&gv_args3);
    let step = step_impl(f, &sname, &lts, &elems, &names, krate);
    let doc = format!(
        "`out += {fname}(args)` as a reversible function of `(&mut out, args..)`, for the gradient API: `nilang::gradient(&{sname}, (&mut out, ..), 0)` (arrays passed `&mut`). Generated by `#[ad]`; `{sname}::SSA`, `{sname}::TAPE` and `{sname}::VJP` show what was generated."
    );
    quote! {
        #[doc = #doc]
        #[derive(Clone, Copy, Debug, Default)]
        #vis struct #sname;

        impl #sname {
            /// The lowered statements in single-assignment form, with what each write records.
            pub const SSA: &'static str = #shown_ssa;
            /// The variables whose overwritten values the forward code records.
            pub const TAPE: &'static str = #shown_tape;
            /// The generated forward-and-adjoint function.
            pub const VJP: &'static str = #shown_vjp;
        }

        #[allow(non_snake_case)]
        impl<#(#lts,)* __AdT: #krate::ad::ordinary::AdNum> #krate::Reversible<#tuple> for #sname {
            #[inline]
            fn call(&self, args: #tuple) -> #tuple {
                self.uncall_signed(1.0, args)
            }
            #[inline]
            fn uncall(&self, args: #tuple) -> #tuple {
                self.uncall_signed(-1.0, args)
            }
            fn additive(&self) -> #mask_ty {
                #mask
            }
            #[inline]
            fn call_primal(&self, args: #tuple) -> #tuple {
                self.value_signed(1.0, args)
            }
        }

        #step

        #[allow(non_snake_case)]
        impl #sname {
            /// `out += sign · f(values)`; on gradient numbers also the adjoints
            /// `x.g -= sign · out.g · ∂f/∂x` (the backward pass has `sign = -1`).
            #[doc(hidden)]
            #[inline]
            pub fn uncall_signed<#(#lts,)* __AdT: #krate::ad::ordinary::AdNum>(&self, sign: f64, (out, #(#names,)*): #tuple) -> #tuple {
                #krate::ad::ordinary::with_workspace(|__ad_ws| {
                    #gv_in
                    #all_branch if <__AdT as #ad>::ADJOINT {
                        #(#grad_bufs)*
                        let mut __ad_y = 0.0;
                        for __ad_l in 0..<__AdT as #ad>::LANES {
                            #lane_in
                            let __ad_dy = -sign * #ad::lane_adjoint(&*out, __ad_l);
                            __ad_y = #vjp(#(#gv_args,)* &mut __ad_ws.tape, __ad_dy, #(#gv_grads),*);
                            #lane_out
                        }
                        #ad::add_value(&mut *out, sign * __ad_y);
                        #outs
                        #(#grad_free)*
                    } else {
                        let __ad_y = #call2;
                        #ad::add_value(&mut *out, sign * __ad_y);
                        #outs
                    }
                    #gv_free
                });
                (out, #(#names,)*)
            }

            /// `out += sign · f(values)` alone, on any number (no adjoint moves).
            #[doc(hidden)]
            #[inline]
            pub fn value_signed<#(#lts,)* __AdT: #krate::ad::ordinary::AdNum>(&self, sign: f64, (out, #(#names,)*): #tuple) -> #tuple {
                #krate::ad::ordinary::with_workspace(|__ad_ws| {
                    #gv_in
                    let __ad_y = #call3;
                    #ad::add_value(&mut *out, sign * __ad_y);
                    #outs
                    #gv_free
                });
                (out, #(#names,)*)
            }
        }
    }
}

/// For a function with outputs and no result (`fn step(next: &mut [f64; N], prev: &[f64; N],
/// p: ..)`): `F::STEP` (of the unit struct `FAsStep`) is reversible over the arguments alone,
/// `next += f_next(prev, p)`, the shape of an `#[i]` step, so that the time-loop schedules
/// take it (a second impl on `F` itself would leave the argument types of `F`'s calls to
/// inference with two candidates). Each call and inverse runs
/// on its own value tape (a step's inverse runs its forward code again from the restored
/// `prev`), so any schedule may reverse the steps in any order.
fn step_impl(
    f: &Func,
    sname: &syn::Ident,
    lts: &[syn::Lifetime],
    elems: &[TokenStream],
    names: &[&syn::Ident],
    krate: &TokenStream,
) -> TokenStream {
    if f.returns_value() || !f.params.iter().any(|p| p.output) {
        return quote!();
    }
    let ad = quote!(#krate::ad::ordinary::AdNum);
    let lts = &lts[1..];
    let tuple = quote!((#(#elems,)*));
    let step = format_ident!("{}AsStep", sname);
    let fname = &f.item.sig.ident;
    let vis = &f.item.vis;
    let doc = format!(
        "[`{fname}`] as a time-loop step: `next += {fname}(prev, ..)` over the arguments alone (`{sname}::STEP`). Generated by `#[ad]`."
    );
    let mask = additive_mask(f) >> 1;
    let mask_ty = crate::abi::mask_type();
    let run = |method: TokenStream, sign: f64| {
        quote! {
            let mut __ad_o = <__AdT as #ad>::zero();
            let (_, #(#names,)*) = #sname.#method(#sign, (&mut __ad_o, #(#names,)*));
            (#(#names,)*)
        }
    };
    let (call, uncall, primal) = (
        run(quote!(uncall_signed), 1.0),
        run(quote!(uncall_signed), -1.0),
        run(quote!(value_signed), 1.0),
    );
    quote! {
        #[doc = #doc]
        #[derive(Clone, Copy, Debug, Default)]
        #vis struct #step;

        impl #sname {
            /// This function as a time-loop step (`TimeLoop::new(F::STEP, loss, n, schedule)`):
            /// reversible over its arguments alone, its outputs accumulated into.
            pub const STEP: #step = #step;
        }

        #[allow(non_snake_case)]
        impl<#(#lts,)* __AdT: #ad> #krate::Reversible<#tuple> for #step {
            #[inline]
            fn call(&self, (#(#names,)*): #tuple) -> #tuple {
                #call
            }
            #[inline]
            fn uncall(&self, (#(#names,)*): #tuple) -> #tuple {
                #uncall
            }
            fn additive(&self) -> #mask_ty {
                #mask
            }
            #[inline]
            fn call_primal(&self, (#(#names,)*): #tuple) -> #tuple {
                #primal
            }
        }
    }
}

/// The bits of the arguments of `F`'s tuple that it is compute–copy–uncompute in: `out`
/// (bit 0) and each output parameter (bit `k + 1` for parameter `k`).
fn additive_mask(f: &Func) -> crate::abi::ParamMask {
    let last = crate::abi::MASK_BITS - 1;
    f.params
        .iter()
        .enumerate()
        .filter(|(_, p)| p.output)
        .fold(1, |m, (k, _)| m | (1 << (k + 1).min(last)))
}

/// The argument types of `F`'s tuple after `out`, over the number `num`: `&mut num` for a
/// scalar, `&mut [num]` (or the array, the `Vec`) for an array, an inactive parameter as
/// written; `lts[k + 1]` the lifetime of parameter `k`.
fn arg_types(f: &Func, lts: &[syn::Lifetime], num: &TokenStream) -> Vec<TokenStream> {
    f.params
        .iter()
        .enumerate()
        .map(|(k, p)| {
            let lt = &lts[k + 1];
            match p.kind {
                Kind::Active => quote!(&#lt mut #num),
                Kind::Array => match &p.ty {
                    syn::Type::Reference(r) => match &*r.elem {
                        syn::Type::Slice(_) => quote!(&#lt mut [#num]),
                        syn::Type::Array(a) => {
                            let len = &a.len;
                            quote!(&#lt mut [#num; #len])
                        }
                        _ => quote!(&#lt mut ::std::vec::Vec<#num>),
                    },
                    _ => quote!(&#lt mut [#num]),
                },
                Kind::Inactive => with_lifetime_named(&p.ty, lt),
            }
        })
        .collect()
}

/// The additive pairs `#[i]` code calls: `f_add(out, args..)` is `out += f(args)` and
/// `f_sub(out, args..)` is `out -= f(args)`, each with its inverse (`f_add_inv`, `f_sub_inv`)
/// and the markers a hand-written pair declares through `nilang::additive!` (compute–copy–
/// uncompute in `out`, which is the only argument whose value is written; the value-only
/// variant `__primal` adds the value alone). On gradient numbers the inverse also applies
/// `f`'s pullback: `x.g += out.g · ∂f/∂x`.
fn additive_pairs(f: &Func, krate: &TokenStream) -> TokenStream {
    let fname = &f.item.sig.ident;
    let sname = format_ident!("{}", camel(&fname.to_string()));
    let vis = &f.item.vis;
    let lts: Vec<_> = (0..=f.params.len())
        .map(|k| syn::Lifetime::new(&format!("'a{k}"), proc_macro2::Span::call_site()))
        .collect();
    let num = quote!(__AdT);
    let tys = arg_types(f, &lts, &num);
    let names: Vec<_> = f.params.iter().map(|p| &p.name).collect();
    let l0 = &lts[0];
    let bound = quote!(#krate::ad::ordinary::AdNum);
    let (mask, primal) = (additive_mask(f), crate::abi::item(crate::abi::PRIMAL));
    let mut out = quote!();
    for (op, sign) in [("add", 1.0f64), ("sub", -1.0f64)] {
        let name = format_ident!("{}_{}", fname, op);
        let inv = crate::abi::inverse_name(&name);
        let what = if sign > 0.0 { "+=" } else { "-=" };
        let undo = if sign > 0.0 { "-=" } else { "+=" };
        let doc = format!(
            "`out {what} {fname}(args)`, callable from `#[i]` code (`{name}(out, args..)`; its inverse is [`{inv}`](fn@{inv})). Generated by `#[ad]`: on gradient numbers (`GVar<f64>`) the inverse also adds `out.g · ∂{fname}/∂x` to each argument's adjoint."
        );
        let doc_inv = format!(
            "`out {undo} {fname}(args)`: the inverse of [`{name}`](fn@{name}); on gradient numbers also the pullback of [`{fname}`](fn@{fname}) into the arguments' adjoints."
        );
        let neg = -sign;
        out.extend(quote! {
            #[doc = #doc]
            #[allow(non_snake_case, clippy::too_many_arguments)]
            #[inline]
            #vis fn #name<#(#lts,)* __AdT: #bound>(out: &#l0 mut __AdT, #(#names: #tys),*) {
                #sname.uncall_signed(#sign, (out, #(#names,)*));
            }
            #[doc = #doc_inv]
            #[allow(non_snake_case, clippy::too_many_arguments)]
            #[inline]
            #vis fn #inv<#(#lts,)* __AdT: #bound>(out: &#l0 mut __AdT, #(#names: #tys),*) {
                #sname.uncall_signed(#neg, (out, #(#names,)*));
            }
            #krate::additive!(@marker #name, #mask, #mask, {
                /// Values only (`out` carries no adjoint).
                #[doc(hidden)]
                #[inline]
                #[allow(clippy::too_many_arguments)]
                pub fn #primal<#(#lts,)* __AdF: #krate::CallTuple<(&#l0 mut __AdT, #(#tys,)*)>, __AdT: #bound>(_f: __AdF, (out, #(#names,)*): (&#l0 mut __AdT, #(#tys,)*)) {
                    #sname.value_signed(#sign, (out, #(#names,)*));
                }
            });
            #krate::additive!(@marker #inv, #mask, #mask, {});
        });
    }
    out
}

fn with_lifetime_named(t: &syn::Type, lt: &syn::Lifetime) -> TokenStream {
    match t {
        syn::Type::Reference(r) => {
            let mut r = r.clone();
            r.lifetime = Some(lt.clone());
            r.to_token_stream()
        }
        t => t.to_token_stream(),
    }
}

/// The tape layout as text.
fn tape_text(f: &Func, layout: &tape::Layout) -> String {
    fn walk(
        f: &Func,
        layout: &tape::Layout,
        b: &[Stmt],
        out: &mut std::collections::BTreeSet<String>,
    ) {
        for s in b {
            match s {
                Stmt::Assign { target, .. } => {
                    let v = Emitter::root(target);
                    if layout.records(f, s, v) {
                        let what = match target {
                            Place::Var(_) => "f64 per overwrite",
                            Place::Elem(..) => "f64 per element overwrite",
                        };
                        out.insert(format!("{v}: {what}"));
                    }
                }
                Stmt::Inactive { target, .. } if layout.records(f, s, target) => {
                    out.insert(format!("{target}: integer per overwrite"));
                }
                Stmt::Call { target, .. } if layout.records(f, s, target) => {
                    out.insert(format!("{target}: f64 per overwrite"));
                }
                Stmt::If { arms, otherwise } => {
                    for (_, b) in arms {
                        walk(f, layout, b, out);
                    }
                    walk(f, layout, otherwise, out);
                }
                Stmt::For { body, .. } | Stmt::While { body, .. } => walk(f, layout, body, out),
                _ => {}
            }
        }
    }
    let mut names = std::collections::BTreeSet::new();
    walk(f, layout, &f.body, &mut names);
    let mut names: Vec<String> = names.into_iter().collect();
    names.push("decisions: one integer per `if` run whose arms have adjoint code; two per `for` run whose bounds read variables the program changes (none for bounds of parameters and enclosing loop variables), one per `while` run".into());
    names.join("\n")
}

/// The lowered statements with right-hand sides in single-assignment form.
fn render(f: &Func, layout: &tape::Layout) -> String {
    let mut s = String::new();
    render_block(f, layout, &f.body, 0, &mut s);
    s
}

fn tok(t: &TokenStream) -> String {
    t.to_string()
}

fn place_text(p: &Place) -> String {
    match p {
        Place::Var(v) => v.to_string(),
        Place::Elem(a, i) => format!("{a}[{}]", tok(i)),
    }
}

fn render_block(f: &Func, layout: &tape::Layout, b: &[Stmt], depth: usize, s: &mut String) {
    let ind = "    ".repeat(depth);
    for st in b {
        match st {
            Stmt::Assign { target, value } => {
                let ssa = Ssa::of(value);
                for (k, op) in ssa.ops.iter().enumerate() {
                    let v = match op {
                        Op::Const(c) => tok(c),
                        Op::Read(p) => place_text(p),
                        Op::Bin(o, a, b) => {
                            let o = match o {
                                BinOp::Add => "+",
                                BinOp::Sub => "-",
                                BinOp::Mul => "*",
                                BinOp::Div => "/",
                            };
                            format!("t{a} {o} t{b}")
                        }
                        Op::Neg(a) => format!("-t{a}"),
                        Op::Unary(u, a) => {
                            let n = match u {
                                Unary::Table(e) => e.names[0],
                                Unary::Sqrt => "sqrt",
                                Unary::Abs => "abs",
                                Unary::Recip => "recip",
                            };
                            format!("{n}(t{a})")
                        }
                        Op::Powi(a, n) => format!("powi(t{a}, {})", tok(n)),
                        Op::Binary(fun, a, b) => format!("{fun:?}(t{a}, t{b})").to_lowercase(),
                    };
                    s.push_str(&format!("{ind}t{k} = {v}\n"));
                }
                let rec = if layout.records(f, st, Emitter::root(target)) {
                    "    [tape: old value]"
                } else if layout.rematerializes(st) {
                    "    [executed again in the adjoint]"
                } else {
                    ""
                };
                s.push_str(&format!(
                    "{ind}{} = t{}{rec}\n",
                    place_text(target),
                    ssa.ops.len() - 1
                ));
            }
            Stmt::Inactive { target, value } => {
                let rec = if layout.records(f, st, target) {
                    "    [tape: old value]"
                } else if layout.recomputes(st) {
                    "    [evaluated again in the adjoint]"
                } else {
                    ""
                };
                s.push_str(&format!("{ind}{target} = {}{rec}\n", tok(value)));
            }
            Stmt::Call { target, func, args } => {
                let a: Vec<String> = args
                    .iter()
                    .map(|a| match a {
                        Arg::Value(Expr::Read(p)) => place_text(p),
                        Arg::Value(Expr::Const(t))
                        | Arg::Const(t)
                        | Arg::Array(_, t)
                        | Arg::Data(t) => tok(t),
                        Arg::Value(_) => "?".into(),
                    })
                    .collect();
                let rec = if layout.records(f, st, target) {
                    "    [tape: old value]"
                } else {
                    ""
                };
                s.push_str(&format!(
                    "{ind}{target} = {}({}){rec}    [adjoint: {}__ad_vjp]\n",
                    tok(&func.to_token_stream()),
                    a.join(", "),
                    tok(&func.to_token_stream())
                ));
            }
            Stmt::Reversible { func, args } => {
                let a: Vec<String> = args
                    .iter()
                    .map(|p| format!("&mut {}", place_text(p)))
                    .collect();
                s.push_str(&format!(
                    "{ind}{}({})    [#[i]: adjoint by its inverse, nothing recorded]\n",
                    tok(&func.to_token_stream()),
                    a.join(", ")
                ));
            }
            Stmt::Array { name, init } => {
                let i = match init {
                    ArrayInit::Repeat { init, .. } => tok(init),
                    ArrayInit::CopyOf(x) => format!("{x}.to_vec()"),
                };
                s.push_str(&format!("{ind}let {name} = {i}\n"));
            }
            Stmt::If { arms, otherwise } => {
                for (k, (c, body)) in arms.iter().enumerate() {
                    let kw = if k == 0 { "if" } else { "} else if" };
                    s.push_str(&format!("{ind}{kw} {} {{    [tape: decision]\n", tok(c)));
                    render_block(f, layout, body, depth + 1, s);
                }
                if !otherwise.is_empty() {
                    s.push_str(&format!("{ind}}} else {{\n"));
                    render_block(f, layout, otherwise, depth + 1, s);
                }
                s.push_str(&format!("{ind}}}\n"));
            }
            Stmt::For { var, lo, hi, body } => {
                let rec = if layout.rematerializes(st) {
                    "[bounds evaluated again; executed again in the adjoint]"
                } else if layout.stable_bounds(st) {
                    "[bounds evaluated again]"
                } else {
                    "[tape: start, trip count]"
                };
                s.push_str(&format!(
                    "{ind}for {var} in {}..{} {{    {rec}\n",
                    tok(lo),
                    tok(hi)
                ));
                render_block(f, layout, body, depth + 1, s);
                s.push_str(&format!("{ind}}}\n"));
            }
            Stmt::While { cond, body } => {
                s.push_str(&format!(
                    "{ind}while {} {{    [tape: trip count]\n",
                    tok(cond)
                ));
                render_block(f, layout, body, depth + 1, s);
                s.push_str(&format!("{ind}}}\n"));
            }
            Stmt::Return(_) => {}
        }
    }
}
