//! One-pass analysis: for which parameters is a function compute–copy–uncompute?
//!
//! A function is *additive* in its `&mut` parameter `y` when its only lasting effect is
//! `y += g(everything else)`: `y` is written only by accumulating instructions (`+=`, `-=`)
//! whose right-hand sides, indices and conditions do not read it, and everything else the
//! function changes is restored by uncomputation (`routine! { R } … unroutine!()` with `R` not
//! touching `y`). Then its output state equals its input state except for `y`, and no
//! adjoint propagation in its inverse depends on the value of `y`: the gradient of `y` needs
//! no forward pass; the backward pass can start from the inputs (see `nilang::gradient`).
//!
//! The analysis is syntactic and conservative: anything it cannot prove (a `while` loop, a
//! method call, a stack operation, a statement that changes another variable outside a
//! routine) makes the parameter non-additive, and the gradient API then runs forward, then
//! backward. Calls of other `#[i]` functions use their own analysis, recorded as the constant
//! `<name>::ADDITIVE` (bit `k`: additive in parameter `k`) of a type-namespace item named like
//! each function (so importing the function imports it too), and the result is a constant
//! expression evaluated by rustc.
use crate::abi;
use crate::cond::Cond;
use crate::ir::*;
use crate::visit::{
    indices_mention, mentions as mentions_block, mentions_arg, mentions_expr, mentions_operand,
    mentions_place, walk_block, walk_stmt, Visit,
};
use proc_macro2::TokenStream;
use quote::quote;
use syn::Ident;

fn mentions_iter(it: &ForIter, y: &str) -> bool {
    match it {
        ForIter::Range(r) => r.exprs().any(|e| mentions_expr(e, y)),
        ForIter::Indices { slice, .. } => mentions_place(slice, y),
    }
}

/// Whether `b` moves values to or from the store tape (`#[store] routine!`, see `store`).
pub(crate) fn uses_tape(b: &[Stmt]) -> bool {
    struct Tape(bool);
    impl<'ir> Visit<'ir> for Tape {
        fn visit_stmt(&mut self, s: &'ir Stmt) {
            match &s.kind {
                StmtKind::Call(Call {
                    callee: Callee::Path(p),
                    ..
                }) if p.path.segments.iter().any(|s| s.ident == "tape") => self.0 = true,
                _ => walk_stmt(self, s),
            }
        }
    }
    let mut v = Tape(false);
    walk_block(&mut v, b);
    v.0
}

/// The analysis of one function: its name (a recursive call of it in parameter `y` is assumed
/// additive in `y`, the induction hypothesis) and the parameter analysed.
struct Ctx<'a> {
    fname: &'a str,
    y: &'a str,
    /// The index of `y` among the parameters.
    yk: usize,
}

/// Whether the block's only lasting effect is an accumulation into `y` (see the module docs);
/// `fname` is the function's own name and `y` its parameter number `yk`.
pub fn additive_block(b: &[Stmt], fname: &str, y: &str, yk: usize) -> Cond {
    Ctx { fname, y, yk }.block(b)
}

