//! Emission: IR to Rust tokens, with runtime checks where the statement asks for them; one
//! file per statement kind.
//!
//! | statement | file |
//! | --- | --- |
//! | instructions | `instr.rs` (operand passing: `operands.rs`; elements of slice parameters through `nilang::ad::places::Places`: `places.rs`; one element read twice: `fan_out.rs`) |
//! | calls | `call.rs` |
//! | `let`, `dealloc!`, `take!` | `ancilla.rs` |
//! | `if (pre, post)` | `if_else.rs` |
//! | `while (pre, post)` | `while_loop.rs` |
//! | `for` | `for_loop.rs` |
//! | `#[from(a)] loop { .. }` | `do_loop.rs` |
//! | stack operations, `fresh!` | `stack.rs` |
//! | the store tape of `#[store]` routines (a cursor per body) | `tape.rs` |
//!
//! Runtime messages of conditions are built in `messages.rs`.
use crate::analyze::ParamKind;
use crate::cond::Cond;
use crate::facts::Facts;
use crate::ir::*;
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use std::collections::{HashMap, HashSet};
use std::rc::Rc;
use syn::visit_mut::VisitMut;

pub use places::slice_params;

mod adjoint;
mod ancilla;
mod call;
mod do_loop;
mod fan_out;
mod for_loop;
mod if_else;
mod instr;
mod messages;
mod operands;
mod places;
mod ring;
mod stack;
mod tape;
mod while_loop;

/// What is emitted from a program: with [`Emitter::inverse_of`], the program is a function's
/// inverse (runtime messages say so).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// The function itself: every instruction in full (value-only and adjoint-only where the
    /// facts allow it and rustc's constants agree).
    Ordinary,
    /// The value-only variant `f::__primal`: every instruction value-only.
    Primal,
    /// The adjoint-only variant `f::__adj`: a `&mut` parameter's value updates are skipped
    /// where nothing reads them and its bit of `__nilang_dead` is set.
    Adjoint,
}

/// When statements are emitted with value-only instructions (see `primal`).
#[derive(Clone)]
enum Primal {
    /// Always (the value-only variant `f::__primal`, a routine with no condition).
    Always,
    /// When this constant holds (a routine whose callees' analyses decide).
    If(syn::Ident),
}

/// Emission of one program: a function of the IR, its [`Facts`] and the [`Mode`], with the
/// state of the walk (scopes, fresh names).
pub struct Emitter {
    /// The facts of the program emitted.
    facts: Rc<Facts>,
    /// The parameters, by name.
    pub params: HashMap<String, ParamKind>,
    /// Every name allocated in the body.
    pub locals: HashSet<String>,
    /// The variables of the loops being emitted, innermost last.
    pub loop_vars: Vec<String>,
    /// Scalar ancillas in scope whose round-off budget is tracked for their deallocation
    /// check: `(name, history variable)`.
    tracked: Vec<(syn::Ident, Option<syn::Ident>)>,
    /// The name of the inverse function when emitting its body (runtime messages say so).
    pub inverse_of: Option<String>,
    /// Value-only emission (see `primal`): set while emitting statements whose targets carry
    /// no adjoint.
    primal: Option<Primal>,
    /// Adjoint-only emission (see [`crate::ad::adjoint`]): the places whose value updates may be
    /// skipped where nothing reads them afterwards.
    adj: Option<adjoint::Adj>,
    /// Whether the adjoint-only variant's `__nilang_dead` is in scope ([`Mode::Adjoint`]).
    dead_in_scope: bool,
    /// The range loops whose bodies are being emitted: the body (the id of its first
    /// statement and its length) and an expression true in its last iteration.
    loops: Vec<(Option<StmtId>, usize, TokenStream)>,
    /// Read-only float data of a generic function (see [`crate::data`]): operands converted
    /// to the target's number type.
    float_data: HashMap<String, usize>,
    /// The slice parameters (`&mut [T]`, `&[T]`), whose elements are read and written
    /// through `nilang::ad::places::Places` (see `places.rs`).
    slices: HashSet<String>,
    /// The body has a store-tape cursor (see `tape.rs`).
    cursor: bool,
    counter: usize,
}

/// The source location of `span` as a `&str` expression (`file:line:column`), for runtime
/// messages.
/// The variable beside a tracked ancilla's budget `h`: `location: \`statement\`` of the
/// statement after which it first held a non-finite value (empty until then).
fn origin_of(h: &syn::Ident) -> syn::Ident {
    format_ident!("{}_origin", h, span = Span::mixed_site())
}

fn loc(span: Span) -> TokenStream {
    quote_spanned!(span=> ::core::concat!(::core::file!(), ":", ::core::line!(), ":", ::core::column!()))
}

