//! Ring-neighbour loops peeled: a range loop `for i in s..e` whose body reads its neighbours
//! on a ring of `n` through `next_index(i, n)` and `prev_index(i, n)` (`nilang::stdlib::ring`),
//! or through `(i + 1) % n` and `(i + n - 1) % n`, runs as three loops, `s..lo`, `lo..hi`,
//! `hi..e`, where `lo..hi` is the part of `1..n − 1` inside the range. In the middle loop the
//! neighbours are `i + 1` and `i − 1` (no wrap-around there), so the stencil's loads are at
//! fixed offsets, without selects or divisions, and rustc vectorises what it can; the first
//! and the last iterations keep the calls (the remainders). The same iterations run in the
//! same order (reversed, for a reversed range), so every result is bit for bit the one of the
//! single loop.
//!
//! Peeled only when `n` cannot change inside the loop: an integer literal, a variable the
//! body never writes or moves, or `v.len()` where the body reaches `v` only through its
//! elements (`v[k]`, `v[k].f`: never `v` whole, a call's argument, a stack, `fresh!` or
//! `safe!`).
use crate::ir::*;
use crate::visit::{walk_stmt, Visit, VisitMut};
use quote::{quote, ToTokens};
use syn::visit::Visit as SynVisit;
use syn::visit_mut::VisitMut as SynVisitMut;

/// The ring size `n` of the ring neighbours of `var` in a loop body (`next_index(var, n)`,
/// `(var + 1) % n`, ...), when the body has at least one, all with the same `n`, and `n` is
/// invariant in the body (see the [module documentation](self)); `None` otherwise.
pub(super) fn ring_size(var: &syn::Ident, body: &[Stmt]) -> Option<syn::Expr> {
    let mut calls = RingCalls { var, sizes: vec![] };
    crate::visit::walk_block(&mut calls, body);
    let n = calls.sizes.first()?.clone();
    if calls
        .sizes
        .iter()
        .any(|m| tokens(strip(m)) != tokens(strip(&n)))
    {
        return None;
    }
    let mut names = vec![var.to_string()];
    match strip(&n) {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(_),
            ..
        }) => {}
        syn::Expr::Path(p) => names.push(p.path.get_ident()?.to_string()),
        syn::Expr::MethodCall(m) if m.method == "len" && m.args.is_empty() => {
            let syn::Expr::Path(p) = strip(&m.receiver) else {
                return None;
            };
            names.push(p.path.get_ident()?.to_string());
        }
        _ => return None,
    }
    let mut fixed = Fixed {
        names: &names,
        ok: true,
    };
    crate::visit::walk_block(&mut fixed, body);
    fixed.ok.then_some(n)
}

/// The loop body with the next neighbour of `var` as `(var + 1)` and the previous one as
/// `(var - 1)`: the body of the middle loop.
pub(super) fn interior(var: &syn::Ident, body: &[Stmt]) -> Vec<Stmt> {
    let mut out = body.to_vec();
    crate::visit::walk_block_mut(&mut Interior { var }, &mut out);
    out
}

/// The three loops over `s..e` (`sv`, `ev`: the bound variables), with the `edge` body on the
/// first and last iterations and the `middle` body in between; `n` the ring size, `rev` for a
/// reversed range.
pub(super) fn peeled(
    var: &syn::Ident,
    (sv, ev): (&syn::Ident, &syn::Ident),
    n: proc_macro2::TokenStream,
    rev: bool,
    edge: &proc_macro2::TokenStream,
    middle: &proc_macro2::TokenStream,
) -> proc_macro2::TokenStream {
    let lo = quote!(__nilang_ring_lo);
    let hi = quote!(__nilang_ring_hi);
    let bounds = quote! {
        let __nilang_ring_n = #n;
        let #lo = ::core::cmp::min(::core::cmp::max(#sv, 1), #ev);
        let #hi = ::core::cmp::max(
            #lo,
            ::core::cmp::min(#ev, ::core::primitive::usize::saturating_sub(__nilang_ring_n, 1)),
        );
    };
    if rev {
        quote! {
            #bounds
            for #var in (#hi..#ev).rev() { #edge }
            for #var in (#lo..#hi).rev() { #middle }
            for #var in (#sv..#lo).rev() { #edge }
        }
    } else {
        quote! {
            #bounds
            for #var in #sv..#lo { #edge }
            for #var in #lo..#hi { #middle }
            for #var in #hi..#ev { #edge }
        }
    }
}

/// `e` without parentheses and a leading `*` (`(*v)` is `v`).
fn strip(e: &syn::Expr) -> &syn::Expr {
    match e {
        syn::Expr::Paren(p) => strip(&p.expr),
        syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => strip(&u.expr),
        _ => e,
    }
}

