//! Control flow on the device: conditions, `if`, `while`, `for` (forward and reversed).
use super::emit::{Cx, Var};
use super::sig::{Shape, Ty};
use crate::ir::*;

impl Cx<'_> {
    pub(super) fn cond(&mut self, e: &syn::Expr) -> String {
        self.cexpr(e).0
    }

    pub(super) fn stmt(&mut self, s: &Stmt) {
        match &s.kind {
            StmtKind::Instr(i) => self.instr(i, s.span),
            StmtKind::Call(c) => self.call(c, s.span),
            StmtKind::Alloc(a) => self.alloc(a, s.span),
            StmtKind::Dealloc(a) => {
                for n in &a.names {
                    let n = n.to_string();
                    if let Some(k) = self.scopes.iter().rposition(|(m, _)| *m == n) {
                        self.scopes.remove(k);
                    }
                }
            }
            StmtKind::If {
                branches,
                otherwise,
            } => {
                for (k, b) in branches.iter().enumerate() {
                    let c = self.cond(&b.pre);
                    if k == 0 {
                        self.line(format!("if ({c}) {{"));
                    } else {
                        self.line(format!("}} else if ({c}) {{"));
                    }
                    self.block(&b.body);
                }
                if let Some(o) = otherwise {
                    self.line("} else {");
                    self.block(o);
                }
                self.line("}");
            }
            StmtKind::While {
                pre,
                body,
                step,
                step_first,
                ..
            } => {
                let c = self.cond(pre);
                self.line(format!("while ({c}) {{"));
                if *step_first {
                    self.block(step);
                }
                self.block(body);
                if !*step_first {
                    self.block(step);
                }
                self.line("}");
            }
            StmtKind::DoLoop {
                first,
                until,
                second,
                ..
            } => {
                self.line("while (1) {");
                let scope = self.scopes.len();
                self.depth += 1;
                self.stmts(first);
                let c = self.cond(until);
                self.line(format!("if ({c}) break;"));
                self.stmts(second);
                self.depth -= 1;
                self.scopes.truncate(scope);
                self.line("}");
            }
            StmtKind::For { var, iter, body } => self.for_loop(var, iter, body),
            StmtKind::Block(b) => {
                self.line("{");
                self.block(b);
                self.line("}");
            }
            StmtKind::Seq(b) | StmtKind::Routine { body: b, .. } => self.stmts(b),
            StmtKind::Move { dst, src } => {
                let Some(v) = self.lookup(&src.to_string()).cloned() else {
                    self.err(src.span(), "`take!` of something not an ancilla");
                    return;
                };
                let c = self.fresh(&dst.to_string());
                self.line(format!("{} {c} = {};", v.ty.c_scalar(), v.c));
                if self.gvar && v.ty == Ty::Real {
                    self.line(format!("REAL {c}_g = {}_g;", v.c));
                }
                let k = self.scopes.iter().rposition(|(m, _)| src == m);
                if let Some(k) = k {
                    self.scopes.remove(k);
                }
                self.scopes.push((dst.to_string(), Var { c, ..v }));
            }
            StmtKind::Safe(_) => {}
            StmtKind::Fresh(_) => self.err(s.span, "`fresh!` is not supported on the device"),
            StmtKind::Stack { .. } => self.err(
                s.span,
                "stacks (`push!`, `pop!`, `copy_push!`, ...) are not supported on the device",
            ),
            // a kind without device code (surface forms are lowered away before)
            _ => self.err(s.span, "this statement is not supported on the device"),
        }
    }

    pub(super) fn for_loop(&mut self, var: &syn::Ident, iter: &ForIter, body: &[Stmt]) {
        let scope = self.scopes.len();
        let c = self.fresh(&var.to_string());
        let (s, e, st) = (self.fresh("s"), self.fresh("e"), self.fresh("st"));
        // a loop over a few literal indices (`for j in 0..3`) is unrolled: pocl compiles
        // without unrolling, and indices known at compile time keep a private array indexed
        // by the loop variable in registers
        let unroll = match iter {
            ForIter::Range(r) if r.step.is_none() => {
                let lit = |e: &syn::Expr| match e {
                    syn::Expr::Lit(syn::ExprLit {
                        lit: syn::Lit::Int(i),
                        ..
                    }) => i.base10_parse::<u64>().ok(),
                    _ => None,
                };
                let n = |a: u64, b: u64| b.saturating_sub(a) + u64::from(r.inclusive);
                matches!((lit(&r.start), lit(&r.end)), (Some(a), Some(b)) if n(a, b) <= 16)
            }
            _ => false,
        };
        let (start, end, inclusive, step, rev) = match iter {
            ForIter::Range(r) => {
                let start = self.cexpr(&r.start).0;
                let end = self.cexpr(&r.end).0;
                let step = r.step.as_ref().map(|x| self.cexpr(x).0);
                (start, end, r.inclusive, step, r.rev)
            }
            ForIter::Indices { slice, rev } => {
                let len = match self.lookup(&slice.root.to_string()) {
                    Some(v) if slice.path.is_empty() && matches!(v.shape, Shape::Slice { .. }) => {
                        format!("{}_len", v.c)
                    }
                    _ => {
                        self.err(
                            slice.span,
                            "on the device, `for` over a slice parameter only",
                        );
                        String::new()
                    }
                };
                ("0".into(), len, false, None, *rev)
            }
        };
        self.line("{");
        self.depth += 1;
        let end = if inclusive {
            format!("((long)({end}) + 1)")
        } else {
            format!("((long)({end}))")
        };
        self.line(format!(
            "long {s} = (long)({start}); long {e} = {end}; long {st} = (long)({});",
            step.as_deref().unwrap_or("1")
        ));
        if rev {
            self.line(format!("if ({s} < {e}) {{"));
        }
        if unroll {
            self.line("#pragma unroll");
        }
        if rev {
            self.line(format!("for (long {c} = {s} + (({e} - 1 - {s}) / {st}) * {st}; {c} >= {s}; {c} -= {st}) {{"));
        } else {
            self.line(format!("for (long {c} = {s}; {c} < {e}; {c} += {st}) {{"));
        }
        self.scopes.push((
            var.to_string(),
            Var {
                c,
                ty: Ty::Int {
                    signed: true,
                    bytes: 8,
                },
                shape: Shape::Value,
                readonly: true,
            },
        ));
        self.block(body);
        self.line(if rev { "}}" } else { "}" });
        self.depth -= 1;
        self.line("}");
        self.scopes.truncate(scope);
    }
}