impl Emitter {
    /// An emitter of the program whose facts are `facts`, in `mode`.
    pub fn new(facts: Rc<Facts>, mode: Mode) -> Self {
        let (primal, adj) = match mode {
            Mode::Ordinary => (None, None),
            Mode::Primal => (Some(Primal::Always), None),
            Mode::Adjoint => (None, Some(adjoint::Adj::variant(&facts.adjoint_params))),
        };
        Emitter {
            params: facts.params.clone(),
            locals: facts.locals.clone(),
            facts,
            loop_vars: vec![],
            tracked: vec![],
            inverse_of: None,
            primal,
            adj,
            dead_in_scope: mode == Mode::Adjoint,
            loops: vec![],
            float_data: HashMap::new(),
            slices: HashSet::new(),
            cursor: false,
            counter: 0,
        }
    }

    /// Read-only float data (from [`crate::data::float_data`]) to convert in instructions.
    pub fn with_float_data(mut self, data: &HashMap<String, usize>) -> Self {
        self.float_data = data.clone();
        self
    }

    /// The slice parameters `slices` (from [`slice_params`]): their elements are read and
    /// written through `nilang::ad::places::Places`.
    pub fn with_slices(mut self, slices: &HashSet<String>) -> Self {
        self.slices = slices.clone();
        self
    }

    /// The program is the inverse of function `f` (runtime messages say so).
    pub fn inverse_of(mut self, f: &str) -> Self {
        self.inverse_of = Some(f.to_string());
        self
    }

