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
//! Parsing and emission of [`StmtKind::DoLoop`]; the inverse (`from c do ~s1 loop ~s2 until a`)
//! is in [`crate::invert`].
use crate::emit::Emitter;
use crate::ir::*;
use crate::parse::Parser;
use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned, ToTokens};
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
    fn walk(t: TokenStream) -> bool {
        t.into_iter().any(|tt| match tt {
            proc_macro2::TokenTree::Ident(i) => i == "break",
            proc_macro2::TokenTree::Group(g) => walk(g.stream()),
            _ => false,
        })
    }
    walk(s.to_token_stream())
}

impl Parser<'_> {
    /// `#[from(a)] loop { s1; if c { break } s2 }`.
    pub(crate) fn do_loop(&mut self, l: &syn::ExprLoop, check: bool) -> Option<StmtKind> {
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

fn loc(span: Span) -> TokenStream {
    quote_spanned!(span=> ::core::concat!(::core::file!(), ":", ::core::line!(), ":", ::core::column!()))
}

impl Emitter {
    /// `from a do s1 loop s2 until c` with its runtime checks: `a` true at entry, false after
    /// every `s2` (so the inverse, which runs until `a`, stops exactly where this loop began).
    pub(crate) fn do_loop(
        &mut self,
        from: &Expr,
        first: &[Stmt],
        until: &Expr,
        second: &[Stmt],
        s: &Stmt,
    ) -> TokenStream {
        let cx = self.condition_context(&[from, until]);
        let a = self.expr(from);
        let c = self.expr(until);
        let s1 = self.block(first);
        let s2 = self.block(second);
        if !s.check {
            return quote!(loop { { #s1 } if #c { break; } { #s2 } });
        }
        let (l, text) = (loc(s.span), &s.text);
        let a_text = crate::parse::stmt_text(from);
        let entry = format!(
            "the `from` condition `{a_text}` is false at loop entry (it must hold when the \
             loop starts)"
        );
        let again = format!(
            "the `from` condition `{a_text}` holds again after an iteration (it must hold \
             only when the loop starts)"
        );
        quote! {
            if !(#a) { ::nilang::check::fail(::nilang::check::ErrorKind::WhileCondition, #l, #text, ::std::string::String::from(#entry) + &#cx); }
            loop {
                { #s1 }
                if #c { break; }
                { #s2 }
                if #a { ::nilang::check::fail(::nilang::check::ErrorKind::WhileCondition, #l, #text, ::std::string::String::from(#again) + &#cx); }
            }
        }
    }
}
