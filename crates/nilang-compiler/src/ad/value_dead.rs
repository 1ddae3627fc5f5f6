//! Value-dead recomputation: the calls of a recomputed routine whose results nothing reads.
//!
//! A backward pass recomputes a routine on `fresh!`/`zero(..)` workspaces (value-only, see
//! `primal`), runs the statements between it and its `unroutine!()`, then uncomputes it
//! adjoint-only and zeroes the workspaces (see `adjoint`). When a workspace `s` is written by
//! one call of the routine alone (`i_map(s, Softplus, z)`) and its value is read by nothing
//! afterwards, that call need not run at all:
//!
//! - the rest of the routine does not mention `s`;
//! - the statements between read it only as the operand of accumulations `t ±= s[k]`
//!   (`t ±= c·s[k]`, `c` a constant) whose target `t` is dead: a `&mut` parameter that nothing
//!   after the routine reads and whose bit of the adjoint-only variant's `__nilang_dead` is set
//!   (the loss of a gradient that does not return its value, `Plan::gradient`); such an
//!   accumulation runs adjoint-only and moves `t̄` into `s̄` without reading `s`;
//! - the callee writes only `s` (its `WRITES`), and its inverse, told that `s` is dead, reads
//!   no value of `s` (its `READS`; the uncomputation is then not told
//!   [`FRESH_TARGET`](crate::abi), which would read `f(x)` from `s`): the adjoint `x̄ += s̄·f'(x)`
//!   comes from `x` alone (`softplus`' sigmoid);
//! - the uncomputation runs its adjoint-only form (on gradient numbers; its condition
//!   [`crate::facts::Undo::cond`]), which sets `s`'s values to zero afterwards whatever they
//!   were: the state after it is the same as when the call ran.
//!
//! The adjoints are the same bits: nothing that moves an adjoint read the skipped values.
//! Only in the adjoint-only variant (`__nilang_dead` in scope) of a function's top-level list;
//! a gradient that returns the loss's value (`value_and_gradient`) reads `s` through the loss and
//! keeps the call.
use super::adjoint::{reads, Ctx, Key};
use crate::abi;
use crate::cond::Cond;
use crate::ir::*;
use quote::quote;

/// A call of a recomputed routine that may be skipped, and when.
#[derive(Clone, Debug)]
pub struct Skip {
    /// The `unroutine!()` whose adjoint-only form must run ([`crate::facts::Facts::undo`]).
    pub undo: StmtId,
    /// The condition on callees' analyses.
    pub cond: Cond,
    /// The parameters (indices) whose bit of `__nilang_dead` must be set.
    pub dead: Vec<usize>,
}

/// Whether an accumulation reads `key` only as an operand that moves into its target linearly
/// (`t ±= a`, `t ±= c * a`, `t ±= a * c` with `c` a literal or a constant): its adjoint rule
/// reads no value of `a`, so `a` is read only for `t`'s new value.
fn linear_read<'i>(i: &'i Instr, key: &Key) -> Option<&'i Place> {
    let Operand::Place(t) = &i.target else {
        return None;
    };
    if !matches!(i.op, AccOp::Plus | AccOp::Minus) || t.root == key.root {
        return None;
    }
    // a constant that does not read `key` (`cst!(s[0])` would)
    let constant = |o: &Operand| match o {
        Operand::Lit { .. } => true,
        Operand::Const { expr, .. } => !super::adjoint::mentions_value(expr, &key.root),
        _ => false,
    };
    let operand = match (&i.func, &i.args[..]) {
        (FuncRef::Builtin("Identity"), [a]) => a,
        (FuncRef::Builtin("Mul"), [a, c]) if constant(c) => a,
        (FuncRef::Builtin("Mul"), [c, a]) if constant(c) => a,
        _ => return None,
    };
    let Operand::Place(a) = operand else {
        return None;
    };
    let index_free = |p: &Place| {
        p.path.iter().all(|pr| match pr {
            Proj::Index(e) => !super::adjoint::mentions_value(e, &key.root),
            Proj::Field(_) => true,
        })
    };
    (key.covers(a) && index_free(a) && index_free(t)).then_some(t)
}

