//! Value-only ("primal") recomputation: where an instruction's target carries no adjoint.
//!
//! On gradient numbers, the forward direction of `y += f(a)` moves `ȳ·f'(a)` out of `a`'s
//! adjoint. When `ȳ` is zero that is wasted work (the whole backward rule evaluated to add
//! zero), and the instruction may run on the values only (`plus_eq_primal`). Two places are
//! known to have no adjoint, whatever the caller does:
//!
//! - an ancilla allocated from a constant (`let t = T::default()`), a workspace right
//!   after `fresh!(ws)` (which drops its adjoints), and a workspace parameter declared
//!   `#[i(zero(ws))]` (zero on entry) at the function's entry, until something else touches
//!   them;
//! - every number, during the forward pass of a gradient (no loss seeded yet).
//!
//! So a routine (`routine! { R }`, and in the inverse the recomputation of a routine before
//! its copy is undone) whose every write goes to such places is emitted with value-only
//! instructions, and its calls of other `#[i]` functions go to their value-only variants
//! `g::__primal`. Whether a callee writes an argument is its recorded analysis `g::WRITES`
//! (bit `k`: parameter `k` may be written), a constant, so the choice is a constant
//! condition that rustc folds. Each function's value-only variant `f::__primal` (every
//! instruction value-only) serves the gradient API's forward pass
//! (`Reversible::call_primal`) and its callers.
//!
//! Value-only instructions skip only adjoint work that adds zero, so results are identical
//! to the ordinary instructions (bit for bit: the values are computed by the same
//! operations). On numbers whose adjoints carry adjoints (`GVar<GVar<_>>`), the instructions
//! fall back to the full rule (`Value::HAS_ADJOINT`).
use crate::abi::{self, analysed_callee, marker_path};
use crate::cond::Cond;
use crate::ir::*;
use crate::visit::{mentions, parts, Part};
use proc_macro2::TokenStream;
use quote::quote;
use syn::Ident;

/// A place whose numbers carry no adjoint: a root variable and leading fields (`ws.lse`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NoAdjoint {
    root: String,
    fields: Vec<String>,
}

impl NoAdjoint {
    /// The whole variable `root`.
    pub fn whole(root: &str) -> Self {
        NoAdjoint {
            root: root.to_string(),
            fields: vec![],
        }
    }
}

