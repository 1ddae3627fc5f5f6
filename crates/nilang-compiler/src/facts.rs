//! The facts about a function, computed once before emission (in the manner of cxx's
//! `Types::collect`): every analysis runs here, through [`crate::visit`], and emission reads
//! the table ([`Facts`]) by [`StmtId`] and parameter, never calling an analysis back.
//!
//! | fact | keyed by | computed by |
//! | --- | --- | --- |
//! | parameter kinds, locals, `zero(..)` workspaces | name | the signature, [`collect_locals`] |
//! | `ADDITIVE`, `WRITES`, `READS` ([`Masks`]) | parameter | `ad::one_pass`, `ad::primal`, `ad::adjoint` |
//! | value-only routine: the [`Cond`] under which it runs on values only | `StmtId` of the routine | `ad::primal` |
//! | adjoint-only uncomputation ([`Undo`]) | `StmtId` of the `unroutine!()` | `ad::adjoint`, `ad::primal` |
//! | its calls told [`abi::FRESH_TARGET`] | `StmtId` of the call in the `unroutine!()` | `fresh_targets`, `ad::primal` |
//! | value-dead calls of a recomputed routine ([`Skip`]) | `StmtId` of the call in the routine (and of its inverse in the `unroutine!()`) | `ad::value_dead` |
//! | liveness: may statement `s` read place `p`, does it overwrite it | `StmtId`, place | `ad::adjoint` |
//! | loop liveness: may an iteration read what another left | `StmtId` of the `for`, place | `ad::adjoint` |
//! | tracked ancillas (first deallocation checked) | `StmtId` of the `let` | [`first_dealloc`] |
//!
//! A table is collected per program emitted (the forward body and its inverse are two
//! programs: the inverse of statement `s` keeps the id of `s`, but what it reads differs);
//! the emission modes of one program ([`crate::emit::Mode`]) share it.
use crate::abi;
use crate::ad::adjoint;
/// A place of the liveness facts: a root variable and leading fields (`ws.lse`).
pub use crate::ad::adjoint::Key;
pub use crate::ad::value_dead::Skip;
use crate::ad::{one_pass, primal, value_dead};
use crate::analyze::ParamKind;
use crate::cond::Cond;
use crate::ir::*;
use crate::visit::{walk_block, walk_stmt, Visit};
use proc_macro2::TokenStream;
use std::collections::{HashMap, HashSet};
use syn::Ident;

/// What the facts need of a function's signature.
pub struct Signature<'a> {
    /// The function's name.
    pub name: &'a Ident,
    /// The kind of every parameter, by name.
    pub params: &'a HashMap<String, ParamKind>,
    /// The typed parameters in order.
    pub names: &'a [Ident],
    /// Per typed parameter in order: its name if it is `&mut`.
    pub inout: &'a [Option<Ident>],
    /// The `zero(..)` workspace parameters.
    pub zero: &'a [String],
}

impl Signature<'_> {
    fn is_inout(&self, n: &str) -> bool {
        self.params.get(n) == Some(&ParamKind::InOut)
    }
}

/// The analyses recorded next to a function ([`abi::ADDITIVE`], [`abi::WRITES`],
/// [`abi::READS`]): constant [`abi::ParamMask`] expressions.
pub struct Masks {
    /// [`abi::ADDITIVE`]: the parameters the function is compute–copy–uncompute in.
    pub additive: TokenStream,
    /// [`abi::WRITES`]: the parameters it may write.
    pub writes: TokenStream,
    /// [`abi::READS`]: the parameters whose value it may read.
    pub reads: TokenStream,
}

impl Masks {
    /// The masks of a function with body `body`.
    pub fn of(sig: &Signature, body: &[Stmt]) -> Masks {
        let inout = |n: &str| sig.is_inout(n);
        Masks {
            additive: one_pass::additive_mask(sig.name, sig.inout, body),
            writes: primal::writes_mask(sig.name, sig.names, &inout, body),
            reads: adjoint::reads_mask(sig.name, sig.names, &inout, body),
        }
    }

