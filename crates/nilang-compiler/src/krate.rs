//! The path of the `nilang` crate in generated code.
//!
//! The emitter writes `::nilang::...`. A user who renamed the dependency
//! (`nl = { package = "nilang", .. }`) has no `::nilang`: the path is found in the user's
//! `Cargo.toml` (with `proc-macro-crate`) or given as `#[i(crate = nl)]`, and every
//! `::nilang` that starts a path in the output is rewritten to it.
use proc_macro2::{Group, Spacing, TokenStream, TokenTree};
use quote::quote;

/// The crate path to use: `explicit` (from `crate = path`) or the name under which the
/// calling crate depends on `nilang` (`::nilang` inside `nilang` itself, whose root declares
/// `extern crate self as nilang`, and when it cannot be found).
pub fn resolve(explicit: Option<&syn::Path>) -> TokenStream {
    if let Some(p) = explicit {
        return quote!(#p);
    }
    match proc_macro_crate::crate_name("nilang") {
        Ok(proc_macro_crate::FoundCrate::Name(n)) if n != "nilang" => {
            let id = syn::Ident::new(&n, proc_macro2::Span::call_site());
            quote!(::#id)
        }
        _ => quote!(::nilang),
    }
}

/// Keywords after which `::nilang` still starts a path (`<_ as ::nilang::X>`).
const PATH_KEYWORDS: &[&str] = &[
    "as", "impl", "dyn", "for", "in", "where", "mut", "let", "return", "const", "static", "type",
    "move", "else", "if", "match", "while", "break", "unsafe", "ref", "pub", "use", "fn",
];

/// Rewrite every path-leading `::nilang` of `ts` to `krate` (nothing to do for `::nilang`).
pub fn rewrite(ts: TokenStream, krate: &TokenStream) -> TokenStream {
    if krate.to_string().replace(' ', "") == "::nilang" {
        return ts;
    }
    rewrite_inner(ts, krate)
}

fn rewrite_inner(ts: TokenStream, krate: &TokenStream) -> TokenStream {
    let toks: Vec<TokenTree> = ts.into_iter().collect();
    let mut out: Vec<TokenTree> = Vec::with_capacity(toks.len());
    let mut i = 0;
    while i < toks.len() {
        if let (Some(TokenTree::Punct(a)), Some(TokenTree::Punct(b)), Some(TokenTree::Ident(n))) =
            (toks.get(i), toks.get(i + 1), toks.get(i + 2))
        {
            let starts_path = match out.last() {
                Some(TokenTree::Ident(prev)) => PATH_KEYWORDS.contains(&prev.to_string().as_str()),
                // after punctuation (`x: ::nilang::T`, `-> ::nilang::T`, `(::nilang::f)(..)`)
                _ => true,
            };
            if a.as_char() == ':'
                && a.spacing() == Spacing::Joint
                && b.as_char() == ':'
                && n == "nilang"
                && starts_path
            {
                // keep the user's span on the crate name (errors point where `nilang` was)
                for mut t in krate.clone() {
                    t.set_span(n.span());
                    out.push(t);
                }
                i += 3;
                continue;
            }
        }
        match &toks[i] {
            TokenTree::Group(g) => {
                let mut ng = Group::new(g.delimiter(), rewrite_inner(g.stream(), krate));
                ng.set_span(g.span());
                out.push(TokenTree::Group(ng));
            }
            t => out.push(t.clone()),
        }
        i += 1;
    }
    out.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rewrites_path_starts_only() {
        let ts = quote!(::nilang::NEG(&mut x); <_ as ::nilang::instr::T>::f(); a::nilang::b(); { ::nilang::c });
        let out = rewrite(ts, &quote!(::nl)).to_string().replace(' ', "");
        assert_eq!(
            out,
            "::nl::NEG(&mutx);<_as::nl::instr::T>::f();a::nilang::b();{::nl::c}"
        );
    }

    #[test]
    fn default_is_untouched() {
        let ts = quote!(::nilang::NEG(x));
        assert_eq!(
            rewrite(ts.clone(), &quote!(::nilang)).to_string(),
            ts.to_string()
        );
    }
}
