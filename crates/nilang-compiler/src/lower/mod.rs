//! Lowering: the surface forms the parser keeps as written, rewritten into the core IR that
//! analysis, inversion and emission see.
//!
//! - `routine! { .. }` … `unroutine!()`: paired per block, the `unroutine!()` becoming the
//!   inverted routine ([`StmtKind::Routine`] with `undo`: compute–copy–uncompute stays visible
//!   for the one-pass analysis); `#[store]` routines record a body that stores their results
//!   ([`store`]);
//! - `inv! { .. }`: the inverted statements, spliced ([`StmtKind::Seq`]);
//! - slice loops `for x in xs`: `x` replaced by `xs[i]` in every place of the body;
//! - `x.powi(3)`: a literal exponent folded into the function, `PowiN<3>(x)`;
//! - `match k { 0 => .., 1 | 2 => .., _ => .. }` on integers: an `if` chain, each arm's
//!   pattern as its pre- and post-condition (`k == 1 || k == 2`).
//!
//! Each statement list is lowered after the lists inside it (as they were parsed).
use crate::errors::Errors;
use crate::invert::invert_block;
use crate::ir::*;
use crate::visit::{walk_stmt_mut, VisitMut};
use proc_macro2::{Span, TokenStream};
use syn::Path;

pub mod store;

/// Lower a parsed function body.
///
/// ```
/// use nilang_compiler::ir::StmtKind;
/// let f: syn::ItemFn = syn::parse_quote!(fn f(y: &mut f64, x: &f64) { inv! { y += x; } });
/// let mut errors = nilang_compiler::errors::Errors::default();
/// let mut body = nilang_compiler::parse::Parser { errors: &mut errors }.block(&f.block.stmts, true);
/// nilang_compiler::lower::lower(&mut body, &mut errors);
/// assert!(matches!(&body[0].kind, StmtKind::Seq(inv) if inv.len() == 1));
/// ```
pub fn lower(body: &mut [Stmt], errors: &mut Errors) {
    Lower { errors }.scope(body);
    number(body);
}

/// Give every statement of a lowered body its [`StmtId`], `1, 2, ..` in source order (a
/// statement before the statements inside it).
///
/// ```
/// use nilang_compiler::ir::StmtId;
/// let f: syn::ItemFn = syn::parse_quote!(fn f(y: &mut f64, x: &f64) { if (x > 0, x > 0) { y += x; } y += x; });
/// let mut errors = nilang_compiler::errors::Errors::default();
/// let mut body = nilang_compiler::parse::Parser { errors: &mut errors }.block(&f.block.stmts, true);
/// nilang_compiler::lower::lower(&mut body, &mut errors);
/// assert_eq!((body[0].id, body[1].id), (StmtId(1), StmtId(3)));
/// ```
pub fn number(body: &mut [Stmt]) {
    struct Number(u32);
    impl VisitMut for Number {
        fn visit_stmt_mut(&mut self, s: &mut Stmt) {
            self.0 += 1;
            s.id = StmtId(self.0);
            walk_stmt_mut(self, s);
        }
    }
    crate::visit::walk_block_mut(&mut Number(0), body);
}

struct Lower<'e> {
    errors: &'e mut Errors,
}

impl VisitMut for Lower<'_> {
    fn visit_block_mut(&mut self, b: &mut [Stmt]) {
        self.scope(b);
    }
    // the body of a routine or an inverse block is a block of the parser: its routines pair
    // within it
    fn visit_spliced_mut(&mut self, b: &mut [Stmt]) {
        self.scope(b);
    }
}

