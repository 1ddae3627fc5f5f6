//! Statements as OpenCL C, plain (forward, inverse) or on value/adjoint pairs (gradient).
use super::expr::Et;
use super::rules;
use super::sig::{Shape, Ty};
use crate::errors::Errors;
use crate::ir::*;
use proc_macro2::Span;
use std::collections::HashSet;
use std::fmt::Write;
use syn::spanned::Spanned;

/// A variable on the device.
#[derive(Clone, Debug)]
pub struct Var {
    /// The C name (the adjoint is `{c}_g`, a slice's length `{c}_len`).
    pub c: String,
    pub ty: Ty,
    pub shape: Shape,
    /// Read-only (by-value and `&T` parameters, loop variables): no adjoint.
    pub readonly: bool,
}

/// A number place in C: its value, and its adjoint when it has one (`shared`: accumulated
/// with `NL_SHARED_ADD`).
#[derive(Clone, Debug)]
pub struct CPlace {
    pub val: String,
    pub adj: Option<String>,
    pub shared: bool,
    pub ty: Ty,
}

/// The emission context of one body.
pub struct Cx<'e> {
    /// On value/adjoint pairs (the gradient program).
    pub gvar: bool,
    /// Record errors (the first of the four emissions of a function does).
    pub report: bool,
    pub errors: &'e mut Errors,
    /// Variables in scope, innermost last.
    pub scopes: Vec<(String, Var)>,
    /// The function's type parameters (the real type).
    pub generics: HashSet<String>,
    pub out: String,
    /// Host constants, referenced from `out` as `\u{1}k\u{1}`.
    pub host: Vec<syn::Expr>,
    /// The called device functions.
    pub deps: Vec<syn::Path>,
    pub counter: usize,
    pub depth: usize,
}

impl<'e> Cx<'e> {
    pub fn err(&mut self, span: Span, msg: impl std::fmt::Display) {
        if self.report {
            self.errors.push(span, msg);
        }
    }

