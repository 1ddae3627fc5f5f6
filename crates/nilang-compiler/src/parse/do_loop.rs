//! Janus's do-first loop `from a do s1 loop s2 until c`, written in Rust as
//!
//! ```text
//! #[from(a)]
//! loop {
//!     s1;
//!     if c { break }
//!     s2;
//! }
//! ```
//!
//! (`a` holds at entry and never again before `s1`; the loop ends when `c` holds after `s1`).
//! Parsing of [`StmtKind::DoLoop`]; the inverse (`from c do ~s1 loop ~s2 until a`) is in
//! [`crate::invert`], the emission in `emit/do_loop.rs`.
use super::Parser;
use crate::ir::*;
use syn::spanned::Spanned;
use syn::Expr;

/// The `c` of a statement `if c { break }` (or `if c { break; }`), if it is one.
fn break_if(s: &syn::Stmt) -> Option<&Expr> {
    let syn::Stmt::Expr(Expr::If(i), _) = s else {
        return None;
    };
    if i.else_branch.is_some() || i.then_branch.stmts.len() != 1 {
        return None;
    }
    match &i.then_branch.stmts[0] {
        syn::Stmt::Expr(Expr::Break(b), _) if b.label.is_none() && b.expr.is_none() => {
            Some(&i.cond)
        }
        _ => None,
    }
}

/// Whether a statement contains a `break` (outside nested loops, where it would be rejected
/// anyway: any `break` token is enough for a precise message).
fn has_break(s: &syn::Stmt) -> bool {
    crate::syntax::mentions_name(s, "break")
}

impl Parser<'_> {
    /// `#[from(a)] loop { s1; if c { break } s2 }`.
    pub(super) fn do_loop(&mut self, l: &syn::ExprLoop, check: bool) -> Option<StmtKind> {
        if let Some(lb) = &l.label {
            self.errors.push(lb.span(), "loop labels are not allowed");
        }
        const SHAPE: &str = "Janus's do-first loop (`from a do s1 loop s2 until c`) is written \
                             `#[from(a)] loop { s1; if c { break } s2 }`";
        let from = match l.attrs.iter().find(|a| a.path().is_ident("from")) {
            Some(a) => match a.parse_args::<Expr>() {
                Ok(e) => e,
                Err(e) => {
                    self.errors.push_err(e);
                    return None;
                }
            },
            None => {
                self.errors.push(
                    l.loop_token.span(),
                    format!(
                        "a reversible `loop` needs its entry condition: {SHAPE} (`a` true at \
                         entry, false after every `s2`)"
                    ),
                );
                return None;
            }
        };
        let stmts = &l.body.stmts;
        let exits: Vec<usize> = (0..stmts.len())
            .filter(|&k| break_if(&stmts[k]).is_some())
            .collect();
        let k = match exits.as_slice() {
            [k] => *k,
            [] => {
                self.errors.push(
                    l.body.brace_token.span.join(),
                    format!("this loop has no exit `if c {{ break }}` at its top level: {SHAPE}"),
                );
                return None;
            }
            [_, second, ..] => {
                self.errors.push(
                    stmts[*second].span(),
                    format!("a reversible loop has exactly one exit `if c {{ break }}`: {SHAPE}"),
                );
                return None;
            }
        };
        let mut ok = true;
        for (j, s) in stmts.iter().enumerate() {
            if j != k && has_break(s) {
                self.errors.push(
                    s.span(),
                    format!(
                        "`break` is only allowed as the loop's one exit `if c {{ break }}` at \
                         its top level: {SHAPE}"
                    ),
                );
                ok = false;
            }
        }
        let until = break_if(&stmts[k]).cloned()?;
        let first = self.block(&stmts[..k], check);
        let second = self.block(&stmts[k + 1..], check);
        ok.then_some(StmtKind::DoLoop {
            from,
            first,
            until,
            second,
        })
    }
}
