//! `syn` to the IR of an `#[ad]` function: the signature's parameters classified, every
//! scalar `let` hoisted to one function-wide variable (a `let` in a loop is then an
//! overwrite), every construct outside the subset reported at its tokens with what to
//! write instead.
use super::ir::*;
use crate::errors::Errors;
use proc_macro2::Ident;
use quote::{quote, ToTokens};
use std::collections::HashSet;
use syn::spanned::Spanned;

/// The mark of a parameter without derivative: `#[data] x: &[f64]`.
pub const DATA: &str = "data";

/// `item` without the `#[data]` marks of its parameters (the function as Rust compiles it).
pub fn strip_data(item: &mut syn::ItemFn) {
    for input in item.sig.inputs.iter_mut() {
        if let syn::FnArg::Typed(pt) = input {
            pt.attrs.retain(|a| !a.path().is_ident(DATA));
        }
    }
}

/// Parse `item` (an `fn`) into the IR; every error at once. The [`Func`] holds `item` without
/// its `#[data]` marks ([`strip_data`]).
pub fn parse(mut item: syn::ItemFn) -> Result<Func, Errors> {
    let mut p = Parser {
        errors: Errors::default(),
        params: vec![],
        vars: vec![],
        scopes: vec![HashSet::new()],
        depth: 0,
    };
    p.signature(&item.sig);
    strip_data(&mut item);
    let body = p.body(&item.block);
    if p.errors.is_empty() {
        Ok(Func {
            item,
            params: p.params,
            vars: p.vars,
            body,
            passive: Default::default(),
        })
    } else {
        Err(p.errors)
    }
}

struct Parser {
    errors: Errors,
    params: Vec<Param>,
    vars: Vec<Var>,
    /// The names visible in each enclosing block.
    scopes: Vec<HashSet<String>>,
    /// How many loops or branches enclose the statement.
    depth: usize,
}

/// The number type's methods with a derivative rule, for messages. The table's functions are
/// not listed one by one, so that a new row of the table changes no message.
const METHODS: &str = "the elementary functions (every row of \
                       `nilang_functions::elementary_functions!`: sin, cos, tanh, exp, ln, ...), \
                       sqrt, abs, recip, powi, powf, max, min";

fn is_f64(t: &syn::Type) -> bool {
    matches!(t, syn::Type::Path(p) if p.path.is_ident("f64"))
}

/// `[f64]`, `[f64; N]`, `Vec<f64>`.
fn is_f64_array(t: &syn::Type) -> bool {
    match t {
        syn::Type::Slice(s) => is_f64(&s.elem),
        syn::Type::Array(a) => is_f64(&a.elem),
        syn::Type::Path(p) => {
            let s = p.path.segments.last();
            match s {
                Some(seg) if seg.ident == "Vec" => match &seg.arguments {
                    syn::PathArguments::AngleBracketed(a) => {
                        matches!(a.args.first(), Some(syn::GenericArgument::Type(t)) if is_f64(t))
                    }
                    _ => false,
                },
                _ => false,
            }
        }
        _ => false,
    }
}

fn mentions_float(t: &syn::Type) -> bool {
    let s = t.to_token_stream().to_string();
    s.contains("f32") || (s.contains("f64") && !is_f64(t) && !is_f64_array(t))
}

impl Parser {
    fn signature(&mut self, sig: &syn::Signature) {
        if !sig.generics.params.is_empty() {
            self.errors.push_tokens(
                &sig.generics,
                "`#[ad]` functions are not generic: write them for `f64` (an `#[i]` function is generic over `T: Scalar`)",
            );
        }
        if sig.asyncness.is_some() || sig.unsafety.is_some() || sig.constness.is_some() {
            self.errors.push_tokens(
                &sig.fn_token,
                "`#[ad]` functions are plain `fn`s: remove `async`, `unsafe` or `const`",
            );
        }
        for input in &sig.inputs {
            let syn::FnArg::Typed(pt) = input else {
                self.errors
                    .push_tokens(input, "`#[ad]` functions are free functions: no `self`");
                continue;
            };
            let name = match &*pt.pat {
                syn::Pat::Ident(pi) if pi.mutability.is_none() && pi.by_ref.is_none() => {
                    pi.ident.clone()
                }
                pat => {
                    self.errors.push_tokens(
                        pat,
                        "a parameter of an `#[ad]` function is a plain name (parameters are read only: copy one into `let mut v = x;` to change it)",
                    );
                    continue;
                }
            };
            let ty = (*pt.ty).clone();
            if self.data_attr(pt) {
                self.data_param(name, ty);
                continue;
            }
            let kind = match &ty {
                t if is_f64(t) => Kind::Active,
                syn::Type::Reference(r)
                    if r.mutability.is_some()
                        && matches!(
                            &*r.elem,
                            syn::Type::Slice(_) | syn::Type::Array(_) | syn::Type::Path(_)
                        )
                        && is_f64_array(&r.elem) =>
                {
                    self.scopes[0].insert(name.to_string());
                    self.params.push(Param {
                        name,
                        kind: Kind::Array,
                        ty,
                        output: true,
                        data: false,
                    });
                    continue;
                }
                syn::Type::Reference(r) if r.mutability.is_some() => {
                    self.errors.push_tokens(
                        &ty,
                        "this `&mut` parameter is not supported by `#[ad]`: outputs are `&mut [f64]`, `&mut [f64; N]` or `&mut Vec<f64>` (written element by element); return a scalar result",
                    );
                    continue;
                }
                syn::Type::Reference(r) if is_f64_array(&r.elem) => Kind::Array,
                t if mentions_float(t) => {
                    self.errors.push_tokens(
                        &ty,
                        "this parameter type is not supported by `#[ad]`: differentiated parameters are `f64`, `&[f64]`, `&[f64; N]` or `&Vec<f64>` (pass struct fields as separate parameters)",
                    );
                    continue;
                }
                _ => Kind::Inactive,
            };
            self.scopes[0].insert(name.to_string());
            self.params.push(Param {
                name,
                kind,
                ty,
                output: false,
                data: false,
            });
        }
        let outputs = self.params.iter().any(|p| p.output);
        match &sig.output {
            syn::ReturnType::Type(_, t) if is_f64(t) => {}
            syn::ReturnType::Default if outputs => {}
            out => self.errors.push_tokens(
                out,
                "an `#[ad]` function returns the `f64` it differentiates (`-> f64`), or writes `&mut [f64]` outputs",
            ),
        }
    }

