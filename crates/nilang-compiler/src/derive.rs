//! `#[derive(AlmostSame)]`: field-wise `nilang::check::AlmostSame` (the deallocation check of
//! struct ancillas, with the float tolerance on float fields).
use proc_macro2::TokenStream;
use quote::{format_ident, quote};

/// Derive `AlmostSame` for a struct (all fields) or an enum (same variant, same fields).
pub fn almost_same(item: TokenStream) -> TokenStream {
    let input: syn::DeriveInput = match syn::parse2(item) {
        Ok(i) => i,
        Err(e) => return e.to_compile_error(),
    };
    let name = &input.ident;
    let mut generics = input.generics.clone();
    for tp in generics.type_params_mut() {
        tp.bounds
            .push(syn::parse_quote!(::nilang::check::AlmostSame));
    }
    let (ig, tg, wc) = generics.split_for_impl();
    let fields_eq =
        |fields: &syn::Fields, a: &str, b: &str| -> (TokenStream, TokenStream, TokenStream) {
            let ids: Vec<TokenStream> = fields
                .iter()
                .enumerate()
                .map(|(k, f)| match &f.ident {
                    Some(i) => quote!(#i),
                    None => {
                        let k = syn::Index::from(k);
                        quote!(#k)
                    }
                })
                .collect();
            let xa: Vec<syn::Ident> = (0..ids.len())
                .map(|k| format_ident!("{}{}", a, k))
                .collect();
            let xb: Vec<syn::Ident> = (0..ids.len())
                .map(|k| format_ident!("{}{}", b, k))
                .collect();
            let (pa, pb) = match fields {
                syn::Fields::Named(_) => (quote!({ #(#ids: #xa),* }), quote!({ #(#ids: #xb),* })),
                syn::Fields::Unnamed(_) => (quote!(( #(#xa),* )), quote!(( #(#xb),* ))),
                syn::Fields::Unit => (quote!(), quote!()),
            };
            let cmp = quote!(true #(&& ::nilang::check::AlmostSame::almost_same(#xa, #xb))*);
            (pa, pb, cmp)
        };
    let body = match &input.data {
        syn::Data::Struct(s) => {
            let (pa, pb, cmp) = fields_eq(&s.fields, "__a", "__b");
            quote! {
                let #name #pa = self;
                let #name #pb = other;
                #cmp
            }
        }
        syn::Data::Enum(e) => {
            let arms = e.variants.iter().map(|v| {
                let vn = &v.ident;
                let (pa, pb, cmp) = fields_eq(&v.fields, "__a", "__b");
                quote!((#name::#vn #pa, #name::#vn #pb) => #cmp,)
            });
            quote! {
                #[allow(unreachable_patterns)]
                match (self, other) { #(#arms)* _ => false }
            }
        }
        syn::Data::Union(u) => {
            return syn::Error::new(
                u.union_token.span,
                "`AlmostSame` cannot be derived for a union",
            )
            .to_compile_error()
        }
    };
    let out = quote! {
        impl #ig ::nilang::check::AlmostSame for #name #tg #wc {
            #[allow(unused_variables)]
            fn almost_same(&self, other: &Self) -> bool { #body }
        }
    };
    crate::krate::rewrite(out, &crate::krate::resolve(None))
}