impl Ctx<'_> {
    fn block(&self, b: &[Stmt]) -> Cond {
        let y = self.y;
        let mut cond = Cond::True;
        for s in b {
            let c = match &s.kind {
                // a routine (and its matching unroutine) must not touch `y`; the parser pairs them
                // within this block, so whatever comes between is restored by the unroutine
                StmtKind::Routine { body, .. } => {
                    Cond::from_bool(!mentions_block(body, y) && !uses_tape(body))
                }
                _ => self.stmt(s),
            };
            cond = cond.and(c);
            if cond.is_false() {
                return cond;
            }
        }
        cond
    }

    fn stmt(&self, s: &Stmt) -> Cond {
        let y = self.y;
        match &s.kind {
            StmtKind::Instr(i) => {
                let Operand::Place(t) = &i.target else {
                    return Cond::False;
                };
                let ok = t.root == y
                    && matches!(i.op, AccOp::Plus | AccOp::Minus)
                    && !indices_mention(t, y)
                    && !i.args.iter().any(|a| mentions_operand(a, y));
                Cond::from_bool(ok)
            }
            StmtKind::Call(c) => self.call(c),
            StmtKind::Alloc(a) | StmtKind::Dealloc(a) => {
                Cond::from_bool(!a.names.iter().any(|n| n == y) && !mentions_expr(&a.value, y))
            }
            StmtKind::If {
                branches,
                otherwise,
            } => {
                let mut cond = Cond::True;
                for b in branches {
                    if mentions_expr(&b.pre, y) || mentions_expr(&b.post, y) {
                        return Cond::False;
                    }
                    cond = cond.and(self.block(&b.body));
                }
                if let Some(o) = otherwise {
                    cond = cond.and(self.block(o));
                }
                cond
            }
            StmtKind::For { var, iter, body } => {
                if var == y || mentions_iter(iter, y) {
                    return Cond::False;
                }
                self.block(body)
            }
            StmtKind::Block(b) | StmtKind::Seq(b) => self.block(b),
            StmtKind::Routine { body, .. } => {
                Cond::from_bool(!mentions_block(body, y) && !uses_tape(body))
            }
            StmtKind::Safe(_) => Cond::True,
            // zero workspaces stay zero: only their (dropped) adjoints change
            StmtKind::Fresh(ps) => Cond::from_bool(!ps.iter().any(|p| mentions_place(p, y))),
            // anything else is not proven: loops with a changing condition, stacks and moves
            // change state that is not restored, and a kind this pass does not know may too
            _ => Cond::False,
        }
    }

    /// A call is additive in `y` when `y` is passed (as a place) to exactly one parameter `k` of a
    /// function called by path, that function is additive in `k`, and nothing else mentions `y`.
    fn call(&self, c: &Call) -> Cond {
        let y = self.y;
        let Callee::Path(p) = &c.callee else {
            return Cond::False;
        };
        // associated functions (`Type::f`) have no recorded analysis
        let segs = &p.path.segments;
        if p.qself.is_some()
            || segs
                .iter()
                .any(|s| s.ident.to_string().starts_with(|c: char| c.is_uppercase()))
        {
            return Cond::False;
        }
        let hits: Vec<usize> = (0..c.args.len())
            .filter(|&k| mentions_arg(&c.args[k], y))
            .collect();
        let [k] = hits[..] else {
            return Cond::False;
        };
        match &c.args[k] {
            CallArg::InOut(pl) | CallArg::Name(pl) if pl.root == y && !indices_mention(pl, y) => {}
            _ => return Cond::False,
        }
        let mut path = p.path.clone();
        let Some(last) = path.segments.last_mut() else {
            return Cond::False;
        };
        if segs.len() == 1 {
            let callee = last.ident.to_string();
            if callee == self.fname || callee == abi::inverse_str(self.fname) {
                // recursion: additive in `y` if the body is, given that the call is (induction)
                return Cond::from_bool(k == self.yk && pl_index_is(k, c, y));
            }
        }
        last.arguments = syn::PathArguments::None;
        // a parameter past the mask's bits is never additive
        let Some(k) = abi::param_bit(k) else {
            return Cond::False;
        };
        let additive = crate::abi::Marker(path).constant(abi::ADDITIVE);
        Cond::term(quote!(((#additive >> #k) & 1 == 1)))
    }
}

/// Whether argument `k` of `c` is the parameter `y` itself (a recursive call passing `y` on).
fn pl_index_is(k: usize, c: &Call, y: &str) -> bool {
    matches!(&c.args[k], CallArg::InOut(p) | CallArg::Name(p) if p.root == y && p.path.is_empty())
}

/// The constant expression (an [`abi::ParamMask`]) of the analysis for a function with
/// parameters `params` (`None`: not a `&mut` parameter) and body `body`; parameters past the
/// mask's bits are never additive.
pub fn additive_mask(fname: &Ident, params: &[Option<Ident>], body: &[Stmt]) -> TokenStream {
    let fname = fname.to_string();
    let ty = abi::mask_type();
    let bits = params.iter().enumerate().filter_map(|(k, p)| {
        let bit = abi::param_bit(k)?;
        let p = p.as_ref()?;
        let cond = additive_block(body, &fname, &p.to_string(), k);
        if cond.is_false() {
            return None;
        }
        Some(quote!(((#cond) as #ty) << #bit))
    });
    let zero = abi::mask_lit(0);
    quote!(#zero #(| #bits)*)
}
