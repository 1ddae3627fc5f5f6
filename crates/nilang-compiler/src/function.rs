//! Whole functions: signature analysis, forward and inverse bodies, the `Reversible` value.
use crate::analyze::{Analyzer, ParamKind};
use crate::emit::{Emitter, Mode};
use crate::errors::Errors;
use crate::facts::{Facts, Masks, Signature};
use crate::invert::invert_block;
use crate::parse::Parser;
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, ToTokens};
use std::collections::HashMap;
use std::rc::Rc;
use syn::spanned::Spanned;
use syn::visit_mut::VisitMut;

use crate::abi::{self, MAX_CALL_TUPLE as MAX_TUPLE};

/// Gives every elided (`&T`) and anonymous (`'_`) lifetime of a type a fresh name, for the
/// generic header of the `Reversible` impl.
struct NameLifetimes<'a>(&'a mut Vec<syn::Lifetime>);
impl NameLifetimes<'_> {
    fn fresh(&mut self) -> syn::Lifetime {
        let lt = syn::Lifetime::new(&format!("'__nilang_l{}", self.0.len()), Span::call_site());
        self.0.push(lt.clone());
        lt
    }
}
impl VisitMut for NameLifetimes<'_> {
    fn visit_type_reference_mut(&mut self, r: &mut syn::TypeReference) {
        if r.lifetime.is_none() {
            r.lifetime = Some(self.fresh());
        }
        syn::visit_mut::visit_type_reference_mut(self, r);
    }
    fn visit_lifetime_mut(&mut self, l: &mut syn::Lifetime) {
        if l.ident == "_" {
            *l = self.fresh();
        }
    }
}

/// Options of `#[i(...)]`.
#[derive(Default)]
pub struct Options {
    /// `nocheck`: no runtime checks in this function.
    pub nocheck: bool,
    /// `check`: runtime checks in every profile (by default they are on only where the
    /// user's crate is built with `debug_assertions`, or with `nilang`'s `release-checks`).
    pub check: bool,
    /// `rev = Name`: the name of the generated `Reversible` value.
    pub rev: Option<syn::Ident>,
    /// `norev`: do not generate the `Reversible` value.
    pub norev: bool,
    /// `crate = path`: the path of the `nilang` crate (found in `Cargo.toml` when absent).
    pub krate: Option<syn::Path>,
    /// `kernel` / `device`: also emit OpenCL C (see [`crate::opencl`]).
    pub device: Option<crate::opencl::Target>,
    /// `zero(ws, ..)`: workspace parameters, zero (values and adjoints) on entry and on exit,
    /// used as ancillas: a routine that writes only them and ancillas is recomputed
    /// value-only (see [`crate::ad::primal`]).
    pub zero: Vec<syn::Ident>,
}

/// Parse the attribute arguments.
pub fn parse_options(attr: TokenStream, errors: &mut Errors) -> Options {
    let mut o = Options::default();
    let parser = syn::meta::parser(|meta| {
        if meta.path.is_ident("nocheck") {
            o.nocheck = true;
            Ok(())
        } else if meta.path.is_ident("check") {
            o.check = true;
            Ok(())
        } else if meta.path.is_ident("norev") {
            o.norev = true;
            Ok(())
        } else if meta.path.is_ident("rev") {
            o.rev = Some(meta.value()?.parse()?);
            Ok(())
        } else if meta.path.is_ident("crate") {
            o.krate = Some(crate_path(meta.value()?)?);
            Ok(())
        } else if meta.path.is_ident("kernel") {
            o.device = Some(crate::opencl::Target::Kernel);
            Ok(())
        } else if meta.path.is_ident("device") {
            o.device = Some(crate::opencl::Target::Device);
            Ok(())
        } else if meta.path.is_ident("zero") {
            meta.parse_nested_meta(|w| match w.path.get_ident() {
                Some(i) => {
                    o.zero.push(i.clone());
                    Ok(())
                }
                None => Err(w.error("expected a parameter name")),
            })
        } else {
            Err(meta.error(
                "unknown option: expected `nocheck`, `check`, `norev`, `rev = Name`, `crate = path`, \
                 `kernel`, `device` or `zero(param, ..)`",
            ))
        }
    });
    if let Err(e) = syn::parse::Parser::parse2(parser, attr) {
        errors.push_err(e);
    }
    o
}

/// The value of `crate = nl` or `crate = "nl"`.
pub fn crate_path(v: syn::parse::ParseStream) -> syn::Result<syn::Path> {
    if v.peek(syn::LitStr) {
        let s: syn::LitStr = v.parse()?;
        s.parse()
    } else {
        syn::Path::parse_mod_style(v)
    }
}

