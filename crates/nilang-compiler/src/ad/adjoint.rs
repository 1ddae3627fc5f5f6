//! Adjoint-only uncomputation: value updates that nothing reads are skipped.
//!
//! The backward pass of a gradient uncomputes routines on gradient numbers: `y -= f(a)` moves
//! `ȳ·f'(a)` into `ā` *and* restores `y`'s value. When that value is never read again (no
//! later statement reads `y`, and `y`'s value after the uncomputation is reset or unused),
//! the value update is dead work: the instruction runs adjoint-only (`minus_eq_adjoint`,
//! which on gradient numbers moves only the adjoints; every other number type runs the
//! instruction itself).
//!
//! Where the compiler knows it:
//!
//! - **The uncomputation of a routine on `fresh!` workspaces** (the same routines the backward
//!   pass recomputes value-only, see `primal`): before the routine those places were exactly
//!   zero, so after its uncomputation they are zero again (up to rounding). That uncomputation
//!   runs adjoint-only on them, and their values are then set to zero
//!   (`Fresh::zero_values`, adjoints kept): the same state as before, without computing it.
//!   Only where the workspaces' numbers skip value work so (`Fresh::VALUES_SKIPPED`, a
//!   constant of the number type): on plain numbers the ordinary uncomputation runs, so an
//!   inverse program costs what its forward costs.
//! - **Inside it, callees** run their variant `g::__adj(g, dead, args)` (`g_inv::__adj` for an
//!   inverse call): bit `k` of `dead` says that the value of parameter `k` after the call is
//!   never read. In the variant, an instruction's target is dead when no later statement
//!   reads it and, for a parameter, its bit is set (a constant once inlined).
//!
//! "Reads" is a liveness analysis over the statements, by root variable and leading fields
//! (`ws.lse`): an operand, an index expression (except `x.len()`), a condition, a `cst!`, a
//! callee that may read the argument (its recorded analysis `g::READS`) read the value; the
//! target of `+=`/`-=` does not (its adjoint rule never reads it). A loop body reads what the
//! next iteration reads, unless every mention of the variable in the body is the same element
//! or range with an index that differs from iteration to iteration (`x[i]`, `x[i + k]`,
//! `x[i * d..(i + 1) * d]`: "loop-private"). `fresh!` (unchecked) overwrites a workspace.
//! Anything not understood reads.
use crate::abi;
use crate::ad::primal::leading_fields;
use crate::cond::Cond;
use crate::ir::*;
use proc_macro2::{TokenStream, TokenTree};
use quote::quote;

/// A root variable and leading fields (`ws.lse`), with the place naming it.
#[derive(Clone, Debug)]
pub struct Key {
    /// The root variable.
    pub root: String,
    /// The leading field names.
    pub fields: Vec<String>,
    /// The place (root and fields only).
    pub place: Place,
}

impl Key {
    /// The key of a place of root and fields only (`None` if it has an index).
    pub fn of_place(p: &Place) -> Option<Key> {
        let fields = leading_fields(p);
        (fields.len() == p.path.len()).then(|| Key {
            root: p.root.to_string(),
            fields,
            place: p.clone(),
        })
    }

    /// A key for a parameter or local named `n`.
    pub fn of_name(n: &syn::Ident) -> Key {
        Key {
            root: n.to_string(),
            fields: vec![],
            place: Place {
                root: n.clone(),
                path: vec![],
                neg: false,
                span: n.span(),
                end: n.span(),
            },
        }
    }

    /// The key as text (`ws.lse`), for tables of facts.
    pub fn text(&self) -> String {
        let mut t = self.root.clone();
        for f in &self.fields {
            t.push('.');
            t.push_str(f);
        }
        t
    }

    /// Whether place `p` may overlap this key.
    fn touches(&self, p: &Place) -> bool {
        if p.root != self.root {
            return false;
        }
        let f = leading_fields(p);
        f.starts_with(&self.fields) || self.fields.starts_with(&f)
    }

    /// Whether all of place `p` lies in this key.
    pub fn covers(&self, p: &Place) -> bool {
        p.root == self.root && leading_fields(p).starts_with(&self.fields)
    }
}

