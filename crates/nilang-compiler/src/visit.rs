//! Walking the IR, in the manner of `syn::visit`: [`Visit`] reads it, [`VisitMut`] changes it.
//!
//! A pass overrides the methods for what it looks at and calls the matching `walk_*` function
//! to go on into the children; the walk functions alone know the shape of every
//! [`StmtKind`], so a pass names only what it needs. Two kinds of statement lists are told
//! apart: a *block* (a branch, a loop body, `{ ... }`: its own ancilla scope) and a *spliced*
//! list (`inv!`, `routine!`/`unroutine!()` bodies: statements of the enclosing scope).
//!
//! ```
//! use nilang_compiler::ir::Place;
//! use nilang_compiler::visit::{walk_block, Visit};
//!
//! /// The roots of every place, in order.
//! struct Roots(Vec<String>);
//! impl<'ir> Visit<'ir> for Roots {
//!     fn visit_place(&mut self, p: &'ir Place) {
//!         self.0.push(p.root.to_string());
//!     }
//! }
//! let f: syn::ItemFn = syn::parse_quote!(fn f(y: &mut f64, x: &f64) { y += sin(x); });
//! let mut errors = nilang_compiler::errors::Errors::default();
//! let body = nilang_compiler::parse::Parser { errors: &mut errors }.block(&f.block.stmts, true);
//! let mut roots = Roots(vec![]);
//! walk_block(&mut roots, &body);
//! assert_eq!(roots.0, ["y", "x"]);
//! ```
use crate::ir::*;
use syn::Expr;

