//! Emission: IR to Rust tokens, with runtime checks where the statement asks for them.
use crate::analyze::{operand_places, relation, ParamKind, Relation};
use crate::ir::*;
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use std::collections::{HashMap, HashSet};
use syn::visit_mut::VisitMut;

/// Emission context: which names are reference parameters (written `(*x)`), which are
/// variables of the function (as opposed to global constants).
pub struct Emitter {
    pub params: HashMap<String, ParamKind>,
    pub locals: HashSet<String>,
    pub loop_vars: Vec<String>,
    /// Scalar ancillas in scope whose magnitude history is tracked for their deallocation
    /// check: `(name, history variable)`.
    tracked: Vec<(syn::Ident, Option<syn::Ident>)>,
    /// For statements spliced into an enclosing list (`inv!`, `routine!`): the statements that
    /// follow them there, innermost last (an ancilla of a `routine!` is deallocated by the
    /// `unroutine!()` after it).
    rest: Vec<Vec<Stmt>>,
    /// The name of the inverse function when emitting its body (runtime messages say so).
    pub inverse_of: Option<String>,
    /// Value-only emission (see `primal`): `Some(flag)` while emitting statements whose
    /// targets carry no adjoint when the constant `flag` holds (`true`: always).
    primal: Option<TokenStream>,
    /// Whether routines writing only places without adjoint are emitted value-only.
    pub primal_routines: bool,
    counter: usize,
}

fn loc(span: Span) -> TokenStream {
    quote_spanned!(span=> ::core::concat!(::core::file!(), ":", ::core::line!(), ":", ::core::column!()))
}

impl Emitter {
    pub fn new(params: HashMap<String, ParamKind>, locals: HashSet<String>) -> Self {
        Emitter {
            params,
            locals,
            loop_vars: vec![],
            tracked: vec![],
            rest: vec![],
            inverse_of: None,
            primal: None,
            primal_routines: true,
            counter: 0,
        }
    }

    /// An emitter of the value-only variant `f::__primal`: every instruction value-only.
    pub fn primal(params: HashMap<String, ParamKind>, locals: HashSet<String>) -> Self {
        let mut e = Emitter::new(params, locals);
        e.primal = Some(quote!(true));
        e
    }