/// Whether tokens mention `root`'s value: `root` anywhere but in `root(.field)*.len()` or
/// `.is_empty()` (a length is not a value).
pub fn mentions_value(t: &impl quote::ToTokens, root: &str) -> bool {
    fn walk(t: TokenStream, root: &str) -> bool {
        let v: Vec<TokenTree> = t.into_iter().collect();
        let mut k = 0;
        while k < v.len() {
            match &v[k] {
                TokenTree::Group(g) if walk(g.stream(), root) => return true,
                TokenTree::Ident(i) if i == root => {
                    // skip `.field` pairs; a length or emptiness query reads no value
                    let mut j = k + 1;
                    let mut len_only = false;
                    while j + 1 < v.len() {
                        match (&v[j], &v[j + 1]) {
                            (TokenTree::Punct(p), TokenTree::Ident(m)) if p.as_char() == '.' => {
                                if m == "len" || m == "is_empty" {
                                    len_only = true;
                                    break;
                                }
                                j += 2;
                            }
                            _ => break,
                        }
                    }
                    if !len_only {
                        return true;
                    }
                }
                _ => {}
            }
            k += 1;
        }
        false
    }
    walk(t.to_token_stream(), root)
}

/// Whether the index expressions of place `p` read `root`'s value.
fn index_reads(p: &Place, root: &str) -> bool {
    p.path.iter().any(|pr| match pr {
        Proj::Index(e) => mentions_value(e, root),
        Proj::Field(_) => false,
    })
}

/// Whether an operand reads the value of `key` (its places or indices, or a constant).
fn operand_reads(o: &Operand, key: &Key) -> bool {
    match o {
        Operand::Place(p) => key.touches(p) || index_reads(p, &key.root),
        Operand::Lit { .. } => false,
        Operand::Const { expr, .. } => mentions_value(expr, &key.root),
        Operand::Tuple(v, _) => v.iter().any(|o| operand_reads(o, key)),
    }
}

/// What a liveness question needs to know about the function: which names are `&mut`
/// parameters (passed in-out by name), and its own name (a recursive call reads everything).
pub struct Ctx<'a> {
    /// Whether a name is a `&mut` parameter.
    pub inout: &'a dyn Fn(&str) -> bool,
    /// The function's own name.
    pub fname: &'a str,
}

/// Whether statement `s` may read the value of `key` (a condition on callees' analyses).
pub fn reads(s: &Stmt, key: &Key, cx: &Ctx) -> Cond {
    let root = key.root.as_str();
    match &s.kind {
        StmtKind::Instr(i) => {
            let target = match &i.target {
                Operand::Place(p) => {
                    index_reads(p, root)
                        || (key.touches(p) && !matches!(i.op, AccOp::Plus | AccOp::Minus))
                }
                Operand::Tuple(v, _) => v.iter().any(|o| match o {
                    Operand::Place(p) => {
                        index_reads(p, root)
                            || (key.touches(p) && !matches!(i.op, AccOp::Plus | AccOp::Minus))
                    }
                    o => operand_reads(o, key),
                }),
                o => operand_reads(o, key),
            };
            Cond::from_bool(target || i.args.iter().any(|a| operand_reads(a, key)))
        }
        StmtKind::Call(c) => call_reads(c, key, cx),
        StmtKind::Alloc(a) => Cond::from_bool(mentions_value(&a.value, root)),
        StmtKind::Dealloc(a) => {
            let checked = s.check && key.fields.is_empty() && a.names.iter().any(|n| n == root);
            Cond::from_bool(checked || mentions_value(&a.value, root))
        }
        StmtKind::If {
            branches,
            otherwise,
        } => {
            let mut acc = Cond::False;
            for b in branches {
                if mentions_value(&b.pre, root) || mentions_value(&b.post, root) {
                    return Cond::True;
                }
                acc = acc.or(reads_block(&b.body, key, cx));
            }
            if let Some(o) = otherwise {
                acc = acc.or(reads_block(o, key, cx));
            }
            acc
        }
        StmtKind::For { iter, body, .. } => {
            let head = match iter {
                ForIter::Range(r) => r.exprs().any(|e| mentions_value(e, root)),
                ForIter::Indices { slice, .. } => key.touches(slice) || index_reads(slice, root),
            };
            if head {
                Cond::True
            } else {
                reads_block(body, key, cx)
            }
        }
        StmtKind::Block(b) | StmtKind::Seq(b) | StmtKind::Routine { body: b, .. } => {
            reads_block(b, key, cx)
        }
        StmtKind::Safe(t) => Cond::from_bool(mentions_value(t, root)),
        StmtKind::Fresh(ps) => {
            let hit = ps
                .iter()
                .any(|p| index_reads(p, root) || (s.check && key.touches(p)));
            Cond::from_bool(hit)
        }
        // every other kind (loops with conditions, moves, stacks): any mention reads
        _ => Cond::from_bool(crate::visit::mentions(core::slice::from_ref(s), root)),
    }
}

