//! The tape layout: which overwrites the forward run records. A variable's old value is
//! recorded when the adjoint reads the variable (an operand of a nonlinear operation, an
//! index, an argument of a call) and the variable is written more than once or in a loop;
//! a value still live is never recorded, and a variable that only accumulates (`s += ..`)
//! is never recorded. Branch decisions and loop trip counts are recorded as integers.
use super::ir::*;
use proc_macro2::{TokenStream, TokenTree};
use std::collections::{HashMap, HashSet};

/// What the forward run records.
#[derive(Debug, Default)]
pub struct Layout {
    /// The variables whose values the adjoint reads.
    pub needed: HashSet<String>,
    /// Per variable: how many statements write it, and whether one is in a loop.
    pub sites: HashMap<String, (usize, bool)>,
    /// The statements (by address) that write a variable first, in the outermost block:
    /// the value they overwrite is the hoisted default, never read.
    pub fresh: HashSet<usize>,
}

impl Layout {
    /// The layout of `f`'s (lowered) body.
    pub fn of(f: &Func) -> Layout {
        let mut l = Layout::default();
        for s in &f.body {
            let first = match s {
                Stmt::Assign {
                    target: Place::Var(v),
                    ..
                }
                | Stmt::Inactive { target: v, .. }
                | Stmt::Call { target: v, .. } => !l.sites.contains_key(&v.to_string()),
                _ => false,
            };
            if first {
                l.fresh.insert(s as *const Stmt as usize);
            }
            l.block(std::slice::from_ref(s), false);
        }
        l
    }

    /// Whether statement `s`, writing `name`, records the old value first.
    pub fn records(&self, f: &Func, s: &Stmt, name: &proc_macro2::Ident) -> bool {
        !self.fresh.contains(&(s as *const Stmt as usize)) && self.taped(f, name)
    }

    /// Whether writing `name` records its old value first.
    pub fn taped(&self, f: &Func, name: &proc_macro2::Ident) -> bool {
        let n = name.to_string();
        if !self.needed.contains(&n) {
            return false;
        }
        match f.kind(name) {
            Some(Kind::Array) => true,
            _ => self.sites.get(&n).is_some_and(|&(k, lp)| k > 1 || lp),
        }
    }

    fn site(&mut self, name: &proc_macro2::Ident, in_loop: bool) {
        let e = self.sites.entry(name.to_string()).or_insert((0, false));
        e.0 += 1;
        e.1 |= in_loop;
    }

    fn tokens(&mut self, t: &TokenStream) {
        for tt in t.clone() {
            match tt {
                TokenTree::Ident(i) => {
                    self.needed.insert(i.to_string());
                }
                TokenTree::Group(g) => self.tokens(&g.stream()),
                _ => {}
            }
        }
    }

    fn place(&mut self, p: &Place) {
        match p {
            Place::Var(v) => {
                self.needed.insert(v.to_string());
            }
            Place::Elem(a, i) => {
                self.needed.insert(a.to_string());
                self.tokens(i);
            }
        }
    }

    fn block(&mut self, b: &[Stmt], in_loop: bool) {
        for s in b {
            match s {
                Stmt::Assign { target, value } => {
                    match target {
                        Place::Var(v) => self.site(v, in_loop),
                        Place::Elem(_, i) => self.tokens(i),
                    }
                    let ssa = Ssa::of(value);
                    let need = ssa.needed();
                    for (k, op) in ssa.ops.iter().enumerate() {
                        match op {
                            Op::Read(p) => {
                                if need[k] {
                                    self.place(p)
                                } else if let Place::Elem(_, i) = p {
                                    self.tokens(i)
                                }
                            }
                            Op::Const(t) | Op::Powi(_, t) => self.tokens(t),
                            _ => {}
                        }
                    }
                }
                Stmt::Inactive { target, .. } => self.site(target, in_loop),
                Stmt::Call { target, args, .. } => {
                    self.site(target, in_loop);
                    for a in args {
                        match a {
                            Arg::Value(Expr::Read(p)) => self.place(p),
                            Arg::Value(Expr::Const(t)) | Arg::Const(t) => self.tokens(t),
                            Arg::Array(a, t) => {
                                self.needed.insert(a.to_string());
                                self.tokens(t)
                            }
                            Arg::Value(_) => {}
                        }
                    }
                }
                Stmt::Reversible { args, .. } => {
                    for p in args {
                        self.place(p);
                        if let Place::Var(v) = p {
                            // the call itself stores nothing (its inverse restores), but it
                            // is a write: other writes of the variable record theirs
                            self.site(v, in_loop);
                        }
                    }
                }
                Stmt::Array { .. } => {}
                Stmt::If { arms, otherwise } => {
                    for (_, b) in arms {
                        self.block(b, in_loop);
                    }
                    self.block(otherwise, in_loop);
                }
                Stmt::For { body, .. } | Stmt::While { body, .. } => self.block(body, true),
                Stmt::Return(_) => {}
            }
        }
    }
}