    /// The conservative masks (of a function that did not compile).
    pub fn conservative() -> Masks {
        Masks {
            additive: abi::mask_lit(0),
            writes: abi::all_params(),
            reads: abi::all_params(),
        }
    }
}

/// The adjoint-only uncomputation of a routine on `fresh!` workspaces (see `ad::adjoint`).
#[derive(Clone, Debug)]
pub struct Undo {
    /// The workspaces: zero before the routine, so zero again after its uncomputation.
    pub cands: Vec<Key>,
    /// The condition (on callees' analyses) under which the routine writes only places
    /// without adjoint.
    pub cond: Cond,
    /// In a loop body that starts by making every workspace fresh and reads none of them
    /// after this statement, their reset is needed after the last iteration only.
    pub defer_reset: bool,
}

/// The facts of one program (see the module docs).
pub struct Facts {
    /// The kind of every parameter, by name.
    pub params: HashMap<String, ParamKind>,
    /// Every name allocated in the body.
    pub locals: HashSet<String>,
    /// The `&mut` parameters `(index, key)` of the adjoint-only variant (those a mask can
    /// name; none when collected without `adjoint`).
    pub adjoint_params: Vec<(usize, Key)>,
    value_only: HashMap<StmtId, Cond>,
    undo: HashMap<StmtId, Undo>,
    fresh_targets: HashMap<StmtId, Cond>,
    skips: HashMap<StmtId, Skip>,
    /// The call of an `unroutine!()` that undoes a call of [`Facts::skip`]: that call's id.
    skipped_undo: HashMap<StmtId, StmtId>,
    tracked: HashSet<StmtId>,
    reads: HashMap<(StmtId, String), Cond>,
    kills: HashSet<(StmtId, String)>,
    loop_reads: HashMap<(StmtId, String), Cond>,
}

impl Facts {
    /// Every analysis of program `body` of the function `sig`, once; the liveness of the
    /// `&mut` parameters (read only by [`crate::emit::Mode::Adjoint`]) when `adjoint`.
    pub fn collect(sig: &Signature, body: &[Stmt], adjoint: bool) -> Facts {
        let mut locals = HashSet::new();
        collect_locals(body, &mut locals);
        let adjoint_params: Vec<(usize, Key)> = sig
            .inout
            .iter()
            .enumerate()
            .filter_map(|(k, n)| Some((k, Key::of_name(n.as_ref()?))))
            .filter(|(k, _)| adjoint && abi::dead_bit(*k).is_some())
            .collect();
        let mut c = Collector {
            sig,
            facts: Facts {
                params: sig.params.clone(),
                locals,
                adjoint_params,
                value_only: HashMap::new(),
                undo: HashMap::new(),
                fresh_targets: HashMap::new(),
                skips: HashMap::new(),
                skipped_undo: HashMap::new(),
                tracked: HashSet::new(),
                reads: HashMap::new(),
                kills: HashSet::new(),
                loop_reads: HashMap::new(),
            },
            loop_vars: vec![],
            rest: vec![],
            entry: true,
        };
        let keys: Vec<Key> = c
            .facts
            .adjoint_params
            .iter()
            .map(|(_, k)| k.clone())
            .collect();
        c.liveness(body, &keys);
        c.list(body);
        c.facts
    }

    /// The condition under which routine `id` runs on values only (`None`: never).
    pub fn value_only(&self, id: StmtId) -> Option<&Cond> {
        self.value_only.get(&id)
    }

    /// The adjoint-only uncomputation of `unroutine!()` `id`, if it has one.
    pub fn undo(&self, id: StmtId) -> Option<&Undo> {
        self.undo.get(&id)
    }

