//! Values the adjoint computes again instead of restoring them from the tape
//! (rematerialization): an assignment of a local from parameters alone, `xc[r] = x[i * d + r] -
//! p[m + r]` in a loop, is executed again at the start of its block's adjoint, like the
//! integer assignments [`Layout::recomputed`](super::tape::Layout::recomputed), so its
//! overwrites record nothing.
//!
//! A group of consecutive statements of a block `B` ([`group`]: assignments and `for`s of
//! them) qualifies when it reads only values that are the same in the forward run and in
//! `B`'s adjoint (parameters, integers the adjoint has set, variables nothing writes any
//! more, targets of such groups around it, and its own scalars after it assigned them), and
//! each variable it writes is written nowhere else and mentioned elsewhere only in `B` after
//! the group (a local array's declaration aside). Then at every point of `B`'s adjoint the
//! targets hold what they held at the same point of the forward run: executed again with the
//! same inputs, the group writes the same values, nothing else writes them, and an element it
//! does not write keeps its start value in both runs (it writes the same elements every time).
//! `y = q[r] * xc[r]; for j in 0..r { y += l[j] * xc[j]; }` before `s += y * y` records
//! nothing for `y`.
use super::ir::*;
use proc_macro2::{TokenStream, TokenTree};

/// Whether `t` names `v`.
fn tok(t: &TokenStream, v: &str) -> bool {
    t.clone().into_iter().any(|tt| match tt {
        TokenTree::Ident(i) => i == v,
        TokenTree::Group(g) => tok(&g.stream(), v),
        _ => false,
    })
}

fn place(p: &Place, v: &str) -> bool {
    match p {
        Place::Var(x) => x == v,
        Place::Elem(a, i) => a == v || tok(i, v),
    }
}

fn expr(e: &Expr, v: &str) -> bool {
    match e {
        Expr::Const(t) => tok(t, v),
        Expr::Read(p) => place(p, v),
        Expr::Bin(_, a, b) | Expr::Binary(_, a, b) => expr(a, v) || expr(b, v),
        Expr::Neg(a) | Expr::Unary(_, a) => expr(a, v),
        Expr::Powi(a, t) => expr(a, v) || tok(t, v),
        Expr::Call(_, args) => args.iter().any(|a| arg(a, v)),
    }
}

fn arg(a: &Arg, v: &str) -> bool {
    match a {
        Arg::Value(e) => expr(e, v),
        Arg::Array(a, t) => a == v || tok(t, v),
        Arg::Const(t) | Arg::Data(t) => tok(t, v),
    }
}

/// Whether statement `s` itself (not the blocks it holds) mentions `v`.
fn own(s: &Stmt, v: &str) -> bool {
    match s {
        Stmt::Assign { target, value } => place(target, v) || expr(value, v),
        Stmt::Inactive { target, value } => target == v || tok(value, v),
        Stmt::Call { target, args, .. } => target == v || args.iter().any(|a| arg(a, v)),
        Stmt::Reversible { args, .. } => args.iter().any(|p| place(p, v)),
        // a local array's declaration: its start value, the same in both runs
        Stmt::Array { name, init } => {
            name != v
                && match init {
                    ArrayInit::Repeat { init, .. } => tok(init, v),
                    ArrayInit::CopyOf(x) => x == v,
                }
        }
        Stmt::If { arms, .. } => arms.iter().any(|(c, _)| tok(c, v)),
        Stmt::For { var, lo, hi, .. } => var == v || tok(lo, v) || tok(hi, v),
        Stmt::While { cond, .. } => tok(cond, v),
        Stmt::Return(e) => expr(e, v),
    }
}

fn blocks(s: &Stmt) -> Vec<&[Stmt]> {
    match s {
        Stmt::If { arms, otherwise } => arms
            .iter()
            .map(|(_, b)| &b[..])
            .chain(std::iter::once(&otherwise[..]))
            .collect(),
        Stmt::For { body, .. } | Stmt::While { body, .. } => vec![&body[..]],
        _ => vec![],
    }
}

