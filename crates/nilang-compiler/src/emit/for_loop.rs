//! `for`: a range (its bounds checked unchanged at the end, when checks are on) or the
//! indices of a slice (its length checked unchanged).
use super::{loc, Emitter};
use crate::analyze::{operand_places, relation, Relation};
use crate::ir::*;
use crate::syntax::mentions_name;
use crate::visit::mentions;
use proc_macro2::TokenStream;
use quote::quote;

impl Emitter {
    /// A `for` loop.
    pub(super) fn for_loop(
        &mut self,
        var: &syn::Ident,
        iter: &ForIter,
        body: &[Stmt],
        s: &Stmt,
    ) -> TokenStream {
        let l = loc(s.span);
        let text = &s.text;
        self.loop_vars.push(var.to_string());
        let out = match iter {
            ForIter::Range(r) => {
                let (sv, ev, stv) = (self.fresh("s"), self.fresh("e"), self.fresh("st"));
                let (st, en) = (self.expr(&r.start), self.expr(&r.end));
                let range = if r.inclusive {
                    quote!((#sv..=#ev))
                } else {
                    quote!((#sv..#ev))
                };
                // a stepped range reversed: from its last element down, by the step
                // (`StepBy` of an `i64` range is not double-ended)
                let last = self.fresh("last");
                let (it, guard) = match (r.step.is_some(), r.rev) {
                    (true, true) => (
                        quote!((#sv..=#last).rev().step_by(#stv)),
                        quote!(if let ::core::option::Option::Some(#last) = ::core::iter::Iterator::last(#range.step_by(#stv))),
                    ),
                    (true, false) => (quote!(#range.step_by(#stv)), quote!()),
                    (false, true) => (quote!(#range.rev()), quote!()),
                    (false, false) => (range.clone(), quote!()),
                };
                // the ring size and the middle body of a peeled ring-neighbour loop
                let mut ring = None;
                // the accumulation target of a one-instruction body, kept in a local
                let promoted = match &r.step {
                    None => self.promoted_targets(var, r, body),
                    Some(_) => None,
                };
                let (body, promote_pre, promote_post) = match (promoted, &r.step) {
                    (promoted, None) => {
                        // the body's last iteration, for an uncomputation that defers the
                        // reset of workspaces the next iteration makes fresh (see `adjoint`)
                        let last = match (r.rev, r.inclusive) {
                            (true, _) => quote!(#var == #sv),
                            (false, true) => quote!(#var == #ev),
                            (false, false) => quote!(#var + 1 == #ev),
                        };
                        let (stmts, pre, post) = match promoted {
                            Some((stmts, pre, post)) => (stmts, pre, post),
                            None => (body.to_vec(), quote!(), quote!()),
                        };
                        self.loops
                            .push((stmts.first().map(|s| s.id), stmts.len(), last));
                        let b = self.block(&stmts);
                        // a stencil on a ring: the middle iterations without wrap-around
                        let middle = (!r.inclusive)
                            .then(|| super::ring::ring_size(var, &stmts))
                            .flatten()
                            .map(|n| {
                                let n = self.expr(&n);
                                (n, self.block(&super::ring::interior(var, &stmts)))
                            });
                        self.loops.pop();
                        ring = middle;
                        (b, pre, post)
                    }
                    (_, Some(_)) => (self.block(body), quote!(), quote!()),
                };
                let (step_let, cap, now) = match &r.step {
                    Some(stp) => {
                        let stp = self.expr(stp);
                        (
                            quote!(let #stv = #stp;),
                            quote!((#sv, #ev, #stv)),
                            quote!((#st, #en, #stp)),
                        )
                    }
                    None => (quote!(), quote!((#sv, #ev)), quote!((#st, #en))),
                };
                let check = if s.check {
                    quote!(::nilang::check::bounds(&#cap, &#now, #l, #text);)
                } else {
                    quote!()
                };
                let run = match ring {
                    Some((n, middle)) => {
                        super::ring::peeled(var, (&sv, &ev), n, r.rev, &body, &middle)
                    }
                    None => quote!(for #var in #it { #body }),
                };
                let run = if !promote_pre.is_empty() {
                    quote!(if !#range.is_empty() { #promote_pre #run #promote_post })
                } else {
                    run
                };
                quote!({ let #sv = #st; let #ev = #en; #step_let #guard { #run } #check })
            }
            ForIter::Indices { slice, rev } => {
                let idx = slice_index(var);
                let sl = self.len_of(slice);
                let n = self.fresh("n");
                let it = if *rev {
                    quote!((0..#n).rev())
                } else {
                    quote!((0..#n))
                };
                self.loop_vars.push(idx.to_string());
                let body = self.block(body);
                self.loop_vars.pop();
                let check = if s.check {
                    quote!(::nilang::check::bounds(&#n, &#sl, #l, #text);)
                } else {
                    quote!()
                };
                quote!({ let #n = #sl; for #idx in #it { #body } #check })
            }
        };
        self.loop_vars.pop();
        out
    }

    /// A range loop whose body is a sequence of instructions, some accumulating (`+=`/`-=`)
    /// into a place that the loop does not move and that no other statement mentions
    /// (`for c in 0..k { s[e] += sqdiff(x[i + c], x[j + c]) }`): each such target is read
    /// into a local before the loop and written back after it, so the accumulation stays in a
    /// register. (rustc does not do this itself: the operands' bounds checks are exits of the
    /// loop, so it keeps the store in every iteration.) A target qualifies when its root is
    /// mentioned nowhere else in the body and its indices mention neither the loop variable
    /// nor any variable of the body. The fixed arguments are kept so also in a body with
    /// ancillas and routines ([`body_instrs`], [`Emitter::promote_arguments`]). Returns the
    /// rewritten body, the reads and the write-backs.
    fn promoted_targets(
        &mut self,
        var: &syn::Ident,
        range: &ForRange,
        body: &[Stmt],
    ) -> Option<(Vec<Stmt>, TokenStream, TokenStream)> {
        let instrs = body_instrs(body)?;
        let mut names = vec![var.to_string()];
        for i in &instrs {
            let mut places = vec![];
            operand_places(&i.target, &mut places);
            i.args.iter().for_each(|a| operand_places(a, &mut places));
            names.extend(places.iter().map(|q| q.root.to_string()));
        }
        names.extend(body_ancillas(body));
        let (mut out, mut pre, mut post) = (body.to_vec(), quote!(), quote!());
        // targets only in a body of instructions alone: in an adjoint-only variant a target
        // of a body with ancillas keeps its skipped value updates (`emit/adjoint.rs`)
        let only_instrs = body.iter().all(|s| matches!(s.kind, StmtKind::Instr(_)));
        for (j, i) in instrs.iter().enumerate().filter(|_| only_instrs) {
            let Operand::Place(p) = &i.target else {
                continue;
            };
            let root = p.root.to_string();
            // an ancilla whose round-off budget is tracked is updated in place: the budget
            // counts every iteration
            let budgeted = self.budgeted(&root);
            let with_target = |body: &[Stmt], t: syn::Ident| {
                let mut b = body.to_vec();
                body_instrs_mut(&mut b)[j].target = Operand::Place(Place {
                    root: t,
                    path: vec![],
                    neg: false,
                    span: p.span,
                    end: p.end,
                });
                b
            };
            // the root mentioned nowhere else: not by the instruction's arguments, another
            // statement, an index or an ancilla's value
            let alone = !p.neg
                && !budgeted
                && matches!(i.op, AccOp::Plus | AccOp::Minus)
                && self.is_writable(&root)
                && !mentions(&with_target(&out, var.clone()), &root);
            let fixed = p.path.iter().all(|pr| match pr {
                Proj::Index(e) => !names.iter().any(|n| *n != root && mentions_name(e, n)),
                Proj::Field(_) => true,
            });
            if !(alone && fixed) {
                continue;
            }
            let (acc, r) = (self.fresh("acc"), self.fresh("r"));
            if self.is_slice_elem(p) {
                // read and written back through `Places` (`places.rs`)
                let mut q = p.clone();
                self.hoist_place(&mut q, &mut pre);
                let read = self.read(&q);
                pre.extend(quote!(let mut #acc = #read;));
                post.extend(self.write(&q, quote!(#acc)));
            } else {
                let pe = self.place(p);
                pre.extend(
                    quote!(let #r = &mut #pe; let mut #acc = ::core::clone::Clone::clone(&*#r);),
                );
                post.extend(quote!(*#r = #acc;));
            }
            self.locals.insert(acc.to_string());
            out = with_target(&out, acc);
        }
        self.promote_arguments(&names, range, &mut out, &mut pre, &mut post);
        if pre.is_empty() {
            return None;
        }
        Some((out, pre, post))
    }

    /// The fixed places read as arguments of a loop body of instructions
    /// (`for p in .. { y[r[p]] += a[p] * x[j]; .. }`), each kept in a local before the loop and
    /// written back after it, so that what the instructions accumulate into them stays in a
    /// register: on gradient numbers an argument is in-out (its adjoint is accumulated:
    /// `x̄ⱼ += ȳᵢ aₚ`), and the bounds checks of the other operands are exits of the loop, so
    /// rustc keeps every such update in memory. A root qualifies when it is writable, no
    /// instruction of the body targets it, it is mentioned only as these arguments (no index
    /// or constant names it), their indices mention neither the loop variable nor any variable
    /// of the body, and its different places are provably different elements (`x[2 * j]` and
    /// `x[2 * j + 1]`). The root may also be read at places that move with the loop, where
    /// the loop's range keeps them apart from the fixed ones ([`apart_in_loop`]: `x[3 * j]`
    /// with `j` in `i + 1..n` never is `x[3 * i + 2]`); those stay as they are. Rewrites
    /// `body` and extends the reads and write-backs.
    fn promote_arguments(
        &mut self,
        names: &[String],
        range: &ForRange,
        body: &mut [Stmt],
        pre: &mut TokenStream,
        post: &mut TokenStream,
    ) {
        let var = names[0].as_str();
        let (mut targets, mut roots) = (vec![], vec![]);
        let Some(instrs) = body_instrs(body) else {
            return;
        };
        for i in &instrs {
            let mut places = vec![];
            operand_places(&i.target, &mut places);
            targets.extend(places.iter().map(|q| q.root.to_string()));
            places.clear();
            i.args.iter().for_each(|a| operand_places(a, &mut places));
            for q in places {
                if !roots.contains(&q.root) {
                    roots.push(q.root.clone());
                }
            }
        }
        for root in roots {
            let name = root.to_string();
            if targets.contains(&name) || !self.is_writable(&name) || self.budgeted(&name) {
                continue;
            }
            // the different places of `root` among the arguments
            let mut places: Vec<Place> = vec![];
            for i in body_instrs(body).into_iter().flatten() {
                let mut ps = vec![];
                i.args.iter().for_each(|a| operand_places(a, &mut ps));
                for q in ps.into_iter().filter(|q| q.root == root) {
                    if !places
                        .iter()
                        .any(|o| matches!(relation(o, q), Relation::Same))
                    {
                        places.push(Place {
                            neg: false,
                            ..q.clone()
                        });
                    }
                }
            }
            // a local is in a register already
            let local = places.iter().any(|q| q.path.is_empty()) && !self.is_ref_param(&name);
            let is_fixed = |q: &Place| {
                q.path.iter().all(|pr| match pr {
                    Proj::Index(e) => !names.iter().any(|n| *n != name && mentions_name(e, n)),
                    Proj::Field(_) => true,
                })
            };
            let (places, moving): (Vec<Place>, Vec<Place>) =
                places.into_iter().partition(|q| is_fixed(q));
            // each place that moves with the loop is never one of the fixed places
            let kept_apart = moving.iter().all(|m| {
                places.iter().all(|f| match relation(m, f) {
                    Relation::Disjoint => true,
                    Relation::MaybeSame(pairs) => pairs
                        .iter()
                        .any(|(em, ef)| apart_in_loop(em, ef, var, range)),
                    Relation::Same | Relation::Contains => false,
                })
            });
            let apart = places.iter().enumerate().all(|(k, a)| {
                places[..k].iter().all(|b| match relation(a, b) {
                    Relation::Disjoint => true,
                    Relation::MaybeSame(pairs) => pairs.iter().any(|(x, y)| differ(x, y)),
                    Relation::Same | Relation::Contains => false,
                })
            });
            if local || places.is_empty() || !kept_apart || !apart {
                continue;
            }
            let accs: Vec<syn::Ident> = places.iter().map(|_| self.fresh("acc")).collect();
            let mut rewritten = body.to_vec();
            for i in body_instrs_mut(&mut rewritten) {
                for a in &mut i.args {
                    rename_places(a, &places, &accs);
                }
            }
            // mentioned nowhere else than at these places (the moving ones renamed away here,
            // for this test only)
            let mut rest = rewritten.clone();
            let others: Vec<syn::Ident> = moving.iter().map(|_| var_ident(var)).collect();
            for i in body_instrs_mut(&mut rest) {
                for a in &mut i.args {
                    rename_places(a, &moving, &others);
                }
            }
            if mentions(&rest, &name) {
                continue;
            }
            body.clone_from_slice(&rewritten);
            for (q, acc) in places.iter().zip(&accs) {
                let mut q = q.clone();
                self.hoist_place(&mut q, pre);
                let read = self.read(&q);
                pre.extend(quote!(let mut #acc = #read;));
                post.extend(self.write(&q, quote!(#acc)));
                self.locals.insert(acc.to_string());
            }
        }
    }

    /// Whether `root` is an ancilla whose round-off budget is tracked (updated in place: the
    /// budget counts every update).
    fn budgeted(&self, root: &str) -> bool {
        self.tracked
            .iter()
            .rev()
            .find(|(n, _)| *n == root)
            .is_some_and(|(_, h)| h.is_some())
    }
}

/// `o` with each place that is one of `places` (the same storage) replaced by the local of
/// the same position in `locals` (keeping its negation view).
fn rename_places(o: &mut Operand, places: &[Place], locals: &[syn::Ident]) {
    match o {
        Operand::Place(p) => {
            if let Some(k) = places
                .iter()
                .position(|q| matches!(relation(q, p), Relation::Same))
            {
                *p = Place {
                    root: locals[k].clone(),
                    path: vec![],
                    ..p.clone()
                };
            }
        }
        Operand::Tuple(v, _) => v.iter_mut().for_each(|o| rename_places(o, places, locals)),
        _ => {}
    }
}

/// Whether two index expressions are provably different numbers: the same expression plus
/// different integer constants (`2 * j` and `2 * j + 1`, `k - 1` and `k + 1`).
fn differ(a: &syn::Expr, b: &syn::Expr) -> bool {
    let ((ba, ka), (bb, kb)) = (offset(a), offset(b));
    ba == bb && ka != kb
}

/// An integer literal below 2³² (so that no wrapping index arithmetic makes two offsets equal).
pub(super) fn small_int(e: &syn::Expr) -> Option<i128> {
    match e {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(i),
            ..
        }) => i.base10_parse::<i128>().ok().filter(|k| *k < 1 << 32),
        _ => None,
    }
}

/// An index expression as its base (tokens, empty for a constant) and an integer offset
/// (constants below 2³², so that no wrapping index arithmetic makes two of them equal).
fn offset(e: &syn::Expr) -> (String, i128) {
    let int = small_int;
    match e {
        syn::Expr::Paren(p) => offset(&p.expr),
        syn::Expr::Binary(b) => match (b.op, int(&b.left), int(&b.right)) {
            (syn::BinOp::Add(_), _, Some(k)) => {
                let (base, o) = offset(&b.left);
                (base, o + k)
            }
            (syn::BinOp::Add(_), Some(k), _) => {
                let (base, o) = offset(&b.right);
                (base, o + k)
            }
            (syn::BinOp::Sub(_), _, Some(k)) => {
                let (base, o) = offset(&b.left);
                (base, o - k)
            }
            _ => (quote!(#e).to_string(), 0),
        },
        _ => match int(e) {
            Some(k) => (String::new(), k),
            None => (quote!(#e).to_string(), 0),
        },
    }
}

/// The instructions of a loop body made of instructions, ancillas (`let`, `dealloc!`) and
/// routines (their statements included, in order); `None` when it holds any other statement.
fn body_instrs(body: &[Stmt]) -> Option<Vec<&Instr>> {
    let mut out = vec![];
    for s in body {
        match &s.kind {
            StmtKind::Instr(i) => out.push(i),
            StmtKind::Alloc(_) | StmtKind::Dealloc(_) => {}
            StmtKind::Routine { body, .. } | StmtKind::Seq(body) => out.extend(body_instrs(body)?),
            _ => return None,
        }
    }
    Some(out)
}

/// The instructions of [`body_instrs`], to rewrite (in the same order).
fn body_instrs_mut(body: &mut [Stmt]) -> Vec<&mut Instr> {
    let mut out = vec![];
    for s in body {
        match &mut s.kind {
            StmtKind::Instr(i) => out.push(i),
            StmtKind::Routine { body, .. } | StmtKind::Seq(body) => {
                out.extend(body_instrs_mut(body))
            }
            _ => {}
        }
    }
    out
}

/// The names of the ancillas a loop body allocates (in its routines too).
fn body_ancillas(body: &[Stmt]) -> Vec<String> {
    let mut out = vec![];
    for s in body {
        match &s.kind {
            StmtKind::Alloc(a) => out.extend(a.names.iter().map(|n| n.to_string())),
            StmtKind::Routine { body, .. } | StmtKind::Seq(body) => out.extend(body_ancillas(body)),
            _ => {}
        }
    }
    out
}

/// The loop variable `var` as an identifier (a stand-in place root: never a root itself).
fn var_ident(var: &str) -> syn::Ident {
    syn::Ident::new(var, proc_macro2::Span::call_site())
}

/// Whether the index `em`, which moves with the loop variable `var` over `range`, is never
/// the fixed index `ef` in any iteration: both affine with the same positive factor `a`
/// (`em = a·var + d`, `ef = a·v + c`) and the range bounding `var` away from `v` by enough:
/// from `v + k` up with `a·k + d > c`, or below `v + k` with `a·(k − 1) + d < c`
/// (`3 * j + 1` for `j` in `i + 1..n` against `3 * i + 2`: `3 + 1 > 2`). Index arithmetic
/// that wraps would need more than `usize::MAX / a` iterations.
fn apart_in_loop(em: &syn::Expr, ef: &syn::Expr, var: &str, range: &ForRange) -> bool {
    let (Some((a, vm, d)), Some((af, v, c))) = (affine(em), affine(ef)) else {
        return false;
    };
    if vm != var || a != af || a <= 0 || v == var {
        return false;
    }
    let from = matches!(affine(&range.start), Some((1, s, k)) if s == v && a * k + d > c);
    let below = match affine(&range.end) {
        Some((1, e, k)) if e == v => {
            let last = if range.inclusive { k } else { k - 1 };
            a * last + d < c
        }
        _ => false,
    };
    from || below
}

/// An index expression as `a·v + c`: a factor, the tokens of a variable, an offset (integer
/// constants below 2³²); `None` for any other form.
fn affine(e: &syn::Expr) -> Option<(i128, String, i128)> {
    let int = small_int;
    match e {
        syn::Expr::Paren(p) => affine(&p.expr),
        syn::Expr::Path(p) => p.path.get_ident().map(|i| (1, i.to_string(), 0)),
        syn::Expr::Binary(b) => match (b.op, int(&b.left), int(&b.right)) {
            (syn::BinOp::Add(_), _, Some(k)) => affine(&b.left).map(|(a, v, c)| (a, v, c + k)),
            (syn::BinOp::Add(_), Some(k), _) => affine(&b.right).map(|(a, v, c)| (a, v, c + k)),
            (syn::BinOp::Sub(_), _, Some(k)) => affine(&b.left).map(|(a, v, c)| (a, v, c - k)),
            (syn::BinOp::Mul(_), _, Some(k)) => affine(&b.left).map(|(a, v, c)| (a * k, v, c * k)),
            (syn::BinOp::Mul(_), Some(k), _) => affine(&b.right).map(|(a, v, c)| (a * k, v, c * k)),
            _ => None,
        },
        _ => None,
    }
}
