//! `for i in a..b { .. }` (also `a..=b`, `(a..b).step_by(s)`, `.rev()`) and slice loops
//! `for x in xs { .. }` (the element `x` stands for `xs[i]`: [`crate::lower`] substitutes it).
use super::Parser;
use crate::ir::*;
use crate::syntax::place_of;
use syn::spanned::Spanned;
use syn::Expr;

impl Parser<'_> {
    /// A reversible `for`.
    pub(super) fn for_loop(&mut self, f: &syn::ExprForLoop, check: bool) -> Option<StmtKind> {
        if let Some(l) = &f.label {
            self.errors
                .push(l.span(), "loop labels are not allowed (no `break`)");
        }
        let var = match &*f.pat {
            syn::Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => pi.ident.clone(),
            syn::Pat::Wild(w) => syn::Ident::new("__nilang_unused", w.span()),
            p => {
                self.errors
                    .push(p.span(), "the loop variable must be a name");
                return None;
            }
        };
        let iter = self.for_iter(&f.expr)?;
        let body = self.block(&f.body.stmts, check);
        Some(StmtKind::For { var, iter, body })
    }

    fn for_iter(&mut self, e: &Expr) -> Option<ForIter> {
        match e {
            Expr::Range(r) => {
                let (Some(start), Some(end)) = (&r.start, &r.end) else {
                    self.errors.push(
                        r.span(),
                        "a reversible `for` needs a bounded range `a..b` or `a..=b`",
                    );
                    return None;
                };
                Some(ForIter::Range(ForRange {
                    start: (**start).clone(),
                    end: (**end).clone(),
                    inclusive: matches!(r.limits, syn::RangeLimits::Closed(_)),
                    step: None,
                    rev: false,
                }))
            }
            Expr::Paren(p) => self.for_iter(&p.expr),
            Expr::MethodCall(m) if m.method == "rev" && m.args.is_empty() => {
                Some(self.for_iter(&m.receiver)?.reversed())
            }
            Expr::MethodCall(m) if m.method == "step_by" && m.args.len() == 1 => {
                match self.for_iter(&m.receiver)? {
                    ForIter::Range(
                        r @ ForRange {
                            step: None,
                            rev: false,
                            ..
                        },
                    ) => Some(ForIter::Range(ForRange {
                        step: Some(m.args[0].clone()),
                        ..r
                    })),
                    _ => {
                        self.errors.push(
                            m.span(),
                            "`step_by` applies to a plain range `(a..b).step_by(s)`",
                        );
                        None
                    }
                }
            }
            _ => match place_of(e).filter(|p| !p.neg) {
                Some(slice) => Some(ForIter::Indices { slice, rev: false }),
                None => {
                    self.errors.push(
                        e.span(),
                        "a reversible `for` iterates over a range (`a..b`, `a..=b`, \
                         `(a..b).step_by(s)`, `.rev()`) or over a slice variable",
                    );
                    None
                }
            },
        }
    }
}
