//! `match k { 0 => { .. } 1 | 2 => { .. } 3..=5 => { .. } _ => { .. } }` on an integer: kept
//! as written ([`Surface::Match`]) until [`crate::lower`] makes it an `if` chain.
use super::Parser;
use crate::ir::*;
use syn::spanned::Spanned;
use syn::{Expr, Pat};

/// Whether a pattern is one an arm may have: an integer literal, a range of them, or `|` of
/// those (`_` only as the last arm).
fn integer_pattern(p: &Pat) -> bool {
    let int = |e: &Expr| matches!(e, Expr::Lit(l) if matches!(l.lit, syn::Lit::Int(_)));
    match p {
        Pat::Lit(l) => matches!(l.lit, syn::Lit::Int(_)),
        Pat::Range(r) => {
            r.start.as_deref().is_none_or(int)
                && r.end.as_deref().is_none_or(int)
                && (r.start.is_some() || r.end.is_some())
        }
        Pat::Or(o) => o.cases.iter().all(integer_pattern),
        Pat::Paren(p) => integer_pattern(&p.pat),
        _ => false,
    }
}

impl Parser<'_> {
    /// A reversible `match` on an integer: every arm but a final `_` matches integer literals.
    pub(super) fn match_int(&mut self, m: &syn::ExprMatch, check: bool) -> Option<StmtKind> {
        let mut arms = vec![];
        let mut otherwise = None;
        let mut ok = true;
        let mut wild = false;
        for (k, arm) in m.arms.iter().enumerate() {
            if let Some((_, guard)) = &arm.guard {
                self.errors.push_tokens(
                    guard,
                    "a reversible `match` has no guards: the arm must be known from the \
                     pattern alone (write an `if (pre, post)` inside the arm)",
                );
                ok = false;
            }
            let body = match &*arm.body {
                Expr::Block(b) if b.label.is_none() => self.block(&b.block.stmts, check),
                e => self.block(
                    &[syn::Stmt::Expr(e.clone(), Some(Default::default()))],
                    check,
                ),
            };
            match &arm.pat {
                Pat::Wild(_) if k + 1 == m.arms.len() => otherwise = Some(body),
                Pat::Wild(w) => {
                    wild = true;
                    self.errors.push(
                        w.span(),
                        "`_` must be the last arm of a reversible `match` (the arms after it \
                         could never run)",
                    );
                    ok = false;
                }
                p if integer_pattern(p) => arms.push(MatchArm {
                    pat: p.clone(),
                    body,
                }),
                p => {
                    self.errors.push_tokens(
                        p,
                        "a reversible `match` matches integers: each arm is an integer \
                         literal (`3`, `-1`), a range of them (`2..5`, `6..=9`), `|` of those, \
                         or the final `_`",
                    );
                    ok = false;
                }
            }
        }
        let Some(otherwise) = otherwise else {
            if wild {
                return None;
            }
            self.errors.push(
                m.match_token.span,
                "a reversible `match` needs a final `_ => { .. }` arm, as a `match` on \
                 integers in Rust does (`_ => {}` for none)",
            );
            return None;
        };
        ok.then(|| {
            StmtKind::Surface(Surface::Match {
                scrutinee: (*m.expr).clone(),
                arms,
                otherwise,
            })
        })
    }
}
