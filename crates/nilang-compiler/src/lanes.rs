//! Run-time CPU dispatch of a generic function's bodies on batch numbers (`nilang::simd`).
//!
//! A body runs as an inner function `__nilang_lanes` with an extra const parameter (the
//! instruction-set level): on batch numbers (a type parameter bounded by `Scalar`, `Ordered`
//! or `Batch` whose `LaneOrd::WIDE` is set), levels 2 and 1 are copies of the body in
//! `#[target_feature]` functions (AVX-512, AVX2), which `nilang::simd` calls when the CPU has
//! the level, else level 0 runs: the body, with every `#[inline(always)]` lane operation in
//! it, is compiled for those vectors. The functions it calls dispatch by themselves. On
//! other numbers the condition is a constant `false`: only level 0 is compiled. The
//! value-only and adjoint-only calls in a body (`g::__primal`, `g::__adj`) pass the callee's
//! function value tagged with the level (`nilang::simd::Level<__NILANG_ISA, _>`): the callee's
//! instance for that tag runs that level alone (`nilang::CallTuple::LEVEL`, a constant), so
//! it has one caller and is inlined into that level's code like the body, and so do the
//! instances it calls in turn. Only functions with a loop dispatch: the others are cheap to
//! call and small, so LLVM inlines them into their caller's copy (their variants run at the
//! tagged level, [`at_callers_level`], and pass the tag on).
use proc_macro2::TokenStream;
use quote::quote;

/// The traits whose bound makes a type parameter a possible batch number (each implies
/// `nilang::ad::LaneOrd`).
const LANE_BOUNDS: [&str; 3] = ["Scalar", "Ordered", "Batch"];

/// The emitters of a variant's body at its levels ([`dispatched`], [`at_callers_level`]): the
/// batch-number condition, the callee's tag, the generics, the parameters and their names, the
/// type arguments, the body and its `allow` attributes.
pub(crate) type LevelBodies = fn(
    &TokenStream,
    &TokenStream,
    &syn::Generics,
    &TokenStream,
    &[syn::Ident],
    &[&syn::Ident],
    &TokenStream,
    &TokenStream,
) -> TokenStream;

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

/// The level tag of a body that nothing tags (the function itself, `f`/`f_inv`): it runs the
/// level [`nilang::simd::active`] says.
pub(crate) fn untagged() -> TokenStream {
    quote!(::core::primitive::u8::MAX)
}