/// Whether statement `s` may read `key`'s value when the accumulations whose targets are dead
/// run adjoint-only: as [`reads`], except that an accumulation reading `key` linearly
/// (`linear_read`) reads it only if its target is live; those targets are pushed on `dead`.
pub fn reads_unless_dead(s: &Stmt, key: &Key, cx: &Ctx, dead: &mut Vec<Place>) -> Cond {
    match &s.kind {
        StmtKind::Instr(i) => match linear_read(i, key) {
            Some(t) => {
                dead.push(t.clone());
                Cond::False
            }
            None => reads(s, key, cx),
        },
        StmtKind::For {
            iter: ForIter::Range(r),
            body,
            ..
        } => {
            if r.exprs()
                .any(|e| super::adjoint::mentions_value(e, &key.root))
            {
                return Cond::True;
            }
            block(body, key, cx, dead)
        }
        StmtKind::Block(b) | StmtKind::Seq(b) => block(b, key, cx, dead),
        _ => reads(s, key, cx),
    }
}

fn block(b: &[Stmt], key: &Key, cx: &Ctx, dead: &mut Vec<Place>) -> Cond {
    let mut acc = Cond::False;
    for s in b {
        acc = acc.or(reads_unless_dead(s, key, cx, dead));
        if acc.is_true() {
            return acc;
        }
    }
    acc
}

/// What the analysis needs of the function.
pub struct Function<'a> {
    /// The liveness context.
    pub cx: &'a Ctx<'a>,
    /// Per typed parameter in order: its name if it is `&mut`.
    pub inout: &'a [Option<syn::Ident>],
}

/// The calls of routine `stmts[k]` (a top-level list) that may be skipped when its
/// uncomputation `stmts[m]` runs adjoint-only on the workspaces `cands`: `(j, skip)` for call
/// `j` of the routine's body.
pub fn skips(
    stmts: &[Stmt],
    k: usize,
    m: usize,
    cands: &[Key],
    f: &Function,
) -> Vec<(usize, Skip)> {
    let StmtKind::Routine { body, undo: false } = &stmts[k].kind else {
        return vec![];
    };
    let mut out = vec![];
    for (j, s) in body.iter().enumerate() {
        let StmtKind::Call(c) = &s.kind else {
            continue;
        };
        if let Some(skip) = skip_call(stmts, k, m, body, j, c, cands, f) {
            out.push((j, skip));
        }
    }
    out
}

#[allow(clippy::too_many_arguments)]
fn skip_call(
    stmts: &[Stmt],
    k: usize,
    m: usize,
    body: &[Stmt],
    j: usize,
    c: &Call,
    cands: &[Key],
    f: &Function,
) -> Option<Skip> {
    let p = abi::plain_analysed_callee(c)?;
    let inout = f.cx.inout;
    // the target (the first argument, as for `FRESH_TARGET`) in a workspace, and the other
    // in-out arguments (the callee must not write them)
    let pl = c.args.first()?.inout_place(inout)?;
    let key = cands.iter().find(|key| key.covers(pl))?;
    let (a, bit) = (0, 0u32);
    let mut others = 0 as abi::ParamMask;
    for (b, arg) in c.args.iter().enumerate().skip(1) {
        if arg.inout_place(inout).is_some() {
            others |= 1 << abi::param_bit(b)?;
        }
    }
    let root = key.root.as_str();
    let mentioned = |b: &[Stmt]| crate::visit::mentions(b, root);
    let other_args = c
        .args
        .iter()
        .enumerate()
        .any(|(b, arg)| b != a && crate::visit::mentions_arg(arg, root));
    if other_args || mentioned(&body[..j]) || mentioned(&body[j + 1..]) {
        return None;
    }
    // the callee writes only the workspace; its inverse reads no value of it
    let writes = abi::marker_path(p, c.inverse).constant(abi::WRITES);
    let reads_inv = abi::marker_path(p, !c.inverse).constant(abi::READS);
    let others = abi::mask_lit(others);
    let mut cond = Cond::term(quote!(((#writes & #others) == 0)))
        .and(Cond::term(quote!(((#reads_inv >> #bit) & 1 == 0))));
    // the statements between read it only into dead targets
    let mut dead_places = vec![];
    for s in &stmts[k + 1..m] {
        let r = reads_unless_dead(s, key, f.cx, &mut dead_places);
        if r.is_true() {
            return None;
        }
        cond = cond.and(!r);
    }
    let mut dead = vec![];
    for t in dead_places {
        let n = f
            .inout
            .iter()
            .position(|p| p.as_ref().is_some_and(|p| *p == t.root))?;
        abi::dead_bit(n)?;
        if !dead.contains(&n) {
            // nothing after the routine reads it
            let r = super::adjoint::reads_block(&stmts[k + 1..], &Key::of_name(&t.root), f.cx);
            if r.is_true() {
                return None;
            }
            cond = cond.and(!r);
            dead.push(n);
        }
    }
    Some(Skip {
        undo: stmts[m].id,
        cond,
        dead,
    })
}
