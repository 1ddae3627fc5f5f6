//! Values the adjoint computes again instead of restoring them from the tape
//! (rematerialization): an assignment of a local from parameters alone, `xc[r] = x[i * d + r] -
//! p[m + r]` in a loop, is executed again at the start of its block's adjoint, like the
//! integer assignments [`Layout::recomputed`](super::tape::Layout::recomputed), so its
//! overwrites record nothing.
//!
//! A statement `S` at the top of block `B` (an assignment, or a `for` over bounds that read
//! only parameters and constants whose body is such assignments, each writing a scalar or
//! the element `a[var]` of the loop variable) qualifies when
//!
//! - its right-hand sides read only parameters that are not outputs (which nothing writes),
//!   constants, and integers the adjoint has set at `B`'s start (enclosing loop variables,
//!   integers executed again);
//! - `S` is the only statement that writes its target, and every other statement that
//!   mentions the target is in `B` after `S` (a local array's declaration aside).
//!
//! Then at every point of `B`'s adjoint the target holds what it held at the same point of
//! the forward run: executed again with the same inputs, `S` writes the same values, nothing
//! else writes them, and an element `S` does not write keeps its start value in both runs
//! (the loop writes the same elements every time: its bounds do not change).
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
        Arg::Const(t) => tok(t, v),
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
    own(s, v) || blocks(s).into_iter().any(|b| b.iter().any(|s| mentions(s, v)))
}

/// Whether a statement of `body` outside block `skip` mentions `v`.
fn mentioned_outside(body: &[Stmt], skip: *const Stmt, v: &str) -> bool {
    if body.as_ptr() == skip {
        return false;
    }
    body.iter().any(|s| {
        own(s, v)
            || blocks(s)
                .into_iter()
                .any(|b| mentioned_outside(b, skip, v))
    })
}

/// The variable a place writes.
fn root(p: &Place) -> &proc_macro2::Ident {
    match p {
        Place::Var(v) | Place::Elem(v, _) => v,
    }
}

/// Whether statement `b[at]` is executed again in the adjoint of block `b`. `stable` tells
/// whether names of integers (index and constant tokens) are set at `b`'s start in the
/// adjoint; `invariant` whether bounds' names never change (parameters, constants).
pub fn qualifies(
    f: &Func,
    b: &[Stmt],
    at: usize,
    stable: &dyn Fn(&[&TokenStream], Option<&proc_macro2::Ident>) -> bool,
    invariant: &dyn Fn(&[&TokenStream]) -> bool,
) -> bool {
    // the assignments, with the loop variable they may use
    let (assigns, var): (Vec<&Stmt>, Option<&proc_macro2::Ident>) = match &b[at] {
        s @ Stmt::Assign { .. } => (vec![s], None),
        Stmt::For { var, lo, hi, body } => {
            if body.is_empty()
                || !invariant(&[lo, hi])
                || !body.iter().all(|s| matches!(s, Stmt::Assign { .. }))
            {
                return false;
            }
            (body.iter().collect(), Some(var))
        }
        _ => return false,
    };
    let mut targets: Vec<String> = vec![];
    for s in &assigns {
        let Stmt::Assign { target, value } = s else {
            return false;
        };
        // a scalar or the element of the loop variable, of a local
        let ok_target = match (target, var) {
            (Place::Var(_), _) => true,
            (Place::Elem(_, i), Some(v)) => {
                let mut it = i.clone().into_iter();
                matches!((it.next(), it.next()), (Some(TokenTree::Ident(x)), None) if x == *v)
            }
            (Place::Elem(..), None) => false,
        };
        let t = root(target);
        if !ok_target || f.is_param(t) {
            return false;
        }
        // reads: parameters that are not outputs, constants, stable integers
        let ssa = Ssa::of(value);
        for op in &ssa.ops {
            let ok = match op {
                Op::Read(p) => {
                    let r = root(p);
                    f.params.iter().any(|q| &q.name == r && !q.output)
                        && match p {
                            Place::Elem(_, i) => stable(&[i], var),
                            Place::Var(_) => true,
                        }
                }
                Op::Const(c) | Op::Powi(_, c) => stable(&[c], var),
                _ => true,
            };
            if !ok {
                return false;
            }
        }
        targets.push(t.to_string());
    }
    // each target written here only, mentioned elsewhere only in `b` after this statement
    let mut seen = std::collections::HashSet::new();
    for t in &targets {
        if !seen.insert(t) {
            // written twice by this statement: keep it simple
            return false;
        }
        if b[..at].iter().any(|s| mentions(s, t))
            || mentioned_outside(&f.body, b.as_ptr(), t)
            || b[at + 1..]
                .iter()
                .any(|s| writes(s, t))
        {
            return false;
        }
    }
    true
}

/// Whether `s` or a statement inside it writes `v`.
fn writes(s: &Stmt, v: &str) -> bool {
    let own = match s {
        Stmt::Assign { target, .. } => root(target) == v,
        Stmt::Inactive { target, .. } | Stmt::Call { target, .. } => target == v,
        Stmt::Reversible { args, .. } => args.iter().any(|p| root(p) == v),
        Stmt::For { var, .. } => var == v,
        _ => false,
    };
    own || blocks(s).into_iter().any(|b| b.iter().any(|s| writes(s, v)))
}
