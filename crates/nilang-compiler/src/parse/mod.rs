//! Parsing: a `syn` function body into the IR, one function (or file) per statement kind.
//!
//! The parser reads what is written and nothing more: surface forms (`inv!`, `unroutine!()`,
//! `#[store]`, slice loops, `powi(3)`) come out as written, and [`crate::lower`] rewrites them.
//!
//! | statement | file |
//! | --- | --- |
//! | `y += f(x)` (instructions) | `instr.rs` |
//! | `f(&mut x, ..)`, `x.f(..)` (calls) | `call.rs` |
//! | `let x = v;`, `let a = take!(x);`, `dealloc!(x = v)` | `ancilla.rs` |
//! | `if (pre, post) { .. } else { .. }` | `if_else.rs` |
//! | `while (pre, post) { .. }`, `#[from(a)] while c { .. }` | `while_loop.rs` |
//! | `for i in a..b { .. }`, `for x in xs { .. }` | `for_loop.rs` |
//! | `#[from(a)] loop { s1; if c { break } s2 }` | `do_loop.rs` |
//! | `inv!`, `routine!`, `unroutine!()`, `safe!`, `fresh!`, stack operations | `macros.rs` |
use crate::errors::Errors;
use crate::ir::*;
use syn::spanned::Spanned;
use syn::{Attribute, Expr};

mod ancilla;
mod call;
mod do_loop;
mod for_loop;
mod if_else;
mod instr;
mod macros;
mod match_int;
mod while_loop;

pub use instr::{builtin, builtin_names};
// the syntax helpers, also reachable here (they were defined in this module)
pub use crate::syntax::{
    is_constructor, last_span, mentions, operand_of, place_of, read_place, stmt_text,
};

/// Turns statements into IR.
pub struct Parser<'e> {
    /// Where the errors found go.
    pub errors: &'e mut Errors,
}

fn expr_attrs(e: &Expr) -> &[Attribute] {
    match e {
        Expr::Binary(x) => &x.attrs,
        Expr::Call(x) => &x.attrs,
        Expr::MethodCall(x) => &x.attrs,
        Expr::If(x) => &x.attrs,
        Expr::While(x) => &x.attrs,
        Expr::Loop(x) => &x.attrs,
        Expr::ForLoop(x) => &x.attrs,
        Expr::Block(x) => &x.attrs,
        Expr::Macro(x) => &x.attrs,
        Expr::Assign(x) => &x.attrs,
        Expr::Match(x) => &x.attrs,
        _ => &[],
    }
}

/// syn attaches the outer attributes of an expression statement such as `#[nocheck] t += x;`
/// to its leftmost operand (`t`): the same statement with them moved onto the statement's own
/// expression, or `None` when the leftmost operand has none.
fn hoist_leading_attrs(e: &Expr) -> Option<Expr> {
    fn leftmost(e: &mut Expr) -> Option<&mut Vec<Attribute>> {
        let (attrs, inner) = match e {
            Expr::Binary(x) => (&mut x.attrs, Some(&mut *x.left)),
            Expr::Assign(x) => (&mut x.attrs, Some(&mut *x.left)),
            Expr::MethodCall(x) => (&mut x.attrs, Some(&mut *x.receiver)),
            Expr::Index(x) => (&mut x.attrs, Some(&mut *x.expr)),
            Expr::Field(x) => (&mut x.attrs, Some(&mut *x.base)),
            Expr::Path(x) => (&mut x.attrs, None),
            Expr::Tuple(x) => (&mut x.attrs, None),
            Expr::Paren(x) => (&mut x.attrs, None),
            _ => return None,
        };
        match inner.and_then(leftmost) {
            Some(a) if !a.is_empty() => Some(a),
            _ => Some(attrs),
        }
    }
    if !matches!(e, Expr::Binary(_) | Expr::Assign(_) | Expr::MethodCall(_)) {
        return None;
    }
    let mut e = e.clone();
    let moved = std::mem::take(leftmost(&mut e)?);
    if moved.is_empty() {
        return None;
    }
    let own = match &mut e {
        Expr::Binary(x) => &mut x.attrs,
        Expr::Assign(x) => &mut x.attrs,
        Expr::MethodCall(x) => &mut x.attrs,
        _ => return None,
    };
    let mut attrs = moved;
    attrs.append(own);
    *own = attrs;
    Some(e)
}