    /// The condition under which call `id` of an adjoint-only uncomputation ([`Facts::undo`])
    /// undoes a call of the routine that wrote its first argument into a workspace zero
    /// before it, which nothing else in the routine writes: the call may be told
    /// [`abi::FRESH_TARGET`] (`None`: never).
    pub fn fresh_target(&self, id: StmtId) -> Option<&Cond> {
        self.fresh_targets.get(&id)
    }

    /// When call `id` of a recomputed routine may be skipped (its results read by nothing:
    /// see `ad::value_dead`), if it may.
    pub fn skip(&self, id: StmtId) -> Option<&Skip> {
        self.skips.get(&id)
    }

    /// For call `id` of an adjoint-only uncomputation: the [`Facts::skip`] of the call of the
    /// routine it undoes, if that may be skipped (then it must not be told
    /// [`abi::FRESH_TARGET`]).
    pub fn skip_undone(&self, id: StmtId) -> Option<&Skip> {
        self.skips.get(self.skipped_undo.get(&id)?)
    }

    /// Whether the single-name ancilla allocated by `id` is tracked (its first deallocation is
    /// checked).
    pub fn tracked(&self, id: StmtId) -> bool {
        self.tracked.contains(&id)
    }

    /// Whether statement `id` may read `key`'s value.
    pub fn reads(&self, id: StmtId, key: &Key) -> Cond {
        self.reads
            .get(&(id, key.text()))
            .cloned()
            .unwrap_or(Cond::True)
    }

    /// Whether statement `id` overwrites all of `key` without reading it.
    pub fn kills(&self, id: StmtId, key: &Key) -> bool {
        self.kills.contains(&(id, key.text()))
    }

    /// Whether an iteration of loop `id` may read what an earlier one left in `key`
    /// ([`Cond::False`] for a loop-private place).
    pub fn loop_reads(&self, id: StmtId, key: &Key) -> Cond {
        self.loop_reads
            .get(&(id, key.text()))
            .cloned()
            .unwrap_or(Cond::True)
    }
}

/// The walk that fills [`Facts`]: it follows the emitter's scopes (loop variables, the
/// statements after a spliced list, the function's top-level list).
struct Collector<'s, 'a> {
    sig: &'s Signature<'a>,
    facts: Facts,
    loop_vars: Vec<String>,
    /// For statements spliced into an enclosing list: the statements after them there.
    rest: Vec<Vec<Stmt>>,
    /// Set while the top-level list is walked.
    entry: bool,
}

impl Collector<'_, '_> {
    fn is_var(&self, n: &str) -> bool {
        self.facts.params.contains_key(n)
            || self.facts.locals.contains(n)
            || self.loop_vars.iter().any(|v| v == n)
    }

    /// One statement list (a block's, or a spliced one).
    fn list(&mut self, stmts: &[Stmt]) {
        let at_entry = std::mem::replace(&mut self.entry, false);
        for (k, s) in stmts.iter().enumerate() {
            match &s.kind {
                StmtKind::Routine { body, undo: false } => {
                    self.value_only(stmts, k, body, at_entry)
                }
                StmtKind::Routine { undo: true, .. } => self.undo(stmts, k, at_entry),
                StmtKind::Alloc(a) if !a.tuple => {
                    let n = &a.names[0];
                    let found = first_dealloc(&stmts[k + 1..], n)
                        .or_else(|| self.rest.iter().rev().find_map(|r| first_dealloc(r, n)));
                    if found == Some(true) {
                        self.facts.tracked.insert(s.id);
                    }
                }
                _ => {}
            }
            let spliced = matches!(s.kind, StmtKind::Seq(_) | StmtKind::Routine { .. });
            if spliced {
                self.rest.push(stmts[k + 1..].to_vec());
            }
            self.visit_stmt(s);
            if spliced {
                self.rest.pop();
            }
        }
    }

