//! Statement macros: `inv! { .. }`, `routine! { .. }`/`unroutine!()` (kept as written for
//! [`crate::lower`] to pair and invert), `dealloc!`, `safe!`, `fresh!` and the stack operations
//! `push!`, `pop!`, `copy_push!`, `copy_pop!`.
use super::Parser;
use crate::ir::*;
use crate::syntax::place_of;
use proc_macro2::Span;
use syn::parse::Parser as _;
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{Expr, Token};

impl Parser<'_> {
    /// A statement macro `name!(..)` at `span`; `store`: its `#[store]` attribute, if any.
    pub(super) fn mac(
        &mut self,
        m: &syn::Macro,
        span: Span,
        check: bool,
        store: Option<StoreMode>,
    ) -> Option<StmtKind> {
        let name = m
            .path
            .segments
            .last()
            .map(|s| s.ident.to_string())
            .unwrap_or_default();
        if store.is_some() && name != "routine" {
            let kind = self.mac(m, span, check, None);
            crate::lower::store::misplaced(self.errors, span);
            return kind;
        }
        match name.as_str() {
            "inv" | "routine" => {
                let stmts = self.parse_stmts(m)?;
                let body = self.block(&stmts, check);
                Some(match (name.as_str(), store) {
                    ("inv", _) => StmtKind::Surface(Surface::Inv(body)),
                    (_, Some(mode)) => StmtKind::Surface(Surface::StoreRoutine(body, mode)),
                    (_, None) => StmtKind::Routine { body, undo: false },
                })
            }
            "unroutine" => {
                if !m.tokens.is_empty() {
                    self.errors
                        .push(m.tokens.span(), "`unroutine!()` takes no arguments");
                }
                Some(StmtKind::Surface(Surface::Unroutine))
            }
            "dealloc" => self.dealloc(m),
            "safe" => Some(StmtKind::Safe(m.tokens.clone())),
            "fresh" => self.fresh(m),
            "push" | "pop" | "copy_push" | "copy_pop" => self.stack(m, &name),
            _ => {
                self.errors.push(
                    m.path.span(),
                    format!(
                        "macro `{name}!` is not a reversible statement; wrap side-effect-only \
                         code (printing, asserts) in `safe! {{ ... }}`"
                    ),
                );
                None
            }
        }
    }

    /// `fresh!(ws, ..)`.
    fn fresh(&mut self, m: &syn::Macro) -> Option<StmtKind> {
        let args = Punctuated::<Expr, Token![,]>::parse_terminated.parse2(m.tokens.clone());
        match args {
            Ok(a) if !a.is_empty() => {
                let places: Option<Vec<Place>> =
                    a.iter().map(|e| place_of(e).filter(|p| !p.neg)).collect();
                if places.is_none() {
                    self.errors.push(
                        m.tokens.span(),
                        "`fresh!(ws, ..)` takes workspaces: variables, fields or elements",
                    );
                }
                places.map(StmtKind::Fresh)
            }
            _ => {
                self.errors.push(
                    m.tokens.span(),
                    "expected `fresh!(ws, ..)` with at least one workspace",
                );
                None
            }
        }
    }

    /// `push!(stack, x)`, `pop!(stack, x)`, `copy_push!(stack, x)`, `copy_pop!(stack, x)`.
    fn stack(&mut self, m: &syn::Macro, name: &str) -> Option<StmtKind> {
        let kind = match name {
            "push" => StackKind::Push,
            "pop" => StackKind::Pop,
            "copy_push" => StackKind::CopyPush,
            _ => StackKind::CopyPop,
        };
        let args = Punctuated::<Expr, Token![,]>::parse_terminated.parse2(m.tokens.clone());
        match args {
            Ok(a) if a.len() == 2 => match (place_of(&a[0]), place_of(&a[1])) {
                (Some(stack), Some(value)) if !stack.neg && !value.neg => {
                    Some(StmtKind::Stack { kind, stack, value })
                }
                _ => {
                    self.errors.push(
                        m.tokens.span(),
                        format!("`{name}!(stack, variable)` takes two places"),
                    );
                    None
                }
            },
            _ => {
                self.errors.push(
                    m.tokens.span(),
                    format!("expected `{name}!(stack, variable)`"),
                );
                None
            }
        }
    }
}
