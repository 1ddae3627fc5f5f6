//! `#[store] routine! { ... }`: split reversal of one routine.
//!
//! A routine is normally uncomputed by its inverse at `unroutine!()` and recomputed when the
//! function runs backwards (joint reversal). With `#[store]` its results are moved onto the
//! runtime's store tape (`nilang::tape`) at `unroutine!()` instead, and taken back when the
//! function runs backwards: the routine runs once forward and once inverted per gradient.
//!
//! The lowering reuses the routine machinery of [`crate::lower`]: `unroutine!()` emits the
//! inverse of the recorded routine body, so the body recorded for a `#[store]` routine is
//! `let a = init; …; store_inv(a, init, site); …`, whose inverse is
//! `store(a, init, site) (reversed); dealloc!(a = init) (reversed)`. The function's inverse then
//! contains the body itself: allocate, pop, run the main part backwards, uncompute.
//!
//! A `#[store]` routine may only write the ancillas it declares at its top level (its results):
//! anything else it changed would be neither uncomputed nor stored.
use crate::errors::Errors;
use crate::ir::*;
use crate::visit::{walk_block, walk_stmt, Visit};
use proc_macro2::Span;
use std::collections::HashSet;
use syn::spanned::Spanned;
use syn::{Attribute, Expr};

/// Split off a `#[store]` or `#[store(always)]` attribute: what it asks for (`None`: no such
/// attribute), and the other attributes; another argument is reported.
pub fn split_store_attr(
    attrs: &[Attribute],
    errors: &mut Errors,
) -> (Option<StoreMode>, Vec<Attribute>) {
    let mut store = None;
    let mut rest = Vec::new();
    for a in attrs {
        if !a.path().is_ident("store") {
            rest.push(a.clone());
            continue;
        }
        store = Some(match &a.meta {
            syn::Meta::Path(_) => StoreMode::UnlessCheap,
            syn::Meta::List(l) if l.tokens.to_string() == "always" => StoreMode::Always,
            m => {
                errors.push(
                    m.span(),
                    "expected `#[store]` (stored unless the routine is cheap to recompute) or \
                     `#[store(always)]`",
                );
                StoreMode::UnlessCheap
            }
        });
    }
    (store, rest)
}

/// The instructions a cheap routine is made of: `y += x`, `x ± y`, `x * y`, `-x`,
/// `x.powi(n)`, `abs2(x)`, `sqdiff(x, y)` (a few flops each, no division, no elementary
/// function, no user primitive).
pub const CHEAP_FUNCTIONS: [&str; 8] = [
    "Identity", "Add", "Sub", "Mul", "Neg", "Powi", "Abs2", "SqDiff",
];

/// The most instructions per ancilla of a cheap routine. (On the PDE stepper of the
/// `schedules` suite, two ancillas computed by 3, 8, 13 and 18 such instructions made the
/// gradient 1.45×, 1.21×, 1.21× and 1.20× slower stored than recomputed with store-all, and
/// 1.35–1.55× with Treeverse, at 100 steps as at 1000.)
pub const CHEAP_INSTRUCTIONS_PER_ANCILLA: usize = 8;

/// Whether `f` is one of [`CHEAP_FUNCTIONS`] (`x.powi(3)` too, lowered to `PowiN<3>`).
fn cheap_function(f: &FuncRef) -> bool {
    match f {
        FuncRef::Builtin(f) => CHEAP_FUNCTIONS.contains(f),
        FuncRef::User(p) => {
            let segs: Vec<String> = p.segments.iter().map(|s| s.ident.to_string()).collect();
            segs == ["nilang", "instr", "fns", "PowiN"]
        }
    }
}

/// Whether a `#[store]` routine is cheap to recompute, so that `#[store]` (not
/// `#[store(always)]`) leaves it in joint mode: straight-line `+=`/`-=` instructions of
/// [`CHEAP_FUNCTIONS`] after its ancillas' allocations (no loop, branch, call or nested
/// routine), at most [`CHEAP_INSTRUCTIONS_PER_ANCILLA`] per ancilla. Computing such a routine
/// again costs a few flops per stored number, less than a push and a pop of it.
pub fn cheap(body: &[Stmt]) -> bool {
    let (mut ancillas, mut instructions) = (0, 0);
    for s in body {
        match &s.kind {
            StmtKind::Alloc(a) => ancillas += a.names.len(),
            StmtKind::Instr(Instr {
                op: AccOp::Plus | AccOp::Minus,
                func,
                ..
            }) if cheap_function(func) => instructions += 1,
            _ => return false,
        }
    }
    instructions <= CHEAP_INSTRUCTIONS_PER_ANCILLA * ancillas
}