/// Which neighbour on the ring an index expression of `var` is (the next: `Some(true)`, the
/// previous: `Some(false)`), with the ring size: `next_index(var, n)`, `prev_index(var, n)`,
/// or the same by a remainder, `(var + 1) % n`, `(var + n - 1) % n`, `(var + (n - 1)) % n`.
fn ring_call<'e>(var: &syn::Ident, e: &'e syn::Expr) -> Option<(bool, &'e syn::Expr)> {
    let is_var = |e: &syn::Expr| matches!(strip(e), syn::Expr::Path(p) if p.path.is_ident(var));
    let c = match e {
        syn::Expr::Call(c) => c,
        syn::Expr::Binary(b) if matches!(b.op, syn::BinOp::Rem(_)) => {
            let n = &*b.right;
            return remainder(is_var, strip(&b.left), n).map(|next| (next, n));
        }
        _ => return None,
    };
    let syn::Expr::Path(f) = &*c.func else {
        return None;
    };
    // `next_index`, or a path to it through `ring` (`nilang::stdlib::ring::next_index`)
    let segments: Vec<_> = f.path.segments.iter().collect();
    let last = *segments.last()?;
    if segments.len() > 1 && segments[segments.len() - 2].ident != "ring" {
        return None;
    }
    let next = match last.ident.to_string().as_str() {
        "next_index" => true,
        "prev_index" => false,
        _ => return None,
    };
    if c.args.len() != 2 || !last.arguments.is_none() || !is_var(&c.args[0]) {
        return None;
    }
    Some((next, &c.args[1]))
}

/// The dividend of `… % n` as a ring neighbour of the loop variable: `var + 1` (the next),
/// `var + n - 1` or `var + (n - 1)` (the previous).
fn remainder(is_var: impl Fn(&syn::Expr) -> bool, e: &syn::Expr, n: &syn::Expr) -> Option<bool> {
    let same = |a: &syn::Expr| tokens(strip(a)) == tokens(strip(n));
    let one = |e: &syn::Expr| super::for_loop::small_int(strip(e)) == Some(1);
    let syn::Expr::Binary(b) = e else {
        return None;
    };
    match b.op {
        // `var + 1`, `var + (n - 1)`
        syn::BinOp::Add(_) if is_var(&b.left) => match strip(&b.right) {
            r if one(r) => Some(true),
            syn::Expr::Binary(m) if matches!(m.op, syn::BinOp::Sub(_)) => {
                (same(&m.left) && one(&m.right)).then_some(false)
            }
            _ => None,
        },
        // `var + n - 1`
        syn::BinOp::Sub(_) if one(&b.right) => match strip(&b.left) {
            syn::Expr::Binary(a) if matches!(a.op, syn::BinOp::Add(_)) => {
                (is_var(&a.left) && same(&a.right)).then_some(false)
            }
            _ => None,
        },
        _ => None,
    }
}

/// An expression's tokens, to compare two expressions.
fn tokens(e: &syn::Expr) -> String {
    e.to_token_stream().to_string()
}

/// Collects the ring size of every ring neighbour of `var` in a body's expressions.
struct RingCalls<'v> {
    var: &'v syn::Ident,
    sizes: Vec<syn::Expr>,
}

impl<'ast> SynVisit<'ast> for RingCalls<'_> {
    fn visit_expr(&mut self, e: &'ast syn::Expr) {
        if let Some((_, n)) = ring_call(self.var, e) {
            self.sizes.push(n.clone());
        }
        syn::visit::visit_expr(self, e);
    }
}

impl<'ir> Visit<'ir> for RingCalls<'_> {
    fn visit_place(&mut self, p: &'ir Place) {
        for pr in &p.path {
            if let Proj::Index(e) = pr {
                SynVisit::visit_expr(self, e);
            }
        }
    }
    fn visit_expr(&mut self, e: &'ir syn::Expr) {
        SynVisit::visit_expr(self, e);
    }
}

/// Rewrites the ring neighbours of `var` to `var ± 1`.
struct Interior<'v> {
    var: &'v syn::Ident,
}

impl SynVisitMut for Interior<'_> {
    fn visit_expr_mut(&mut self, e: &mut syn::Expr) {
        if let Some((next, _)) = ring_call(self.var, e) {
            let var = self.var;
            *e = if next {
                syn::parse_quote!((#var + 1))
            } else {
                syn::parse_quote!((#var - 1))
            };
            return;
        }
        syn::visit_mut::visit_expr_mut(self, e);
    }
}

impl VisitMut for Interior<'_> {
    fn visit_place_mut(&mut self, p: &mut Place) {
        for pr in &mut p.path {
            if let Proj::Index(e) = pr {
                SynVisitMut::visit_expr_mut(self, e);
            }
        }
    }
    fn visit_expr_mut(&mut self, e: &mut syn::Expr) {
        SynVisitMut::visit_expr_mut(self, e);
    }
}

/// Whether a body leaves `names` (the loop variable and what the ring size reads) as they
/// are: none of them declared, moved or looped over, and none a place (an instruction's
/// operand, a call's argument or receiver, a stack, a workspace) other than through an
/// element (`v[k]..`); no `safe!` code.
struct Fixed<'n> {
    names: &'n [String],
    ok: bool,
}

impl Fixed<'_> {
    fn named(&self, i: &syn::Ident) -> bool {
        self.names.iter().any(|n| i == n)
    }
}

impl<'ir> Visit<'ir> for Fixed<'_> {
    fn visit_stmt(&mut self, s: &'ir Stmt) {
        self.ok &= match &s.kind {
            StmtKind::Alloc(a) | StmtKind::Dealloc(a) => !a.names.iter().any(|n| self.named(n)),
            StmtKind::For { var, .. } => !self.named(var),
            StmtKind::Move { dst, src } => !self.named(dst) && !self.named(src),
            StmtKind::Safe(_) => false,
            _ => true,
        };
        if self.ok {
            walk_stmt(self, s);
        }
    }
    /// Every place: instruction operands, call arguments and receivers, stacks, workspaces.
    fn visit_place(&mut self, p: &'ir Place) {
        if self.named(&p.root) && !matches!(p.path.first(), Some(Proj::Index(_))) {
            self.ok = false;
        }
    }
}