    /// Whether parameter `pt` is marked `#[data]` (a malformed mark is reported).
    fn data_attr(&mut self, pt: &syn::PatType) -> bool {
        let mut data = false;
        for a in pt.attrs.iter().filter(|a| a.path().is_ident(DATA)) {
            if !matches!(a.meta, syn::Meta::Path(_)) {
                self.errors.push_tokens(
                    &a.meta,
                    "`#[data]` takes no arguments: write `#[data] x: &[f64]`",
                );
            }
            data = true;
        }
        data
    }

    /// A parameter marked `#[data]`: an `f64` or a read-only `f64` array without derivative.
    fn data_param(&mut self, name: Ident, ty: syn::Type) {
        let ok = match &ty {
            t if is_f64(t) => true,
            syn::Type::Reference(r) if is_f64_array(&r.elem) => {
                if r.mutability.is_some() {
                    self.errors.push_tokens(
                        &ty,
                        format!("`{name}` is `#[data]`, which is read only: an output `&mut [f64]` is differentiated (remove `#[data]`), data is `&[f64]`"),
                    );
                }
                true
            }
            _ => false,
        };
        if !ok {
            self.errors.push_tokens(
                &ty,
                "`#[data]` marks an `f64`, `&[f64]`, `&[f64; N]` or `&Vec<f64>` parameter as data (no derivative); parameters of other types have none already: remove `#[data]`",
            );
        }
        // after an error, a parameter as if unmarked (so that its uses report nothing more)
        let output = matches!(&ty, syn::Type::Reference(r) if r.mutability.is_some()) && ok;
        self.scopes[0].insert(name.to_string());
        self.params.push(Param {
            name,
            kind: if output { Kind::Array } else { Kind::Inactive },
            ty,
            output,
            data: ok && !output,
        });
    }

    /// Whether `id` is an `f64` array parameter marked `#[data]`.
    fn data_array(&self, id: &Ident) -> bool {
        self.params
            .iter()
            .any(|p| &p.name == id && p.data && !is_f64(&p.ty))
    }

    fn body(&mut self, block: &syn::Block) -> Vec<Stmt> {
        self.scopes.push(HashSet::new());
        let mut out = vec![];
        let n = block.stmts.len();
        for (k, s) in block.stmts.iter().enumerate() {
            match s {
                syn::Stmt::Expr(e, None) if k + 1 == n => {
                    // the tail: the return value
                    match e {
                        syn::Expr::If(_) | syn::Expr::ForLoop(_) | syn::Expr::While(_) => {
                            self.stmt(s, &mut out)
                        }
                        e => {
                            let v = self.expr(e);
                            out.push(Stmt::Return(v));
                        }
                    }
                }
                s => self.stmt(s, &mut out),
            }
        }
        self.scopes.pop();
        out
    }

    /// A nested block: its own scope; its tail must be empty.
    fn block(&mut self, block: &syn::Block) -> Vec<Stmt> {
        self.scopes.push(HashSet::new());
        let mut out = vec![];
        for s in &block.stmts {
            if let syn::Stmt::Expr(e, None) = s {
                if !matches!(
                    e,
                    syn::Expr::If(_)
                        | syn::Expr::ForLoop(_)
                        | syn::Expr::While(_)
                        | syn::Expr::Block(_)
                        | syn::Expr::Return(_)
                ) {
                    self.errors.push_tokens(
                        e,
                        "a block's value is not supported by `#[ad]`: assign it to a variable (`v = ..;`) or `return` it",
                    );
                    continue;
                }
            }
            self.stmt(s, &mut out);
        }
        self.scopes.pop();
        out
    }

    fn visible(&self, name: &str) -> Option<usize> {
        self.scopes.iter().rposition(|s| s.contains(name))
    }

    fn stmt(&mut self, s: &syn::Stmt, out: &mut Vec<Stmt>) {
        match s {
            syn::Stmt::Local(l) => self.local(l, out),
            syn::Stmt::Expr(e, _) => self.expr_stmt(e, out),
            syn::Stmt::Item(i) => self.errors.push_tokens(
                i,
                "items inside an `#[ad]` function are not supported: define them outside",
            ),
            syn::Stmt::Macro(m) => self.errors.push_tokens(
                &m.mac,
                "macros are not supported as statements of an `#[ad]` function: write the statements themselves",
            ),
        }
    }