    /// `body` between the checks (checks on) that the `zero(..)` parameters `ws` are zero on
    /// entry and on exit (`nilang::instr::fresh::zero_param`).
    pub fn zero_checked(&self, ws: &[syn::Ident], body: TokenStream) -> TokenStream {
        let dir = self.inverse_suffix();
        let check = |exit: bool| {
            let dir = &dir;
            ws.iter().map(move |w| {
                let (name, l) = (w.to_string(), loc(w.span()));
                if exit {
                    quote!(::nilang::instr::fresh::zero_param(&*#w, #exit, #l, #name, #dir);)
                } else {
                    // the caller's contract: reported at the caller's line (`#[track_caller]`
                    // on the function)
                    quote!(::nilang::instr::fresh::zero_param_on_entry(
                        &*#w, ::core::panic::Location::caller(), #name, #dir);)
                }
            })
        };
        let (entry, exit) = (check(false), check(true));
        quote!(#(#entry)* #body #(#exit)*)
    }

    /// `primal` where the value-only form applies (now, or under the current flag), else
    /// `ordinary`.
    pub(super) fn value_only_or(&self, primal: TokenStream, ordinary: TokenStream) -> TokenStream {
        match &self.primal {
            None => ordinary,
            Some(Primal::Always) => primal,
            Some(Primal::If(flag)) => quote!(if #flag { #primal } else { #ordinary }),
        }
    }

    /// A routine (`undo` false) whose every write goes to places without adjoint (the fact
    /// [`Facts::value_only`]): the declaration of the flag under which it is emitted
    /// value-only, and the flag.
    fn primal_routine(&mut self, s: &Stmt) -> Option<(TokenStream, Primal)> {
        if !matches!(s.kind, StmtKind::Routine { undo: false, .. }) || self.primal.is_some() {
            return None;
        }
        let cond = match self.facts.value_only(s.id)? {
            Cond::True => return Some((quote!(), Primal::Always)),
            c => c.clone(),
        };
        // a constant item (the conditions name only the callees' non-generic markers), so that
        // rustc drops the branch not taken before it weighs what to inline
        let flag = self.fresh("PRIMAL");
        let decl = quote!(#[allow(non_upper_case_globals)] const #flag: bool = #cond;);
        Some((decl, Primal::If(flag)))
    }

    fn fresh(&mut self, base: &str) -> syn::Ident {
        self.counter += 1;
        format_ident!(
            "__nilang_{}{}",
            base,
            self.counter,
            span = Span::mixed_site()
        )
    }

    fn is_ref_param(&self, name: &str) -> bool {
        matches!(
            self.params.get(name),
            Some(ParamKind::InOut) | Some(ParamKind::ReadRef)
        ) && name != "self"
    }

    fn is_writable(&self, name: &str) -> bool {
        if self.loop_vars.iter().any(|v| v == name) {
            return false;
        }
        match self.params.get(name) {
            Some(ParamKind::InOut) => true,
            Some(_) => false,
            None => self.locals.contains(name),
        }
    }

    pub(crate) fn is_variable_name(&self, name: &str) -> bool {
        self.is_variable(name)
    }

    fn is_variable(&self, name: &str) -> bool {
        self.params.contains_key(name)
            || self.locals.contains(name)
            || self.loop_vars.iter().any(|v| v == name)
    }

    /// A user expression with `&`/`&mut` parameters dereferenced.
    pub fn expr(&self, e: &syn::Expr) -> TokenStream {
        struct Deref<'a>(&'a Emitter);
        impl VisitMut for Deref<'_> {
            fn visit_expr_mut(&mut self, e: &mut syn::Expr) {
                // `cst!(e)` anywhere in an expression (e.g. a call argument `&mut cst!(*t)`)
                // is the value `{ e }` (a temporary, never a place)
                if let syn::Expr::Macro(m) = e {
                    if m.mac.path.is_ident("cst") {
                        if let Ok(inner) = m.mac.parse_body::<syn::Expr>() {
                            // a shared borrow `cst!(&x)` is a value already: passed as `&x`
                            *e = if matches!(&inner, syn::Expr::Reference(r) if r.mutability.is_none())
                            {
                                inner
                            } else {
                                syn::parse_quote!({ #inner })
                            };
                        }
                    }
                }
                // `x[i][j]` of a slice parameter: borrowed as before (see `places.rs`)
                if let syn::Expr::Index(outer) = e {
                    if let syn::Expr::Index(inner) = &mut *outer.expr {
                        if self.is_slice_name(&inner.expr) {
                            self.visit_expr_mut(&mut inner.expr);
                            self.visit_expr_mut(&mut inner.index);
                            self.visit_expr_mut(&mut outer.index);
                            return;
                        }
                    }
                }
                // `x[i]`, `x.len()` of a slice parameter: through `Places`
                if let Some(t) = self.0.places_expr(e, &|i| self.0.expr(i)) {
                    *e = syn::Expr::Verbatim(t);
                    return;
                }
                // `*x` written by the user on a reference parameter is already dereferenced
                if let syn::Expr::Unary(u) = e {
                    if matches!(u.op, syn::UnOp::Deref(_)) && self.is_ref_name(&u.expr) {
                        return;
                    }
                }
                if let syn::Expr::Path(p) = e {
                    if p.qself.is_none() {
                        if let Some(id) = p.path.get_ident() {
                            if self.0.is_ref_param(&id.to_string())
                                && !self.0.loop_vars.contains(&id.to_string())
                            {
                                let id = id.clone();
                                *e = syn::parse_quote_spanned!(id.span()=> (*#id));
                                return;
                            }
                        }
                    }
                }
                syn::visit_mut::visit_expr_mut(self, e);
            }
        }
        impl Deref<'_> {
            fn is_slice_name(&self, e: &syn::Expr) -> bool {
                matches!(e, syn::Expr::Path(p) if p.qself.is_none()
                    && p.path.get_ident().is_some_and(|id| self.0.is_slice_param(&id.to_string())))
            }
            fn is_ref_name(&self, e: &syn::Expr) -> bool {
                match e {
                    syn::Expr::Path(p) if p.qself.is_none() => {
                        p.path.get_ident().is_some_and(|id| {
                            let n = id.to_string();
                            self.0.is_ref_param(&n) && !self.0.loop_vars.contains(&n)
                        })
                    }
                    _ => false,
                }
            }
        }
        let mut e = e.clone();
        Deref(self).visit_expr_mut(&mut e);
        quote!(#e)
    }

    /// A place as an expression (without the negation view).
    pub fn place(&self, p: &Place) -> TokenStream {
        let root = &p.root;
        let mut t = if self.is_ref_param(&root.to_string()) {
            quote_spanned!(root.span()=> (*#root))
        } else {
            quote!(#root)
        };
        for proj in &p.path {
            t = match proj {
                Proj::Field(m) => quote!(#t.#m),
                Proj::Index(e) => {
                    let e = self.expr(e);
                    // the user's span: an out-of-bounds panic points at their statement
                    quote_spanned!(p.span=> #t[#e])
                }
            };
        }
        t
    }

    /// Emit a block of statements.
    pub fn block(&mut self, stmts: &[Stmt]) -> TokenStream {
        let scope = self.tracked.len();
        let out = self.stmts(stmts);
        self.tracked.truncate(scope);
        out
    }

    /// Statements spliced into the current scope. A single-name ancilla whose deallocation
    /// later in the same statement list (or after the enclosing spliced list, as for
    /// `routine!`/`unroutine!()`) is checked gets a history variable (the largest
    /// magnitude it held, updated after every statement that mentions it), passed to
    /// `check::dealloc_at`.
    fn stmts(&mut self, stmts: &[Stmt]) -> TokenStream {
        let mut out = quote!();
        let after = self.adj_after(stmts);
        for (k, s) in stmts.iter().enumerate() {
            let saved = self.adj_enter(stmts, k, &after);
            let primal = self.primal_routine(s);
            let mut t = match primal {
                Some((decl, flag)) => {
                    self.primal = Some(flag);
                    let body = self.stmt(s);
                    self.primal = None;
                    quote!(#decl #body)
                }
                None => match self.adj_undo(stmts, k) {
                    Some(t) => t,
                    None => self.stmt(s),
                },
            };
            self.adj_leave(saved);
            t = self.value_dead_skipped(s, t);
            match &s.kind {
                StmtKind::Alloc(a) if !a.tuple => {
                    let n = &a.names[0];
                    if self.facts.tracked(s.id) {
                        let h = self.fresh("history");
                        let origin = origin_of(&h);
                        t.extend(quote!(#[allow(unused_mut)] let mut #h: f64 = {
                            #[allow(unused_imports)]
                            use ::nilang::instr::dealloc::{ViaAlmostSame as _, ViaPartialEq as _};
                            (&::nilang::instr::dealloc::Probe(&#n)).nilang_magnitude()
                        };
                        #[allow(unused_mut)] let mut #origin: &'static str = "";));
                        self.tracked.push((n.clone(), Some(h)));
                    } else {
                        self.tracked.push((n.clone(), None));
                    }
                }
                StmtKind::Move { dst, .. } => self.tracked.push((dst.clone(), None)),
                StmtKind::Instr(_) | StmtKind::Call(_) | StmtKind::Stack { .. } => {
                    let mut seen = HashSet::new();
                    let mut hit = vec![];
                    for (n, h) in self.tracked.iter().rev() {
                        let name = n.to_string();
                        if !seen.insert(name.clone()) || !crate::syntax::mentions_name(&t, &name) {
                            continue;
                        }
                        if let Some(h) = h {
                            hit.push((n.clone(), h.clone()));
                        }
                    }
                    // A call can move values between the ancillas it is given (a SWAP, a
                    // dirty multiplication): their histories are shared. An instruction
                    // writes its target only.
                    let call = matches!(s.kind, StmtKind::Call(_));
                    let (l, text) = (loc(s.span), &s.text);
                    for (n, h) in &hit {
                        let origin = origin_of(h);
                        t.extend(quote!(#h = {
                            #[allow(unused_imports)]
                            use ::nilang::instr::dealloc::{ViaAlmostSame as _, ViaPartialEq as _};
                            if #origin.is_empty() && (&::nilang::instr::dealloc::Probe(&#n)).nilang_non_finite() {
                                #origin = ::core::concat!(#l, ": `", #text, "`");
                            }
                            (&::nilang::instr::dealloc::Probe(&#n)).nilang_track(#h)
                        };));
                        for (m, _) in hit.iter().filter(|(m, _)| call && m != n) {
                            t.extend(quote!(#h = {
                                #[allow(unused_imports)]
                                use ::nilang::instr::dealloc::{ViaAlmostSame as _, ViaPartialEq as _};
                                (&::nilang::instr::dealloc::Probe(&#m)).nilang_track(#h)
                            };));
                        }
                    }
                }
                _ => {}
            }
            out.extend(t);
        }
        out
    }

    /// One statement: dispatched by its kind.
    fn stmt(&mut self, s: &Stmt) -> TokenStream {
        match &s.kind {
            StmtKind::Instr(i) => self.instr(i, s),
            StmtKind::Call(c) if crate::lower::store::cursor_method(c).is_some() => self.call(c, s),
            StmtKind::Call(c) => {
                let t = match self.adj_call(c, s) {
                    Some(t) => t,
                    None => self.call(c, s),
                };
                self.cursor_released(t)
            }
            StmtKind::Alloc(a) => self.alloc(a, s),
            StmtKind::Dealloc(a) => self.dealloc(a, s),
            StmtKind::Move { dst, src } => self.take(dst, src, s),
            StmtKind::If {
                branches,
                otherwise,
            } => self.if_else(branches, otherwise.as_deref(), s),
            StmtKind::While { .. } => self.while_loop(s),
            StmtKind::For { var, iter, body } => self.for_loop(var, iter, body, s),
            StmtKind::DoLoop {
                from,
                first,
                until,
                second,
            } => self.do_loop(from, first, until, second, s),
            StmtKind::Block(b) => {
                let b = self.block(b);
                quote!({ #b })
            }
            StmtKind::Seq(b) | StmtKind::Routine { body: b, .. } => self.stmts(b),
            StmtKind::Safe(t) => self.cursor_released(quote!({ #t; })),
            StmtKind::Fresh(ps) => self.fresh_workspaces(ps, s),
            StmtKind::Stack { kind, stack, value } => self.stack(kind, stack, value, s),
            // lowered before emission
            StmtKind::Surface(_) => quote!(),
        }
    }
}