impl Lower<'_> {
    /// Lower one statement list: the lists inside each statement first, then the statement.
    fn scope(&mut self, stmts: &mut [Stmt]) {
        let mut routines: Vec<(Span, Vec<Stmt>)> = Vec::new();
        for s in stmts.iter_mut() {
            walk_stmt_mut(self, s);
            self.stmt(s, &mut routines);
        }
        for (span, _) in routines {
            self.errors.push(
                span,
                "`routine!` without a matching `unroutine!()` in the same block: the computed \
                 values would never be uncomputed",
            );
        }
    }

    fn stmt(&mut self, s: &mut Stmt, routines: &mut Vec<(Span, Vec<Stmt>)>) {
        let kind = match &mut s.kind {
            StmtKind::Routine { body, undo: false } => {
                routines.push((s.span, body.clone()));
                return;
            }
            StmtKind::Surface(Surface::StoreRoutine(body, mode)) => {
                let body = std::mem::take(body);
                // checked alike whether it is stored or, being cheap, recomputed
                let recorded = store::recorded_body(&body, s.span, self.errors);
                let recompute = *mode == StoreMode::UnlessCheap && store::cheap(&body);
                let undo = match recorded {
                    Some(recorded) if !recompute => recorded,
                    _ => body.clone(),
                };
                routines.push((s.span, undo));
                StmtKind::Routine { body, undo: false }
            }
            StmtKind::Surface(Surface::Unroutine) => match routines.pop() {
                Some((_, body)) => StmtKind::Routine {
                    body: invert_block(&body),
                    undo: true,
                },
                None => {
                    self.errors.push(
                        s.span,
                        "`unroutine!()` without a preceding `routine! { ... }` in the same block",
                    );
                    // nothing to undo: an empty spliced list
                    StmtKind::Seq(vec![])
                }
            },
            StmtKind::Surface(Surface::Inv(body)) => StmtKind::Seq(invert_block(body)),
            StmtKind::Surface(Surface::Match {
                scrutinee,
                arms,
                otherwise,
            }) => StmtKind::If {
                branches: std::mem::take(arms)
                    .into_iter()
                    .map(|a| {
                        let c = matches_pattern(scrutinee, &a.pat);
                        Branch {
                            pre: c.clone(),
                            post: c,
                            body: a.body,
                        }
                    })
                    .collect(),
                otherwise: Some(std::mem::take(otherwise)),
            },
            StmtKind::For {
                var,
                iter: ForIter::Indices { slice, .. },
                body,
            } => {
                Substitute {
                    var,
                    slice,
                    idx: slice_index(var),
                }
                .visit_block_mut(body);
                return;
            }
            StmtKind::Instr(i) => {
                powi_literal(i);
                return;
            }
            _ => return,
        };
        s.kind = kind;
    }
}

/// Replaces the loop variable `var` of a slice loop by `slice[idx]` in every place.
struct Substitute<'a> {
    var: &'a syn::Ident,
    slice: &'a Place,
    idx: syn::Ident,
}

impl VisitMut for Substitute<'_> {
    fn visit_place_mut(&mut self, p: &mut Place) {
        if &p.root == self.var {
            let idx = &self.idx;
            let mut np = self.slice.clone();
            np.path.push(Proj::Index(syn::parse_quote!(#idx)));
            np.path.append(&mut p.path);
            np.neg = p.neg;
            np.span = p.span;
            np.end = p.end;
            *p = np;
        }
    }
}

/// `x.powi(3)`: a literal exponent becomes part of the function, `PowiN<3>(x)`.
fn powi_literal(i: &mut Instr) {
    if !matches!(i.func, FuncRef::Builtin("Powi")) {
        return;
    }
    if let Some(Operand::Lit {
        lit: syn::Lit::Int(n),
        neg,
        span,
    }) = i.args.get(1)
    {
        let n = n.base10_digits();
        let n: TokenStream = if *neg {
            format!("-{n}").parse().unwrap_or_default()
        } else {
            n.parse().unwrap_or_default()
        };
        let path: Path = syn::parse_quote_spanned!(*span=> ::nilang::instr::fns::PowiN<{ #n }>);
        i.args.truncate(1);
        i.func = FuncRef::User(path);
    }
}

/// The condition that integer `k` matches pattern `p` (a literal, a range of literals, `|` of
/// those: what the parser admits): `k == 3`, `(2 <= k && k < 5)`, `k == 1 || k == 2`.
fn matches_pattern(k: &syn::Expr, p: &syn::Pat) -> syn::Expr {
    use syn::{parse_quote, Expr, Pat};
    let k: Expr = match k {
        Expr::Path(_) | Expr::Field(_) | Expr::Index(_) | Expr::Lit(_) | Expr::Paren(_) => {
            k.clone()
        }
        k => parse_quote!((#k)),
    };
    match p {
        Pat::Lit(l) => parse_quote!(#k == #l),
        Pat::Range(r) => {
            let lower = r.start.as_ref().map(|a| quote::quote!(#a <= #k));
            let upper = r.end.as_ref().map(|b| match r.limits {
                syn::RangeLimits::Closed(_) => quote::quote!(#k <= #b),
                syn::RangeLimits::HalfOpen(_) => quote::quote!(#k < #b),
            });
            let both: Vec<TokenStream> = lower.into_iter().chain(upper).collect();
            parse_quote!((#(#both)&&*))
        }
        Pat::Or(o) => {
            let cases = o.cases.iter().map(|c| matches_pattern(&k, c));
            parse_quote!(#(#cases)||*)
        }
        Pat::Paren(p) => matches_pattern(&k, &p.pat),
        // (the parser admits no other pattern)
        _ => parse_quote!(false),
    }
}