/// Whether `s` or a statement inside it mentions `v`.
fn mentions(s: &Stmt, v: &str) -> bool {
    own(s, v)
        || blocks(s)
            .into_iter()
            .any(|b| b.iter().any(|s| mentions(s, v)))
}

/// Whether a statement of `body` outside block `skip` mentions `v`.
fn mentioned_outside(body: &[Stmt], skip: *const Stmt, v: &str) -> bool {
    if body.as_ptr() == skip {
        return false;
    }
    body.iter()
        .any(|s| own(s, v) || blocks(s).into_iter().any(|b| mentioned_outside(b, skip, v)))
}

/// The variable a place writes.
fn root(p: &Place) -> &proc_macro2::Ident {
    match p {
        Place::Var(v) | Place::Elem(v, _) => v,
    }
}

/// What a group may read besides its own values: which names are integers the adjoint has
/// set at the block's start, which never change, and which `f64` variables hold in the
/// adjoint what they held in the forward run wherever the block runs.
pub struct Reads<'a> {
    /// An integer set at the block's start (enclosing loop variables, integers executed
    /// again), or a name that is no variable.
    pub stable: &'a dyn Fn(&str) -> bool,
    /// A name that never changes (a parameter that is not an output, a constant).
    pub invariant: &'a dyn Fn(&str) -> bool,
    /// An `f64` variable whose values are right throughout the block's adjoint: the targets
    /// of groups of enclosing blocks and earlier in this block, and variables no statement
    /// at or after the block's top-level statement writes.
    pub known: &'a dyn Fn(&str) -> bool,
}

/// The walk of a candidate group's statements.
struct Walk<'r, 'a> {
    f: &'a Func,
    reads: &'r Reads<'a>,
    /// The loop variables of the group's `for`s around the statement, and whether their
    /// bounds never change.
    loops: Vec<(String, bool)>,
    /// Scalars the group has assigned at its top level so far (it may read them after).
    killed: std::collections::HashSet<String>,
    /// The variables the group writes.
    targets: Vec<String>,
}

impl Walk<'_, '_> {
    fn names_ok(&self, t: &TokenStream) -> bool {
        let mut names = std::collections::HashSet::new();
        idents(t, &mut names);
        names
            .iter()
            .all(|n| (self.reads.stable)(n) || self.loops.iter().any(|(v, _)| v == n))
    }

    fn stmt(&mut self, s: &Stmt, top: bool) -> bool {
        match s {
            Stmt::Assign { target, value } => {
                let ssa = Ssa::of(value);
                for op in &ssa.ops {
                    let ok = match op {
                        Op::Read(p) => {
                            let r = root(p).to_string();
                            let own = self.targets.contains(&r);
                            let idx = match p {
                                Place::Elem(_, i) => self.names_ok(i),
                                Place::Var(_) => true,
                            };
                            idx && if own {
                                // a scalar of the group, assigned before at its top level
                                matches!(p, Place::Var(_)) && self.killed.contains(&r)
                            } else {
                                self.f.params.iter().any(|q| q.name == r && !q.output)
                                    || (self.reads.known)(&r)
                            }
                        }
                        Op::Const(c) | Op::Powi(_, c) => self.names_ok(c),
                        _ => true,
                    };
                    if !ok {
                        return false;
                    }
                }
                let t = root(target);
                if self.f.is_param(t) {
                    return false;
                }
                let ok_target = match target {
                    // a scalar written in a loop is assigned before at the group's top level
                    // (a loop that runs no time leaves that value, the same in both runs)
                    Place::Var(v) => top || self.killed.contains(&v.to_string()),
                    // the element of a loop variable whose bounds never change: the same
                    // elements every run
                    Place::Elem(_, i) => {
                        let mut it = i.clone().into_iter();
                        match (it.next(), it.next()) {
                            (Some(TokenTree::Ident(x)), None) => {
                                self.loops.iter().any(|(v, inv)| *inv && x == v)
                            }
                            _ => false,
                        }
                    }
                };
                if !ok_target {
                    return false;
                }
                let t = t.to_string();
                if matches!(target, Place::Elem(..)) && self.killed.contains(&t) {
                    return false;
                }
                if top && matches!(target, Place::Var(_)) {
                    self.killed.insert(t.clone());
                }
                if !self.targets.contains(&t) {
                    self.targets.push(t);
                }
                true
            }
            Stmt::For { var, lo, hi, body } => {
                if !self.names_ok(lo) || !self.names_ok(hi) {
                    return false;
                }
                let mut names = std::collections::HashSet::new();
                idents(lo, &mut names);
                idents(hi, &mut names);
                let inv = names.iter().all(|n| (self.reads.invariant)(n));
                self.loops.push((var.to_string(), inv));
                let ok = body.iter().all(|s| self.stmt(s, false));
                self.loops.pop();
                ok
            }
            _ => false,
        }
    }
}