/// The ancillas written by a statement list: places that are assigned, passed `&mut`, pushed,
/// popped or moved. Bare names passed to calls count as inputs (reversible calls of the
/// compute pattern hand them back unchanged).
fn written_roots(stmts: &[Stmt]) -> Vec<(String, Span)> {
    struct Written(Vec<(String, Span)>);
    impl<'ir> Visit<'ir> for Written {
        fn visit_stmt(&mut self, s: &'ir Stmt) {
            match &s.kind {
                StmtKind::Instr(i) => self.visit_operand(&i.target),
                StmtKind::Call(c) => {
                    for a in &c.args {
                        if let CallArg::InOut(p) = a {
                            self.visit_place(p);
                        }
                    }
                    if let Callee::Method { receiver, .. } = &c.callee {
                        self.visit_place(receiver);
                    }
                }
                StmtKind::Move { dst, src } => {
                    self.0.push((dst.to_string(), dst.span()));
                    self.0.push((src.to_string(), src.span()));
                }
                // the slice looped over is read
                StmtKind::For { body, .. } => self.visit_block(body),
                // the places of `fresh!` and of stack operations; nested statements
                _ => walk_stmt(self, s),
            }
        }
        fn visit_place(&mut self, p: &'ir Place) {
            self.0.push((p.root.to_string(), p.span));
        }
    }
    let mut v = Written(vec![]);
    walk_block(&mut v, stmts);
    v.0
}

/// Every name allocated in a statement list, at any depth.
fn allocated_names(stmts: &[Stmt]) -> HashSet<String> {
    struct Allocs(HashSet<String>);
    impl<'ir> Visit<'ir> for Allocs {
        fn visit_stmt(&mut self, s: &'ir Stmt) {
            match &s.kind {
                StmtKind::Alloc(a) => self.0.extend(a.names.iter().map(|n| n.to_string())),
                StmtKind::Move { dst, .. } => {
                    self.0.insert(dst.to_string());
                }
                _ => {}
            }
            walk_stmt(self, s);
        }
    }
    let mut v = Allocs(HashSet::new());
    walk_block(&mut v, stmts);
    v.0
}

/// The allocations of a routine body still alive at its end (through spliced sequences, so a
/// nested routine's ancillas, deallocated by its own `unroutine!()`, are not among them).
fn top_allocs(stmts: &[Stmt]) -> Vec<(&Anc, &Stmt)> {
    struct Top<'a>(Vec<(&'a Anc, &'a Stmt)>);
    impl<'a> Visit<'a> for Top<'a> {
        // the ancillas of a nested scope are its own
        fn visit_block(&mut self, _: &'a [Stmt]) {}
        fn visit_stmt(&mut self, s: &'a Stmt) {
            match &s.kind {
                StmtKind::Alloc(a) => self.0.push((a, s)),
                StmtKind::Dealloc(d) => self
                    .0
                    .retain(|(a, _)| !a.names.iter().any(|n| d.names.contains(n))),
                _ => walk_stmt(self, s),
            }
        }
    }
    let mut v = Top(vec![]);
    walk_block(&mut v, stmts);
    v.0
}

/// The per-name initial values of an allocation (`let (a, b) = (x, y);` splits).
fn inits(a: &Anc) -> Option<Vec<(syn::Ident, Expr)>> {
    if !a.tuple {
        return Some(vec![(a.names[0].clone(), a.value.clone())]);
    }
    let mut v = &a.value;
    while let Expr::Paren(p) = v {
        v = &p.expr;
    }
    match v {
        Expr::Tuple(t) if t.elems.len() == a.names.len() => Some(
            a.names
                .iter()
                .cloned()
                .zip(t.elems.iter().cloned())
                .collect(),
        ),
        _ => None,
    }
}