/// The level tag of a variant (`f::__primal`, `f::__adj`) called with a function value of type
/// `__NilangF` bounded by `nilang::CallTuple<args>`: the caller's level where `#[i]` code
/// tagged it (`nilang::simd::Level`), else [`untagged`].
pub(crate) fn tag_of_callee(args: &TokenStream) -> TokenStream {
    quote!(<__NilangF as ::nilang::CallTuple<#args>>::LEVEL)
}

/// The body `body` as an inner function `__nilang_lanes` of `generics` and the level
/// `__NILANG_ISA`, with parameters `params` (as written in its signature) named `names`, and
/// `level(l)`, its call at level `l` (`targs`: the function's type and const parameters).
fn lanes_fn(
    generics: &syn::Generics,
    params: &TokenStream,
    names: &[syn::Ident],
    targs: &[&syn::Ident],
    body: &TokenStream,
    allow: &TokenStream,
) -> (TokenStream, impl Fn(u8) -> TokenStream) {
    let mut g = generics.clone();
    g.params
        .push(syn::parse_quote!(const __NILANG_ISA: ::core::primitive::u8));
    let where_clause = &g.where_clause;
    let item = quote! {
        #[inline] #allow
        fn __nilang_lanes #g (#params) #where_clause {
            #body
        }
    };
    let (targs, names): (Vec<syn::Ident>, Vec<syn::Ident>) =
        (targs.iter().map(|t| (*t).clone()).collect(), names.to_vec());
    let level = move |l: u8| {
        let l = proc_macro2::Literal::u8_unsuffixed(l);
        quote!(__nilang_lanes::<#(#targs,)* #l>(#(#names),*))
    };
    (item, level)
}

/// The body `body` of a function with `generics`, parameters `params` (as written in its
/// signature) named `names`, run through the levels (see the module): `targs` are the
/// function's type and const parameters, `wide` the [`wide_condition`], `tag` the level its
/// caller runs ([`untagged`], [`tag_of_callee`]).
///
/// Level 0 is `__nilang_lanes::<.., 0>`; levels 2 and 1 are a copy of the body,
/// `__nilang_lanes_wide::<.., L>`: `#[inline(always)]`, no `#[target_feature]`, passed to
/// `nilang::simd` as a safe `fn` item, which it calls inside its own `#[target_feature]`
/// function of the level where the CPU has it, so the body is inlined there and compiled for
/// the level's vectors. No `unsafe` in the caller's crate, and `nilang::simd` runs only safe
/// function values (see its "Soundness"). (Through the `fn` item, LLVM first inlines the
/// body's callees into the copy, then the copy into the level's function; a generated type
/// with an `#[inline(always)]` `CallTuple` instead asked LLVM to inline the raw body into the
/// AVX-512 function, which it refused while the body still called functions with aggregate
/// arguments: GMM 10k d=2 K=5 x8-G 0.45 → 0.76 ms.)
/// A tagged instance (called from `#[i]` code of level 1 or 2) names its level's copy alone
/// (`nilang::simd::__at_level`), so that copy has one caller, the caller's copy of the same
/// level, and LLVM inlines it there (a copy also named by the other, dead, instances was
/// called from three places and stayed a call per run); an untagged one picks the copy of
/// the active level (`nilang::simd::__wide`). A body with more than
/// [`MAX_CALL_TUPLE`](crate::abi::MAX_CALL_TUPLE) parameters runs level 0 alone.
#[allow(clippy::too_many_arguments)]
pub(crate) fn dispatched(
    wide: &TokenStream,
    tag: &TokenStream,
    generics: &syn::Generics,
    params: &TokenStream,
    names: &[syn::Ident],
    targs: &[&syn::Ident],
    body: &TokenStream,
    allow: &TokenStream,
) -> TokenStream {
    let (item, level) = lanes_fn(generics, params, names, targs, body, allow);
    let l0 = level(0);
    if names.len() > crate::abi::MAX_CALL_TUPLE {
        // `nilang::CallTuple` (how `nilang::simd` calls a copy) is implemented for functions
        // of up to this many parameters: a longer parameter list runs the default build's body
        return quote! {
            #item
            #l0
        };
    }
    let mut g = generics.clone();
    g.params
        .push(syn::parse_quote!(const __NILANG_ISA: ::core::primitive::u8));
    let where_clause = &g.where_clause;
    // one copy for levels 1 and 2, named as an `fn` item (a safe function value)
    let items = quote! {
        #[inline(always)] #allow
        fn __nilang_lanes_wide #g (#params) #where_clause {
            #body
        }
    };
    let copy = |l: u8| {
        let l = proc_macro2::Literal::u8_unsuffixed(l);
        quote!(__nilang_lanes_wide::<#(#targs,)* #l>)
    };
    let (p2, p1) = (copy(2), copy(1));
    quote! {
        #item
        #items
        if #wide {
            match #tag {
                0 => #l0,
                1 => ::nilang::simd::__at_level(1, (#(#names,)*), #p1),
                2 => ::nilang::simd::__at_level(2, (#(#names,)*), #p2),
                _ => match ::nilang::simd::__wide(#tag, (#(#names,)*), #p2, #p1) {
                    ::core::result::Result::Ok(()) => {}
                    ::core::result::Result::Err((#(#names,)*)) => #l0,
                },
            }
        } else {
            #l0
        }
    }
}

/// The body `body` of a variant that does not dispatch (no loop) called with the level tag
/// `tag` ([`tag_of_callee`]), on batch numbers (`wide`, the [`wide_condition`]): its level (`__NILANG_ISA`, which the
/// calls in it pass on) is the tag, as LLVM inlines it into its caller's copy (a constant
/// after monomorphisation: the other calls are removed).
#[allow(clippy::too_many_arguments)]
pub(crate) fn at_callers_level(
    wide: &TokenStream,
    tag: &TokenStream,
    generics: &syn::Generics,
    params: &TokenStream,
    names: &[syn::Ident],
    targs: &[&syn::Ident],
    body: &TokenStream,
    allow: &TokenStream,
) -> TokenStream {
    let (item, level) = lanes_fn(generics, params, names, targs, body, allow);
    let (l0, l1, l2) = (level(0), level(1), level(2));
    quote! {
        #item
        if #wide {
            match #tag {
                1 => #l1,
                2 => #l2,
                _ => #l0,
            }
        } else {
            #l0
        }
    }
}