/// The leading field names of a place, up to its first index.
pub(crate) fn leading_fields(p: &Place) -> Vec<String> {
    p.path
        .iter()
        .map_while(|pr| match pr {
            Proj::Field(m) => Some(quote!(#m).to_string()),
            Proj::Index(_) => None,
        })
        .collect()
}

/// Whether place `p` lies in one of the places `d`.
pub fn covered(d: &[NoAdjoint], p: &Place) -> bool {
    let root = p.root.to_string();
    let fields = leading_fields(p);
    d.iter()
        .any(|n| n.root == root && fields.starts_with(&n.fields))
}

/// Whether expression tokens mention any of the variables (by `is_var`).
fn mentions_var(t: TokenStream, is_var: &dyn Fn(&str) -> bool) -> bool {
    t.into_iter().any(|tt| match tt {
        proc_macro2::TokenTree::Ident(i) => is_var(&i.to_string()),
        proc_macro2::TokenTree::Group(g) => mentions_var(g.stream(), is_var),
        _ => false,
    })
}

/// The places without adjoint just before statement `k` of `stmts`: ancillas allocated from
/// constants and places named by `fresh!`, not mentioned by a statement since.
pub fn no_adjoint_before(
    stmts: &[Stmt],
    k: usize,
    is_var: &dyn Fn(&str) -> bool,
) -> Vec<NoAdjoint> {
    let mut d = vec![];
    for j in (0..k).rev() {
        let since = &stmts[j + 1..k];
        match &stmts[j].kind {
            StmtKind::Alloc(a) => {
                let v = &a.value;
                if mentions_var(quote!(#v), is_var) {
                    continue;
                }
                for n in &a.names {
                    let n = n.to_string();
                    if !mentions(since, &n) {
                        d.push(NoAdjoint {
                            root: n,
                            fields: vec![],
                        });
                    }
                }
            }
            StmtKind::Fresh(ps) => {
                for p in ps {
                    let root = p.root.to_string();
                    let fields = leading_fields(p);
                    if fields.len() == p.path.len() && !mentions(since, &root) {
                        d.push(NoAdjoint { root, fields });
                    }
                }
            }
            _ => {}
        }
    }
    d
}

/// The condition under which every write
/// of `body` goes to places without adjoint, `d` being those at its start (ancillas allocated
/// in `body` are added). `inout` says which parameter names are passed in-out by name.
pub fn writes_only_no_adjoint(
    body: &[Stmt],
    d: &mut Vec<NoAdjoint>,
    inout: &dyn Fn(&str) -> bool,
    is_var: &dyn Fn(&str) -> bool,
) -> Cond {
    let mut conds = Cond::True;
    for s in body {
        if conds.is_false() {
            return conds;
        }
        match &s.kind {
            StmtKind::Instr(i) => {
                let ok = match &i.target {
                    Operand::Place(p) => covered(d, p),
                    Operand::Tuple(v, _) => v
                        .iter()
                        .all(|o| matches!(o, Operand::Place(p) if covered(d, p))),
                    _ => false,
                };
                if !ok {
                    return Cond::False;
                }
            }
            StmtKind::Call(c) => conds = conds.and(call_cond(c, d, inout)),
            StmtKind::Alloc(a) => {
                let v = &a.value;
                if !mentions_var(quote!(#v), is_var) {
                    d.extend(a.names.iter().map(|n| NoAdjoint {
                        root: n.to_string(),
                        fields: vec![],
                    }));
                }
            }
            StmtKind::Fresh(ps) => {
                for p in ps {
                    let fields = leading_fields(p);
                    if fields.len() == p.path.len() {
                        d.push(NoAdjoint {
                            root: p.root.to_string(),
                            fields,
                        });
                    }
                }
            }
            // a loop over a slice reads it
            StmtKind::For { body, .. } => {
                conds = conds.and(writes_only_no_adjoint(body, &mut d.clone(), inout, is_var))
            }
            StmtKind::DoLoop { first, second, .. } => {
                let mut inner = d.clone();
                conds = conds.and(writes_only_no_adjoint(first, &mut inner, inout, is_var));
                conds = conds.and(writes_only_no_adjoint(second, &mut inner, inout, is_var));
            }
            StmtKind::Move { dst, src } => {
                let src = src.to_string();
                if !d.iter().any(|n| n.root == src && n.fields.is_empty()) {
                    return Cond::False;
                }
                d.push(NoAdjoint {
                    root: dst.to_string(),
                    fields: vec![],
                });
            }
            // every other kind: its statement lists (a block with its own ancillas, a spliced
            // list with those of this scope), its places taken as written
            _ => {
                for part in parts(s) {
                    match part {
                        Part::Block(b) => {
                            let c = writes_only_no_adjoint(b, &mut d.clone(), inout, is_var);
                            conds = conds.and(c);
                        }
                        Part::Spliced(b) => {
                            conds = conds.and(writes_only_no_adjoint(b, d, inout, is_var))
                        }
                        Part::Operand(o) => {
                            let mut ps = vec![];
                            crate::analyze::operand_places(o, &mut ps);
                            if !ps.iter().all(|p| covered(d, p)) {
                                return Cond::False;
                            }
                        }
                        Part::Place(p) => {
                            if !covered(d, p) {
                                return Cond::False;
                            }
                        }
                        Part::Expr(_) => {}
                    }
                }
            }
        }
    }
    conds
}

/// The condition for a call: every argument the callee may write lies in `d`.
fn call_cond(c: &Call, d: &[NoAdjoint], inout: &dyn Fn(&str) -> bool) -> Cond {
    let analysed = match &c.callee {
        Callee::Path(p) if analysed_callee(p) => Some(marker_path(p, c.inverse)),
        Callee::Path(_) => None,
        Callee::Method { receiver, .. } => {
            if !covered(d, receiver) {
                return Cond::False;
            }
            None
        }
    };
    let mut mask: abi::ParamMask = 0;
    for (j, a) in c.args.iter().enumerate() {
        let ok = match (a.inout_place(inout), a) {
            (Some(p), _) => covered(d, p),
            // a value passed by copy: written only in the callee's copy (whose adjoint is the
            // original's)
            (None, CallArg::Name(p)) => covered(d, p),
            (None, CallArg::Read(e)) => {
                crate::syntax::read_place(e).is_some_and(|p| covered(d, &p))
            }
            (None, CallArg::InOut(p)) => covered(d, p),
        };
        if !ok {
            match &analysed {
                // an instruction or method writes its in-out arguments
                None if a.inout_place(inout).is_some() => return Cond::False,
                None => {}
                Some(_) => match abi::param_bit(j) {
                    Some(j) => mask |= 1 << j,
                    None => return Cond::False,
                },
            }
        }
    }
    match analysed {
        Some(path) if mask != 0 => {
            let w = path.constant(abi::WRITES);
            Cond::term(quote!(((#w & #mask) == 0)))
        }
        _ => Cond::True,
    }
}

/// Whether `body` may write variable `y` (its numbers, in place): a condition on callees'
/// analyses. `fname` is the
/// function's own name (a recursive call counts as writing).
pub fn may_write(body: &[Stmt], y: &str, fname: &str, inout: &dyn Fn(&str) -> bool) -> Cond {
    let mut acc = Cond::False;
    for s in body {
        let w = match &s.kind {
            StmtKind::Instr(i) => {
                let hit = match &i.target {
                    Operand::Place(p) => p.root == y,
                    Operand::Tuple(v, _) => v
                        .iter()
                        .any(|o| matches!(o, Operand::Place(p) if p.root == y)),
                    _ => false,
                };
                Cond::from_bool(hit)
            }
            StmtKind::Call(c) => {
                let analysed = match &c.callee {
                    Callee::Path(p) if analysed_callee(p) => {
                        let own = p.path.segments.len() == 1
                            && (p.path.segments[0].ident == fname
                                || p.path.segments[0].ident == abi::inverse_str(fname));
                        (!own).then(|| marker_path(p, c.inverse))
                    }
                    Callee::Method { receiver, .. } if receiver.root == y => return Cond::True,
                    _ => None,
                };
                let mut w = Cond::False;
                for (j, a) in c.args.iter().enumerate() {
                    let Some(p) = a.inout_place(inout) else {
                        continue;
                    };
                    if p.root != y {
                        continue;
                    }
                    w = match (&analysed, abi::param_bit(j)) {
                        (Some(path), Some(j)) => {
                            let writes = path.constant(abi::WRITES);
                            w.or(Cond::term(quote!(((#writes >> #j) & 1 == 1))))
                        }
                        _ => Cond::True,
                    };
                }
                w
            }
            // a loop over a slice reads it
            StmtKind::For { body, .. } => may_write(body, y, fname, inout),
            StmtKind::Move { dst, src } => Cond::from_bool(dst == y || src == y),
            // every other kind: its statement lists, its places taken as written
            _ => {
                let mut w = Cond::False;
                for part in parts(s) {
                    w = match part {
                        Part::Block(b) | Part::Spliced(b) => w.or(may_write(b, y, fname, inout)),
                        Part::Operand(o) => {
                            let mut ps = vec![];
                            crate::analyze::operand_places(o, &mut ps);
                            w.or(Cond::from_bool(ps.iter().any(|p| p.root == y)))
                        }
                        Part::Place(p) => w.or(Cond::from_bool(p.root == y)),
                        Part::Expr(_) => w,
                    };
                }
                w
            }
        };
        acc = acc.or(w);
        if acc.is_true() {
            return acc;
        }
    }
    acc
}

/// The constant expression (an [`abi::ParamMask`]) of `f::WRITES`: bit `k` set when parameter `k`
/// (of `params`, the typed parameters in order) may be written by the function.
pub fn writes_mask(
    fname: &Ident,
    params: &[Ident],
    inout: &dyn Fn(&str) -> bool,
    body: &[Stmt],
) -> TokenStream {
    let fname = fname.to_string();
    param_mask(params, |p| may_write(body, &p.to_string(), &fname, inout))
}

/// A per-parameter mask constant: bit `k` set when `cond(param k)` holds; every bit set past
/// the mask's bits.
pub(crate) fn param_mask(params: &[Ident], cond: impl Fn(&Ident) -> Cond) -> TokenStream {
    let bits = params
        .iter()
        .enumerate()
        .filter(|(k, _)| *k < 64)
        .map(|(k, p)| {
            let k = k as u32;
            match cond(p) {
                Cond::True => quote!((1u64 << #k)),
                c => quote!((((#c) as u64) << #k)),
            }
        });
    let over = if params.len() > 64 {
        quote!(| u64::MAX)
    } else {
        quote!()
    };
    quote!(0u64 #(| #bits)* #over)
}