/// The functions of `nilang::tape` the recorded body calls (one ancilla, two ancillas).
const TAPE_CALLS: [&str; 2] = ["store", "store2"];

/// The method of `nilang::tape::Cursor` that runs `c` when it is a call of the store tape
/// recorded by [`recorded_body`] (`store2`, or `store2_inv` where it is inverted).
pub fn cursor_method(c: &Call) -> Option<syn::Ident> {
    let Callee::Path(p) = &c.callee else {
        return None;
    };
    let segs: Vec<String> = p
        .path
        .segments
        .iter()
        .map(|s| s.ident.to_string())
        .collect();
    match segs.as_slice() {
        [krate, tape, f]
            if p.path.leading_colon.is_some()
                && krate == "nilang"
                && tape == "tape"
                && TAPE_CALLS.contains(&f.as_str()) =>
        {
            let f = &p.path.segments[2].ident;
            Some(if c.inverse {
                crate::abi::inverse_name(f)
            } else {
                f.clone()
            })
        }
        _ => None,
    }
}

/// Whether a statement list calls the store tape (see [`cursor_method`]), at any depth.
pub fn stores(stmts: &[Stmt]) -> bool {
    struct Stores(bool);
    impl<'ir> Visit<'ir> for Stores {
        fn visit_stmt(&mut self, s: &'ir Stmt) {
            match &s.kind {
                StmtKind::Call(c) if cursor_method(c).is_some() => self.0 = true,
                _ => walk_stmt(self, s),
            }
        }
    }
    let mut v = Stores(false);
    walk_block(&mut v, stmts);
    v.0
}

const MISPLACED: &str =
    "`#[store]` applies to `routine! { ... }` only (it stores the routine's results \
                         for the backward pass instead of uncomputing them)";

/// `#[store]` on something else than a routine.
pub fn misplaced(errors: &mut Errors, span: Span) {
    errors.push(span, MISPLACED);
}

/// The body recorded for the `unroutine!()` of the `#[store]` routine `body` at `span` (its
/// inverse stores the results), or `None` after reporting why it cannot be stored.
pub fn recorded_body(body: &[Stmt], span: Span, errors: &mut Errors) -> Option<Vec<Stmt>> {
    let allocs = top_allocs(body);
    // every ancilla allocated inside the routine (stored at its end or freed before)
    let local = allocated_names(body);
    let mut names: Vec<(syn::Ident, Expr)> = Vec::new();
    for (a, s) in &allocs {
        match inits(a) {
            Some(v) => names.extend(v),
            None => {
                errors.push(
                    s.span,
                    "a `#[store]` routine needs the initial value of each ancilla: write \
                     `let (a, b) = (x, y);` or one `let` per ancilla",
                );
                return None;
            }
        }
    }
    let declared: HashSet<String> = names.iter().map(|(n, _)| n.to_string()).collect();
    for (w, sp) in written_roots(body) {
        if !declared.contains(&w) && !local.contains(&w) {
            errors.push(
                sp,
                format!(
                    "a `#[store]` routine may only write the ancillas it declares, but it \
                     writes `{w}`: its results are stored instead of uncomputed, so this \
                     change could not be undone"
                ),
            );
            return None;
        }
    }
    if names.is_empty() {
        errors.push(
            span,
            "a `#[store]` routine declares no ancillas: there is nothing to store",
        );
        return None;
    }
    // the routine's location, naming it in the tape's entries (a stale entry is reported as
    // stored by another routine)
    let site: Expr = syn::parse_quote_spanned!(span=>
        ::core::concat!(::core::file!(), ":", ::core::line!(), ":", ::core::column!()));
    // the recorded body: the allocations, then the pops (inverse stores), in order, two
    // ancillas per call (`store2`: one push for both when they are stored as `f64`)
    let mut recorded: Vec<Stmt> = allocs.iter().map(|(_, s)| (*s).clone()).collect();
    for pair in names.chunks(2) {
        let place = |n: &syn::Ident| {
            CallArg::InOut(Place {
                root: n.clone(),
                path: Vec::new(),
                neg: false,
                span: n.span(),
                end: n.span(),
            })
        };
        let (callee, args): (syn::ExprPath, Vec<CallArg>) = match pair {
            [(a, ia), (b, ib)] => (
                syn::parse_quote!(::nilang::tape::store2),
                vec![
                    place(a),
                    place(b),
                    CallArg::Read(ia.clone()),
                    CallArg::Read(ib.clone()),
                ],
            ),
            [(a, ia)] => (
                syn::parse_quote!(::nilang::tape::store),
                vec![place(a), CallArg::Read(ia.clone())],
            ),
            _ => unreachable!("chunks of two"),
        };
        let kept: Vec<String> = pair.iter().map(|(n, _)| format!("`{n}`")).collect();
        let mut args = args;
        args.push(CallArg::Read(site.clone()));
        recorded.push(Stmt {
            id: StmtId::UNNUMBERED,
            kind: StmtKind::Call(Call {
                callee: Callee::Path(callee),
                args,
                inverse: true,
            }),
            span,
            text: format!(
                "#[store] routine: keep {} for the backward pass",
                kept.join(" and ")
            ),
            check: true,
        });
    }
    Some(recorded)
}

