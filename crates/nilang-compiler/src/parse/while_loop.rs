//! `while (pre, post) { .. }` (`pre` tested before every iteration, `post` false at entry and
//! true after every iteration), `#[from(start)] while pre { .. }` (`post` is `!start`), and
//! the stepped `while (pre, post, step) { .. }` (the statement `step`, e.g. `k += 1`, runs after
//! the body in every iteration, before `post` is checked).
use super::Parser;
use crate::ir::*;
use syn::spanned::Spanned;
use syn::Expr;

impl Parser<'_> {
    /// A reversible `while`.
    pub(super) fn while_loop(&mut self, w: &syn::ExprWhile, check: bool) -> Option<StmtKind> {
        if let Some(l) = &w.label {
            self.errors
                .push(l.span(), "loop labels are not allowed (no `break`)");
        }
        let from = w.attrs.iter().find(|a| a.path().is_ident("from"));
        let body = self.block(&w.body.stmts, check);
        let mut step = vec![];
        let (pre, post) = match (from, &*w.cond) {
            (Some(a), cond) => match a.parse_args::<Expr>() {
                Ok(start) => {
                    let pre = cond.clone();
                    let post: Expr = syn::parse_quote_spanned!(start.span()=> !(#start));
                    (pre, post)
                }
                Err(e) => {
                    self.errors.push_err(e);
                    return None;
                }
            },
            (None, Expr::Tuple(t)) if t.elems.len() == 2 => {
                (t.elems[0].clone(), t.elems[1].clone())
            }
            (None, Expr::Tuple(t)) if t.elems.len() == 3 => {
                let s = syn::Stmt::Expr(t.elems[2].clone(), Some(Default::default()));
                step = self.block(&[s], check);
                (t.elems[0].clone(), t.elems[1].clone())
            }
            (None, c) => {
                self.errors.push_tokens(
                    c,
                    "a reversible `while` needs a post-condition: `while (pre, post) { \
                     ... }` (post false at entry, true after every iteration), `while (pre, \
                     post, step) { ... }` or `#[from(start_condition)] while pre { ... }`",
                );
                return None;
            }
        };
        Some(StmtKind::While {
            pre,
            post,
            body,
            step,
            step_first: false,
        })
    }
}