/// `snake_case` to `CamelCase`.
pub fn camel(name: &str) -> String {
    name.split('_')
        .filter(|s| !s.is_empty())
        .map(|s| {
            let mut c = s.chars();
            match c.next() {
                Some(f) => f.to_uppercase().collect::<String>() + c.as_str(),
                None => String::new(),
            }
        })
        .collect()
}

/// Compile `#[i] fn ...`.
pub fn compile_fn(attr: TokenStream, item: TokenStream) -> TokenStream {
    let mut errors = Errors::default();
    let opts = parse_options(attr, &mut errors);
    let f: syn::ItemFn = match syn::parse2(item) {
        Ok(f) => f,
        Err(e) => {
            errors.push(
                e.span(),
                "`#[i]` applies to a function: expected `fn name(...) { ... }`",
            );
            return errors.to_compile_errors();
        }
    };
    let sig = &f.sig;
    if let Some(a) = &sig.asyncness {
        errors.push(a.span(), "a reversible function cannot be `async`");
    }
    if let syn::ReturnType::Type(_, t) = &sig.output {
        errors.push(
            t.span(),
            "a reversible function returns nothing: every parameter is in-out (`&mut T`), and \
             its inverse restores them",
        );
    }
    let mut params = HashMap::new();
    let mut names = vec![];
    // per parameter in order: its name if it is `&mut` (candidates of the one-pass analysis)
    let mut inout_names: Vec<Option<syn::Ident>> = vec![];
    let mut has_receiver = false;
    for arg in &sig.inputs {
        match arg {
            syn::FnArg::Receiver(r) => {
                has_receiver = true;
                let kind = match (&r.reference, r.mutability) {
                    (Some(_), Some(_)) => ParamKind::InOut,
                    (Some(_), None) => ParamKind::ReadRef,
                    _ => ParamKind::ByValue,
                };
                params.insert("self".to_string(), kind);
            }
            syn::FnArg::Typed(pt) => match &*pt.pat {
                syn::Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => {
                    let kind = match &*pt.ty {
                        syn::Type::Reference(r) if r.mutability.is_some() => ParamKind::InOut,
                        syn::Type::Reference(_) => ParamKind::ReadRef,
                        _ => ParamKind::ByValue,
                    };
                    inout_names.push((kind == ParamKind::InOut).then(|| pi.ident.clone()));
                    params.insert(pi.ident.to_string(), kind);
                    names.push(pi.ident.clone());
                }
                p => errors.push(
                    p.span(),
                    "parameters of a reversible function must be plain names",
                ),
            },
        }
    }
    for w in &opts.zero {
        if params.get(&w.to_string()) != Some(&ParamKind::InOut) {
            errors.push(
                w.span(),
                format!("`zero({w})`: not a `&mut` parameter of this function"),
            );
        }
    }
    let check = !opts.nocheck;
    let mut body = Parser {
        errors: &mut errors,
    }
    .block(&f.block.stmts, check);
    crate::lower::lower(&mut body, &mut errors);
    Analyzer::new(params.clone(), &mut errors).function(&body);
    crate::diag::unbounded_generics(sig, &body, &mut errors);
    crate::data::mixed_inout_floats(sig, &body, &mut errors);
    if !errors.is_empty() {
        // the errors, and the items the function would have generated, as stubs: uses of
        // `f`, `f_inv`, `F` elsewhere then report nothing more than the real errors
        let stub = quote!(::core::unreachable!("this `#[i]` function did not compile"));
        let typed = sig
            .inputs
            .iter()
            .filter(|a| matches!(a, syn::FnArg::Typed(_)))
            .count();
        let conservative = Masks::conservative();
        let items = items(
            &f,
            &opts,
            has_receiver,
            (names.len() == typed).then_some(&names[..]),
            Bodies {
                fwd: &stub,
                inv: &stub,
                primal: &stub,
                adj: &stub,
                adj_inv: &stub,
                additive: &conservative.additive,
                writes: &conservative.writes,
                reads: &conservative.reads,
            },
        );
        let mut out = errors.to_compile_errors();
        out.extend(crate::krate::rewrite(
            items,
            &crate::krate::resolve(opts.krate.as_ref()),
        ));
        return out;
    }
    let inverse = invert_block(&body);
    let zero: Vec<String> = opts.zero.iter().map(|w| w.to_string()).collect();
    let fsig = Signature {
        name: &sig.ident,
        params: &params,
        names: &names,
        inout: &inout_names,
        zero: &zero,
    };
    let masks = Masks::of(&fsig, &body);
    let inv_name = abi::inverse_name(&sig.ident).to_string();
    let data = crate::data::float_data(sig);
    let slices = crate::emit::slice_params(sig);
    let emit = |body: &[crate::ir::Stmt], checked: bool| {
        emit_bodies(EmitInput {
            sig: &fsig,
            zero_idents: &opts.zero,
            data: &data,
            slices: &slices,
            inv_name: &inv_name,
            body,
            checked,
        })
    };
    let emitted = if opts.nocheck {
        emit(&body, false)
    } else if opts.check {
        emit(&body, true)
    } else {
        // the default: both programs, the checked one where the user's crate is built with
        // `debug_assertions` (or `nilang` with `release-checks`); rustc folds the condition
        let mut scratch = Errors::default();
        let mut unchecked_body = Parser {
            errors: &mut scratch,
        }
        .block(&f.block.stmts, false);
        crate::lower::lower(&mut unchecked_body, &mut scratch);
        let checked = emit(&body, true);
        let unchecked = emit(&unchecked_body, false);
        // where checks are on, `__adj` calls the function it is given (`__nilang_f`: a
        // parameter may be named like its function)
        let call = if names.len() > MAX_TUPLE {
            quote!(__nilang_f(#(#names),*))
        } else {
            quote!(::nilang::CallTuple::call_tuple(__nilang_f, (#(#names,)*)))
        };
        checks_by_profile(checked, unchecked, &call)
    };
    let Emitted {
        fwd,
        inv,
        primal,
        adj,
        adj_inv,
    } = emitted;

    let mut out = items(
        &f,
        &opts,
        has_receiver,
        Some(&names),
        Bodies {
            fwd: &fwd,
            inv: &inv,
            primal: &primal,
            adj: &adj,
            adj_inv: &adj_inv,
            additive: &masks.additive,
            writes: &masks.writes,
            reads: &masks.reads,
        },
    );
    if let Some(target) = opts.device {
        out.extend(crate::opencl::device_items(
            &f,
            &body,
            &inverse,
            target,
            &mut errors,
        ));
        out.extend(errors.to_compile_errors());
    }
    crate::krate::rewrite(out, &crate::krate::resolve(opts.krate.as_ref()))
}

/// What [`emit_bodies`] needs of a function.
struct EmitInput<'a> {
    sig: &'a Signature<'a>,
    zero_idents: &'a [syn::Ident],
    data: &'a HashMap<String, usize>,
    /// The slice parameters ([`crate::emit::slice_params`]).
    slices: &'a std::collections::HashSet<String>,
    inv_name: &'a str,
    body: &'a [crate::ir::Stmt],
    /// The function's runtime checks are on (its statements' own flags still apply).
    checked: bool,
}

/// The bodies emitted for one checks setting.
struct Emitted {
    fwd: TokenStream,
    inv: TokenStream,
    primal: TokenStream,
    adj: TokenStream,
    adj_inv: TokenStream,
}

/// The forward, inverse, value-only and adjoint-only bodies of `body` (no adjoint-only
/// variants where checks are on: callers skip value updates only where checks are off).
fn emit_bodies(i: EmitInput) -> Emitted {
    // the facts of the two programs, each collected once
    let inverse = invert_block(i.body);
    // (no adjoint-only variants where checks are on: callers skip value updates only where
    // checks are off)
    let fwd_facts = Rc::new(Facts::collect(i.sig, i.body, !i.checked));
    let inv_facts = Rc::new(Facts::collect(i.sig, &inverse, !i.checked));
    let emitter = |facts: &Rc<Facts>, mode: Mode| {
        Emitter::new(facts.clone(), mode)
            .with_float_data(i.data)
            .with_slices(i.slices)
    };
    let mut fwd_emitter = emitter(&fwd_facts, Mode::Ordinary);
    let fwd = fwd_emitter.body(i.body);
    let primal = emitter(&fwd_facts, Mode::Primal).body(i.body);
    let (adj, adj_inv) = if i.checked {
        (quote!(), quote!())
    } else {
        let adj = emitter(&fwd_facts, Mode::Adjoint).body(i.body);
        let adj_inv = emitter(&inv_facts, Mode::Adjoint)
            .inverse_of(i.inv_name)
            .body(&inverse);
        (adj, adj_inv)
    };
    let mut inv_emitter = emitter(&inv_facts, Mode::Ordinary).inverse_of(i.inv_name);
    let inv = inv_emitter.body(&inverse);
    let (fwd, inv) = if i.checked && !i.zero_idents.is_empty() {
        (
            fwd_emitter.zero_checked(i.zero_idents, fwd),
            inv_emitter.zero_checked(i.zero_idents, inv),
        )
    } else {
        (fwd, inv)
    };
    Emitted {
        fwd,
        inv,
        primal,
        adj,
        adj_inv,
    }
}

/// The condition under which a default `#[i]` function runs its checked program: the user's
/// crate is built with `debug_assertions` (`cfg!` in the emitted code reads their profile), or
/// `nilang` with its `release-checks` feature.
fn checks_on() -> TokenStream {
    quote!((::core::cfg!(debug_assertions) || ::nilang::check::RELEASE_CHECKS))
}

/// Each body of the default setting: the checked one where [`checks_on`], the unchecked one
/// otherwise. The adjoint-only variants exist only unchecked; where checks are on they are
/// the function itself (`call`: the call of `__adj`'s function `__nilang_f` with the
/// parameters).
fn checks_by_profile(checked: Emitted, unchecked: Emitted, call: &TokenStream) -> Emitted {
    let on = checks_on();
    let pick = |c: TokenStream, u: TokenStream| quote!(if #on { #c } else { #u });
    // an unchecked adjoint-only body that does not depend on dead parameters is the
    // function itself (see `items`): keep it empty then
    let adj_pick = |u: TokenStream| {
        if crate::syntax::mentions_name(&u, "__nilang_dead") {
            quote!(if #on { #call } else { #u })
        } else {
            u
        }
    };
    Emitted {
        fwd: pick(checked.fwd, unchecked.fwd),
        inv: pick(checked.inv, unchecked.inv),
        primal: pick(checked.primal, unchecked.primal),
        adj: adj_pick(unchecked.adj),
        adj_inv: adj_pick(unchecked.adj_inv),
    }
}

/// The generated bodies and analyses of a function.
struct Bodies<'a> {
    /// The forward function's body.
    fwd: &'a TokenStream,
    /// The inverse function's body.
    inv: &'a TokenStream,
    /// The value-only variant's body (see `primal`).
    primal: &'a TokenStream,
    /// The adjoint-only variants' bodies, forward and inverse (see `adjoint`).
    adj: &'a TokenStream,
    adj_inv: &'a TokenStream,
    /// The parameters whose values it may read (`READS`).
    reads: &'a TokenStream,
    /// The one-pass analysis (`ADDITIVE`).
    additive: &'a TokenStream,
    /// The parameters it may write (`WRITES`).
    writes: &'a TokenStream,
}

/// Everything `#[i]` generates for `f`: the forward and inverse functions with these bodies,
/// the marker with the analyses and the value-only variant, and the `Reversible` value (when
/// `names` are the plain parameter names).
fn items(
    f: &syn::ItemFn,
    opts: &Options,
    has_receiver: bool,
    names: Option<&[syn::Ident]>,
    bodies: Bodies,
) -> TokenStream {
    let Bodies {
        fwd,
        inv,
        primal,
        adj,
        adj_inv,
        additive,
        writes,
        reads,
    } = bodies;
    let sig = &f.sig;
    let attrs = &f.attrs;
    let vis = &f.vis;
    let name = &sig.ident;
    let inv_name = abi::inverse_name(name);
    let mut inv_sig = sig.clone();
    inv_sig.ident = inv_name.clone();
    let allow = quote!(#[allow(unused_mut, unused_variables, unused_assignments, unused_braces, unused_parens, non_snake_case, clippy::all)]);
    let inv_doc = format!("The inverse of [`{name}`](fn@{name}) (generated by `#[i]`).");
    // `#[inline]` hints apply to the generated inverse too
    let inline = attrs.iter().filter(|a| a.path().is_ident("inline"));
    // the entry check of `zero(..)` workspaces reports the caller's line
    let track = if !opts.zero.is_empty() && !opts.nocheck {
        quote!(#[track_caller])
    } else {
        quote!()
    };
    // on batch numbers, each body runs compiled for the CPU's widest vectors (`lanes`)
    let param_names: Option<Vec<syn::Ident>> = sig
        .inputs
        .iter()
        .map(|a| match a {
            syn::FnArg::Typed(pt) => match &*pt.pat {
                syn::Pat::Ident(pi)
                    if pi.by_ref.is_none()
                        && pi.subpat.is_none()
                        && !matches!(*pt.ty, syn::Type::ImplTrait(_)) =>
                {
                    Some(pi.ident.clone())
                }
                _ => None,
            },
            syn::FnArg::Receiver(_) => None,
        })
        .collect();
    let tracked = !track.is_empty() || attrs.iter().any(|a| a.path().is_ident("track_caller"));
    // a function without a loop is cheap to call and small: LLVM inlines it into its
    // caller's copy, and a dispatch per call would cost more than it gains
    let on_lanes = match (&param_names, &sig.output) {
        (Some(_), syn::ReturnType::Default)
            if !has_receiver && !tracked && sig.constness.is_none() && sig.asyncness.is_none() =>
        {
            crate::lanes::wide_condition(&sig.generics)
        }
        _ => None,
    };
    let wide = on_lanes
        .clone()
        .filter(|_| crate::lanes::has_loop(f.block.to_token_stream()));
    let own_targs: Vec<&syn::Ident> = sig
        .generics
        .params
        .iter()
        .filter_map(|g| match g {
            syn::GenericParam::Type(t) => Some(&t.ident),
            syn::GenericParam::Const(c) => Some(&c.ident),
            syn::GenericParam::Lifetime(_) => None,
        })
        .collect();
    let sig_inputs = &sig.inputs;
    let by_level = |body: &TokenStream| match (&wide, &param_names) {
        (Some(w), Some(names)) => crate::lanes::dispatched(
            w,
            &crate::lanes::untagged(),
            &sig.generics,
            &quote!(#sig_inputs),
            names,
            &own_targs,
            body,
            &allow,
        ),
        _ => crate::lanes::level_zero(body),
    };
    let (fwd_l, inv_l) = (by_level(fwd), by_level(inv));
    let mut out = quote! {
        #(#attrs)* #track #allow #vis #sig { #fwd_l }
        #[doc = #inv_doc] #(#inline)* #track #allow #vis #inv_sig { #inv_l }
    };
    if !has_receiver {
        // the one-pass analysis, for callers and for the gradient API (see `one_pass`): a
        // type-namespace item named like the function, so `use m::f` imports it with `f`
        let doc = format!(
            "The one-pass analysis of [`{name}`](fn@{name}): bit `k` of `ADDITIVE` is set when it is \
             compute–copy–uncompute in parameter `k` (generated by `#[i]`)."
        );
        // the value-only variant takes the arguments as one tuple, after the function itself
        // (which infers the generic arguments, as a call does; see `nilang::additive!`)
        let pats: Vec<&syn::Pat> = sig
            .inputs
            .iter()
            .filter_map(|a| match a {
                syn::FnArg::Typed(pt) => Some(&*pt.pat),
                syn::FnArg::Receiver(_) => None,
            })
            .collect();
        let mut lifetimes: Vec<syn::Lifetime> = vec![];
        let mut tys: Vec<syn::Type> = vec![];
        let mut opaque = false;
        for a in &sig.inputs {
            if let syn::FnArg::Typed(pt) = a {
                let mut ty = (*pt.ty).clone();
                opaque |= matches!(ty, syn::Type::ImplTrait(_));
                NameLifetimes(&mut lifetimes).visit_type_mut(&mut ty);
                tys.push(ty);
            }
        }
        let mut generics = sig.generics.clone();
        for (k, lt) in lifetimes.iter().enumerate() {
            generics.params.insert(
                k,
                syn::GenericParam::Lifetime(syn::LifetimeParam::new(lt.clone())),
            );
        }
        generics.params.push(syn::parse_quote!(__NilangF));
        // `CallTuple` is implemented for tuples of up to `MAX_TUPLE` arguments; a longer
        // parameter list is passed as a plain tuple, the function called by its name, and
        // its generic arguments inferred through the (any-arity) `FnOnce` bound
        let long = tys.len() > MAX_TUPLE;
        generics.make_where_clause().predicates.push(if long {
            syn::parse_quote!(__NilangF: ::core::ops::FnOnce(#(#tys),*))
        } else {
            syn::parse_quote!(__NilangF: ::nilang::CallTuple<(#(#tys,)*)>)
        });
        let where_clause = &generics.where_clause;
        // the adjoint-only variant (see `adjoint`); the function itself where no value update
        // depends on which parameters are dead (or `impl Trait` parameters cannot be named)
        let (adj_name, primal_name, mask) = (
            abi::item(abi::ADJOINT),
            abi::item(abi::PRIMAL),
            abi::mask_type(),
        );
        let forward_itself = quote! {
            #[doc(hidden)] #[inline(always)]
            #vis fn #adj_name<__NilangF: ::nilang::CallTuple<__NilangA>, __NilangA>(f: __NilangF, _: #mask, args: __NilangA) {
                f.call_tuple(args)
            }
        };
        // the function's type and const parameters, named in the calls of the bodies below
        let own_args: Vec<&syn::Ident> = sig
            .generics
            .params
            .iter()
            .filter_map(|g| match g {
                syn::GenericParam::Type(t) => Some(&t.ident),
                syn::GenericParam::Const(c) => Some(&c.ident),
                syn::GenericParam::Lifetime(_) => None,
            })
            .collect();
        let args: Vec<syn::Ident> = (0..tys.len())
            .map(|k| format_ident!("__nilang_arg{}", k, span = Span::mixed_site()))
            .collect();
        let call_by_name = |callee: &syn::Ident| {
            quote! {
                #[doc(hidden)] #[inline(always)] #allow
                #vis fn #adj_name #generics (_: __NilangF, _: #mask, (#(#args,)*): (#(#tys,)*)) #where_clause {
                    #callee(#(#args),*)
                }
            }
        };
        // a variant's body (in `__nilang_body`, of `generics`, parameters `params` named
        // `names`) at the level its caller tagged it with (`crate::lanes`): dispatched where it
        // has a loop on batch numbers, else at the caller's level
        let nf = format_ident!("__NilangF", span = Span::call_site());
        let tag = if long {
            crate::lanes::untagged()
        } else {
            crate::lanes::tag_of_callee(&quote!((#(#tys,)*)))
        };
        let mut variant_targs = own_args.clone();
        variant_targs.push(&nf);
        // dispatched where the body has a loop on batch numbers, else at the caller's level
        let levels: Option<(&TokenStream, crate::lanes::LevelBodies)> = match (&wide, &on_lanes) {
            (Some(w), _) => Some((w, crate::lanes::dispatched)),
            (None, Some(w)) => Some((w, crate::lanes::at_callers_level)),
            (None, None) => None,
        };
        let by_tag = |params: &TokenStream, names: &[syn::Ident], body: &TokenStream| match levels {
            Some((w, emit)) => emit(
                w,
                &tag,
                &generics,
                params,
                names,
                &variant_targs,
                body,
                &allow,
            ),
            None => crate::lanes::level_zero(body),
        };
        // a dispatched variant's body is in the level copies (`crate::lanes::dispatched`:
        // functions of their own, whose parameters keep their `noalias`), so the variant and its
        // `__nilang_body` are only the dispatch: inlined always, so that the call of the level
        // copy sits in the caller's copy of that level from the start (a `#[target_feature]`
        // copy is not inlined into a function without the features, and once the wrappers are
        // inlined LLVM no longer counts the copy as called once: it stayed a call per run)
        let variant_inline = if wide.is_some() {
            quote!(#[inline(always)])
        } else {
            quote!(#[inline])
        };
        let adj_fn = |body: &TokenStream, callee: &syn::Ident| {
            if long && !opaque && !crate::syntax::mentions_name(body, "__nilang_dead") {
                call_by_name(callee)
            } else if opaque || !crate::syntax::mentions_name(body, "__nilang_dead") {
                forward_itself.clone()
            } else {
                // the body is a function of its own with the parameters as parameters (their
                // `&mut` keep `noalias`, as in `__primal` below: `#[inline]`, not `always`),
                // called with the tuple's fields
                let params = quote!(__nilang_f: __NilangF, __nilang_dead: #mask, #(#pats: #tys),*);
                let body = match &param_names {
                    Some(names) => {
                        let mut all = vec![
                            format_ident!("__nilang_f", span = Span::call_site()),
                            format_ident!("__nilang_dead", span = Span::call_site()),
                        ];
                        all.extend(names.iter().cloned());
                        by_tag(&params, &all, body)
                    }
                    None => crate::lanes::level_zero(body),
                };
                quote! {
                    #[doc(hidden)] #variant_inline #allow
                    #vis fn #adj_name #generics (__nilang_f: __NilangF, __nilang_dead: #mask, (#(#args,)*): (#(#tys,)*)) #where_clause {
                        #variant_inline #allow
                        fn __nilang_body #generics (__nilang_f: __NilangF, __nilang_dead: #mask, #(#pats: #tys),*) #where_clause {
                            #body
                        }
                        __nilang_body::<#(#own_args,)* __NilangF>(__nilang_f, __nilang_dead, #(#args),*)
                    }
                }
            }
        };
        let (adj_fwd_fn, adj_inv_fn) = (adj_fn(adj, name), adj_fn(adj_inv, &inv_name));
        let primal_fn = if opaque {
            // `impl Trait` parameters cannot be named in the bound: the function itself
            quote! {
                #[doc(hidden)] #[inline(always)]
                #vis fn #primal_name<__NilangF: ::nilang::CallTuple<__NilangA>, __NilangA>(f: __NilangF, args: __NilangA) {
                    f.call_tuple(args)
                }
            }
        } else {
            // the body is a function of its own with the function's parameters, called with
            // the tuple's fields: references in a tuple carry no `noalias`, so a body on them
            // would lose what the forward function's optimiser knows (that `&mut` slices do
            // not overlap: vectorised loops, bounds checks removed). `#[inline]`, not
            // `always`: rustc's MIR inliner inlines `always` functions before LLVM sees their
            // parameters, and their `noalias` goes with them (LLVM's own inlining keeps it as
            // scope metadata)
            //
            // The body is generic over the function value too, with its bound (and the
            // lifetimes named): `#[i]` callers tag it with their instruction-set level
            // (`nilang::simd::Level`, see `crate::lanes`), so each level's caller has an
            // instance of its own, run at that level and inlined into that level's code
            let params = quote!(#(#pats: #tys),*);
            let primal = match &param_names {
                Some(names) => by_tag(&params, names, primal),
                None => crate::lanes::level_zero(primal),
            };
            quote! {
                #[doc(hidden)] #variant_inline #allow
                #vis fn #primal_name #generics (_: __NilangF, (#(#args,)*): (#(#tys,)*)) #where_clause {
                    #variant_inline #allow
                    fn __nilang_body #generics (#params) #where_clause {
                        #primal
                    }
                    __nilang_body::<#(#own_args,)* __NilangF>(#(#args),*)
                }
            }
        };
        let (additive_name, writes_name, reads_name) = (
            abi::item(abi::ADDITIVE),
            abi::item(abi::WRITES),
            abi::item(abi::READS),
        );
        out.extend(quote! {
            #[doc = #doc] #[doc(hidden)] #[allow(non_camel_case_types, dead_code)]
            #vis enum #name {}
            #[allow(clippy::all)]
            impl #name {
                #[doc(hidden)] pub const #additive_name: #mask = #additive;
                #[doc(hidden)] pub const #writes_name: #mask = #writes;
                #[doc(hidden)] pub const #reads_name: #mask = #reads;
                #primal_fn
                #adj_fwd_fn
            }
            #[doc(hidden)] #[allow(non_camel_case_types, dead_code)]
            #vis enum #inv_name {}
            impl #inv_name {
                #[doc(hidden)] pub const #additive_name: #mask = #name::#additive_name;
                #[doc(hidden)] pub const #writes_name: #mask = #name::#writes_name;
                #[doc(hidden)] pub const #reads_name: #mask = #name::#reads_name;
                #adj_inv_fn
            }
        });
    }
    if let (false, false, Some(names)) = (has_receiver, opts.norev, names) {
        // bit `k`: parameter `k` is a `zero(..)` workspace (`Reversible::workspaces`)
        let workspaces = names
            .iter()
            .enumerate()
            .filter(|(k, n)| opts.zero.contains(n) && abi::dead_bit(*k).is_some())
            .fold(0, |m, (k, _)| m | (1 << k));
        out.extend(reversible_value(f, names, opts.rev.clone(), workspaces));
    }
    out
}

/// The `Reversible` value: a unit struct named after the function.
fn reversible_value(
    f: &syn::ItemFn,
    names: &[syn::Ident],
    rev: Option<syn::Ident>,
    workspaces: abi::ParamMask,
) -> TokenStream {
    let sig = &f.sig;
    let name = &sig.ident;
    let inv_name = abi::inverse_name(name);
    let sname =
        rev.unwrap_or_else(|| format_ident!("{}", camel(&name.to_string()), span = name.span()));
    // parameter types with every elided reference lifetime made explicit
    let mut lifetimes: Vec<syn::Lifetime> = vec![];
    let mut types = vec![];
    for arg in &sig.inputs {
        if let syn::FnArg::Typed(pt) = arg {
            let mut ty = (*pt.ty).clone();
            if let syn::Type::ImplTrait(_) = ty {
                return quote!();
            }
            NameLifetimes(&mut lifetimes).visit_type_mut(&mut ty);
            types.push(ty);
        }
    }
    // every type parameter must be inferable from the argument types
    let arg_text = quote!(#(#types)*).to_string();
    for gp in sig.generics.type_params() {
        let id = gp.ident.to_string();
        if !arg_text
            .split(|c: char| !c.is_alphanumeric() && c != '_')
            .any(|t| t == id)
        {
            return quote!();
        }
    }
    let generics = &sig.generics;
    let params = generics.params.iter();
    let where_clause = &generics.where_clause;
    // const parameters cannot be inferred from the arguments: the value type carries them
    let consts: Vec<&syn::Ident> = generics.const_params().map(|c| &c.ident).collect();
    let const_decls = generics.const_params();
    let struct_generics = if consts.is_empty() {
        quote!()
    } else {
        quote!(<#(#const_decls),*>)
    };
    let struct_args = if consts.is_empty() {
        quote!()
    } else {
        quote!(<#(#consts),*>)
    };
    // the type and const parameters, named in a turbofish when a const one cannot be inferred
    let all: Vec<&syn::Ident> = generics
        .params
        .iter()
        .filter_map(|p| match p {
            syn::GenericParam::Type(t) => Some(&t.ident),
            syn::GenericParam::Const(c) => Some(&c.ident),
            syn::GenericParam::Lifetime(_) => None,
        })
        .collect();
    let turbofish = if consts.is_empty() {
        quote!()
    } else {
        quote!(::<#(#all),*>)
    };
    let vis = &f.vis;
    // the tuple's bindings get names of their own: a parameter may be named like its function
    // (`fn fib(fib: &mut i64)`), and the call below must still reach the function
    let names: Vec<syn::Ident> = (0..names.len())
        .map(|k| format_ident!("__nilang_arg{}", k, span = Span::mixed_site()))
        .collect();
    let primal_turbofish = if consts.is_empty() {
        quote!()
    } else {
        quote!(::<#(#all,)* _>)
    };
    // the arguments handed to the value-only variant and back: `&mut` ones reborrowed
    let reborrow: Vec<TokenStream> = names
        .iter()
        .zip(&types)
        .map(|(n, t)| match t {
            syn::Type::Reference(r) if r.mutability.is_some() => quote!(&mut *#n),
            _ => quote!(#n),
        })
        .collect();
    let (additive_name, writes_name, primal_name, adj_name, mask) = (
        abi::item(abi::ADDITIVE),
        abi::item(abi::WRITES),
        abi::item(abi::PRIMAL),
        abi::item(abi::ADJOINT),
        abi::mask_type(),
    );
    // the inverse's adjoint-only variant (see `items`); the default (`uncall`) where a const
    // parameter would have to be named (that variant may be the generic `CallTuple` one)
    let workspaces = abi::mask_lit(workspaces);
    let uncall_dead = if consts.is_empty() {
        quote! {
            #[inline]
            fn workspaces(&self) -> #mask { #workspaces }
            #[inline]
            fn uncall_dead(&self, (#(#names,)*): (#(#types,)*), dead: #mask) -> (#(#types,)*) {
                #inv_name::#adj_name(#inv_name, dead, (#(#reborrow,)*));
                (#(#names,)*)
            }
        }
    } else {
        quote!()
    };
    let doc = format!(
        "The reversible function [`{name}`](fn@{name}) as a value (for `nilang::grad`, `nilang::bennett`, ...); generated by `#[i]`."
    );
    quote! {
        #[doc = #doc]
        #[derive(Clone, Copy, Debug, Default)]
        #vis struct #sname #struct_generics;
        #[allow(clippy::all, unused_parens)]
        impl<#(#lifetimes,)* #(#params),*> ::nilang::Reversible<(#(#types,)*)> for #sname #struct_args #where_clause {
            #[inline]
            fn call(&self, (#(#names,)*): (#(#types,)*)) -> (#(#types,)*) { #name #turbofish(#(#names),*); (#(#names,)*) }
            #[inline]
            fn uncall(&self, (#(#names,)*): (#(#types,)*)) -> (#(#types,)*) { #inv_name #turbofish(#(#names),*); (#(#names,)*) }
            #[inline]
            fn additive(&self) -> #mask { #name::#additive_name }
            #[inline]
            fn writes(&self) -> #mask { #name::#writes_name }
            #[inline]
            fn call_primal(&self, (#(#names,)*): (#(#types,)*)) -> (#(#types,)*) {
                #name::#primal_name #primal_turbofish(#name #turbofish, (#(#reborrow,)*));
                (#(#names,)*)
            }
            #uncall_dead
        }
    }
}