fn idents(t: &TokenStream, out: &mut std::collections::HashSet<String>) {
    for tt in t.clone() {
        match tt {
            TokenTree::Ident(i) => {
                out.insert(i.to_string());
            }
            TokenTree::Group(g) => idents(&g.stream(), out),
            _ => {}
        }
    }
}

/// The variables group `b[at..end]` writes, when the adjoint of block `b` may execute the
/// group again at its start instead of restoring what the group overwrites: its statements
/// are assignments and `for`s of them over bounds of stable integers; it reads parameters,
/// `known` variables, stable integers and scalars it assigned before at its top level (none
/// whose old value its adjoint needs: it reads them only to add to them); an array element
/// it writes is `a[v]` of a loop variable `v` whose bounds never change; and each variable it
/// writes is written nowhere else and mentioned elsewhere only in `b` after the group.
pub fn group(f: &Func, b: &[Stmt], at: usize, end: usize, reads: &Reads) -> Option<Vec<String>> {
    let mut w = Walk {
        f,
        reads,
        loops: vec![],
        killed: Default::default(),
        targets: vec![],
    };
    if !b[at..end].iter().all(|s| w.stmt(s, true)) {
        return None;
    }
    // no value a statement's adjoint needs may be one the group overwrites later
    for s in &b[at..end] {
        if !own_reads_unneeded(f, s, &w.targets) {
            return None;
        }
    }
    for t in &w.targets {
        if b[..at].iter().any(|s| mentions(s, t))
            || mentioned_outside(&f.body, b.as_ptr(), t)
            || b[end..].iter().any(|s| writes(s, t))
        {
            return None;
        }
    }
    Some(w.targets)
}

/// Whether the adjoints of `s` (and the statements inside it) read no value of `targets`
/// (they are not restored inside the group: the adjoint sees their values after it).
fn own_reads_unneeded(f: &Func, s: &Stmt, targets: &[String]) -> bool {
    match s {
        Stmt::Assign { value, .. } => {
            let ssa = Ssa::of(value);
            let need = ssa.needed(&ssa.active(|p| f.is_active(p)));
            ssa.ops.iter().zip(&need).all(|(op, n)| match op {
                Op::Read(p) if *n => !targets.iter().any(|t| root(p) == t),
                _ => true,
            })
        }
        Stmt::For { body, .. } => body.iter().all(|s| own_reads_unneeded(f, s, targets)),
        _ => true,
    }
}

/// Whether `s` or a statement inside it writes `v`.
pub fn writes(s: &Stmt, v: &str) -> bool {
    let own = match s {
        Stmt::Assign { target, .. } => root(target) == v,
        Stmt::Inactive { target, .. } | Stmt::Call { target, .. } => target == v,
        Stmt::Reversible { args, .. } => args.iter().any(|p| root(p) == v),
        Stmt::For { var, .. } => var == v,
        _ => false,
    };
    own || blocks(s)
        .into_iter()
        .any(|b| b.iter().any(|s| writes(s, v)))
}
