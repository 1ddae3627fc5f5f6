//! `#[primitive] fn f(...) -> T`: register a pure function for use on the right of `+=`.
//!
//! Generates a type of the same name (type namespace only) implementing `nilang::instr::Func`,
//! and with `grad = df` (a function returning the partial derivatives: one value for one
//! argument, a tuple otherwise) `nilang::ad::PartialsN` and the first-order backward rule
//! `nilang::ad::RuleN` (so `y += f(..)` works on `GVar<T>`, see `nilang::ad::primitive`).
use crate::errors::Errors;
use proc_macro2::TokenStream;
use quote::quote;
use syn::spanned::Spanned;

/// Compile `#[primitive(grad = df)] fn f(a: T, b: T) -> T`.
pub fn compile(attr: TokenStream, item: TokenStream) -> TokenStream {
    let mut errors = Errors::default();
    let mut grad: Option<syn::Path> = None;
    let mut krate: Option<syn::Path> = None;
    let parser = syn::meta::parser(|meta| {
        if meta.path.is_ident("grad") {
            grad = Some(meta.value()?.parse()?);
            Ok(())
        } else if meta.path.is_ident("crate") {
            krate = Some(crate::function::crate_path(meta.value()?)?);
            Ok(())
        } else {
            Err(meta.error("unknown option: expected `grad = partials_fn` or `crate = path`"))
        }
    });
    if let Err(e) = syn::parse::Parser::parse2(parser, attr) {
        errors.push_err(e);
    }
    let f: syn::ItemFn = match syn::parse2(item) {
        Ok(f) => f,
        Err(e) => {
            errors.push(e.span(), "`#[primitive]` applies to a function");
            return errors.to_compile_errors();
        }
    };
    let sig = &f.sig;
    let ret = match &sig.output {
        syn::ReturnType::Type(_, t) => (**t).clone(),
        syn::ReturnType::Default => {
            errors.push(sig.span(), "a primitive returns a value");
            return errors.to_compile_errors();
        }
    };
    let mut tys = vec![];
    let mut names = vec![];
    for a in &sig.inputs {
        match a {
            syn::FnArg::Typed(pt) => {
                tys.push((*pt.ty).clone());
                names.push(syn::Ident::new(&format!("__a{}", names.len()), pt.span()));
            }
            syn::FnArg::Receiver(r) => errors.push(r.span(), "a primitive is a free function"),
        }
    }
    if tys.is_empty() || tys.len() > 3 {
        errors.push(sig.inputs.span(), "a primitive takes 1 to 3 arguments");
    }
    if !errors.is_empty() {
        return errors.to_compile_errors();
    }
    let name = &sig.ident;
    let vis = &f.vis;
    let (ig, _, wc) = sig.generics.split_for_impl();
    let gparams = sig.generics.params.iter();
    let gparams2 = sig.generics.params.iter();
    let rule = match grad {
        None => quote!(),
        Some(g) => {
            let n = tys.len();
            let t0 = &tys[0];
            if tys.iter().any(|t| t != t0) {
                errors.push(
                    sig.inputs.span(),
                    "`grad = ..` needs all arguments of the primitive to have the same type",
                );
                return errors.to_compile_errors();
            }
            let partials = syn::Ident::new(&format!("Partials{n}"), name.span());
            let rule_tr = syn::Ident::new(&format!("Rule{n}"), name.span());
            let rule_fn = syn::Ident::new(&format!("rule{n}"), name.span());
            let out = if n == 1 {
                quote!(#t0)
            } else {
                quote!((#(#tys),*))
            };
            let gs: Vec<syn::Ident> = (0..n)
                .map(|k| syn::Ident::new(&format!("__g{k}"), name.span()))
                .collect();
            let gparams3 = sig.generics.params.iter();
            // the Scalar bound joins the user's where clause
            let mut preds: Vec<TokenStream> = match wc {
                Some(w) => w.predicates.iter().map(|p| quote!(#p)).collect(),
                None => vec![],
            };
            preds.push(quote!(#t0: ::nilang::ad::Scalar));
            preds.push(quote!(#name: ::nilang::instr::Func<(#(#tys,)*), Out = #t0>));
            quote! {
                impl<#(#gparams2),*> ::nilang::ad::#partials<#t0> for #name #wc {
                    #[inline]
                    fn partials(#(#names: #tys),*) -> #out {
                        #g(#(#names),*)
                    }
                }
                impl<#(#gparams3),*> ::nilang::ad::#rule_tr<#t0> for #name where #(#preds,)* {
                    #[inline]
                    fn plus(__y: &mut ::nilang::GVar<#t0>, #(#gs: &mut ::nilang::GVar<#t0>),*) {
                        ::nilang::ad::primitive::#rule_fn::<#name, #t0>(__y, #(#gs,)* true)
                    }
                    #[inline]
                    fn minus(__y: &mut ::nilang::GVar<#t0>, #(#gs: &mut ::nilang::GVar<#t0>),*) {
                        ::nilang::ad::primitive::#rule_fn::<#name, #t0>(__y, #(#gs,)* false)
                    }
                }
            }
        }
    };
    let doc = format!(
        "Marker type of the primitive [`{name}`](fn@{name}) (generated by `#[primitive]`)."
    );
    let _ = ig;
    let out = quote! {
        #f
        #[doc = #doc]
        #[allow(non_camel_case_types)]
        #[derive(Clone, Copy, Debug, Default)]
        #vis struct #name {}
        impl<#(#gparams),*> ::nilang::instr::Func<(#(#tys,)*)> for #name #wc {
            type Out = #ret;
            #[inline(always)]
            fn eval((#(#names,)*): (#(#tys,)*)) -> #ret { #name(#(#names),*) }
        }
        #rule
    };
    crate::krate::rewrite(out, &crate::krate::resolve(krate.as_ref()))
}