/// A read-only walk over the IR.
pub trait Visit<'ir> {
    /// A statement (default: its parts, [`walk_stmt`]).
    fn visit_stmt(&mut self, s: &'ir Stmt) {
        walk_stmt(self, s)
    }
    /// A statement list with its own ancilla scope (default: each statement).
    fn visit_block(&mut self, b: &'ir [Stmt]) {
        walk_block(self, b)
    }
    /// A statement list spliced into the enclosing scope (default: each statement).
    fn visit_spliced(&mut self, b: &'ir [Stmt]) {
        walk_block(self, b)
    }
    /// An instruction operand (default: its places, [`walk_operand`]).
    fn visit_operand(&mut self, o: &'ir Operand) {
        walk_operand(self, o)
    }
    /// A place: an instruction operand, a call's in-out argument or receiver, a slice looped
    /// over, a stack and its value, a workspace of `fresh!`.
    fn visit_place(&mut self, _p: &'ir Place) {}
    /// A Rust expression passed through: a condition, a loop bound, an ancilla's value, a
    /// read-only call argument.
    fn visit_expr(&mut self, _e: &'ir Expr) {}
}

/// A walk over the IR that may change it (the methods of [`Visit`], on `&mut`).
pub trait VisitMut {
    /// A statement (default: its parts, [`walk_stmt_mut`]).
    fn visit_stmt_mut(&mut self, s: &mut Stmt) {
        walk_stmt_mut(self, s)
    }
    /// A statement list with its own ancilla scope (default: each statement).
    fn visit_block_mut(&mut self, b: &mut [Stmt]) {
        walk_block_mut(self, b)
    }
    /// A statement list spliced into the enclosing scope (default: each statement).
    fn visit_spliced_mut(&mut self, b: &mut [Stmt]) {
        walk_block_mut(self, b)
    }
    /// An instruction operand (default: its places).
    fn visit_operand_mut(&mut self, o: &mut Operand) {
        walk_operand_mut(self, o)
    }
    /// A place (see [`Visit::visit_place`]).
    fn visit_place_mut(&mut self, _p: &mut Place) {}
    /// A Rust expression passed through (see [`Visit::visit_expr`]).
    fn visit_expr_mut(&mut self, _e: &mut Expr) {}
}

/// The walk functions of [`Visit`] and [`VisitMut`], written once: `[$($g)*]` the generics,
/// `[$($r)*]` the reference type, `[$($b)*]` the borrow, then the function and method names.
macro_rules! walkers {
    ([$($g:tt)*] [$($r:tt)*] [$($b:tt)*] $walk_stmt:ident $walk_block:ident $walk_operand:ident
     $stmt:ident $block:ident $spliced:ident $operand:ident $place:ident $expr:ident) => {
        /// Visit each statement of a list.
        pub fn $walk_block<$($g)*>(v: &mut V, b: $($r)* [Stmt]) {
            for s in b {
                v.$stmt(s);
            }
        }

        /// Visit the places of an operand.
        pub fn $walk_operand<$($g)*>(v: &mut V, o: $($r)* Operand) {
            match o {
                Operand::Place(p) => v.$place(p),
                Operand::Tuple(t, _) => {
                    for o in t {
                        v.$operand(o);
                    }
                }
                Operand::Lit { .. } | Operand::Const { .. } => {}
            }
        }

        /// Visit the parts of a statement, in source order.
        pub fn $walk_stmt<$($g)*>(v: &mut V, s: $($r)* Stmt) {
            match $($b)* s.kind {
                StmtKind::Instr(i) => {
                    v.$operand($($b)* i.target);
                    for a in $($b)* i.args {
                        v.$operand(a);
                    }
                }
                StmtKind::Call(c) => {
                    if let Callee::Method { receiver, .. } = $($b)* c.callee {
                        v.$place(receiver);
                    }
                    for a in $($b)* c.args {
                        match a {
                            CallArg::InOut(p) | CallArg::Name(p) => v.$place(p),
                            CallArg::Read(e) => v.$expr(e),
                        }
                    }
                }
                StmtKind::Alloc(a) | StmtKind::Dealloc(a) => v.$expr($($b)* a.value),
                StmtKind::If { branches, otherwise } => {
                    for b in branches {
                        v.$expr($($b)* b.pre);
                        v.$block($($b)* b.body);
                        v.$expr($($b)* b.post);
                    }
                    if let Some(o) = otherwise {
                        v.$block(o);
                    }
                }
                StmtKind::While { pre, post, body, step, step_first } => {
                    v.$expr(pre);
                    if *step_first {
                        v.$block(step);
                    }
                    v.$block(body);
                    if !*step_first {
                        v.$block(step);
                    }
                    v.$expr(post);
                }
                StmtKind::For { iter, body, .. } => {
                    match iter {
                        ForIter::Range(r) => {
                            v.$expr($($b)* r.start);
                            v.$expr($($b)* r.end);
                            if let Some(st) = $($b)* r.step {
                                v.$expr(st);
                            }
                        }
                        ForIter::Indices { slice, .. } => v.$place(slice),
                    }
                    v.$block(body);
                }
                StmtKind::DoLoop { from, first, until, second } => {
                    v.$expr(from);
                    v.$block(first);
                    v.$expr(until);
                    v.$block(second);
                }
                StmtKind::Block(b) => v.$block(b),
                StmtKind::Seq(b)
                | StmtKind::Routine { body: b, .. }
                | StmtKind::Surface(Surface::Inv(b) | Surface::StoreRoutine(b, _)) => v.$spliced(b),
                StmtKind::Stack { stack, value, .. } => {
                    v.$place(stack);
                    v.$place(value);
                }
                StmtKind::Fresh(ps) => {
                    for p in ps {
                        v.$place(p);
                    }
                }
                StmtKind::Surface(Surface::Match { scrutinee, arms, otherwise }) => {
                    v.$expr(scrutinee);
                    for a in arms {
                        v.$block($($b)* a.body);
                    }
                    v.$block(otherwise);
                }
                StmtKind::Surface(Surface::Unroutine) | StmtKind::Move { .. } | StmtKind::Safe(_) => {}
            }
        }
    };
}

walkers!(['ir, V: Visit<'ir> + ?Sized] [&'ir] [&] walk_stmt walk_block walk_operand
    visit_stmt visit_block visit_spliced visit_operand visit_place visit_expr);
walkers!([V: VisitMut + ?Sized] [&mut] [&mut] walk_stmt_mut walk_block_mut walk_operand_mut
    visit_stmt_mut visit_block_mut visit_spliced_mut visit_operand_mut visit_place_mut
    visit_expr_mut);

/// A part of a statement one level down, as the walk visits it: what a pass that has no arm
/// for a statement kind looks at (see [`parts`]).
#[derive(Clone, Copy, Debug)]
pub enum Part<'ir> {
    /// A statement list with its own ancilla scope (a branch, a loop body).
    Block(&'ir [Stmt]),
    /// A statement list spliced into the enclosing scope.
    Spliced(&'ir [Stmt]),
    /// An instruction operand.
    Operand(&'ir Operand),
    /// A place (written, or only read: a pass that does not know the kind assumes written).
    Place(&'ir Place),
    /// A Rust expression passed through (read).
    Expr(&'ir Expr),
}

/// The parts of a statement, in source order, without going into its statement lists: a pass
/// handles the kinds it cares about and folds over the parts of the others, so a new
/// statement kind needs an arm only in the passes that treat it specially (and here, in the
/// walk).
///
/// ```
/// use nilang_compiler::visit::{parts, Part};
/// let f: syn::ItemFn = syn::parse_quote!(fn f(y: &mut f64, x: &f64) {
///     while (x > 0.0, y > 0.0, { y += x; }) { y += 1.0; }
/// });
/// let mut errors = nilang_compiler::errors::Errors::default();
/// let body = nilang_compiler::parse::Parser { errors: &mut errors }.block(&f.block.stmts, true);
/// let kinds: Vec<&str> = parts(&body[0])
///     .iter()
///     .map(|p| match p {
///         Part::Block(_) => "block",
///         Part::Spliced(_) => "spliced",
///         Part::Operand(_) | Part::Place(_) => "place",
///         Part::Expr(_) => "expr",
///     })
///     .collect();
/// assert_eq!(kinds, ["expr", "block", "block", "expr"]);
/// ```
pub fn parts(s: &Stmt) -> Vec<Part<'_>> {
    struct Parts<'ir>(Vec<Part<'ir>>);
    impl<'ir> Visit<'ir> for Parts<'ir> {
        fn visit_block(&mut self, b: &'ir [Stmt]) {
            self.0.push(Part::Block(b));
        }
        fn visit_spliced(&mut self, b: &'ir [Stmt]) {
            self.0.push(Part::Spliced(b));
        }
        fn visit_operand(&mut self, o: &'ir Operand) {
            self.0.push(Part::Operand(o));
        }
        fn visit_place(&mut self, p: &'ir Place) {
            self.0.push(Part::Place(p));
        }
        fn visit_expr(&mut self, e: &'ir Expr) {
            self.0.push(Part::Expr(e));
        }
    }
    let mut v = Parts(vec![]);
    walk_stmt(&mut v, s);
    v.0
}

pub(crate) fn mentions_expr(e: &syn::Expr, y: &str) -> bool {
    crate::syntax::mentions_name(e, y)
}

pub(crate) fn mentions_place(p: &Place, y: &str) -> bool {
    p.root == y || indices_mention(p, y)
}

pub(crate) fn indices_mention(p: &Place, y: &str) -> bool {
    p.path.iter().any(|pr| match pr {
        Proj::Index(e) => mentions_expr(e, y),
        Proj::Field(_) => false,
    })
}

pub(crate) fn mentions_operand(o: &Operand, y: &str) -> bool {
    match o {
        Operand::Place(p) => mentions_place(p, y),
        Operand::Lit { .. } => false,
        Operand::Const { expr, .. } => mentions_expr(expr, y),
        Operand::Tuple(v, _) => v.iter().any(|o| mentions_operand(o, y)),
    }
}

pub(crate) fn mentions_arg(a: &CallArg, y: &str) -> bool {
    match a {
        CallArg::InOut(p) | CallArg::Name(p) => mentions_place(p, y),
        CallArg::Read(e) => mentions_expr(e, y),
    }
}

/// Whether any statement of `b` mentions `y` (reads or writes it).
pub fn mentions(b: &[Stmt], y: &str) -> bool {
    let mut v = Mentions { y, found: false };
    walk_block(&mut v, b);
    v.found
}

/// Finds a mention of `y`: a place, an expression, a name allocated, moved or looped over.
struct Mentions<'a> {
    y: &'a str,
    found: bool,
}

impl<'ir> Visit<'ir> for Mentions<'_> {
    fn visit_stmt(&mut self, s: &'ir Stmt) {
        let y = self.y;
        self.found |= match &s.kind {
            StmtKind::Alloc(a) | StmtKind::Dealloc(a) => a.names.iter().any(|n| n == y),
            StmtKind::For { var, .. } => var == y,
            StmtKind::Move { dst, src } => dst == y || src == y,
            _ => false,
        };
        if !self.found {
            walk_stmt(self, s);
        }
    }
    fn visit_operand(&mut self, o: &'ir Operand) {
        self.found |= mentions_operand(o, self.y);
    }
    fn visit_place(&mut self, p: &'ir Place) {
        self.found |= mentions_place(p, self.y);
    }
    fn visit_expr(&mut self, e: &'ir syn::Expr) {
        self.found |= mentions_expr(e, self.y);
    }
}
