//! Static checks: ancilla bookkeeping per scope, read-only parameters, shared read/write of one
//! storage in one statement, and constant operands. All errors are collected.
use crate::errors::Errors;
use crate::ir::*;
use crate::visit::{parts, Part};
use proc_macro2::Span;
use std::collections::HashMap;
use syn::visit::Visit;

/// How a parameter is passed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamKind {
    /// `&mut T`: in-out.
    InOut,
    /// `&T`: read-only.
    ReadRef,
    /// `T` by value: read-only.
    ByValue,
}

/// The relation between two places rooted at the same variable.
#[derive(Debug)]
pub enum Relation {
    /// Different fields: never the same storage.
    Disjoint,
    /// Syntactically the same storage.
    Same,
    /// One contains the other (`x` and `x.f`).
    Contains,
    /// Equal if these index expressions are equal at runtime.
    MaybeSame(Vec<(syn::Expr, syn::Expr)>),
}

fn tokens_eq(a: &syn::Expr, b: &syn::Expr) -> bool {
    quote::quote!(#a).to_string() == quote::quote!(#b).to_string()
}

/// Compare two places.
pub fn relation(a: &Place, b: &Place) -> Relation {
    if a.root != b.root {
        return Relation::Disjoint;
    }
    let mut pending = vec![];
    for (pa, pb) in a.path.iter().zip(&b.path) {
        match (pa, pb) {
            (Proj::Field(fa), Proj::Field(fb)) => {
                if fa != fb {
                    return Relation::Disjoint;
                }
            }
            (Proj::Index(ia), Proj::Index(ib)) => {
                if !tokens_eq(ia, ib) {
                    pending.push((ia.clone(), ib.clone()));
                }
            }
            _ => return Relation::Disjoint,
        }
    }
    if !pending.is_empty() {
        Relation::MaybeSame(pending)
    } else if a.path.len() == b.path.len() {
        Relation::Same
    } else {
        Relation::Contains
    }
}

/// Collect the places of an operand.
pub fn operand_places<'a>(o: &'a Operand, out: &mut Vec<&'a Place>) {
    match o {
        Operand::Place(p) => out.push(p),
        Operand::Tuple(t, _) => t.iter().for_each(|o| operand_places(o, out)),
        _ => {}
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Status {
    Live(usize),
    Dead,
}

/// The symbol table walked over the forward program.
pub struct Analyzer<'e> {
    /// The parameters, by name.
    pub params: HashMap<String, ParamKind>,
    locals: HashMap<String, (Status, Span)>,
    loop_vars: Vec<String>,
    scopes: Vec<Vec<(String, Span)>>,
    /// Where the errors found go.
    pub errors: &'e mut Errors,
}

impl<'e> Analyzer<'e> {
    /// An analyzer of a function with parameters `params`, no local in scope yet.
    pub fn new(params: HashMap<String, ParamKind>, errors: &'e mut Errors) -> Self {
        Analyzer {
            params,
            locals: HashMap::new(),
            loop_vars: vec![],
            scopes: vec![],
            errors,
        }
    }

    /// Check a function body.
    pub fn function(&mut self, body: &[Stmt]) {
        self.scope(body, "the function body");
    }

    fn scope(&mut self, body: &[Stmt], what: &str) {
        self.scopes.push(vec![]);
        for s in body {
            self.stmt(s);
        }
        let depth = self.scopes.len();
        let allocated = self.scopes.pop().unwrap_or_default();
        for (name, span) in allocated {
            if let Some((Status::Live(d), _)) = self.locals.get(&name) {
                if *d == depth {
                    self.errors.push(
                        span,
                        format!(
                            "ancilla `{name}` is not deallocated before the end of {what}; add \
                             `dealloc!({name} = <its value>)` (ancillas must be returned in the \
                             scope that allocated them)"
                        ),
                    );
                    self.locals.insert(name, (Status::Dead, span));
                }
            }
        }
    }

    fn is_writable_root(&self, name: &str) -> bool {
        matches!(self.params.get(name), Some(ParamKind::InOut))
            || matches!(self.locals.get(name), Some((Status::Live(_), _)))
    }

    /// Whether a root names a variable of this function (as opposed to a global constant).
    fn is_variable(&self, name: &str) -> bool {
        self.params.contains_key(name)
            || self.locals.contains_key(name)
            || self.loop_vars.iter().any(|v| v == name)
    }

    fn check_use(&mut self, p: &Place) {
        let name = p.root.to_string();
        if self.loop_vars.contains(&name) {
            return;
        }
        if let Some((Status::Dead, at)) = self.locals.get(&name) {
            let _ = at;
            if !self.params.contains_key(&name) {
                self.errors.push_range(
                    p.span,
                    p.end,
                    format!("`{name}` is used after it was deallocated"),
                );
            }
        }
        for proj in &p.path {
            if let Proj::Index(e) = proj {
                self.check_reads(e);
            }
        }
    }

    fn check_target(&mut self, p: &Place) {
        let name = p.root.to_string();
        if self.loop_vars.contains(&name) {
            self.errors.push_range(
                p.span,
                p.end,
                format!("loop variable `{name}` is read-only"),
            );
            return;
        }
        match self.params.get(&name) {
            Some(ParamKind::InOut) => return,
            Some(k) => {
                self.errors.push_range(
                    p.span,
                    p.end,
                    format!(
                        "`{name}` is a read-only parameter ({}); declare it `&mut` to change it",
                        if *k == ParamKind::ReadRef {
                            "`&T`"
                        } else {
                            "passed by value"
                        }
                    ),
                );
                return;
            }
            None => {}
        }
        match self.locals.get(&name) {
            Some((Status::Live(_), _)) => {}
            Some((Status::Dead, _)) => {} // reported by check_use
            None => self.errors.push_range(
                p.span,
                p.end,
                format!("cannot write `{name}`: it is neither a `&mut` parameter nor an ancilla of this function"),
            ),
        }
    }

    /// Identifiers in a constant operand or an ancilla value must not be variables whose value
    /// changes (in-out parameters, ancillas): their gradient would be silently lost.
    fn check_const(&mut self, e: &syn::Expr, what: &str) {
        let bad: Vec<(String, Span)> = read_names(e, true)
            .into_iter()
            .filter(|(n, _)| self.is_writable_root(n))
            .collect();
        for (n, span) in bad {
            let advice = if what.starts_with("an ancilla") {
                format!(
                    "an ancilla is allocated from a constant: write `let a = 0.0; a += {n};` \
                     to copy `{n}` (and `a -= {n}` before `dealloc!(a = 0.0)`)"
                )
            } else {
                "compute the expression into an ancilla first (or mark a true constant with \
                 `cst!(...)`)"
                    .to_string()
            };
            self.errors.push(
                span,
                format!(
                    "{what} reads `{n}`, a variable that changes (an in-out parameter or an \
                     ancilla): its value is not written back and its gradient would be lost; \
                     {advice}"
                ),
            );
        }
    }

    fn check_reads(&mut self, e: &syn::Expr) {
        let dead = read_names(e, false).into_iter().filter(|(n, _)| {
            matches!(self.locals.get(n), Some((Status::Dead, _)))
                && !self.params.contains_key(n)
                && !self.loop_vars.contains(n)
        });
        let dead: Vec<(String, Span)> = dead.collect();
        for (n, s) in dead {
            self.errors
                .push(s, format!("`{n}` is used after it was deallocated"));
        }
    }

    fn check_sharing(&mut self, places: &[&Place], what: &str) {
        for i in 0..places.len() {
            for j in 0..i {
                let (a, b) = (places[j], places[i]);
                if !self.is_writable_root(&a.root.to_string()) {
                    continue;
                }
                match relation(a, b) {
                    Relation::Same => self.errors.push_range(
                        b.span,
                        b.end,
                        format!(
                            "`{}` appears twice in one {what} (shared read/write): the statement \
                             would not be invertible and its gradient would be wrong; copy one \
                             use into an ancilla first",
                            crate::syntax::stmt_text(&place_tokens(b))
                        ),
                    ),
                    Relation::Contains => self.errors.push_range(
                        b.span,
                        b.end,
                        format!(
                            "`{}` and `{}` overlap in one {what} (one contains the other): shared \
                             read/write is not invertible; copy one of them into an ancilla first",
                            crate::syntax::stmt_text(&place_tokens(a)),
                            crate::syntax::stmt_text(&place_tokens(b))
                        ),
                    ),
                    _ => {}
                }
            }
        }
    }

    fn allocate(&mut self, n: &syn::Ident) {
        let depth = self.scopes.len();
        let name = n.to_string();
        if self.params.contains_key(&name) {
            self.errors.push(
                n.span(),
                format!("`{name}` is a parameter and cannot be allocated as an ancilla"),
            );
        } else if let Some((Status::Live(_), _)) = self.locals.get(&name) {
            self.errors.push(
                n.span(),
                format!("`{name}` is already allocated (double allocation); deallocate it first or choose another name"),
            );
        } else if self.loop_vars.contains(&name) {
            self.errors
                .push(n.span(), format!("`{name}` is a loop variable"));
        } else {
            self.locals
                .insert(name.clone(), (Status::Live(depth), n.span()));
            if let Some(sc) = self.scopes.last_mut() {
                sc.push((name, n.span()));
            }
        }
    }

    fn deallocate(&mut self, n: &syn::Ident) {
        let depth = self.scopes.len();
        let name = n.to_string();
        match (self.params.get(&name), self.locals.get(&name)) {
            (Some(_), _) => self.errors.push(
                n.span(),
                format!("`{name}` is a parameter and cannot be deallocated"),
            ),
            (None, Some((Status::Live(d), _))) if *d == depth => {
                self.locals.insert(name, (Status::Dead, n.span()));
            }
            (None, Some((Status::Live(_), _))) => self.errors.push(
                n.span(),
                format!("`{name}` was allocated outside this block; deallocate it in the block that allocated it"),
            ),
            (None, Some((Status::Dead, _))) => self.errors.push(
                n.span(),
                format!("`{name}` is already deallocated (double deallocation)"),
            ),
            (None, None) => self.errors.push(
                n.span(),
                format!("`{name}` was never allocated; allocate it with `let {name} = ...;`"),
            ),
        }
    }

    /// `g_inv(y, x)`: the generated inverse of `g` called by name (Janus's `uncall g`); its
    /// own inverse `g_inv_inv` does not exist, so the call is written `inv! { g(y, x); }`.
    fn check_uncall_by_name(&mut self, c: &Call, s: &Stmt) {
        let Callee::Path(p) = &c.callee else {
            return;
        };
        let Some(last) = p.path.segments.last() else {
            return;
        };
        let name = last.ident.to_string();
        // (`i_inv` is the standard library's matrix inverse, with its own `i_inv_inv`)
        let Some(base) = name
            .strip_suffix(crate::abi::INVERSE_SUFFIX)
            .filter(|b| !b.is_empty() && *b != "i")
        else {
            return;
        };
        let text = s.text.trim_end_matches(';').trim();
        let call = text.replacen(&name, base, 1);
        let (open, close) = if c.inverse {
            ("", "")
        } else {
            ("inv! { ", "; }")
        };
        self.errors.push(
            last.ident.span(),
            format!(
                "`{name}` is the generated inverse of `{base}`; to run `{base}` backwards \
                 (uncall) write `{open}{call}{close}` (a function whose own name ends in \
                 `_inv` cannot be called from `#[i]` code: rename it)"
            ),
        );
    }

    fn stmt(&mut self, s: &Stmt) {
        match &s.kind {
            StmtKind::Instr(i) => {
                let mut places = vec![];
                operand_places(&i.target, &mut places);
                for p in &places {
                    self.check_use(p);
                    self.check_target(p);
                }
                let nt = places.len();
                for a in &i.args {
                    operand_places(a, &mut places);
                    match a {
                        Operand::Const {
                            expr,
                            explicit: false,
                        } => self.check_const(expr, "an instruction operand"),
                        Operand::Tuple(_, sp) => self
                            .errors
                            .push(*sp, "tuple operands are only allowed as targets"),
                        _ => {}
                    }
                }
                for p in &places[nt..] {
                    self.check_use(p);
                }
                let places: Vec<&Place> = places
                    .into_iter()
                    .filter(|p| self.is_variable(&p.root.to_string()))
                    .collect();
                self.check_sharing(&places, "instruction");
            }
            StmtKind::Call(c) => {
                self.check_uncall_by_name(c, s);
                let mut places = vec![];
                if let Callee::Method { receiver, .. } = &c.callee {
                    self.check_use(receiver);
                    self.check_target(receiver);
                    places.push(receiver);
                }
                let reads: Vec<Place> = c
                    .read_places()
                    .filter(|p| self.is_variable(&p.root.to_string()))
                    .collect();
                for a in &c.args {
                    let params = &self.params;
                    match a.inout_place(|n| params.get(n) == Some(&ParamKind::InOut)) {
                        Some(p) => {
                            self.check_use(p);
                            self.check_target(p);
                            places.push(p);
                        }
                        // a bare name that is not a `&mut` parameter is passed as written
                        None => match a {
                            CallArg::Name(p) => self.check_use(p),
                            CallArg::Read(e) => self.check_reads(e),
                            CallArg::InOut(_) => {}
                        },
                    }
                }
                places.extend(reads.iter());
                self.check_sharing(&places, "call");
            }
            StmtKind::Alloc(a) => {
                self.check_const(&a.value, "an ancilla's initial value");
                self.check_reads(&a.value);
                for n in &a.names {
                    self.allocate(n);
                }
            }
            StmtKind::Dealloc(a) => {
                self.check_const(&a.value, "an ancilla's deallocation value");
                for n in &a.names {
                    self.deallocate(n);
                }
                self.check_reads(&a.value);
            }
            StmtKind::If {
                branches,
                otherwise,
            } => {
                for b in branches {
                    self.check_reads(&b.pre);
                    self.check_reads(&b.post);
                    self.scope(&b.body, "its `if` branch");
                }
                if let Some(o) = otherwise {
                    self.scope(o, "its `else` branch");
                }
            }
            StmtKind::While {
                pre,
                post,
                body,
                step,
                ..
            } => {
                self.check_reads(pre);
                self.check_reads(post);
                self.scope(body, "the `while` body");
                self.scope(step, "the `while` step");
            }
            StmtKind::DoLoop {
                from,
                first,
                until,
                second,
            } => {
                self.check_reads(from);
                self.check_reads(until);
                self.scope(first, "the part of the loop before `if c { break }`");
                self.scope(second, "the part of the loop after `if c { break }`");
            }
            StmtKind::For { var, iter, body } => {
                match iter {
                    ForIter::Range(r) => r.exprs().for_each(|e| self.check_reads(e)),
                    ForIter::Indices { slice, .. } => self.check_use(slice),
                }
                self.loop_vars.push(var.to_string());
                self.scope(body, "the `for` body");
                self.loop_vars.pop();
            }
            StmtKind::Fresh(ps) => {
                for p in ps {
                    self.check_use(p);
                    self.check_target(p);
                }
                let refs: Vec<&Place> = ps.iter().collect();
                self.check_sharing(&refs, "`fresh!`");
            }
            StmtKind::Move { dst, src } => {
                self.deallocate(src);
                self.allocate(dst);
            }
            StmtKind::Stack { stack, value, .. } => {
                for p in [stack, value] {
                    self.check_use(p);
                    self.check_target(p);
                }
                self.check_sharing(&[stack, value], "stack operation");
            }
            // every other kind (blocks, spliced lists, `safe!`): its parts, a place taken as
            // written
            _ => {
                for part in parts(s) {
                    match part {
                        Part::Block(b) => self.scope(b, "its block"),
                        Part::Spliced(b) => b.iter().for_each(|s| self.stmt(s)),
                        Part::Operand(o) => {
                            let mut places = vec![];
                            operand_places(o, &mut places);
                            places.into_iter().for_each(|p| self.check_written(p));
                        }
                        Part::Place(p) => self.check_written(p),
                        Part::Expr(e) => self.check_reads(e),
                    }
                }
            }
        }
    }

    /// A place written: in scope and writable.
    fn check_written(&mut self, p: &Place) {
        self.check_use(p);
        self.check_target(p);
    }
}

/// The single-identifier paths an expression reads (not inside macros), in order; with
/// `skip_shape`, not those only asked for their shape (`v.len()`, `m.nrows()`, ...).
fn read_names(e: &syn::Expr, skip_shape: bool) -> Vec<(String, Span)> {
    struct Names {
        skip_shape: bool,
        out: Vec<(String, Span)>,
    }
    impl<'ast> Visit<'ast> for Names {
        fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
            let shape = [
                "len", "is_empty", "nrows", "ncols", "shape", "dim", "capacity",
            ];
            if self.skip_shape
                && shape.contains(&m.method.to_string().as_str())
                && m.args.is_empty()
            {
                return;
            }
            syn::visit::visit_expr_method_call(self, m);
        }
        fn visit_expr_path(&mut self, p: &'ast syn::ExprPath) {
            if let Some(id) = p.path.get_ident() {
                self.out.push((id.to_string(), id.span()));
            }
        }
        fn visit_macro(&mut self, _: &'ast syn::Macro) {}
    }
    let mut v = Names {
        skip_shape,
        out: vec![],
    };
    v.visit_expr(e);
    v.out
}

/// Tokens of a place as written (for messages).
pub fn place_tokens(p: &Place) -> proc_macro2::TokenStream {
    let root = &p.root;
    let mut t = quote::quote!(#root);
    for proj in &p.path {
        t = match proj {
            Proj::Field(m) => quote::quote!(#t.#m),
            Proj::Index(e) => quote::quote!(#t[#e]),
        };
    }
    if p.neg {
        quote::quote!(-#t)
    } else {
        t
    }
}
