//! Run-time CPU dispatch of a generic function's bodies on batch numbers (`nilang::simd`).
//!
//! A body runs as an inner function `__nilang_lanes` with an extra const parameter (the
//! instruction-set level): on batch numbers (a type parameter bounded by `Scalar`, `Ordered`
//! or `Batch` whose `LaneOrd::WIDE` is set), `nilang::simd::__wide` calls level 2 or 1 from a
//! `#[target_feature]` function (AVX-512, AVX2) when the CPU has it, else level 0 runs. Each
//! level is its own instance with one caller, so LLVM inlines it into the `#[target_feature]`
//! function whatever its size, and the body, with every `#[inline(always)]` lane operation
//! in it, is compiled for those vectors. The functions it calls dispatch by themselves. On
//! other numbers the condition is a constant `false`: only level 0 is compiled. The
//! adjoint-only calls in a body pass the callee's function value tagged with the level
//! (`nilang::simd::Level<__NILANG_ISA, _>`), so a callee's instance has one caller and is
//! inlined into that level's code like the body. Only
//! functions with a loop dispatch: the others are cheap to call and small, so LLVM inlines
//! them into their caller's copy.
use proc_macro2::TokenStream;
use quote::quote;

/// The traits whose bound makes a type parameter a possible batch number (each implies
/// `nilang::ad::LaneOrd`).
const LANE_BOUNDS: [&str; 3] = ["Scalar", "Ordered", "Batch"];

/// `body` of a function that does not dispatch: its level (`__NILANG_ISA`, which the calls
/// of its adjoint-only code name, see `emit::adjoint`) is 0.
pub(crate) fn level_zero(body: &TokenStream) -> TokenStream {
    quote! {
        #[allow(dead_code, non_upper_case_globals)]
        const __NILANG_ISA: ::core::primitive::u8 = 0;
        #body
    }
}

/// Whether `body` holds a loop (`for`, `while`, `loop`, also inside macro calls such as
/// `routine! { .. }`).
pub(crate) fn has_loop(body: TokenStream) -> bool {
    body.into_iter().any(|t| match t {
        proc_macro2::TokenTree::Ident(i) => i == "for" || i == "while" || i == "loop",
        proc_macro2::TokenTree::Group(g) => has_loop(g.stream()),
        _ => false,
    })
}

/// The condition that a function with `generics` runs on batch numbers: the `WIDE` of each
/// type parameter bounded by one of [`LANE_BOUNDS`], or'ed; `None` if there is none.
pub(crate) fn wide_condition(generics: &syn::Generics) -> Option<TokenStream> {
    let lane_bound = |b: &syn::TypeParamBound| match b {
        syn::TypeParamBound::Trait(t) => t
            .path
            .segments
            .last()
            .is_some_and(|s| LANE_BOUNDS.iter().any(|n| s.ident == n)),
        _ => false,
    };
    let mut params: Vec<&syn::Ident> = generics
        .type_params()
        .filter(|p| p.bounds.iter().any(lane_bound))
        .map(|p| &p.ident)
        .collect();
    if let Some(w) = &generics.where_clause {
        for pred in &w.predicates {
            if let syn::WherePredicate::Type(pt) = pred {
                if let syn::Type::Path(tp) = &pt.bounded_ty {
                    if let Some(id) = tp.path.get_ident() {
                        let own = generics.type_params().any(|p| &p.ident == id);
                        if own && pt.bounds.iter().any(lane_bound) && !params.contains(&id) {
                            params.push(id);
                        }
                    }
                }
            }
        }
    }
    if params.is_empty() {
        return None;
    }
    Some(quote!(false #(|| <#params as ::nilang::ad::LaneOrd>::WIDE)*))
}

/// The body `body` of a function with `generics`, parameters `params` (as written in its
/// signature) named `names`, run through the levels (see the module): `targs` are the
/// function's type and const parameters, `wide` the [`wide_condition`].
pub(crate) fn dispatched(
    wide: &TokenStream,
    generics: &syn::Generics,
    params: &TokenStream,
    names: &[syn::Ident],
    targs: &[&syn::Ident],
    body: &TokenStream,
    allow: &TokenStream,
) -> TokenStream {
    let mut g = generics.clone();
    g.params
        .push(syn::parse_quote!(const __NILANG_ISA: ::core::primitive::u8));
    let where_clause = &g.where_clause;
    let level = |l: u8| {
        let l = proc_macro2::Literal::u8_unsuffixed(l);
        quote!(__nilang_lanes::<#(#targs,)* #l>(#(#names),*))
    };
    let (l0, l1, l2) = (level(0), level(1), level(2));
    quote! {
        #[inline] #allow
        fn __nilang_lanes #g (#params) #where_clause {
            #body
        }
        if #wide {
            match ::nilang::simd::__wide(
                (#(#names,)*),
                |(#(#names,)*)| #l2,
                |(#(#names,)*)| #l1,
            ) {
                ::core::result::Result::Ok(()) => {}
                ::core::result::Result::Err((#(#names,)*)) => #l0,
            }
        } else {
            #l0
        }
    }
}