    fn local(&mut self, l: &syn::Local, out: &mut Vec<Stmt>) {
        let (name, ty) = match &l.pat {
            syn::Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => {
                (pi.ident.clone(), None)
            }
            syn::Pat::Type(pt) => match &*pt.pat {
                syn::Pat::Ident(pi) if pi.by_ref.is_none() => {
                    (pi.ident.clone(), Some((*pt.ty).clone()))
                }
                p => {
                    self.errors.push_tokens(
                        p,
                        "patterns are not supported by `#[ad]`: bind one name per `let`",
                    );
                    return;
                }
            },
            p => {
                self.errors.push_tokens(
                    p,
                    "patterns are not supported by `#[ad]`: bind one name per `let`",
                );
                return;
            }
        };
        let Some(init) = &l.init else {
            self.errors.push_tokens(
                l,
                "a `let` of an `#[ad]` function needs a value: write `let v = ..;`",
            );
            return;
        };
        if let Some(d) = &init.diverge {
            self.errors
                .push_tokens(&d.1, "`let .. else` is not supported by `#[ad]`: use `if`");
            return;
        }
        let e = &*init.expr;
        // an array?
        let array = match &ty {
            Some(t) if is_f64_array(t) => true,
            Some(t) if mentions_float(t) => {
                self.errors.push_tokens(
                    t,
                    "this type is not supported by `#[ad]`: differentiated locals are `f64`, `[f64; N]` or `Vec<f64>`",
                );
                return;
            }
            Some(_) => false,
            None => self.array_init(e).is_some(),
        };
        let name_s = name.to_string();
        if let Some(level) = self.visible(&name_s) {
            if level + 1 != self.scopes.len() {
                self.errors.push_tokens(
                    &name,
                    format!(
                        "`{name}` shadows a variable of an enclosing block, which `#[ad]` does not support: give it another name"
                    ),
                );
                return;
            }
        }
        if array {
            if self.depth > 0 || self.scopes.len() > 2 {
                self.errors.push_tokens(
                    &name,
                    "local arrays of an `#[ad]` function are declared in the function's outermost block (not in a loop, branch or block)",
                );
                return;
            }
            let Some(init) = self.array_init(e) else {
                self.errors.push_tokens(
                    e,
                    "a local array of an `#[ad]` function starts as `[c; n]`, `vec![c; n]` (constant `c`) or `x.to_vec()` of a parameter `x`",
                );
                return;
            };
            if self.vars.iter().any(|v| v.name == name) {
                self.errors.push_tokens(
                    &name,
                    "a local array is declared once: give this one another name",
                );
                return;
            }
            self.scopes.last_mut().expect("a scope").insert(name_s);
            self.vars.push(Var {
                name: name.clone(),
                kind: Kind::Array,
                ty,
            });
            out.push(Stmt::Array { name, init });
            return;
        }
        let kind = match &ty {
            Some(t) if is_f64(t) => Kind::Active,
            Some(_) => Kind::Inactive,
            // an `f64` without derivative (of data, `i as f64`) is an `f64` variable too,
            // without adjoint by the activity analysis (recorded as an `f64`, not an integer)
            None => {
                if self.is_float(e) {
                    Kind::Active
                } else {
                    Kind::Inactive
                }
            }
        };
        if let Some(v) = self.params.iter().find(|p| p.name == name) {
            self.errors.push_tokens(
                &name,
                format!("`{}` shadows a parameter, which `#[ad]` does not support: give it another name", v.name),
            );
            return;
        }
        match self.vars.iter().find(|v| v.name == name) {
            Some(v) if v.kind != kind => {
                self.errors.push_tokens(
                    &name,
                    format!(
                        "`{name}` is declared again with another type (with and without a derivative): give it another name"
                    ),
                );
                return;
            }
            Some(_) => {}
            None => self.vars.push(Var {
                name: name.clone(),
                kind,
                ty,
            }),
        }
        self.scopes.last_mut().expect("a scope").insert(name_s);
        self.assign_to(Place::Var(name), kind, e, out);
    }