#[cfg(test)]
mod tests {
    use quote::quote;

    fn compile(body: proc_macro2::TokenStream) -> String {
        crate::compile_fn(quote!(), body).to_string()
    }

    #[test]
    fn a_store_routine_lowers_to_tape_calls() {
        let out = compile(quote!(
            fn f(y: &mut f64, x: &f64) {
                #[store(always)]
                routine! {
                    let a = 0.0;
                    a += x * 2.0;
                }
                y += a;
                unroutine!();
            }
        ));
        assert!(!out.contains("compile_error"), "{out}");
        // every body opens a cursor on the tape; forward: store; inverse: store_inv
        assert!(
            out.contains(":: nilang :: tape :: Guard :: new ()"),
            "{out}"
        );
        assert!(out.contains("__nilang_tape . store (& mut a"), "{out}");
        assert!(out.contains("__nilang_tape . store_inv (& mut a"), "{out}");
        assert!(out.contains("__nilang_tape . close ()"), "{out}");
    }

    #[test]
    fn a_store_routine_keeps_its_ancillas_two_per_call() {
        let out = compile(quote!(
            fn f(y: &mut f64, x: &f64) {
                #[store(always)]
                routine! {
                    let (a, b, c) = (0.0, 0.0, 0.0);
                    a += x * 2.0;
                    b += x * 3.0;
                    c += x * 4.0;
                }
                y += a * b;
                y += c;
                unroutine!();
            }
        ));
        assert!(!out.contains("compile_error"), "{out}");
        // forward: c alone, then a and b in one push; inverse: the pair, then c
        assert!(
            out.contains("__nilang_tape . store2 (& mut a , & mut b"),
            "{out}"
        );
        assert!(out.contains("__nilang_tape . store (& mut c"), "{out}");
        assert!(
            out.contains("__nilang_tape . store2_inv (& mut a , & mut b"),
            "{out}"
        );
        assert!(out.contains("__nilang_tape . store_inv (& mut c"), "{out}");
        let (pair_at, c_at) = (
            out.find("store2 (& mut a").unwrap(),
            out.find("store (& mut c").unwrap(),
        );
        assert!(c_at < pair_at, "c is pushed before the pair: {out}");
    }

    #[test]
    fn other_calls_release_the_cursor_and_functions_without_stores_have_none() {
        let out = compile(quote!(
            fn f(y: &mut f64, x: &f64) {
                #[store]
                routine! {
                    let a = 0.0;
                    g(&mut a, x);
                }
                y += a;
                unroutine!();
            }
        ));
        assert!(!out.contains("compile_error"), "{out}");
        let release = "__nilang_tape . release () ;";
        let at = out.find(release).expect(&out);
        let call = out[at..].find("g (& mut a").expect(&out) + at;
        let acquire = out[at..].find("__nilang_tape . acquire ()").expect(&out) + at;
        assert!(call < acquire, "{out}");
        let out = compile(quote!(
            fn f(y: &mut f64, x: &f64) {
                routine! {
                    let a = 0.0;
                    g(&mut a, x);
                }
                y += a;
                unroutine!();
            }
        ));
        assert!(!out.contains("__nilang_tape"), "{out}");
    }

