//! Reading Rust syntax as the language's elements (places, operands, statement text): the
//! helpers every stage shares.
use crate::ir::*;
use proc_macro2::{Span, TokenStream};
use quote::ToTokens;
use std::collections::HashSet;
use syn::spanned::Spanned;
use syn::{Expr, Path, UnOp};

/// Statement text for messages: the tokens, whitespace-normalised, at most 120 characters.
pub fn stmt_text(t: &impl ToTokens) -> String {
    let s = t.to_token_stream().to_string();
    let mut s = s.split_whitespace().collect::<Vec<_>>().join(" ");
    for (from, to) in [
        (" . ", "."),
        (" (", "("),
        ("( ", "("),
        (" )", ")"),
        (" ,", ","),
        (" [", "["),
        ("[ ", "["),
        (" ]", "]"),
        ("! (", "!("),
        (" ;", ";"),
    ] {
        s = s.replace(from, to);
    }
    if s.chars().count() > 120 {
        s = s.chars().take(117).collect::<String>() + "...";
    }
    s
}

/// The span of the last token of `t` (with [`Spanned::span`], the first and the last token
/// delimit a range that error messages underline on stable Rust).
pub fn last_span(t: &impl ToTokens) -> Span {
    t.to_token_stream()
        .into_iter()
        .last()
        .map(|tt| tt.span())
        .unwrap_or_else(Span::call_site)
}

/// A place expression: `x`, `x.f`, `x.0`, `x[i]`, `*x`, `(x)`, `-x`.
pub fn place_of(e: &Expr) -> Option<Place> {
    match e {
        Expr::Path(p) if p.qself.is_none() && p.attrs.is_empty() => {
            let id = p.path.get_ident()?;
            Some(Place {
                root: id.clone(),
                path: vec![],
                neg: false,
                span: e.span(),
                end: last_span(e),
            })
        }
        Expr::Field(f) => {
            let mut p = place_of(&f.base)?;
            if p.neg {
                return None;
            }
            p.path.push(Proj::Field(f.member.clone()));
            p.span = e.span();
            p.end = last_span(e);
            Some(p)
        }
        Expr::Index(i) => {
            let mut p = place_of(&i.expr)?;
            if p.neg {
                return None;
            }
            p.path.push(Proj::Index((*i.index).clone()));
            p.span = e.span();
            p.end = last_span(e);
            Some(p)
        }
        Expr::Paren(p) => place_of(&p.expr),
        Expr::Unary(u) => match u.op {
            UnOp::Deref(_) => place_of(&u.expr),
            UnOp::Neg(_) => {
                let mut p = place_of(&u.expr)?;
                p.neg = !p.neg;
                p.span = e.span();
                p.end = last_span(e);
                Some(p)
            }
            _ => None,
        },
        _ => None,
    }
}

fn is_numeric_lit(l: &syn::Lit) -> bool {
    matches!(l, syn::Lit::Float(_) | syn::Lit::Int(_))
}

/// An instruction operand.
pub fn operand_of(e: &Expr) -> Operand {
    match e {
        Expr::Lit(l) if is_numeric_lit(&l.lit) => Operand::Lit {
            lit: l.lit.clone(),
            neg: false,
            span: e.span(),
        },
        Expr::Unary(u) if matches!(u.op, UnOp::Neg(_)) => match &*u.expr {
            Expr::Lit(l) if is_numeric_lit(&l.lit) => Operand::Lit {
                lit: l.lit.clone(),
                neg: true,
                span: e.span(),
            },
            _ => match place_of(e) {
                Some(p) => Operand::Place(p),
                None => Operand::Const {
                    expr: e.clone(),
                    explicit: false,
                },
            },
        },
        Expr::Paren(p) => operand_of(&p.expr),
        Expr::Tuple(t) => Operand::Tuple(t.elems.iter().map(operand_of).collect(), e.span()),
        Expr::Macro(m) if m.mac.path.is_ident("cst") => match m.mac.parse_body::<Expr>() {
            Ok(inner) => Operand::Const {
                expr: inner,
                explicit: true,
            },
            Err(_) => Operand::Const {
                expr: e.clone(),
                explicit: false,
            },
        },
        _ => match place_of(e) {
            Some(p) => Operand::Place(p),
            None => Operand::Const {
                expr: e.clone(),
                explicit: false,
            },
        },
    }
}

/// Whether a called path is a tuple-struct or enum-variant constructor (`Wrapping`, `Some`,
/// `E::Value`): its last segment is camel case (starts upper-case, has a lower-case letter;
/// functions and `#[primitive]`s are snake case) and no segment has generic arguments
/// (`PowiN::<N>(x)` and a marker type parameter `F(x)` are functions).
pub fn is_constructor(p: &Path) -> bool {
    let Some(last) = p.segments.last() else {
        return false;
    };
    let name = last.ident.to_string();
    name.chars().next().is_some_and(|c| c.is_uppercase())
        && name.chars().any(|c| c.is_lowercase())
        && p.segments
            .iter()
            .all(|s| matches!(s.arguments, syn::PathArguments::None))
}

/// The place read by a read-only call argument `&place`, if it is one.
pub fn read_place(e: &Expr) -> Option<Place> {
    match e {
        Expr::Reference(r) if r.mutability.is_none() => place_of(&r.expr).filter(|p| !p.neg),
        Expr::Group(g) => read_place(&g.expr),
        _ => None,
    }
}

/// Whether the tokens of `e` mention one of `names`.
pub fn mentions(e: &impl ToTokens, names: &HashSet<String>) -> bool {
    fn walk(t: TokenStream, names: &HashSet<String>) -> bool {
        t.into_iter().any(|tt| match tt {
            proc_macro2::TokenTree::Ident(i) => names.contains(&i.to_string()),
            proc_macro2::TokenTree::Group(g) => walk(g.stream(), names),
            _ => false,
        })
    }
    walk(e.to_token_stream(), names)
}

/// Whether the tokens of `t` mention the identifier `name`.
pub fn mentions_name(t: &impl ToTokens, name: &str) -> bool {
    fn walk(t: TokenStream, name: &str) -> bool {
        t.into_iter().any(|tt| match tt {
            proc_macro2::TokenTree::Ident(i) => i == name,
            proc_macro2::TokenTree::Group(g) => walk(g.stream(), name),
            _ => false,
        })
    }
    walk(t.to_token_stream(), name)
}