impl Parser<'_> {
    /// Parse a sequence of statements (one ancilla scope).
    pub fn block(&mut self, stmts: &[syn::Stmt], check: bool) -> Vec<Stmt> {
        let mut out = Vec::new();
        for s in stmts {
            self.stmt(s, check, &mut out);
        }
        out
    }

    fn check_flag(&mut self, attrs: &[Attribute], check: bool) -> bool {
        let mut check = check;
        for a in attrs {
            if a.path().is_ident("nocheck") {
                check = false;
            } else if a.path().is_ident("from") {
                // handled by `while`
            } else {
                self.errors.push(
                    a.span(),
                    "unknown attribute in a reversible function: expected `#[nocheck]` or \
                     `#[from(condition)]`",
                );
            }
        }
        check
    }

    fn stmt(&mut self, s: &syn::Stmt, check: bool, out: &mut Vec<Stmt>) {
        // the statement's span and text: an expression statement's without its `;`
        let (kind, check, span, text) = match s {
            syn::Stmt::Local(l) => {
                let check = self.check_flag(&l.attrs, check);
                (self.local(l), check, s.span(), stmt_text(s))
            }
            syn::Stmt::Macro(m) => {
                let (store, attrs) = crate::lower::store::split_store_attr(&m.attrs, self.errors);
                let check = self.check_flag(&attrs, check);
                (
                    self.mac(&m.mac, s.span(), check, store),
                    check,
                    s.span(),
                    stmt_text(s),
                )
            }
            syn::Stmt::Expr(e, _) => {
                let hoisted = hoist_leading_attrs(e);
                let e = hoisted.as_ref().unwrap_or(e);
                let (store, attrs) =
                    crate::lower::store::split_store_attr(expr_attrs(e), self.errors);
                let check = self.check_flag(&attrs, check);
                let kind = if let Expr::Macro(m) = e {
                    self.mac(&m.mac, e.span(), check, store)
                } else {
                    if store.is_some() {
                        crate::lower::store::misplaced(self.errors, e.span());
                    }
                    self.expr_stmt(e, check)
                };
                // (the text without the attributes: they are not part of the statement)
                let text = match &hoisted {
                    Some(h) => {
                        let mut bare = h.clone();
                        if let Expr::Binary(syn::ExprBinary { attrs, .. })
                        | Expr::Assign(syn::ExprAssign { attrs, .. })
                        | Expr::MethodCall(syn::ExprMethodCall { attrs, .. }) = &mut bare
                        {
                            attrs.clear();
                        }
                        stmt_text(&bare)
                    }
                    None => stmt_text(e),
                };
                (kind, check, e.span(), text)
            }
            syn::Stmt::Item(i) => {
                self.errors.push(
                    i.span(),
                    "items (fn, struct, use, ...) are not allowed inside a reversible function \
                     body; define them outside",
                );
                return;
            }
        };
        if let Some(kind) = kind {
            out.push(Stmt {
                id: StmtId::UNNUMBERED,
                kind,
                span,
                text,
                check,
            });
        }
    }

    fn parse_stmts(&mut self, m: &syn::Macro) -> Option<Vec<syn::Stmt>> {
        match syn::parse::Parser::parse2(syn::Block::parse_within, m.tokens.clone()) {
            Ok(s) => Some(s),
            Err(e) => {
                self.errors.push_err(e);
                None
            }
        }
    }

    /// An expression statement: dispatched by its kind.
    fn expr_stmt(&mut self, e: &Expr, check: bool) -> Option<StmtKind> {
        let span = e.span();
        match e {
            Expr::Binary(b) => self.instr(b),
            Expr::Assign(a) => {
                self.errors.push_tokens(
                    a,
                    "plain assignment `=` destroys the old value and is not reversible; use \
                     `+=`/`-=`/`^=` into a zero-initialised variable, or `SWAP`",
                );
                None
            }
            Expr::Call(c) => self.call(c),
            Expr::MethodCall(mc) => self.method_call(mc),
            Expr::If(i) => self.if_else(i, check),
            Expr::While(w) => self.while_loop(w, check),
            Expr::ForLoop(f) => self.for_loop(f, check),
            Expr::Loop(l) => self.do_loop(l, check),
            Expr::Match(m) => self.match_int(m, check),
            Expr::Block(b) => {
                if b.label.is_some() {
                    self.errors
                        .push(b.span(), "labelled blocks are not allowed");
                }
                Some(StmtKind::Block(self.block(&b.block.stmts, check)))
            }
            Expr::Unsafe(u) => {
                self.errors.push(u.span(), "`unsafe` blocks are not allowed; use `safe! { ... }` for irreversible side effects");
                None
            }
            Expr::Return(_) | Expr::Break(_) | Expr::Continue(_) => {
                self.errors.push(
                    span,
                    "`return`, `break` and `continue` are not reversible: control flow must \
                     reach the end of every block (use a `while (pre, post)` condition)",
                );
                None
            }
            Expr::Try(_) => {
                self.errors.push(span, "`?` is not reversible");
                None
            }
            _ => {
                self.errors.push(
                    span,
                    "not a reversible statement: expected an instruction (`y += f(x)`), a call, \
                     `let`/`dealloc!`, `if (pre, post)`, `while (pre, post)`, `for`, `match`, \
                     `inv!`, `routine!`/`unroutine!`, `safe!` or a stack operation",
                );
                None
            }
        }
    }
}
