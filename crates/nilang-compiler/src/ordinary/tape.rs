//! The tape layout: which overwrites the forward run records. A write records the old value
//! of a variable only when the adjoint reads that value (an operand of a nonlinear operation,
//! an index, an argument of a call, read since the variable was last written): a value still
//! live is never recorded, and a variable that only accumulates (`s += ..`) is never
//! recorded. Branch decisions and loop trip counts are recorded as integers.
use super::ir::*;
use proc_macro2::{TokenStream, TokenTree};
use std::collections::HashSet;

/// What the forward run records.
#[derive(Debug, Default)]
pub struct Layout {
    /// The statements (by address) that record the old value of what they write.
    pub recording: HashSet<usize>,
    /// The `for` loops (by address) whose bounds the adjoint evaluates again instead of
    /// reading them back: they name only parameters (not outputs), loop variables of
    /// enclosing `for`s (which the adjoint sets before it runs the body) and names that are
    /// not variables (constants, functions, methods), and the function has no early `return`
    /// (which could end a loop before its bound).
    pub stable_loops: HashSet<usize>,
}

fn addr(s: &Stmt) -> usize {
    s as *const Stmt as usize
}

impl Layout {
    /// The layout of `f`'s (lowered) body: a forward pass over the statements keeping the
    /// variables whose current value the adjoint reads (`pending`: read by an operation
    /// that needs its value since the variable was last written); a write of a pending
    /// variable records its old value. Loops are iterated to a fixed point; arrays are one
    /// variable (an element write never clears them).
    pub fn of(f: &Func) -> Layout {
        let mut l = Layout::default();
        let mut pending = HashSet::new();
        l.block(f, &f.body, &mut pending);
        if !f.vars.iter().any(|v| v.name == super::lower::done()) {
            l.stable(f, &f.body, &mut vec![]);
        }
        l
    }

    /// Whether the adjoint evaluates the bounds of `for` statement `s` again (nothing
    /// recorded for them).
    pub fn stable_bounds(&self, s: &Stmt) -> bool {
        self.stable_loops.contains(&addr(s))
    }

    fn stable(&mut self, f: &Func, b: &[Stmt], outer: &mut Vec<String>) {
        for s in b {
            match s {
                Stmt::For { var, lo, hi, body } => {
                    let mut names = HashSet::new();
                    tokens(lo, &mut names);
                    tokens(hi, &mut names);
                    let ok = names.iter().all(|n| {
                        outer.contains(n)
                            || f.params.iter().any(|p| p.name == n && !p.output)
                            || !f.vars.iter().any(|v| v.name == n)
                                && !f.params.iter().any(|p| p.name == n)
                    });
                    if ok {
                        self.stable_loops.insert(addr(s));
                    }
                    outer.push(var.to_string());
                    self.stable(f, body, outer);
                    outer.pop();
                }
                Stmt::If { arms, otherwise } => {
                    for (_, body) in arms {
                        self.stable(f, body, outer);
                    }
                    self.stable(f, otherwise, outer);
                }
                Stmt::While { body, .. } => self.stable(f, body, outer),
                _ => {}
            }
        }
    }

    /// Whether statement `s` records the old value of what it writes.
    pub fn records(&self, _f: &Func, s: &Stmt, _name: &proc_macro2::Ident) -> bool {
        self.recording.contains(&addr(s))
    }

    fn write(
        &mut self,
        f: &Func,
        s: &Stmt,
        name: &proc_macro2::Ident,
        pending: &mut HashSet<String>,
    ) {
        let n = name.to_string();
        if pending.contains(&n) {
            self.recording.insert(addr(s));
        }
        if f.kind(name) != Some(Kind::Array) {
            pending.remove(&n);
        }
    }

    fn block(&mut self, f: &Func, b: &[Stmt], pending: &mut HashSet<String>) {
        for s in b {
            match s {
                Stmt::Assign { target, value } => {
                    let ssa = Ssa::of(value);
                    let need = ssa.needed();
                    for (k, op) in ssa.ops.iter().enumerate() {
                        match op {
                            Op::Read(p) => {
                                if need[k] {
                                    place(p, pending)
                                } else if let Place::Elem(_, i) = p {
                                    tokens(i, pending)
                                }
                            }
                            Op::Const(t) | Op::Powi(_, t) => tokens(t, pending),
                            _ => {}
                        }
                    }
                    if let Place::Elem(_, i) = target {
                        tokens(i, pending);
                    }
                    let root = match target {
                        Place::Var(v) | Place::Elem(v, _) => v,
                    };
                    self.write(f, s, root, pending);
                }
                Stmt::Inactive { target, .. } => self.write(f, s, target, pending),
                Stmt::Call { target, args, .. } => {
                    for a in args {
                        match a {
                            Arg::Value(Expr::Read(p)) => place(p, pending),
                            Arg::Value(Expr::Const(t)) | Arg::Const(t) => tokens(t, pending),
                            Arg::Array(a, t) => {
                                pending.insert(a.to_string());
                                tokens(t, pending)
                            }
                            Arg::Value(_) => {}
                        }
                    }
                    self.write(f, s, target, pending);
                }
                Stmt::Reversible { args, .. } => {
                    // the inverse restores what the call overwrote (nothing recorded); the
                    // adjoint needs the values after the call
                    for p in args {
                        place(p, pending);
                    }
                }
                Stmt::Array { .. } | Stmt::Return(_) => {}
                Stmt::If { arms, otherwise } => {
                    let start = pending.clone();
                    let mut out = HashSet::new();
                    for body in arms
                        .iter()
                        .map(|(_, b)| b)
                        .chain(std::iter::once(otherwise))
                    {
                        let mut p = start.clone();
                        self.block(f, body, &mut p);
                        out.extend(p);
                    }
                    *pending = out;
                }
                Stmt::For { body, .. } | Stmt::While { body, .. } => loop {
                    let mut p = pending.clone();
                    self.block(f, body, &mut p);
                    let before = pending.len();
                    pending.extend(p);
                    if pending.len() == before {
                        break;
                    }
                },
            }
        }
    }
}

fn tokens(t: &TokenStream, pending: &mut HashSet<String>) {
    for tt in t.clone() {
        match tt {
            TokenTree::Ident(i) => {
                pending.insert(i.to_string());
            }
            TokenTree::Group(g) => tokens(&g.stream(), pending),
            _ => {}
        }
    }
}

fn place(p: &Place, pending: &mut HashSet<String>) {
    match p {
        Place::Var(v) => {
            pending.insert(v.to_string());
        }
        Place::Elem(a, i) => {
            pending.insert(a.to_string());
            tokens(i, pending);
        }
    }
}