    /// `[c; n]`, `vec![c; n]`, `x.to_vec()`.
    fn array_init(&self, e: &syn::Expr) -> Option<ArrayInit> {
        match e {
            syn::Expr::Repeat(r) if !self.reads_active(&r.expr) => {
                let len = &r.len;
                Some(ArrayInit::Repeat {
                    init: e.to_token_stream(),
                    zeros: quote!([__ad_zero; #len]),
                })
            }
            syn::Expr::Macro(m) if m.mac.path.is_ident("vec") => {
                let toks = &m.mac.tokens;
                let r2: syn::ExprRepeat = syn::parse2(quote!([#toks])).ok()?;
                if self.reads_active(&r2.expr) {
                    return None;
                }
                let len = &r2.len;
                Some(ArrayInit::Repeat {
                    init: e.to_token_stream(),
                    zeros: quote!(::std::vec![__ad_zero; #len]),
                })
            }
            syn::Expr::MethodCall(m) if m.method == "to_vec" && m.args.is_empty() => {
                match &*m.receiver {
                    syn::Expr::Path(p) => {
                        let id = p.path.get_ident()?;
                        self.params
                            .iter()
                            .find(|q| {
                                &q.name == id && (q.kind == Kind::Array || self.data_array(id))
                            })
                            .map(|q| ArrayInit::CopyOf(q.name.clone()))
                    }
                    _ => None,
                }
            }
            _ => None,
        }
    }

    fn kind_of(&self, id: &Ident) -> Option<Kind> {
        self.params
            .iter()
            .find(|p| &p.name == id)
            .map(|p| p.kind)
            .or_else(|| {
                self.visible(&id.to_string())?;
                self.vars.iter().find(|v| &v.name == id).map(|v| v.kind)
            })
    }

    /// Whether `e` reads a differentiated value (or calls a function, which returns one).
    fn is_active(&self, e: &syn::Expr) -> bool {
        match e {
            syn::Expr::Lit(l) => matches!(l.lit, syn::Lit::Float(_)),
            syn::Expr::Path(p) => p
                .path
                .get_ident()
                .is_some_and(|id| self.kind_of(id) == Some(Kind::Active)),
            syn::Expr::Index(i) => match &*i.expr {
                syn::Expr::Path(p) => p
                    .path
                    .get_ident()
                    .is_some_and(|id| self.kind_of(id) == Some(Kind::Array)),
                _ => false,
            },
            syn::Expr::Binary(b) => self.is_active(&b.left) || self.is_active(&b.right),
            syn::Expr::Unary(u) => self.is_active(&u.expr),
            syn::Expr::Paren(p) => self.is_active(&p.expr),
            syn::Expr::Group(g) => self.is_active(&g.expr),
            syn::Expr::MethodCall(m) => {
                self.is_active(&m.receiver) && !matches!(m.method.to_string().as_str(), "len")
            }
            syn::Expr::Call(c) => {
                matches!(&*c.func, syn::Expr::Path(p) if p.path.get_ident().is_some())
                    && c.args
                        .iter()
                        .any(|a| self.is_active(a) || self.array_arg(a).is_some())
            }
            syn::Expr::Cast(c) => {
                matches!(&*c.ty, syn::Type::Path(p) if p.path.is_ident("f64"))
                    && self.is_active(&c.expr)
            }
            _ => false,
        }
    }

    /// Whether `e` is an `f64`: it reads a differentiated value, data, or converts to `f64`.
    fn is_float(&self, e: &syn::Expr) -> bool {
        if self.is_active(e) {
            return true;
        }
        match e {
            syn::Expr::Path(p) => p.path.get_ident().is_some_and(|id| {
                self.params
                    .iter()
                    .any(|q| &q.name == id && q.data && is_f64(&q.ty))
            }),
            syn::Expr::Index(i) => match &*i.expr {
                syn::Expr::Path(p) => p.path.get_ident().is_some_and(|id| self.data_array(id)),
                _ => false,
            },
            syn::Expr::Binary(b) => {
                matches!(
                    b.op,
                    syn::BinOp::Add(_)
                        | syn::BinOp::Sub(_)
                        | syn::BinOp::Mul(_)
                        | syn::BinOp::Div(_)
                        | syn::BinOp::Rem(_)
                ) && (self.is_float(&b.left) || self.is_float(&b.right))
            }
            syn::Expr::Unary(u) => !matches!(u.op, syn::UnOp::Not(_)) && self.is_float(&u.expr),
            syn::Expr::Paren(p) => self.is_float(&p.expr),
            syn::Expr::Group(g) => self.is_float(&g.expr),
            syn::Expr::MethodCall(m) => {
                let name = m.method.to_string();
                self.is_float(&m.receiver)
                    && !(name == "len"
                        || name.starts_with("is_")
                        || name.starts_with("to_")
                        || name.ends_with("cmp")
                        || name == "classify")
            }
            syn::Expr::Cast(c) => matches!(&*c.ty, syn::Type::Path(p) if p.path.is_ident("f64")),
            _ => false,
        }
    }

    /// Whether `e` reads a differentiated value (a literal does not).
    fn reads_active(&self, e: &syn::Expr) -> bool {
        !matches!(e, syn::Expr::Lit(_)) && self.is_active(e)
    }

    /// `x`, `&x`, `&x[..]` for a `#[data]` array `x`.
    fn data_arg(&self, e: &syn::Expr) -> Option<Ident> {
        match e {
            syn::Expr::Path(p) => p.path.get_ident().filter(|id| self.data_array(id)).cloned(),
            syn::Expr::Reference(r) if r.mutability.is_none() => self.data_arg(&r.expr),
            syn::Expr::Index(i) if matches!(&*i.index, syn::Expr::Range(r) if r.start.is_none() && r.end.is_none()) => {
                self.data_arg(&i.expr)
            }
            syn::Expr::Paren(p) => self.data_arg(&p.expr),
            _ => None,
        }
    }

    /// `x`, `&x`, `&x[..]` for an array `x`.
    fn array_arg(&self, e: &syn::Expr) -> Option<Ident> {
        match e {
            syn::Expr::Path(p) => p
                .path
                .get_ident()
                .filter(|id| self.kind_of(id) == Some(Kind::Array))
                .cloned(),
            syn::Expr::Reference(r) if r.mutability.is_none() => self.array_arg(&r.expr),
            syn::Expr::Index(i) if matches!(&*i.index, syn::Expr::Range(r) if r.start.is_none() && r.end.is_none()) => {
                self.array_arg(&i.expr)
            }
            syn::Expr::Paren(p) => self.array_arg(&p.expr),
            _ => None,
        }
    }

    /// `place = e` (a `let` or an assignment) into `out`.
    fn assign_to(&mut self, target: Place, kind: Kind, e: &syn::Expr, out: &mut Vec<Stmt>) {
        match kind {
            Kind::Inactive => {
                let Place::Var(target) = target else { return };
                self.check_const(e);
                if self.is_active(e) {
                    self.errors.push_tokens(
                        e,
                        "this value carries a derivative but the variable does not: declare the variable as `f64`",
                    );
                    return;
                }
                out.push(Stmt::Inactive {
                    target,
                    value: e.to_token_stream(),
                });
            }
            _ => {
                let value = self.expr(e);
                out.push(Stmt::Assign { target, value });
            }
        }
    }

    fn expr_stmt(&mut self, e: &syn::Expr, out: &mut Vec<Stmt>) {
        match e {
            syn::Expr::Assign(a) => self.assignment(&a.left, None, &a.right, out),
            syn::Expr::Binary(b) => {
                let op = match b.op {
                    syn::BinOp::AddAssign(_) => BinOp::Add,
                    syn::BinOp::SubAssign(_) => BinOp::Sub,
                    syn::BinOp::MulAssign(_) => BinOp::Mul,
                    syn::BinOp::DivAssign(_) => BinOp::Div,
                    _ => {
                        self.errors.push_tokens(
                            e,
                            "this statement has no effect or is not supported by `#[ad]`: write an assignment (`=`, `+=`, `-=`, `*=`, `/=`)",
                        );
                        return;
                    }
                };
                self.assignment(&b.left, Some((op, b.op)), &b.right, out)
            }
            syn::Expr::If(i) => {
                let s = self.if_else(i);
                out.push(s);
            }
            syn::Expr::ForLoop(f) => self.for_loop(f, out),
            syn::Expr::While(w) => {
                if let syn::Expr::Let(l) = &*w.cond {
                    self.errors.push_tokens(
                        &l.let_token,
                        "`while let` is not supported by `#[ad]`: write `while` with a condition",
                    );
                    return;
                }
                self.depth += 1;
                let body = self.block(&w.body);
                self.depth -= 1;
                out.push(Stmt::While {
                    cond: w.cond.to_token_stream(),
                    body,
                });
            }
            syn::Expr::Return(r) => match &r.expr {
                Some(v) => {
                    let v = self.expr(v);
                    out.push(Stmt::Return(v));
                }
                None => self.errors.push_tokens(
                    r,
                    "an `#[ad]` function returns a value: write `return v;`",
                ),
            },
            syn::Expr::Block(b) if b.label.is_none() && b.attrs.is_empty() => {
                let body = self.block(&b.block);
                out.extend(body);
            }
            syn::Expr::Call(c) => self.reversible_call(c, out),
            syn::Expr::Break(_) | syn::Expr::Continue(_) => self.errors.push_tokens(
                e,
                "`break` and `continue` are not supported by `#[ad]`: put the exit test in a `while` condition (or `return`)",
            ),
            syn::Expr::Loop(l) => self.errors.push_tokens(
                &l.loop_token,
                "`loop` is not supported by `#[ad]`: write `while condition { .. }`",
            ),
            syn::Expr::Match(m) => self.errors.push_tokens(
                &m.match_token,
                "`match` is not supported by `#[ad]` yet: write `if`/`else if`/`else`",
            ),
            syn::Expr::Unsafe(u) => self.errors.push_tokens(
                &u.unsafe_token,
                "`unsafe` blocks are not supported by `#[ad]`",
            ),
            e => self.errors.push_tokens(
                e,
                "this statement is not supported by `#[ad]`: write `let`, an assignment, `if`, `for`, `while`, `return` or a call of an `#[i]` function",
            ),
        }
    }

    fn assignment(
        &mut self,
        left: &syn::Expr,
        op: Option<(BinOp, syn::BinOp)>,
        right: &syn::Expr,
        out: &mut Vec<Stmt>,
    ) {
        let (target, kind) = match left {
            syn::Expr::Path(p) if p.path.get_ident().is_some() => {
                let id = p.path.get_ident().expect("an ident").clone();
                if self.params.iter().any(|q| q.name == id) {
                    let what = self.read_only(&id);
                    self.errors
                        .push_tokens(left, format!("{what}: copy it first (`let mut v = {id};`)"));
                    return;
                }
                match self.kind_of(&id) {
                    Some(Kind::Array) => {
                        self.errors.push_tokens(
                            left,
                            "whole arrays are not assigned in `#[ad]`: assign their elements (`a[i] = ..`)",
                        );
                        return;
                    }
                    Some(k) => (Place::Var(id), k),
                    None => {
                        self.errors
                            .push_tokens(left, format!("`{id}` is not a local variable here"));
                        return;
                    }
                }
            }
            syn::Expr::Index(i) => {
                let id = match &*i.expr {
                    syn::Expr::Path(p) => p.path.get_ident().cloned(),
                    _ => None,
                };
                match id {
                    Some(id) if self.params.iter().any(|q| q.name == id && q.output) => {
                        (Place::Elem(id, i.index.to_token_stream()), Kind::Array)
                    }
                    Some(id) if self.params.iter().any(|q| q.name == id) => {
                        let what = self.read_only(&id);
                        self.errors.push_tokens(
                            left,
                            format!("{what}: copy it first (`let mut v = {id}.to_vec();`)"),
                        );
                        return;
                    }
                    Some(id) if self.kind_of(&id) == Some(Kind::Array) => {
                        (Place::Elem(id, i.index.to_token_stream()), Kind::Array)
                    }
                    _ => {
                        self.errors.push_tokens(
                            left,
                            "`#[ad]` writes elements of local `f64` arrays only (`let mut a = [0.0; n];` or `vec![0.0; n]`); 2-D arrays are one slice indexed `i * n + j`",
                        );
                        return;
                    }
                }
            }
            syn::Expr::Field(f) => {
                self.errors.push_tokens(
                    f,
                    "struct fields are not supported by `#[ad]` yet: use a local variable per field",
                );
                return;
            }
            l => {
                self.errors
                    .push_tokens(l, "`#[ad]` assigns variables and array elements only");
                return;
            }
        };
        let value: syn::Expr = match op {
            None => right.clone(),
            Some((_, bop)) => {
                let bin = match bop {
                    syn::BinOp::AddAssign(t) => syn::BinOp::Add(syn::Token![+](t.span())),
                    syn::BinOp::SubAssign(t) => syn::BinOp::Sub(syn::Token![-](t.span())),
                    syn::BinOp::MulAssign(t) => syn::BinOp::Mul(syn::Token![*](t.span())),
                    syn::BinOp::DivAssign(t) => syn::BinOp::Div(syn::Token![/](t.span())),
                    _ => return,
                };
                syn::Expr::Binary(syn::ExprBinary {
                    attrs: vec![],
                    left: Box::new(left.clone()),
                    op: bin,
                    right: Box::new(syn::Expr::Paren(syn::ExprParen {
                        attrs: vec![],
                        paren_token: Default::default(),
                        expr: Box::new(right.clone()),
                    })),
                })
            }
        };
        self.assign_to(target, kind, &value, out);
    }

    fn if_else(&mut self, i: &syn::ExprIf) -> Stmt {
        let mut arms = vec![];
        let mut otherwise = vec![];
        let mut cur = i;
        self.depth += 1;
        loop {
            if let syn::Expr::Let(l) = &*cur.cond {
                self.errors.push_tokens(
                    &l.let_token,
                    "`if let` is not supported by `#[ad]`: write `if` with a condition",
                );
            }
            let body = self.block(&cur.then_branch);
            arms.push((cur.cond.to_token_stream(), body));
            match &cur.else_branch {
                Some((_, e)) => match &**e {
                    syn::Expr::If(next) => cur = next,
                    syn::Expr::Block(b) => {
                        otherwise = self.block(&b.block);
                        break;
                    }
                    _ => break,
                },
                None => break,
            }
        }
        self.depth -= 1;
        Stmt::If { arms, otherwise }
    }

    fn for_loop(&mut self, f: &syn::ExprForLoop, out: &mut Vec<Stmt>) {
        let (var, by_ref) = match &*f.pat {
            syn::Pat::Ident(pi) => (pi.ident.clone(), false),
            syn::Pat::Reference(r) => match &*r.pat {
                syn::Pat::Ident(pi) => (pi.ident.clone(), true),
                p => {
                    self.errors
                        .push_tokens(p, "a `for` loop of `#[ad]` binds one name");
                    return;
                }
            },
            p => {
                self.errors
                    .push_tokens(p, "a `for` loop of `#[ad]` binds one name");
                return;
            }
        };
        let name_s = var.to_string();
        if self.visible(&name_s).is_some() {
            self.errors.push_tokens(
                &var,
                format!("`{var}` shadows a variable, which `#[ad]` does not support: give the loop variable another name"),
            );
            return;
        }
        // over a range, or over the elements of an array
        let iter = &*f.expr;
        let (lo, hi, over) = match iter {
            syn::Expr::Range(r) if r.start.is_some() && r.end.is_some() && !by_ref => {
                let lo = r.start.as_ref().expect("start").to_token_stream();
                let end = r.end.as_ref().expect("end");
                let hi = match r.limits {
                    syn::RangeLimits::HalfOpen(_) => end.to_token_stream(),
                    syn::RangeLimits::Closed(_) => quote!((#end) + 1),
                };
                (lo, hi, None)
            }
            e => {
                let arr = match e {
                    syn::Expr::MethodCall(m) if m.method == "iter" && m.args.is_empty() => self
                        .array_arg(&m.receiver)
                        .or_else(|| self.data_arg(&m.receiver)),
                    e => self.array_arg(e).or_else(|| self.data_arg(e)),
                };
                match arr {
                    Some(a) => (quote!(0usize), quote!(#a.len()), Some(a)),
                    None => {
                        self.errors.push_tokens(
                            e,
                            "`#[ad]` loops over a range `a..b` (or `a..=b`) or over the elements of an `f64` array (`for &v in x.iter()`); write `.rev()`, `.step_by(..)` and iterator chains as an index loop",
                        );
                        return;
                    }
                }
            }
        };
        self.depth += 1;
        self.scopes.push(HashSet::new());
        let mut body = vec![];
        let index = match &over {
            Some(_) => quote::format_ident!("__ad_i_{}", var),
            None => var.clone(),
        };
        self.scopes
            .last_mut()
            .expect("a scope")
            .insert(index.to_string());
        if !self.vars.iter().any(|v| v.name == index) {
            self.vars.push(Var {
                name: index.clone(),
                kind: Kind::Inactive,
                ty: None,
            });
        }
        if let Some(a) = &over {
            self.scopes.last_mut().expect("a scope").insert(name_s);
            // the elements of data carry no derivative
            let kind = if self.data_array(a) {
                Kind::Inactive
            } else {
                Kind::Active
            };
            if !self.vars.iter().any(|v| v.name == var) {
                self.vars.push(Var {
                    name: var.clone(),
                    kind,
                    ty: Some(syn::parse_quote!(f64)),
                });
            }
            body.push(match kind {
                Kind::Inactive => Stmt::Inactive {
                    target: var.clone(),
                    value: quote!(#a[#index]),
                },
                _ => Stmt::Assign {
                    target: Place::Var(var.clone()),
                    value: Expr::Read(Place::Elem(a.clone(), quote!(#index))),
                },
            });
        }
        body.extend(self.block(&f.body));
        self.scopes.pop();
        self.depth -= 1;
        out.push(Stmt::For {
            var: index,
            lo,
            hi,
            body,
        });
    }

    /// `g(&mut a, &mut b[i])`: a call of an `#[i]` function.
    fn reversible_call(&mut self, c: &syn::ExprCall, out: &mut Vec<Stmt>) {
        let func = match &*c.func {
            syn::Expr::Path(p) => p.path.clone(),
            f => {
                self.errors
                    .push_tokens(f, "`#[ad]` calls functions by name");
                return;
            }
        };
        let mut args = vec![];
        for a in &c.args {
            let place = match a {
                syn::Expr::Reference(r) if r.mutability.is_some() => match &*r.expr {
                    syn::Expr::Path(p) => p
                        .path
                        .get_ident()
                        .filter(|id| {
                            !self.is_param_name(id) && self.kind_of(id) == Some(Kind::Active)
                        })
                        .map(|id| Place::Var(id.clone())),
                    syn::Expr::Index(i) => match &*i.expr {
                        syn::Expr::Path(p) => p
                            .path
                            .get_ident()
                            .filter(|id| {
                                !self.is_param_name(id) && self.kind_of(id) == Some(Kind::Array)
                            })
                            .map(|id| Place::Elem(id.clone(), i.index.to_token_stream())),
                        _ => None,
                    },
                    _ => None,
                },
                _ => None,
            };
            match place {
                Some(p) => args.push(p),
                None => {
                    self.errors.push_tokens(
                        a,
                        "a call statement in `#[ad]` calls an `#[i]` function, each argument `&mut v` or `&mut a[i]` of a local `f64` variable or array element (a value-returning `#[ad]` function is called in an expression: `let y = f(x);`)",
                    );
                    return;
                }
            }
        }
        out.push(Stmt::Reversible { func, args });
    }

    /// Why parameter `id` cannot be assigned.
    fn read_only(&self, id: &Ident) -> String {
        if self.params.iter().any(|p| &p.name == id && p.data) {
            format!("`{id}` is `#[data]`: data is read only (and has no derivative)")
        } else {
            "parameters of an `#[ad]` function are read only".into()
        }
    }

    fn is_param_name(&self, id: &Ident) -> bool {
        self.params.iter().any(|p| &p.name == id)
    }

    /// An expression of differentiated values.
    fn expr(&mut self, e: &syn::Expr) -> Expr {
        if matches!(e, syn::Expr::Lit(_)) || !self.is_active(e) {
            self.check_const(e);
            return Expr::Const(e.to_token_stream());
        }
        match e {
            syn::Expr::Paren(p) => self.expr(&p.expr),
            syn::Expr::Group(g) => self.expr(&g.expr),
            syn::Expr::Path(p) => Expr::Read(Place::Var(
                p.path
                    .get_ident()
                    .expect("an active path is an ident")
                    .clone(),
            )),
            syn::Expr::Index(i) => {
                let id = match &*i.expr {
                    syn::Expr::Path(p) => p.path.get_ident().expect("an ident").clone(),
                    _ => unreachable!("is_active: an indexed path"),
                };
                if self.is_active(&i.index) {
                    self.errors.push_tokens(
                        &i.index,
                        "an index is an integer, not a differentiated value",
                    );
                }
                Expr::Read(Place::Elem(id, i.index.to_token_stream()))
            }
            syn::Expr::Unary(u) => match u.op {
                syn::UnOp::Neg(_) => Expr::Neg(Box::new(self.expr(&u.expr))),
                syn::UnOp::Deref(_) => self.expr(&u.expr),
                _ => {
                    self.errors
                        .push_tokens(e, "this operator has no derivative rule in `#[ad]`");
                    Expr::Const(quote!(0.0))
                }
            },
            syn::Expr::Binary(b) => {
                let op = match b.op {
                    syn::BinOp::Add(_) => BinOp::Add,
                    syn::BinOp::Sub(_) => BinOp::Sub,
                    syn::BinOp::Mul(_) => BinOp::Mul,
                    syn::BinOp::Div(_) => BinOp::Div,
                    _ => {
                        self.errors.push_tokens(
                            e,
                            format!(
                                "operator `{}` on differentiated values is not supported by `#[ad]`: use `+ - * /` and the number type's methods (comparisons go in `if` conditions)",
                                b.op.to_token_stream()
                            ),
                        );
                        return Expr::Const(quote!(0.0));
                    }
                };
                Expr::Bin(
                    op,
                    Box::new(self.expr(&b.left)),
                    Box::new(self.expr(&b.right)),
                )
            }
            syn::Expr::MethodCall(m) => self.method(m),
            syn::Expr::Call(c) => self.call(c),
            syn::Expr::Cast(c) => self.expr(&c.expr),
            e => {
                self.errors.push_tokens(
                    e,
                    "this expression is not supported by `#[ad]`: write arithmetic, methods of `f64`, indexing and calls of `#[ad]` functions",
                );
                Expr::Const(quote!(0.0))
            }
        }
    }

    /// Report the constructs `#[ad]` rejects even without derivatives.
    fn check_const(&mut self, e: &syn::Expr) {
        match e {
            syn::Expr::Loop(l) => self.errors.push_tokens(
                &l.loop_token,
                "`loop` is not supported by `#[ad]`: write `while condition { .. }`",
            ),
            syn::Expr::While(_) | syn::Expr::ForLoop(_) | syn::Expr::Block(_) | syn::Expr::Unsafe(_) => {
                self.errors.push_tokens(
                    e,
                    "a loop or block as a value is not supported by `#[ad]`: write it as a statement and assign a variable",
                )
            }
            syn::Expr::Macro(m) => self.errors.push_tokens(
                &m.mac,
                "macros are not supported in `#[ad]` expressions (but `vec![c; n]` starting a local array): write the expression itself",
            ),
            syn::Expr::Closure(c) => self.errors.push_tokens(
                c,
                "closures are not supported by `#[ad]`: write an `#[ad]` function and call it",
            ),
            syn::Expr::If(i) => self.errors.push_tokens(
                &i.if_token,
                "`if` as a value is not supported by `#[ad]`: write an `if` statement that assigns a variable",
            ),
            syn::Expr::Match(m) => self.errors.push_tokens(
                &m.match_token,
                "`match` is not supported by `#[ad]` yet: write `if`/`else if`/`else`",
            ),
            syn::Expr::Field(f) => self.errors.push_tokens(
                f,
                "struct fields are not supported by `#[ad]` yet: use a local variable per field",
            ),
            _ => {}
        }
    }

    fn method(&mut self, m: &syn::ExprMethodCall) -> Expr {
        let name = m.method.to_string();
        let recv = Box::new(self.expr(&m.receiver));
        let arity = m.args.len();
        let unary = match name.as_str() {
            "sqrt" => Some(Unary::Sqrt),
            "abs" => Some(Unary::Abs),
            "recip" => Some(Unary::Recip),
            n => crate::functions::by_name(n).map(Unary::Table),
        };
        match (unary, name.as_str(), arity) {
            (Some(u), _, 0) => Expr::Unary(u, recv),
            (None, "powi", 1) => {
                let n = &m.args[0];
                if self.is_active(n) {
                    self.errors
                        .push_tokens(n, "the exponent of `powi` is an integer: use `powf` for a differentiated exponent");
                }
                Expr::Powi(recv, n.to_token_stream())
            }
            (None, "powf" | "max" | "min", 1) => {
                let f = match name.as_str() {
                    "powf" => Fn2::Powf,
                    "max" => Fn2::Max,
                    _ => Fn2::Min,
                };
                Expr::Binary(f, recv, Box::new(self.expr(&m.args[0])))
            }
            _ => {
                self.errors.push_tokens(
                    &m.method,
                    format!("method `{name}` has no derivative rule in `#[ad]`: the supported methods are {METHODS} (or write an `#[i]` function with a `#[primitive]` rule)"),
                );
                Expr::Const(quote!(0.0))
            }
        }
    }

    fn call(&mut self, c: &syn::ExprCall) -> Expr {
        let func = match &*c.func {
            syn::Expr::Path(p) if p.path.get_ident().is_some() => p.path.clone(),
            f => {
                self.errors.push_tokens(
                    f,
                    "`#[ad]` differentiates calls of other `#[ad]` functions by name (`f64::max(a, b)` is written `a.max(b)`)",
                );
                return Expr::Const(quote!(0.0));
            }
        };
        let mut args = vec![];
        for a in &c.args {
            if let Some(id) = self.array_arg(a) {
                args.push(Arg::Array(id, a.to_token_stream()));
            } else if self.data_arg(a).is_some() {
                args.push(Arg::Data(a.to_token_stream()));
            } else if self.is_active(a) {
                args.push(Arg::Value(self.expr(a)));
            } else if self.is_float(a) {
                // an `f64` without derivative (data, `i as f64`): no adjoint to pass back
                self.check_const(a);
                args.push(Arg::Value(Expr::Const(a.to_token_stream())));
            } else {
                self.check_const(a);
                args.push(Arg::Const(a.to_token_stream()));
            }
        }
        Expr::Call(func, args)
    }
}