    pub fn lookup(&self, name: &str) -> Option<&Var> {
        self.scopes
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v)
    }

    pub fn host(&mut self, e: &syn::Expr) -> String {
        self.host.push(e.clone());
        format!("\u{1}{}\u{1}", self.host.len() - 1)
    }

    fn fresh(&mut self, base: &str) -> String {
        self.counter += 1;
        format!("v_{base}_{}", self.counter)
    }

    pub fn line(&mut self, s: impl AsRef<str>) {
        for _ in 0..self.depth + 1 {
            self.out.push_str("    ");
        }
        self.out.push_str(s.as_ref());
        self.out.push('\n');
    }

    /// A place as C.
    pub fn place(&mut self, p: &Place) -> Option<CPlace> {
        if p.neg {
            self.err(
                p.span,
                "negation views `-x` are not supported on the device",
            );
            return None;
        }
        let name = p.root.to_string();
        let Some(v) = self.lookup(&name).cloned() else {
            self.err(
                p.span,
                format!("`{name}`: not a variable of the device function"),
            );
            return None;
        };
        let real = v.ty == Ty::Real && self.gvar;
        match (&p.path[..], v.shape) {
            ([], Shape::Value) => Some(CPlace {
                val: v.c.clone(),
                adj: (real && !v.readonly).then(|| format!("{}_g", v.c)),
                shared: false,
                ty: v.ty,
            }),
            ([], Shape::Ptr) => Some(CPlace {
                val: format!("(*{})", v.c),
                adj: real.then(|| format!("(*{}_g)", v.c)),
                shared: false,
                ty: v.ty,
            }),
            ([Proj::Index(ix)], Shape::Slice { mutable, shared }) => {
                let (i, _) = self.cexpr(ix);
                Some(CPlace {
                    val: format!("{}[{i}]", v.c),
                    adj: (real && mutable).then(|| format!("{}_g[{i}]", v.c)),
                    shared,
                    ty: v.ty,
                })
            }
            ([], Shape::Slice { .. }) => {
                self.err(p.span, format!("slice `{name}` used as a number"));
                None
            }
            _ => {
                self.err(
                    p.span,
                    "fields and nested indices are not supported on the device (slices of \
                     numbers indexed once)",
                );
                None
            }
        }
    }

    /// An operand as C: a place, or a value without adjoint.
    pub fn operand(&mut self, o: &Operand) -> Option<CPlace> {
        match o {
            Operand::Place(p) => self.place(p),
            Operand::Lit { lit, neg, .. } => {
                let (s, t) = self.lit(lit, *neg);
                Some(CPlace {
                    val: s,
                    adj: None,
                    shared: false,
                    ty: match t {
                        Et::Num(t) => t,
                        _ => Ty::Real,
                    },
                })
            }
            Operand::Const { expr, .. } => {
                let (s, t) = self.cexpr(expr);
                Some(CPlace {
                    val: s,
                    adj: None,
                    shared: false,
                    ty: match t {
                        Et::Num(t) => t,
                        _ => Ty::Real,
                    },
                })
            }
            Operand::Tuple(_, span) => {
                self.err(
                    *span,
                    "a tuple operand is only supported as `(s, c) += sincos(x)`",
                );
                None
            }
        }
    }

    /// `a (+|-)= v` on an adjoint.
    pub fn adj_update(&mut self, p: &CPlace, plus: bool, v: &str) {
        let Some(a) = &p.adj else { return };
        if p.shared {
            let v = if plus {
                v.to_string()
            } else {
                format!("-({v})")
            };
            self.line(format!("NL_SHARED_ADD(&{a}, {v});"));
        } else {
            self.line(format!("{a} {}= {v};", if plus { '+' } else { '-' }));
        }
    }

    pub fn block(&mut self, stmts: &[Stmt]) {
        let scope = self.scopes.len();
        self.depth += 1;
        self.stmts(stmts);
        self.depth -= 1;
        self.scopes.truncate(scope);
    }

    pub fn stmts(&mut self, stmts: &[Stmt]) {
        for s in stmts {
            self.stmt(s);
        }
    }

    fn cond(&mut self, e: &syn::Expr) -> String {
        self.cexpr(e).0
    }

    fn stmt(&mut self, s: &Stmt) {
        match &s.kind {
            StmtKind::Instr(i) => self.instr(i, s.span),
            StmtKind::Call(c) => self.call(c, s.span),
            StmtKind::Alloc(a) => self.alloc(a, s.span),
            StmtKind::Dealloc(a) => {
                for n in &a.names {
                    let n = n.to_string();
                    if let Some(k) = self.scopes.iter().rposition(|(m, _)| *m == n) {
                        self.scopes.remove(k);
                    }
                }
            }
            StmtKind::If {
                branches,
                otherwise,
            } => {
                for (k, b) in branches.iter().enumerate() {
                    let c = self.cond(&b.pre);
                    if k == 0 {
                        self.line(format!("if ({c}) {{"));
                    } else {
                        self.line(format!("}} else if ({c}) {{"));
                    }
                    self.block(&b.body);
                }
                if let Some(o) = otherwise {
                    self.line("} else {");
                    self.block(o);
                }
                self.line("}");
            }
            StmtKind::While { pre, body, .. } => {
                let c = self.cond(pre);
                self.line(format!("while ({c}) {{"));
                self.block(body);
                self.line("}");
            }
            StmtKind::DoLoop {
                first,
                until,
                second,
                ..
            } => {
                self.line("while (1) {");
                let scope = self.scopes.len();
                self.depth += 1;
                self.stmts(first);
                let c = self.cond(until);
                self.line(format!("if ({c}) break;"));
                self.stmts(second);
                self.depth -= 1;
                self.scopes.truncate(scope);
                self.line("}");
            }
            StmtKind::For { var, iter, body } => self.for_loop(var, iter, body),
            StmtKind::Block(b) => {
                self.line("{");
                self.block(b);
                self.line("}");
            }
            StmtKind::Seq(b) | StmtKind::Routine { body: b, .. } => self.stmts(b),
            StmtKind::Move { dst, src } => {
                let Some(v) = self.lookup(&src.to_string()).cloned() else {
                    self.err(src.span(), "`take!` of something not an ancilla");
                    return;
                };
                let c = self.fresh(&dst.to_string());
                self.line(format!("{} {c} = {};", v.ty.c_scalar(), v.c));
                if self.gvar && v.ty == Ty::Real {
                    self.line(format!("REAL {c}_g = {}_g;", v.c));
                }
                let k = self.scopes.iter().rposition(|(m, _)| src == m);
                if let Some(k) = k {
                    self.scopes.remove(k);
                }
                self.scopes.push((dst.to_string(), Var { c, ..v }));
            }
            StmtKind::Safe(_) => {}
            StmtKind::Fresh(_) => self.err(s.span, "`fresh!` is not supported on the device"),
            StmtKind::Stack { .. } => self.err(
                s.span,
                "stacks (`push!`, `pop!`, `copy_push!`, ...) are not supported on the device",
            ),
            // lowered away before emission (see `lower`)
            StmtKind::Surface(_) => {
                self.err(s.span, "this statement is not supported on the device")
            }
        }
    }

    fn for_loop(&mut self, var: &syn::Ident, iter: &ForIter, body: &[Stmt]) {
        let scope = self.scopes.len();
        let c = self.fresh(&var.to_string());
        let (s, e, st) = (self.fresh("s"), self.fresh("e"), self.fresh("st"));
        let (start, end, inclusive, step, rev) = match iter {
            ForIter::Range {
                start,
                end,
                inclusive,
                step,
                rev,
            } => {
                let start = self.cexpr(start).0;
                let end = self.cexpr(end).0;
                let step = step.as_ref().map(|x| self.cexpr(x).0);
                (start, end, *inclusive, step, *rev)
            }
            ForIter::Indices { slice, rev } => {
                let len = match self.lookup(&slice.root.to_string()) {
                    Some(v) if slice.path.is_empty() && matches!(v.shape, Shape::Slice { .. }) => {
                        format!("{}_len", v.c)
                    }
                    _ => {
                        self.err(
                            slice.span,
                            "on the device, `for` over a slice parameter only",
                        );
                        String::new()
                    }
                };
                ("0".into(), len, false, None, *rev)
            }
        };
        self.line("{");
        self.depth += 1;
        let end = if inclusive {
            format!("((long)({end}) + 1)")
        } else {
            format!("((long)({end}))")
        };
        self.line(format!(
            "long {s} = (long)({start}); long {e} = {end}; long {st} = (long)({});",
            step.as_deref().unwrap_or("1")
        ));
        if rev {
            self.line(format!("if ({s} < {e}) for (long {c} = {s} + (({e} - 1 - {s}) / {st}) * {st}; {c} >= {s}; {c} -= {st}) {{"));
        } else {
            self.line(format!("for (long {c} = {s}; {c} < {e}; {c} += {st}) {{"));
        }
        self.scopes.push((
            var.to_string(),
            Var {
                c,
                ty: Ty::Int {
                    signed: true,
                    bytes: 8,
                },
                shape: Shape::Value,
                readonly: true,
            },
        ));
        self.block(body);
        self.line("}");
        self.depth -= 1;
        self.line("}");
        self.scopes.truncate(scope);
    }

    fn alloc(&mut self, a: &Anc, span: Span) {
        if a.tuple || a.names.len() != 1 {
            self.err(span, "tuple ancillas are not supported on the device");
            return;
        }
        let name = a.names[0].to_string();
        let (v, t) = self.cexpr(&a.value);
        let ty = match &a.ty {
            Some(t) => match super::sig::number_type(t, &self.generics) {
                Some(ty) => ty,
                None => {
                    self.err(
                        t.span(),
                        "ancilla type not supported on the device (a number)",
                    );
                    return;
                }
            },
            None => match t {
                Et::Num(ty) => ty,
                _ => {
                    self.err(
                        a.value.span(),
                        format!(
                            "ancilla `{name}`: its number type is not known on the device; \
                             write `T::default()`, `T::lit(..)`, a suffixed literal or \
                             `let {name}: T = ...`"
                        ),
                    );
                    return;
                }
            },
        };
        let c = self.fresh(&name);
        self.line(format!("{} {c} = {v};", ty.c_scalar()));
        if self.gvar && ty == Ty::Real {
            self.line(format!("REAL {c}_g = 0;"));
        }
        self.scopes.push((
            name,
            Var {
                c,
                ty,
                shape: Shape::Value,
                readonly: false,
            },
        ));
    }

    fn instr(&mut self, i: &Instr, span: Span) {
        if let Operand::Tuple(ts, tspan) = &i.target {
            let ok = matches!(i.func, FuncRef::Builtin("SinCos")) && ts.len() == 2;
            if !ok {
                self.err(
                    *tspan,
                    "a tuple target is only supported as `(s, c) += sincos(x)`",
                );
                return;
            }
            let (Some(s), Some(c), Some(a)) = (
                self.operand(&ts[0]),
                self.operand(&ts[1]),
                i.args.first().and_then(|a| self.operand(a)),
            ) else {
                return;
            };
            let plus = match i.op {
                AccOp::Plus => true,
                AccOp::Minus => false,
                _ => {
                    self.err(span, "only `+=` and `-=` with `sincos` on the device");
                    return;
                }
            };
            rules::sincos(self, plus, &s, &c, &a);
            return;
        }
        let Some(y) = self.operand(&i.target) else {
            return;
        };
        let args: Option<Vec<CPlace>> = i.args.iter().map(|a| self.operand(a)).collect();
        let Some(args) = args else { return };
        let f = match &i.func {
            FuncRef::Builtin(b) => rules::Func::Builtin(b),
            FuncRef::User(p) => match powin(p) {
                Some(n) => rules::Func::PowiN(n),
                None => {
                    let name = p
                        .segments
                        .last()
                        .map(|s| s.ident.to_string())
                        .unwrap_or_default();
                    self.err(
                        p.span(),
                        format!("user primitive `{name}` is not supported on the device"),
                    );
                    return;
                }
            },
        };
        if y.ty != Ty::Real {
            // integers: plain C in every mode
            let op = match i.op {
                AccOp::Plus => "+=",
                AccOp::Minus => "-=",
                AccOp::Xor => "^=",
                AccOp::Mul | AccOp::Div => {
                    self.err(
                        span,
                        "`*=` and `/=` on integers are not supported on the device",
                    );
                    return;
                }
            };
            let Some(v) = rules::value(self, &f, &args, false, span) else {
                return;
            };
            self.line(format!("{} {op} {v};", y.val));
            return;
        }
        let plus = match i.op {
            AccOp::Plus => true,
            AccOp::Minus => false,
            op => {
                self.err(
                    span,
                    format!(
                        "`{}` on a real number is not supported on the device (only `+=` and `-=`)",
                        match op {
                            AccOp::Xor => "^=",
                            AccOp::Mul => "*=",
                            _ => "/=",
                        }
                    ),
                );
                return;
            }
        };
        let Some(v) = rules::value(self, &f, &args, true, span) else {
            return;
        };
        if self.gvar {
            rules::gvar(self, plus, &y, &f, &args, &v);
        } else {
            self.line(format!("{} {}= {v};", y.val, if plus { '+' } else { '-' }));
        }
    }

    fn call(&mut self, c: &Call, span: Span) {
        let Callee::Path(p) = &c.callee else {
            self.err(span, "method calls are not supported on the device");
            return;
        };
        let Some(last) = p.path.segments.last() else {
            return;
        };
        let mut name = last.ident.to_string();
        let mut inverse = c.inverse;
        if let Some(base) = name.strip_suffix("_inv") {
            name = base.to_string();
            inverse = !inverse;
        }
        match name.as_str() {
            "SWAP" => {
                let ps: Vec<Option<CPlace>> = c
                    .args
                    .iter()
                    .map(|a| match a {
                        CallArg::InOut(p) | CallArg::Name(p) => self.place(p),
                        CallArg::Read(e) => {
                            self.err(e.span(), "`SWAP` takes two places");
                            None
                        }
                    })
                    .collect();
                if let [Some(a), Some(b)] = &ps[..] {
                    let t = self.fresh("t");
                    self.line(format!(
                        "{{ {} {t} = {}; {} = {}; {} = {t}; }}",
                        a.ty.c_scalar(),
                        a.val,
                        a.val,
                        b.val,
                        b.val
                    ));
                    if let (Some(ga), Some(gb)) = (&a.adj, &b.adj) {
                        self.line(format!("{{ REAL {t} = {ga}; {ga} = {gb}; {gb} = {t}; }}"));
                    }
                }
                return;
            }
            "NEG" => {
                if let [CallArg::InOut(p) | CallArg::Name(p)] = &c.args[..] {
                    if let Some(a) = self.place(p) {
                        self.line(format!("{} = -{};", a.val, a.val));
                        if let Some(g) = &a.adj {
                            self.line(format!("{g} = -{g};"));
                        }
                    }
                }
                return;
            }
            "INC" | "DEC" | "ROT" | "IROT" | "HADAMARD" | "INV" | "FLIP" | "CONJ" | "ADD_CONST"
            | "SUB_CONST" => {
                self.err(
                    span,
                    format!("instruction `{name}` is not supported on the device"),
                );
                return;
            }
            _ => {}
        }
        // a device function: `nl_<name>_<direction>`
        let mut dep = p.path.clone();
        if let Some(l) = dep.segments.last_mut() {
            l.ident = syn::Ident::new(&name, l.ident.span());
        }
        for s in dep.segments.iter_mut() {
            s.arguments = syn::PathArguments::None;
        }
        if !self
            .deps
            .iter()
            .any(|d| quote::quote!(#d).to_string() == quote::quote!(#dep).to_string())
        {
            self.deps.push(dep);
        }
        let dir = match (self.gvar, inverse) {
            (false, false) => "fwd",
            (false, true) => "inv",
            (true, false) => "gfwd",
            (true, true) => "ginv",
        };
        let mut pre = vec![];
        let mut post = vec![];
        let mut args = vec![];
        for a in &c.args {
            match a {
                CallArg::InOut(p) | CallArg::Name(p) => {
                    let Some(v) = self.lookup(&p.root.to_string()).cloned() else {
                        self.err(p.span, "not a variable of the device function");
                        return;
                    };
                    match (v.shape, p.path.is_empty(), matches!(a, CallArg::InOut(_))) {
                        (Shape::Slice { mutable, .. }, true, _) => {
                            args.push(v.c.clone());
                            if self.gvar && mutable && v.ty == Ty::Real {
                                args.push(format!("{}_g", v.c));
                            }
                            args.push(format!("{}_len", v.c));
                        }
                        (Shape::Ptr, true, _) => {
                            args.push(v.c.clone());
                            if self.gvar && v.ty == Ty::Real {
                                args.push(format!("{}_g", v.c));
                            }
                        }
                        (Shape::Value, true, false) => args.push(v.c.clone()),
                        _ => {
                            // an element or an ancilla passed in-out: through a private copy
                            let Some(cp) = self.place(p) else { return };
                            let t = self.fresh("arg");
                            pre.push(format!("{} {t} = {};", cp.ty.c_scalar(), cp.val));
                            post.push(format!("{} = {t};", cp.val));
                            args.push(format!("&{t}"));
                            if self.gvar && cp.ty == Ty::Real {
                                let g = match &cp.adj {
                                    Some(g) if !cp.shared => g.clone(),
                                    _ => "0".into(),
                                };
                                pre.push(format!("REAL {t}_g = {g};"));
                                match &cp.adj {
                                    Some(adj) if cp.shared => {
                                        post.push(format!("NL_SHARED_ADD(&{adj}, {t}_g);"))
                                    }
                                    Some(adj) => post.push(format!("{adj} = {t}_g;")),
                                    None => {}
                                }
                                args.push(format!("&{t}_g"));
                            }
                        }
                    }
                }
                CallArg::Read(e) => {
                    // `&xs` of a slice: its values
                    let inner = match e {
                        syn::Expr::Reference(r) => &*r.expr,
                        e => e,
                    };
                    if let syn::Expr::Path(pp) = inner {
                        if let Some(v) = pp
                            .path
                            .get_ident()
                            .and_then(|i| self.lookup(&i.to_string()))
                            .cloned()
                        {
                            if matches!(v.shape, Shape::Slice { .. }) {
                                args.push(v.c.clone());
                                args.push(format!("{}_len", v.c));
                                continue;
                            }
                        }
                    }
                    args.push(self.cexpr(inner).0);
                }
            }
        }
        let call = format!("nl_{name}_{dir}({});", args.join(", "));
        if pre.is_empty() {
            self.line(call);
        } else {
            self.line(format!("{{ {} {call} {} }}", pre.join(" "), post.join(" ")));
        }
    }
}

/// `::nilang::instr::fns::PowiN<{ N }>`: its exponent.
fn powin(p: &syn::Path) -> Option<i64> {
    let last = p.segments.last()?;
    if last.ident != "PowiN" {
        return None;
    }
    let syn::PathArguments::AngleBracketed(a) = &last.arguments else {
        return None;
    };
    let text = quote::quote!(#a).to_string();
    let digits: String = text
        .chars()
        .filter(|c| c.is_ascii_digit() || *c == '-')
        .collect();
    digits.parse().ok()
}

/// Writes `s` (helper for `write!` on strings that cannot fail).
pub fn w(out: &mut String, s: std::fmt::Arguments) {
    let _ = out.write_fmt(s);
}