    /// A routine (`undo` false) at `stmts[k]` whose every write goes to places without
    /// adjoint: the flag variable (declared by the returned statement) under which it is
    /// emitted value-only.
    fn primal_routine(&mut self, stmts: &[Stmt], k: usize) -> Option<(TokenStream, TokenStream)> {
        let StmtKind::Routine { body, undo: false } = &stmts[k].kind else {
            return None;
        };
        if self.primal.is_some() || !self.primal_routines {
            return None;
        }
        let is_var = |n: &str| self.is_variable(n);
        let inout = |n: &str| self.params.get(n) == Some(&ParamKind::InOut);
        let mut d = crate::primal::no_adjoint_before(stmts, k, &is_var);
        let conds = crate::primal::writes_only_no_adjoint(body, &mut d, &inout, &is_var)?;
        let flag = self.fresh("primal");
        let decl = quote!(#[allow(non_snake_case)] let #flag: bool = true #(&& #conds)*;);
        Some((decl, quote!(#flag)))
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
                            *e = syn::parse_quote!({ #inner });
                        }
                    }
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
        let rest = std::mem::take(&mut self.rest);
        let out = self.stmts(stmts);
        self.rest = rest;
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
        for (k, s) in stmts.iter().enumerate() {
            let spliced = matches!(s.kind, StmtKind::Seq(_) | StmtKind::Routine { .. });
            if spliced {
                self.rest.push(stmts[k + 1..].to_vec());
            }
            let primal = self.primal_routine(stmts, k);
            let mut t = match primal {
                Some((decl, flag)) => {
                    self.primal = Some(flag);
                    let body = self.stmt(s);
                    self.primal = None;
                    quote!(#decl #body)
                }
                None => self.stmt(s),
            };
            if spliced {
                self.rest.pop();
            }
            match &s.kind {
                StmtKind::Alloc(a) if !a.tuple => {
                    let n = &a.names[0];
                    let found = first_dealloc(&stmts[k + 1..], n)
                        .or_else(|| self.rest.iter().rev().find_map(|r| first_dealloc(r, n)));
                    if found == Some(true) {
                        let h = self.fresh("history");
                        t.extend(quote!(#[allow(unused_mut)] let mut #h: f64 = {
                            #[allow(unused_imports)]
                            use ::nilang::instr::dealloc::{ViaAlmostSame as _, ViaPartialEq as _};
                            (&::nilang::instr::dealloc::Probe(&#n)).nilang_magnitude()
                        };));
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
                        if !seen.insert(name.clone()) || !mentions(&t, &name) {
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
                    for (n, h) in &hit {
                        t.extend(quote!(#h = {
                            #[allow(unused_imports)]
                            use ::nilang::instr::dealloc::{ViaAlmostSame as _, ViaPartialEq as _};
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

    fn distinct_checks(&self, places: &[&Place], s: &Stmt) -> TokenStream {
        if !s.check {
            return quote!();
        }
        let mut out = quote!();
        let l = loc(s.span);
        let text = &s.text;
        for i in 0..places.len() {
            for j in 0..i {
                if !self.is_writable(&places[j].root.to_string()) {
                    continue;
                }
                if let Relation::MaybeSame(pairs) = relation(places[j], places[i]) {
                    let a: Vec<_> = pairs.iter().map(|(a, _)| self.expr(a)).collect();
                    let b: Vec<_> = pairs.iter().map(|(_, b)| self.expr(b)).collect();
                    out.extend(quote! {
                        ::nilang::check::distinct(&(#(#a,)*), &(#(#b,)*), #l, #text);
                    });
                }
            }
        }
        out
    }

    /// Operand passing: direct `&mut place` when the root is writable and not shared in the
    /// statement, else a copy-in temporary with write-back.
    fn pass(
        &mut self,
        p: &Place,
        shared_roots: &HashSet<String>,
        pre: &mut TokenStream,
        post: &mut TokenStream,
    ) -> TokenStream {
        let name = p.root.to_string();
        let pe = self.place(p);
        let writable = self.is_writable(&name);
        if writable && !p.neg && !shared_roots.contains(&name) {
            return quote!(&mut #pe);
        }
        let t = self.fresh("t");
        pre.extend(quote!(let mut #t = ::core::clone::Clone::clone(&#pe);));
        if p.neg {
            pre.extend(quote!(::nilang::NEG(&mut #t);));
        }
        if writable {
            let mut wb = quote!();
            if p.neg {
                wb.extend(quote!(::nilang::NEG(&mut #t);));
            }
            wb.extend(quote!(#pe = #t;));
            // write-backs run in reverse order of the reads
            let old = std::mem::take(post);
            post.extend(wb);
            post.extend(old);
        }
        quote!(&mut #t)
    }

    /// Roots with two places in the statement that may overlap (provably different fields,
    /// `s.a` and `s.b`, do not count: they are borrowed directly).
    fn shared_roots(&self, places: &[&Place]) -> HashSet<String> {
        let mut shared = HashSet::new();
        for (i, a) in places.iter().enumerate() {
            for b in &places[..i] {
                if !matches!(relation(a, b), Relation::Disjoint) {
                    shared.insert(a.root.to_string());
                }
            }
        }
        shared
    }

    /// Evaluate the non-trivial index expressions of a place into temporaries first, so that
    /// `&mut x[x.len() - 1]` does not borrow `x` twice and every index is evaluated once.
    fn hoist_place(&mut self, p: &mut Place, out: &mut TokenStream) {
        for proj in &mut p.path {
            if let Proj::Index(e) = proj {
                let trivial = match e {
                    syn::Expr::Lit(_) => true,
                    syn::Expr::Path(p) => p.path.get_ident().is_some(),
                    _ => false,
                };
                if !trivial {
                    let t = self.fresh("ix");
                    let ee = self.expr(e);
                    out.extend(quote!(let #t = #ee;));
                    *e = syn::parse_quote!(#t);
                }
            }
        }
    }

    fn hoist_operand(&mut self, o: &mut Operand, out: &mut TokenStream) {
        match o {
            Operand::Place(p) => self.hoist_place(p, out),
            Operand::Tuple(t, _) => t.iter_mut().for_each(|o| self.hoist_operand(o, out)),
            _ => {}
        }
    }

    fn instr(&mut self, i: &Instr, s: &Stmt) -> TokenStream {
        let mut hoist = quote!();
        let mut i = i.clone();
        self.hoist_operand(&mut i.target, &mut hoist);
        for a in &mut i.args {
            self.hoist_operand(a, &mut hoist);
        }
        let body = self.instr_hoisted(&i, s);
        quote!({ #hoist #body })
    }

    fn instr_hoisted(&mut self, i: &Instr, s: &Stmt) -> TokenStream {
        let mut places = vec![];
        operand_places(&i.target, &mut places);
        for a in &i.args {
            operand_places(a, &mut places);
        }
        let vars: Vec<&Place> = places
            .iter()
            .copied()
            .filter(|p| self.is_variable(&p.root.to_string()))
            .collect();
        let checks = self.distinct_checks(&vars, s);
        let shared = self.shared_roots(&vars);
        let mut pre = quote!();
        let mut post = quote!();
        // target
        let (target, target_like) = match &i.target {
            Operand::Place(p) => {
                let like = self.place(p);
                (self.pass(p, &shared, &mut pre, &mut post), like)
            }
            Operand::Tuple(elems, _) => {
                let t = self.fresh("y");
                let reads: Vec<TokenStream> = elems
                    .iter()
                    .map(|e| match e {
                        Operand::Place(p) => {
                            let pe = self.place(p);
                            quote!(::core::clone::Clone::clone(&#pe))
                        }
                        _ => quote!(()),
                    })
                    .collect();
                pre.extend(quote!(let mut #t = (#(#reads,)*);));
                for (k, e) in elems.iter().enumerate() {
                    if let Operand::Place(p) = e {
                        let pe = self.place(p);
                        let idx = syn::Index::from(k);
                        if p.neg {
                            // the negation view: read negated, written back negated
                            pre.extend(quote!(::nilang::NEG(&mut #t.#idx);));
                            post.extend(quote!(::nilang::NEG(&mut #t.#idx);));
                        }
                        post.extend(quote!(#pe = #t.#idx;));
                    }
                }
                let first = match elems.first() {
                    Some(Operand::Place(p)) => self.place(p),
                    _ => quote!(()),
                };
                (quote!(&mut #t), first)
            }
            _ => (quote!(&mut ()), quote!(())),
        };
        let mut args = vec![];
        for a in &i.args {
            args.push(match a {
                Operand::Place(p) if self.is_variable(&p.root.to_string()) => {
                    self.pass(p, &shared, &mut pre, &mut post)
                }
                Operand::Place(p) => {
                    let t = self.fresh("c");
                    let pe = self.place(p);
                    let neg = if p.neg {
                        quote!(::nilang::NEG(&mut #t);)
                    } else {
                        quote!()
                    };
                    pre.extend(quote!(let mut #t = #pe; #neg));
                    quote!(&mut #t)
                }
                Operand::Lit { lit, neg, span } => {
                    let t = self.fresh("c");
                    let sign = if *neg { quote!(-) } else { quote!() };
                    let f = if matches!(lit, syn::Lit::Int(_)) {
                        quote_spanned!(*span=> ::nilang::instr::lit_i)
                    } else {
                        quote_spanned!(*span=> ::nilang::instr::lit_f)
                    };
                    pre.extend(quote!(let mut #t = #f(&#target_like, #sign #lit);));
                    quote!(&mut #t)
                }
                Operand::Const { expr, .. } => {
                    let t = self.fresh("c");
                    let e = self.expr(expr);
                    pre.extend(quote!(let mut #t = #e;));
                    quote!(&mut #t)
                }
                Operand::Tuple(..) => quote!(&mut ()),
            });
        }
        let n = args.len();
        let (tr, method) = match (i.op, n) {
            (AccOp::Plus, _) => (format!("PlusEq{n}"), "plus_eq"),
            (AccOp::Minus, _) => (format!("PlusEq{n}"), "minus_eq"),
            (AccOp::Xor, _) => (format!("XorEq{n}"), "xor_eq"),
            (AccOp::Mul, _) => (format!("MulEq{n}"), "mul_eq"),
            (AccOp::Div, _) => (format!("MulEq{n}"), "div_eq"),
        };
        let tr = format_ident!("{}", tr, span = s.span);
        let method = format_ident!("{}", method, span = s.span);
        let f = match &i.func {
            FuncRef::Builtin(b) => {
                let b = format_ident!("{}", b, span = s.span);
                quote!(::nilang::instr::fns::#b)
            }
            FuncRef::User(p) => quote!(#p),
        };
        let holes: Vec<TokenStream> = (0..n).map(|_| quote!(_)).collect();
        let mut call = quote_spanned! {s.span=>
            <_ as ::nilang::instr::#tr<#f, #(#holes),*>>::#method(#target, #(#args),*);
        };
        if let (Some(flag), AccOp::Plus | AccOp::Minus) = (&self.primal, i.op) {
            let pm = format_ident!("{}_primal", method, span = s.span);
            let primal = quote_spanned! {s.span=>
                <_ as ::nilang::instr::#tr<#f, #(#holes),*>>::#pm(#target, #(#args),*);
            };
            call = if flag.to_string() == "true" {
                primal
            } else {
                quote!(if #flag { #primal } else { #call })
            };
        }
        quote!({ #checks #pre #call #post })
    }

    fn call(&mut self, c: &Call, s: &Stmt) -> TokenStream {
        let mut hoist = quote!();
        let mut c = c.clone();
        if let Callee::Method { receiver, .. } = &mut c.callee {
            self.hoist_place(receiver, &mut hoist);
        }
        for a in &mut c.args {
            if let CallArg::InOut(p) | CallArg::Name(p) = a {
                self.hoist_place(p, &mut hoist);
            }
        }
        let body = self.call_hoisted(&c, s);
        quote!({ #hoist #body })
    }

    /// A read-only argument evaluated (a `&place`: copied) into a temporary before the call.
    fn read_copy(&mut self, e: &syn::Expr, pre: &mut TokenStream) -> TokenStream {
        let t = self.fresh("r");
        match crate::parse::read_place(e) {
            Some(p) => {
                let pe = self.place(&p);
                pre.extend(quote!(let #t = ::core::clone::Clone::clone(&#pe);));
                quote!(&#t)
            }
            None => {
                let ee = self.expr(e);
                pre.extend(quote!(let #t = #ee;));
                quote!(#t)
            }
        }
    }

    fn call_hoisted(&mut self, c: &Call, s: &Stmt) -> TokenStream {
        let mut inout: Vec<&Place> = vec![];
        if let Callee::Method { receiver, .. } = &c.callee {
            inout.push(receiver);
        }
        let params = &self.params;
        let inout_param = |n: &str| params.get(n) == Some(&ParamKind::InOut);
        for a in &c.args {
            inout.extend(a.inout_place(inout_param));
        }
        let vars: Vec<&Place> = inout
            .iter()
            .copied()
            .filter(|p| self.is_variable(&p.root.to_string()))
            .collect();
        // read-only arguments reading a root that is passed in-out: copied before the borrows,
        // and checked to be other elements than the in-out ones
        let inout_roots: HashSet<String> = vars.iter().map(|p| p.root.to_string()).collect();
        let reads: Vec<Place> = c
            .args
            .iter()
            .filter_map(|a| match a {
                CallArg::Read(e) => crate::parse::read_place(e),
                _ => None,
            })
            .filter(|p| inout_roots.contains(&p.root.to_string()))
            .collect();
        let mut all = vars.clone();
        all.extend(reads.iter());
        let checks = self.distinct_checks(&all, s);
        let shared = self.shared_roots(&vars);
        let mut pre = quote!();
        let mut post = quote!();
        let mut args = vec![];
        for a in &c.args {
            if let CallArg::Read(e) = a {
                if crate::parse::mentions(e, &inout_roots) {
                    args.push(self.read_copy(e, &mut pre));
                    continue;
                }
            }
            let params = &self.params;
            let inout = a
                .inout_place(|n| params.get(n) == Some(&ParamKind::InOut))
                .cloned();
            args.push(match (inout, a) {
                (Some(p), _) => self.pass(&p, &shared, &mut pre, &mut post),
                // a read-only reference parameter is passed as written: the reference itself
                (None, CallArg::Name(p))
                    if self.params.get(&p.root.to_string()) == Some(&ParamKind::ReadRef)
                        && !self.loop_vars.contains(&p.root.to_string()) =>
                {
                    let root = &p.root;
                    quote!(#root)
                }
                (None, CallArg::Name(p)) => {
                    let root = &p.root;
                    self.expr(&syn::parse_quote!(#root))
                }
                (None, CallArg::Read(e)) => self.expr(e),
                (None, CallArg::InOut(_)) => quote!(),
            });
        }
        let call = match &c.callee {
            Callee::Path(p) => {
                let mut p = p.clone();
                if c.inverse {
                    if let Some(last) = p.path.segments.last_mut() {
                        last.ident = format_ident!("{}_inv", last.ident, span = last.ident.span());
                    }
                }
                match (&self.primal, crate::primal::primal_callee(c)) {
                    (Some(flag), Some(marker)) if flag.to_string() == "true" => {
                        quote_spanned!(s.span=> #marker::__primal(#p, (#(#args,)*));)
                    }
                    (Some(flag), Some(marker)) => quote_spanned! {s.span=>
                        if #flag {
                            #marker::__primal(#p, (#(#args,)*));
                        } else {
                            #p(#(#args),*);
                        }
                    },
                    _ => quote_spanned!(s.span=> #p(#(#args),*);),
                }
            }
            Callee::Method {
                receiver,
                method,
                turbofish,
            } => {
                let recv = self.place(receiver);
                // `Reversible` values are called with `f.call(args)`, inverted by `f.uncall(args)`
                let m = match (c.inverse, method.to_string().as_str()) {
                    (false, _) => method.clone(),
                    (true, "call") => format_ident!("uncall", span = method.span()),
                    (true, "uncall") => format_ident!("call", span = method.span()),
                    (true, _) => format_ident!("{}_inv", method, span = method.span()),
                };
                let tf = turbofish.as_ref().map(|t| quote!(::#t));
                quote_spanned!(s.span=> #recv.#m #tf(#(#args),*);)
            }
        };
        quote!({ #checks #pre #call #post })
    }

    fn anc_value(&self, a: &Anc, like: &TokenStream) -> TokenStream {
        match &a.value {
            syn::Expr::Lit(l) if matches!(l.lit, syn::Lit::Float(_)) && !a.tuple => {
                quote!(::nilang::instr::lit_f(&#like, #l))
            }
            v => self.expr(v),
        }
    }

    fn stmt(&mut self, s: &Stmt) -> TokenStream {
        let l = loc(s.span);
        let text = &s.text;
        match &s.kind {
            StmtKind::Instr(i) => self.instr(i, s),
            StmtKind::Call(c) => self.call(c, s),
            StmtKind::Alloc(a) => {
                let v = self.expr(&a.value);
                let ty = a.ty.as_ref().map(|t| quote!(: #t));
                if a.tuple {
                    let names = &a.names;
                    quote_spanned!(s.span=> let (#(mut #names),*) #ty = #v;)
                } else {
                    let n = &a.names[0];
                    quote_spanned!(s.span=> let mut #n #ty = #v;)
                }
            }
            StmtKind::Dealloc(a) => {
                let k = self
                    .tracked
                    .iter()
                    .rposition(|(n, _)| !a.tuple && *n == a.names[0]);
                let history = k.and_then(|k| self.tracked.remove(k).1);
                if !s.check {
                    return quote!();
                }
                let names = &a.names;
                let x = if a.tuple {
                    quote!((#(#names),*))
                } else {
                    quote!(#(#names)*)
                };
                let v = self.anc_value(a, &x);
                // `AlmostSame` when the type has it, else `PartialEq` (see `nilang::instr::dealloc`)
                match history {
                    Some(h) => quote_spanned!(s.span=> {
                        #[allow(unused_imports)]
                        use ::nilang::instr::dealloc::{ViaAlmostSame as _, ViaPartialEq as _};
                        (&::nilang::instr::dealloc::Probe(&#x)).nilang_dealloc_at(&(#v), #h, #l, #text);
                    }),
                    None => quote_spanned!(s.span=> {
                        #[allow(unused_imports)]
                        use ::nilang::instr::dealloc::{ViaAlmostSame as _, ViaPartialEq as _};
                        (&::nilang::instr::dealloc::Probe(&#x)).nilang_dealloc(&(#v), #l, #text);
                    }),
                }
            }
            StmtKind::If {
                branches,
                otherwise,
            } => {
                let mut out = quote!();
                let posts: Vec<TokenStream> = branches.iter().map(|b| self.expr(&b.post)).collect();
                let post_texts: Vec<String> = branches
                    .iter()
                    .map(|b| crate::parse::stmt_text(&b.post))
                    .collect();
                let contexts: Vec<TokenStream> = branches
                    .iter()
                    .map(|b| self.condition_context(&[&b.pre, &b.post]))
                    .collect();
                let post_check = |k: Option<usize>| -> TokenStream {
                    if !s.check {
                        return quote!();
                    }
                    let mut c = quote!();
                    let upto = k.unwrap_or(posts.len());
                    for j in 0..upto {
                        let p = &posts[j];
                        let msg = format!(
                            "after {} ran, the post-condition `{}` of an earlier branch holds, so the inverse would take that branch",
                            k.map(|k| format!("branch {}", k + 1)).unwrap_or_else(|| "the else branch".into()),
                            post_texts[j]
                        );
                        let cx = &contexts[j];
                        c.extend(quote!(if #p { ::nilang::check::fail(::nilang::check::ErrorKind::IfPostcondition, #l, #text, ::std::string::String::from(#msg) + &#cx); }));
                    }
                    if let Some(k) = k {
                        let p = &posts[k];
                        let msg = format!("post-condition `{}` is false after its branch ran (it must equal the pre-condition)", post_texts[k]);
                        let cx = &contexts[k];
                        c.extend(quote!(if !(#p) { ::nilang::check::fail(::nilang::check::ErrorKind::IfPostcondition, #l, #text, ::std::string::String::from(#msg) + &#cx); }));
                    }
                    c
                };
                let checks: Vec<TokenStream> =
                    (0..branches.len()).map(|k| post_check(Some(k))).collect();
                let else_check = post_check(None);
                for (k, b) in branches.iter().enumerate() {
                    let pre = self.expr(&b.pre);
                    let body = self.block(&b.body);
                    let ck = &checks[k];
                    if k == 0 {
                        out.extend(quote!(if #pre { #body #ck }));
                    } else {
                        out.extend(quote!(else if #pre { #body #ck }));
                    }
                }
                let body = otherwise
                    .as_ref()
                    .map(|o| self.block(o))
                    .unwrap_or_default();
                out.extend(quote!(else { #body #else_check }));
                out
            }
            StmtKind::While { pre, post, body } => {
                let cx = self.condition_context(&[pre, post]);
                let pre = self.expr(pre);
                let postx = self.expr(post);
                let body = self.block(body);
                if s.check {
                    quote! {
                        if #postx { ::nilang::check::fail(::nilang::check::ErrorKind::WhileCondition, #l, #text, ::std::string::String::from("post-condition holds at loop entry (it must be false before the first iteration)") + &#cx); }
                        while #pre {
                            #body
                            if !(#postx) { ::nilang::check::fail(::nilang::check::ErrorKind::WhileCondition, #l, #text, ::std::string::String::from("post-condition is false after an iteration (it must be true after every iteration)") + &#cx); }
                        }
                    }
                } else {
                    quote!(while #pre { #body })
                }
            }
            StmtKind::DoLoop {
                from,
                first,
                until,
                second,
            } => self.do_loop(from, first, until, second, s),
            StmtKind::For { var, iter, body } => {
                self.loop_vars.push(var.to_string());
                let out = match iter {
                    ForIter::Range {
                        start,
                        end,
                        inclusive,
                        step,
                        rev,
                    } => {
                        let (sv, ev, stv) = (self.fresh("s"), self.fresh("e"), self.fresh("st"));
                        let (st, en) = (self.expr(start), self.expr(end));
                        let range = if *inclusive {
                            quote!((#sv..=#ev))
                        } else {
                            quote!((#sv..#ev))
                        };
                        // a stepped range reversed: from its last element down, by the step
                        // (`StepBy` of an `i64` range is not double-ended)
                        let last = self.fresh("last");
                        let (it, guard) = match (step.is_some(), *rev) {
                            (true, true) => (
                                quote!((#sv..=#last).rev().step_by(#stv)),
                                quote!(if let ::core::option::Option::Some(#last) = ::core::iter::Iterator::last(#range.step_by(#stv))),
                            ),
                            (true, false) => (quote!(#range.step_by(#stv)), quote!()),
                            (false, true) => (quote!(#range.rev()), quote!()),
                            (false, false) => (range, quote!()),
                        };
                        let body = self.block(body);
                        let (step_let, cap, now) = match step {
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
                        quote!({ let #sv = #st; let #ev = #en; #step_let #guard { for #var in #it { #body } } #check })
                    }
                    ForIter::Indices { slice, rev } => {
                        let idx = format_ident!("__nilang_i_{}", var, span = var.span());
                        let sl = self.place(slice);
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
                            quote!(::nilang::check::bounds(&#n, &#sl.len(), #l, #text);)
                        } else {
                            quote!()
                        };
                        quote!({ let #n = #sl.len(); for #idx in #it { #body } #check })
                    }
                };
                self.loop_vars.pop();
                out
            }
            StmtKind::Block(b) => {
                let b = self.block(b);
                quote!({ #b })
            }
            StmtKind::Seq(b) | StmtKind::Routine { body: b, .. } => self.stmts(b),
            StmtKind::Safe(t) => quote!({ #t; }),
            StmtKind::Fresh(ps) => {
                let mut hoist = quote!();
                let calls = ps.iter().map(|p| {
                    let mut p = p.clone();
                    self.hoist_place(&mut p, &mut hoist);
                    let w = self.place(&p);
                    if s.check {
                        quote!(::nilang::instr::fresh::fresh(&mut #w, #l, #text);)
                    } else {
                        quote!(::nilang::instr::fresh::fresh_unchecked(&mut #w);)
                    }
                });
                let calls: Vec<TokenStream> = calls.collect();
                quote!({ #hoist #(#calls)* })
            }
            StmtKind::Move { dst, src } => {
                quote_spanned!(s.span=> let mut #dst = ::core::mem::take(&mut #src);)
            }
            StmtKind::Stack { kind, stack, value } => {
                let mut hoist = quote!();
                let (mut stack, mut value) = (stack.clone(), value.clone());
                self.hoist_place(&mut stack, &mut hoist);
                self.hoist_place(&mut value, &mut hoist);
                let st = self.place(&stack);
                let v = self.place(&value);
                let op = match (kind, s.check) {
                    (StackKind::Push, _) => {
                        quote!(::nilang::instr::stack::push(&mut #st, &mut #v);)
                    }
                    (StackKind::CopyPush, _) => {
                        quote!(::nilang::instr::stack::copy_push(&mut #st, &mut #v);)
                    }
                    (StackKind::Pop, true) => {
                        quote!(::nilang::instr::stack::pop(&mut #st, &mut #v, #l, #text);)
                    }
                    (StackKind::Pop, false) => {
                        quote!(::nilang::instr::stack::pop_unchecked(&mut #st, &mut #v);)
                    }
                    (StackKind::CopyPop, true) => {
                        quote!(::nilang::instr::stack::copy_pop(&mut #st, &mut #v, #l, #text);)
                    }
                    (StackKind::CopyPop, false) => {
                        quote!(::nilang::instr::stack::copy_pop_unchecked(&mut #st, &mut #v);)
                    }
                };
                quote!({ #hoist #op })
            }
        }
    }
}

/// The first deallocation of `name` in `stmts` (and statements spliced into them): whether it
/// is a checked single-name one.
fn first_dealloc(stmts: &[Stmt], name: &syn::Ident) -> Option<bool> {
    stmts.iter().find_map(|s| match &s.kind {
        StmtKind::Dealloc(a) if a.names.contains(name) => Some(s.check && !a.tuple),
        // an ancilla is deallocated in its own scope: spliced statements belong to it
        StmtKind::Seq(b) | StmtKind::Routine { body: b, .. } => first_dealloc(b, name),
        _ => None,
    })
}

/// Whether the tokens contain the identifier `name`.
fn mentions(t: &TokenStream, name: &str) -> bool {
    t.clone().into_iter().any(|tt| match tt {
        proc_macro2::TokenTree::Ident(i) => i == name,
        proc_macro2::TokenTree::Group(g) => mentions(&g.stream(), name),
        _ => false,
    })
}

/// All names allocated anywhere in a body (for classifying places as variables).
pub fn collect_locals(stmts: &[Stmt], out: &mut HashSet<String>) {
    for s in stmts {
        match &s.kind {
            StmtKind::Alloc(a) | StmtKind::Dealloc(a) => {
                out.extend(a.names.iter().map(|n| n.to_string()))
            }
            StmtKind::Move { dst, src } => {
                out.insert(dst.to_string());
                out.insert(src.to_string());
            }
            StmtKind::If {
                branches,
                otherwise,
            } => {
                for b in branches {
                    collect_locals(&b.body, out);
                }
                if let Some(o) = otherwise {
                    collect_locals(o, out);
                }
            }
            StmtKind::While { body, .. }
            | StmtKind::For { body, .. }
            | StmtKind::Block(body)
            | StmtKind::Seq(body)
            | StmtKind::Routine { body, .. } => collect_locals(body, out),
            StmtKind::DoLoop { first, second, .. } => {
                collect_locals(first, out);
                collect_locals(second, out);
            }
            _ => {}
        }
    }
}
