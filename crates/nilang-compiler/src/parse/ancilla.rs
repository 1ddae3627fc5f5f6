//! Ancillas: `let x = value;` (allocation), `let a = take!(x);` (a move) and
//! `dealloc!(x = value)` (deallocation).
use super::Parser;
use crate::ir::*;
use proc_macro2::TokenStream;
use syn::spanned::Spanned;
use syn::Expr;

impl Parser<'_> {
    /// `let x = value;` or `let a = take!(x);`.
    pub(super) fn local(&mut self, l: &syn::Local) -> Option<StmtKind> {
        let Some(init) = &l.init else {
            self.errors.push(
                l.span(),
                "an ancilla needs an initial value: `let x = value;` (its deallocation \
                 `dealloc!(x = value)` checks the same value)",
            );
            return None;
        };
        if let Some((_, d)) = &init.diverge {
            self.errors
                .push(d.span(), "`let ... else` is not reversible");
            return None;
        }
        let (names, tuple, ty) = self.pattern(&l.pat)?;
        if let Expr::Macro(m) = &*init.expr {
            if m.mac.path.is_ident("take") {
                // `let a = take!(x);`: move `x` into the new ancilla `a`; `x` is deallocated
                let src = m.mac.parse_body::<syn::Ident>();
                return match (src, names.as_slice(), tuple) {
                    (Ok(src), [dst], false) => Some(StmtKind::Move {
                        dst: dst.clone(),
                        src,
                    }),
                    _ => {
                        self.errors.push(
                            m.span(),
                            "a move is written `let a = take!(x);` with one new name `a` and an \
                             ancilla `x`",
                        );
                        None
                    }
                };
            }
        }
        Some(StmtKind::Alloc(Anc {
            names,
            tuple,
            ty,
            value: (*init.expr).clone(),
        }))
    }

    fn pattern(&mut self, pat: &syn::Pat) -> Option<(Vec<syn::Ident>, bool, Option<syn::Type>)> {
        match pat {
            syn::Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => {
                Some((vec![pi.ident.clone()], false, None))
            }
            syn::Pat::Type(pt) => {
                let (n, t, _) = self.pattern(&pt.pat)?;
                Some((n, t, Some((*pt.ty).clone())))
            }
            syn::Pat::Tuple(t) => {
                let mut names = vec![];
                for p in &t.elems {
                    match p {
                        syn::Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => {
                            names.push(pi.ident.clone())
                        }
                        _ => {
                            self.errors
                                .push(p.span(), "ancilla patterns are a name or a tuple of names");
                            return None;
                        }
                    }
                }
                Some((names, true, None))
            }
            _ => {
                self.errors.push(
                    pat.span(),
                    "ancilla patterns are a name or a tuple of names: `let x = ...;` or `let (a, \
                     b) = ...;`",
                );
                None
            }
        }
    }

    /// `dealloc!(x = value)` or `dealloc!((a, b) = value)`.
    pub(super) fn dealloc(&mut self, m: &syn::Macro) -> Option<StmtKind> {
        let (lhs, rhs) = match dealloc_args(m.tokens.clone()) {
            Ok(a) => a,
            Err(e) => {
                self.errors
                    .push(e.span(), "expected `dealloc!(name = value)`");
                return None;
            }
        };
        let names = match &lhs {
            Expr::Path(p) => p.path.get_ident().map(|i| (vec![i.clone()], false)),
            Expr::Tuple(t) => t
                .elems
                .iter()
                .map(|e| match e {
                    Expr::Path(p) => p.path.get_ident().cloned(),
                    _ => None,
                })
                .collect::<Option<Vec<_>>>()
                .map(|v| (v, true)),
            _ => None,
        };
        match names {
            Some((names, tuple)) => Some(StmtKind::Dealloc(Anc {
                names,
                tuple,
                ty: None,
                value: rhs,
            })),
            None => {
                self.errors.push(
                    lhs.span(),
                    "`dealloc!` takes an ancilla name (or a tuple of names) and its value: \
                     `dealloc!(x = 0.0)`",
                );
                None
            }
        }
    }
}

/// The arguments of `dealloc!(lhs = rhs)` (parsed as one assignment expression: `Expr`
/// parsing would otherwise swallow the `=`).
pub fn dealloc_args(tokens: TokenStream) -> syn::Result<(Expr, Expr)> {
    match syn::parse2::<Expr>(tokens)? {
        Expr::Assign(a) if a.attrs.is_empty() => Ok((*a.left, *a.right)),
        other => Err(syn::Error::new(
            other.span(),
            "expected `dealloc!(name = value)`",
        )),
    }
}
