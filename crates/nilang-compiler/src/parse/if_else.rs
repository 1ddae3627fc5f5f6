//! `if (pre, post) { .. } else { .. }`: each branch with its pre-condition (tested on entry)
//! and post-condition (tested on exit, by the inverse on entry).
use super::Parser;
use crate::ir::*;
use syn::spanned::Spanned;
use syn::Expr;

impl Parser<'_> {
    /// `if (pre, post) { .. } else if .. { .. } else { .. }` (`if c` is `if (c, c)`, `(pre, _)`
    /// too).
    pub(super) fn if_else(&mut self, i: &syn::ExprIf, check: bool) -> Option<StmtKind> {
        let mut branches = vec![];
        let mut otherwise = None;
        let mut cur = i;
        loop {
            let (pre, post) = match &*cur.cond {
                Expr::Tuple(t) if t.elems.len() == 2 => {
                    let pre = t.elems[0].clone();
                    let post = match &t.elems[1] {
                        Expr::Infer(_) => pre.clone(),
                        e => e.clone(),
                    };
                    (pre, post)
                }
                Expr::Paren(p) => ((*p.expr).clone(), (*p.expr).clone()),
                c => (c.clone(), c.clone()),
            };
            let body = self.block(&cur.then_branch.stmts, check);
            branches.push(Branch { pre, post, body });
            match &cur.else_branch {
                None => break,
                Some((_, e)) => match &**e {
                    Expr::If(next) => cur = next,
                    Expr::Block(b) => {
                        otherwise = Some(self.block(&b.block.stmts, check));
                        break;
                    }
                    other => {
                        self.errors
                            .push(other.span(), "expected `else { ... }` or `else if`");
                        return None;
                    }
                },
            }
        }
        Some(StmtKind::If {
            branches,
            otherwise,
        })
    }
}