    #[test]
    fn a_cheap_routine_is_recomputed_unless_stored_always() {
        let routine = |attr: proc_macro2::TokenStream, line: proc_macro2::TokenStream| {
            compile(quote!(
                fn f(y: &mut f64, x: &[f64; 4]) {
                    #attr
                    routine! {
                        let (a, b) = (0.0, 0.0);
                        a += x[1] + x[2];
                        a -= x[0] * 2.0;
                        #line
                    }
                    y += a * b;
                    unroutine!();
                }
            ))
        };
        // three instructions of additions, multiplications and a power for two ancillas:
        // joint mode (no cursor, the routine inverted at `unroutine!()`)
        let out = routine(quote!(#[store]), quote!(b += x[3].powi(3);));
        assert!(!out.contains("compile_error"), "{out}");
        assert!(!out.contains("__nilang_tape"), "{out}");
        // `#[store(always)]`: stored
        let out = routine(quote!(#[store(always)]), quote!(b += x[3].powi(3);));
        assert!(!out.contains("compile_error"), "{out}");
        assert!(
            out.contains("__nilang_tape . store2 (& mut a , & mut b"),
            "{out}"
        );
        // an elementary function, a division, a call: stored
        for line in [
            quote!(b += exp(x[3]);),
            quote!(b += x[3] / x[2];),
            quote!(g(&mut b, x[3]);),
        ] {
            let out = routine(quote!(#[store]), line);
            assert!(!out.contains("compile_error"), "{out}");
            assert!(out.contains("__nilang_tape . store2 (& mut a"), "{out}");
        }
        // more than eight instructions per ancilla: stored
        let out = compile(quote!(
            fn f(y: &mut f64, x: &f64) {
                #[store]
                routine! {
                    let a = 0.0;
                    a += x * 2.0;
                    a += x * 3.0;
                    a += x * 4.0;
                    a += x * 5.0;
                    a += x * 6.0;
                    a += x * 7.0;
                    a += x * 8.0;
                    a += x * 9.0;
                    a += x * 10.0;
                }
                y += a;
                unroutine!();
            }
        ));
        assert!(out.contains("__nilang_tape . store (& mut a"), "{out}");
    }

    #[test]
    fn a_cheap_routine_is_checked_as_a_stored_one() {
        let out = compile(quote!(
            fn f(y: &mut f64, x: &mut f64) {
                #[store]
                routine! {
                    let a = 0.0;
                    x += 1.0;
                }
                y += a;
                unroutine!();
            }
        ));
        assert!(out.contains("may only write the ancillas"), "{out}");
        let out = compile(quote!(
            fn f(y: &mut f64, x: &f64) {
                #[store(sometimes)]
                routine! {
                    let a = 0.0;
                    a += x * 2.0;
                }
                y += a;
                unroutine!();
            }
        ));
        assert!(out.contains("expected `#[store]`"), "{out}");
    }

    #[test]
    fn writing_an_outer_variable_is_rejected() {
        let out = compile(quote!(
            fn f(y: &mut f64, x: &mut f64) {
                #[store]
                routine! {
                    let a = 0.0;
                    x += 1.0;
                    a += x * 2.0;
                }
                y += a;
                unroutine!();
            }
        ));
        assert!(
            out.contains("may only write the ancillas it declares"),
            "{out}"
        );
    }

    #[test]
    fn store_elsewhere_is_rejected() {
        let out = compile(quote!(
            fn f(y: &mut f64, x: &f64) {
                #[store]
                g(y, x);
            }
        ));
        assert!(out.contains("applies to `routine! { ... }` only"), "{out}");
        let out = compile(quote!(
            fn f(y: &mut f64, x: &f64) {
                #[store]
                routine! {
                    y += x;
                }
                unroutine!();
            }
        ));
        assert!(out.contains("may only write the ancillas"), "{out}");
        let out = compile(quote!(
            fn f(y: &mut f64, x: &f64) {
                #[store]
                routine! {
                    let (a, b) = g();
                    a += x;
                }
                y += a;
                unroutine!();
            }
        ));
        assert!(
            out.contains("needs the initial value of each ancilla"),
            "{out}"
        );
    }
}