/// Whether any statement of `b` may read `key`.
pub fn reads_block(b: &[Stmt], key: &Key, cx: &Ctx) -> Cond {
    let mut acc = Cond::False;
    for s in b {
        acc = acc.or(reads(s, key, cx));
        if acc.is_true() {
            return acc;
        }
    }
    acc
}

/// Whether a call may read `key`: an in-out argument in it when the callee's `READS` says so.
fn call_reads(c: &Call, key: &Key, cx: &Ctx) -> Cond {
    let root = key.root.as_str();
    let marker = match &c.callee {
        Callee::Path(p) if crate::abi::analysed_callee(p) => {
            let own = p.path.segments.len() == 1
                && (p.path.segments[0].ident == cx.fname
                    || p.path.segments[0].ident == abi::inverse_str(cx.fname));
            (!own).then(|| crate::abi::marker_path(p, c.inverse))
        }
        Callee::Path(_) => None,
        Callee::Method { receiver, .. } => {
            if key.touches(receiver) || index_reads(receiver, root) {
                return Cond::True;
            }
            None
        }
    };
    let mut acc = Cond::False;
    for (k, a) in c.args.iter().enumerate() {
        match (a.inout_place(cx.inout), a) {
            (Some(p), _) => {
                if index_reads(p, root) {
                    return Cond::True;
                }
                if key.touches(p) {
                    match (&marker, abi::param_bit(k)) {
                        (Some(m), Some(k)) => {
                            let reads = m.constant(abi::READS);
                            acc = acc.or(Cond::term(quote!(((#reads >> #k) & 1 == 1))));
                        }
                        _ => return Cond::True,
                    }
                }
            }
            (None, CallArg::Name(p)) => {
                if key.touches(p) || index_reads(p, root) {
                    return Cond::True;
                }
            }
            (None, CallArg::Read(e)) => {
                if mentions_value(e, root) {
                    return Cond::True;
                }
            }
            (None, CallArg::InOut(_)) => {}
        }
    }
    acc
}

/// Whether statement `s` overwrites all of `key` without reading it (an unchecked `fresh!` of
/// it or of a place containing it).
pub fn kills(s: &Stmt, key: &Key) -> bool {
    match &s.kind {
        StmtKind::Fresh(ps) if !s.check => ps.iter().any(|p| {
            let f = leading_fields(p);
            p.root == key.root && f.len() == p.path.len() && key.fields.starts_with(&f)
        }),
        _ => false,
    }
}

/// Whether `stmts` read `key` before overwriting it, and whether they overwrite it.
pub fn first_read(stmts: &[Stmt], key: &Key, cx: &Ctx) -> (Cond, bool) {
    let mut acc = Cond::False;
    for s in stmts {
        if kills(s, key) {
            return (acc, true);
        }
        acc = acc.or(reads(s, key, cx));
        if acc.is_true() {
            return (acc, false);
        }
    }
    (acc, false)
}

/// For each statement of `stmts`: whether `key` is read after it (`out`: whether it is read
/// after the whole list).
pub fn read_after(stmts: &[Stmt], key: &Key, out: &Cond, cx: &Ctx) -> Vec<Cond> {
    let mut after = vec![Cond::False; stmts.len()];
    let mut acc = out.clone();
    for k in (0..stmts.len()).rev() {
        after[k] = acc.clone();
        if kills(&stmts[k], key) {
            acc = Cond::False;
        } else {
            acc = reads(&stmts[k], key, cx).or(acc);
        }
    }
    after
}

/// Whether an index expression takes a different element (or a disjoint range) in every
/// iteration of a loop over `var`: `var`, `var + e`, `e + var`, `a..b` with `b` being `a`
/// at `var + 1`.
fn disjoint_index(e: &syn::Expr, var: &str) -> bool {
    let is_var = |e: &syn::Expr| matches!(e, syn::Expr::Path(p) if p.path.is_ident(var));
    match e {
        syn::Expr::Paren(p) => disjoint_index(&p.expr, var),
        syn::Expr::Binary(b) if matches!(b.op, syn::BinOp::Add(_)) => {
            (is_var(&b.left) && !crate::syntax::mentions_name(&b.right, var))
                || (is_var(&b.right) && !crate::syntax::mentions_name(&b.left, var))
        }
        syn::Expr::Range(r) if matches!(r.limits, syn::RangeLimits::HalfOpen(_)) => {
            let (Some(a), Some(b)) = (&r.start, &r.end) else {
                return false;
            };
            if !crate::syntax::mentions_name(a, var) {
                return false;
            }
            let v = syn::Ident::new(var, proc_macro2::Span::call_site());
            let next = substitute(quote!(#a), var, &quote!((#v + 1)));
            next.to_string() == quote!(#b).to_string()
        }
        _ => is_var(e),
    }
}

/// `t` with the identifier `var` replaced by `with`.
fn substitute(t: TokenStream, var: &str, with: &TokenStream) -> TokenStream {
    t.into_iter()
        .flat_map(|tt| -> Vec<TokenTree> {
            match tt {
                TokenTree::Ident(i) if i == var => with.clone().into_iter().collect(),
                TokenTree::Group(g) => {
                    let mut n =
                        proc_macro2::Group::new(g.delimiter(), substitute(g.stream(), var, with));
                    n.set_span(g.span());
                    vec![TokenTree::Group(n)]
                }
                tt => vec![tt],
            }
        })
        .collect()
}

/// Whether every mention of `key`'s root in a loop body over `var` is the same element or
/// range of it, different in every iteration (so an iteration never reads what another
/// wrote).
pub fn loop_private(body: &[Stmt], var: &syn::Ident, key: &Key) -> bool {
    use crate::visit::{walk_block, Visit};
    struct V<'a> {
        key: &'a Key,
        var: String,
        index: Option<String>,
        ok: bool,
    }
    impl<'ir> Visit<'ir> for V<'_> {
        fn visit_place(&mut self, p: &'ir Place) {
            if p.root != self.key.root {
                if index_reads(p, &self.key.root) {
                    self.ok = false;
                }
                return;
            }
            let f = leading_fields(p);
            if !f.starts_with(&self.key.fields) && !self.key.fields.starts_with(&f) {
                return;
            }
            match &p.path[..] {
                [fields @ .., Proj::Index(e)]
                    if fields.len() == self.key.fields.len()
                        && f == self.key.fields
                        && disjoint_index(e, &self.var)
                        && !mentions_value(e, &self.key.root) =>
                {
                    let t = quote!(#e).to_string();
                    match &self.index {
                        None => self.index = Some(t),
                        Some(i) if *i == t => {}
                        Some(_) => self.ok = false,
                    }
                }
                _ => self.ok = false,
            }
        }
        fn visit_expr(&mut self, e: &'ir syn::Expr) {
            if mentions_value(e, &self.key.root) {
                self.ok = false;
            }
        }
        fn visit_stmt(&mut self, s: &'ir Stmt) {
            match &s.kind {
                StmtKind::Safe(t) if mentions_value(t, &self.key.root) => self.ok = false,
                StmtKind::Move { .. } | StmtKind::Stack { .. } | StmtKind::Surface(_) => {
                    if crate::visit::mentions(core::slice::from_ref(s), &self.key.root) {
                        self.ok = false;
                    }
                }
                _ => crate::visit::walk_stmt(self, s),
            }
        }
    }
    let mut v = V {
        key,
        var: var.to_string(),
        index: None,
        ok: true,
    };
    walk_block(&mut v, body);
    v.ok
}

/// The constant expression (an [`abi::ParamMask`]) of `f::READS`: bit `k` set when the function
/// may read the value of parameter `k` (of `params`, the typed parameters in order) for
/// anything but that parameter's own new value.
pub fn reads_mask(
    fname: &syn::Ident,
    params: &[syn::Ident],
    inout: &dyn Fn(&str) -> bool,
    body: &[Stmt],
) -> TokenStream {
    let f = fname.to_string();
    let cx = Ctx { inout, fname: &f };
    crate::ad::primal::param_mask(params, |p| reads_block(body, &Key::of_name(p), &cx))
}

/// The `fresh!` workspaces (root and fields) of `stmts[..k]` not mentioned since: exactly zero
/// at statement `k`.
pub fn fresh_before(stmts: &[Stmt], k: usize) -> Vec<Key> {
    let mut d = vec![];
    for j in (0..k).rev() {
        if let StmtKind::Fresh(ps) = &stmts[j].kind {
            for p in ps {
                if let Some(key) = Key::of_place(p) {
                    if !crate::visit::mentions(&stmts[j + 1..k], &key.root) {
                        d.push(key);
                    }
                }
            }
        }
    }
    d
}