    /// Routine `stmts[k]`: whether every write of its body goes to places without adjoint.
    fn value_only(&mut self, stmts: &[Stmt], k: usize, body: &[Stmt], at_entry: bool) {
        let inout = |n: &str| self.sig.is_inout(n);
        let is_var = |n: &str| self.is_var(n);
        let mut d = primal::no_adjoint_before(stmts, k, &is_var);
        if at_entry {
            // `zero(..)` workspaces, untouched since the function's entry
            d.extend(
                self.sig
                    .zero
                    .iter()
                    .filter(|w| !crate::visit::mentions(&stmts[..k], w))
                    .map(|w| primal::NoAdjoint::whole(w)),
            );
        }
        let cond = primal::writes_only_no_adjoint(body, &mut d, &inout, &is_var);
        if !cond.is_false() {
            self.facts.value_only.insert(stmts[k].id, cond);
        }
    }

    /// `unroutine!()` `stmts[m]`: whether its routine writes only `fresh!` workspaces, or
    /// `zero(..)` workspaces untouched since the function's entry (`at_entry`: the top-level
    /// list), and places without adjoint, so that its uncomputation may run adjoint-only on
    /// them.
    fn undo(&mut self, stmts: &[Stmt], m: usize, at_entry: bool) {
        let s = &stmts[m];
        let StmtKind::Routine {
            body: undo,
            undo: true,
        } = &s.kind
        else {
            return;
        };
        if s.check || undo.iter().any(|u| matches!(u.kind, StmtKind::Alloc(_))) {
            return;
        }
        // the matching routine
        let mut depth = 0usize;
        let mut k = None;
        for j in (0..m).rev() {
            match &stmts[j].kind {
                StmtKind::Routine { undo: true, .. } => depth += 1,
                StmtKind::Routine { undo: false, .. } if depth == 0 => {
                    k = Some(j);
                    break;
                }
                StmtKind::Routine { undo: false, .. } => depth -= 1,
                _ => {}
            }
        }
        let Some(k) = k else {
            return;
        };
        let StmtKind::Routine { body, undo: false } = &stmts[k].kind else {
            return;
        };
        if one_pass::uses_tape(body) {
            return;
        }
        let mut cands = adjoint::fresh_before(stmts, k);
        let zero: Vec<Key> = if at_entry {
            // the caller passes them zero and gets them back zero (values and adjoints)
            let untouched = |w: &Ident| !crate::visit::mentions(&stmts[..k], &w.to_string());
            self.sig
                .inout
                .iter()
                .flatten()
                .filter(|w| self.sig.zero.contains(&w.to_string()) && untouched(w))
                .map(Key::of_name)
                .collect()
        } else {
            vec![]
        };
        cands.extend(zero.iter().cloned());
        if cands.is_empty() {
            return;
        }
        let inout = |n: &str| self.sig.is_inout(n);
        let is_var = |n: &str| self.is_var(n);
        let mut d = primal::no_adjoint_before(stmts, k, &is_var);
        d.extend(zero.iter().map(|w| primal::NoAdjoint::whole(&w.root)));
        let cond = primal::writes_only_no_adjoint(body, &mut d, &inout, &is_var);
        // nothing between the routine and its uncomputation writes them (a callee by its
        // analysis `WRITES`: `i_dot(l, c, w)` reads `c`)
        let fname = self.sig.name.to_string();
        let mut between = Cond::False;
        for c in &cands {
            between = between.or(primal::may_write(&stmts[k + 1..m], &c.root, &fname, &inout));
        }
        if cond.is_false() || between.is_true() {
            return;
        }
        let cond = if between.is_false() {
            cond
        } else {
            let w = between.to_tokens();
            cond.and(Cond::term(quote::quote!(!(#w))))
        };
        let cx = adjoint::Ctx {
            inout: &inout,
            fname: "",
        };
        let defer_reset = cands.iter().all(|c| {
            let (read, killed) = adjoint::first_read(stmts, c, &cx);
            killed && read.is_false() && adjoint::reads_block(&stmts[m + 1..], c, &cx).is_false()
        });
        // the uncomputation is the routine inverted statement by statement, in reverse order
        // (its statements numbered on their own)
        if undo.len() == body.len() {
            let fresh = fresh_targets(body, &cands, &fname, &inout);
            let n = body.len();
            self.facts
                .fresh_targets
                .extend(fresh.into_iter().map(|(j, c)| (undo[n - 1 - j].id, c)));
            if at_entry {
                let f = value_dead::Function {
                    cx: &cx,
                    inout: self.sig.inout,
                };
                for (j, skip) in value_dead::skips(stmts, k, m, &cands, &f) {
                    self.facts
                        .skipped_undo
                        .insert(undo[n - 1 - j].id, body[j].id);
                    self.facts.skips.insert(body[j].id, skip);
                }
            }
        }
        self.liveness(core::slice::from_ref(s), &cands);
        self.facts.undo.insert(
            s.id,
            Undo {
                cands,
                cond,
                defer_reset,
            },
        );
    }

    /// The liveness facts of `keys` for every statement of `stmts`, nested ones included.
    fn liveness(&mut self, stmts: &[Stmt], keys: &[Key]) {
        struct Live<'c, 's, 'a, 'k> {
            c: &'c mut Collector<'s, 'a>,
            keys: &'k [Key],
        }
        impl<'ir> Visit<'ir> for Live<'_, '_, '_, '_> {
            fn visit_stmt(&mut self, s: &'ir Stmt) {
                let sig = self.c.sig;
                let inout = |n: &str| sig.is_inout(n);
                let cx = adjoint::Ctx {
                    inout: &inout,
                    fname: "",
                };
                let facts = &mut self.c.facts;
                for key in self.keys {
                    let t = key.text();
                    facts
                        .reads
                        .insert((s.id, t.clone()), adjoint::reads(s, key, &cx));
                    if adjoint::kills(s, key) {
                        facts.kills.insert((s.id, t.clone()));
                    }
                    if let StmtKind::For { var, iter, body } = &s.kind {
                        let private = matches!(iter, ForIter::Range(_))
                            && adjoint::loop_private(body, var, key);
                        let carried = if private {
                            Cond::False
                        } else {
                            adjoint::first_read(body, key, &cx).0
                        };
                        facts.loop_reads.insert((s.id, t), carried);
                    }
                }
                walk_stmt(self, s);
            }
        }
        walk_block(&mut Live { c: self, keys }, stmts);
    }
}

impl<'ir> Visit<'ir> for Collector<'_, '_> {
    fn visit_block(&mut self, b: &'ir [Stmt]) {
        let rest = std::mem::take(&mut self.rest);
        self.list(b);
        self.rest = rest;
    }
    fn visit_spliced(&mut self, b: &'ir [Stmt]) {
        self.list(b);
    }
    fn visit_stmt(&mut self, s: &'ir Stmt) {
        match &s.kind {
            StmtKind::For { var, iter, .. } => {
                self.loop_vars.push(var.to_string());
                if let ForIter::Indices { .. } = iter {
                    self.loop_vars.push(slice_index(var).to_string());
                }
                walk_stmt(self, s);
                self.loop_vars.pop();
                if let ForIter::Indices { .. } = iter {
                    self.loop_vars.pop();
                }
            }
            _ => walk_stmt(self, s),
        }
    }
}

/// The calls of routine `body` (top level, by position) whose first argument lies in a workspace of
/// `cands` (zero before the routine) that no other statement of the routine may write (a
/// condition on callees' `WRITES`): the workspace is zero before the call, and as nothing
/// between the routine and its uncomputation writes it either ([`Undo::cond`]), it holds
/// what the call added when the uncomputation undoes the call.
fn fresh_targets(
    body: &[Stmt],
    cands: &[Key],
    fname: &str,
    inout: &dyn Fn(&str) -> bool,
) -> Vec<(usize, Cond)> {
    let mut out = vec![];
    for (j, u) in body.iter().enumerate() {
        let StmtKind::Call(c) = &u.kind else {
            continue;
        };
        if abi::plain_analysed_callee(c).is_none() {
            continue;
        }
        let Some(p) = c.args.first().and_then(|a| a.inout_place(inout)) else {
            continue;
        };
        let Some(key) = cands.iter().find(|k| k.covers(p)) else {
            continue;
        };
        let root = key.root.as_str();
        let others = primal::may_write(&body[..j], root, fname, inout).or(primal::may_write(
            &body[j + 1..],
            root,
            fname,
            inout,
        ));
        if !others.is_true() {
            out.push((j, !others));
        }
    }
    out
}

/// The first deallocation of `name` in `stmts` (and statements spliced into them): whether it
/// is a checked single-name one.
pub fn first_dealloc(stmts: &[Stmt], name: &Ident) -> Option<bool> {
    struct First<'a> {
        name: &'a Ident,
        found: Option<bool>,
    }
    impl<'ir> Visit<'ir> for First<'_> {
        // an ancilla is deallocated in its own scope: spliced statements belong to it, nested
        // blocks do not
        fn visit_block(&mut self, _: &'ir [Stmt]) {}
        fn visit_stmt(&mut self, s: &'ir Stmt) {
            match &s.kind {
                _ if self.found.is_some() => {}
                StmtKind::Dealloc(a) if a.names.contains(self.name) => {
                    self.found = Some(s.check && !a.tuple)
                }
                _ => walk_stmt(self, s),
            }
        }
    }
    let mut v = First { name, found: None };
    walk_block(&mut v, stmts);
    v.found
}

/// All names allocated anywhere in a body (for classifying places as variables).
pub fn collect_locals(stmts: &[Stmt], out: &mut HashSet<String>) {
    struct Locals<'o>(&'o mut HashSet<String>);
    impl<'ir> Visit<'ir> for Locals<'_> {
        fn visit_stmt(&mut self, s: &'ir Stmt) {
            match &s.kind {
                StmtKind::Alloc(a) | StmtKind::Dealloc(a) => {
                    self.0.extend(a.names.iter().map(|n| n.to_string()))
                }
                StmtKind::Move { dst, src } => {
                    self.0.insert(dst.to_string());
                    self.0.insert(src.to_string());
                }
                _ => {}
            }
            walk_stmt(self, s);
        }
    }
    walk_block(&mut Locals(out), stmts);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The lowered body of `f` and its signature's parts.
    fn body(f: &syn::ItemFn) -> Vec<Stmt> {
        let mut errors = crate::errors::Errors::default();
        let mut b = crate::parse::Parser {
            errors: &mut errors,
        }
        .block(&f.block.stmts, false);
        crate::lower::lower(&mut b, &mut errors);
        assert!(errors.is_empty());
        b
    }

    #[test]
    fn a_call_writing_a_zero_workspace_alone_is_told_its_target_is_fresh() {
        let f: syn::ItemFn = syn::parse_quote!(
            fn f(y: &mut f64, h: &mut [f64], e: &mut [f64], z: &mut [f64]) {
                routine! {
                    i_map(h, Tanh, z);
                    i_map(e, Exp, z);
                    i_map(e, Exp, h);
                }
                y += h[0] * e[0];
                unroutine!();
            }
        );
        let b = body(&f);
        let names: Vec<Ident> = ["y", "h", "e", "z"]
            .iter()
            .map(|n| Ident::new(n, proc_macro2::Span::call_site()))
            .collect();
        let params: HashMap<String, ParamKind> = names
            .iter()
            .map(|n| (n.to_string(), ParamKind::InOut))
            .collect();
        let inout: Vec<Option<Ident>> = names.iter().cloned().map(Some).collect();
        let zero = ["h".to_string(), "e".to_string(), "z".to_string()];
        let sig = Signature {
            name: &f.sig.ident,
            params: &params,
            names: &names,
            inout: &inout,
            zero: &zero,
        };
        let facts = Facts::collect(&sig, &b, true);
        let StmtKind::Routine { body: undo, .. } = &b[2].kind else {
            panic!("the uncomputation")
        };
        assert!(facts.undo(b[2].id).is_some());
        // the uncomputation runs in reverse: `e -= exp(h)`, `e -= exp(z)`, `h -= tanh(z)`;
        // `h` is written by the routine's first call alone (a condition on the others'
        // `WRITES`: `i_map` does not write its third argument); `e` by two calls, each only
        // if the other does not write its first argument (which `WRITES` says it does)
        let fresh = |k: usize| {
            facts
                .fresh_target(undo[k].id)
                .map(|c| c.to_tokens().to_string())
        };
        let h = fresh(2).expect("h is fresh");
        assert!(h.contains("WRITES") && h.contains(">> 2u32"), "{h}");
        for k in [0, 1] {
            let e = fresh(k).expect("a condition");
            assert!(e.contains("WRITES") && e.contains(">> 0u32"), "{e}");
        }
    }

    #[test]
    fn facts_are_found_by_statement_id_in_the_program_and_its_inverse() {
        let f: syn::ItemFn = syn::parse_quote!(
            fn f(y: &mut f64, ws: &mut f64, x: &f64) {
                fresh!(ws);
                routine! { ws += sin(x); }
                y += ws * 2.0;
                unroutine!();
            }
        );
        let b = body(&f);
        let (y, ws): (Ident, Ident) = (syn::parse_quote!(y), syn::parse_quote!(ws));
        let params: HashMap<String, ParamKind> = [
            ("y".to_string(), ParamKind::InOut),
            ("ws".to_string(), ParamKind::InOut),
            ("x".to_string(), ParamKind::ReadRef),
        ]
        .into();
        let names = [y.clone(), ws.clone(), syn::parse_quote!(x)];
        let inout = [Some(y), Some(ws), None];
        let sig = Signature {
            name: &f.sig.ident,
            params: &params,
            names: &names,
            inout: &inout,
            zero: &[],
        };
        let (routine, unroutine) = (b[1].id, b[3].id);
        assert_ne!(routine, unroutine);
        let facts = Facts::collect(&sig, &b, true);
        // the routine writes only the fresh workspace: value-only, unconditionally
        assert!(facts.value_only(routine).is_some_and(Cond::is_true));
        assert!(facts.value_only(b[2].id).is_none());
        // its uncomputation runs adjoint-only on `ws`
        let undo = facts
            .undo(unroutine)
            .expect("an adjoint-only uncomputation");
        assert_eq!(undo.cands.len(), 1);
        assert_eq!(undo.cands[0].text(), "ws");
        // `y += ws * 2.0` reads `ws`, not `y` (the target of `+=` is not read)
        let (ky, kws) = (&facts.adjoint_params[0].1, &facts.adjoint_params[1].1);
        assert!(facts.reads(b[2].id, kws).is_true());
        assert!(facts.reads(b[2].id, ky).is_false());
        assert!(facts.kills(b[0].id, kws));
        // the inverse keeps the ids; its facts are its own: there the routine (the inverse of
        // `unroutine!()`) runs before `fresh!(ws)`, so nothing is known of `ws`
        let inv = crate::invert::invert_block(&b);
        assert_eq!((inv[0].id, inv[2].id), (unroutine, routine));
        let inv_facts = Facts::collect(&sig, &inv, true);
        assert!(inv_facts.value_only(unroutine).is_none());
        assert!(inv_facts.undo(routine).is_none());
        assert!(inv_facts.reads(b[2].id, kws).is_true());
    }
}
