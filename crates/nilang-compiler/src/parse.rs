//! Parsing: a `syn` function body into the IR, with routines and inverse blocks resolved.
use crate::errors::Errors;
use crate::invert::invert_block;
use crate::ir::*;
use proc_macro2::{Span, TokenStream};
use quote::ToTokens;
use syn::parse::Parser as _;
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{Attribute, BinOp, Expr, Path, Token, UnOp};

/// Statement text for messages: the tokens, whitespace-normalised, at most 120 characters.
pub fn stmt_text(t: &impl ToTokens) -> String {
    let s = t.to_token_stream().to_string();
    let mut s = s.split_whitespace().collect::<Vec<_>>().join(" ");
    for (from, to) in [
        (" . ", "."),
        (" (", "("),
        ("( ", "("),
        (" )", ")"),
        (" ,", ","),
        (" [", "["),
        ("[ ", "["),
        (" ]", "]"),
        ("! (", "!("),
        (" ;", ";"),
    ] {
        s = s.replace(from, to);
    }
    if s.chars().count() > 120 {
        s = s.chars().take(117).collect::<String>() + "...";
    }
    s
}

/// Turns statements into IR.
pub struct Parser<'e> {
    pub errors: &'e mut Errors,
}

/// The built-in function markers, by the names a user writes (`sin(x)` or `x.sin()`).
pub fn builtin(name: &str, nargs: usize) -> Option<&'static str> {
    Some(match (name, nargs) {
        ("identity", 1) => "Identity",
        ("sin", 1) => "Sin",
        ("cos", 1) => "Cos",
        ("tan", 1) => "Tan",
        ("asin", 1) => "Asin",
        ("acos", 1) => "Acos",
        ("atan", 1) => "Atan",
        ("atan", 2) | ("atan2", 2) => "Atan2",
        ("sinh", 1) => "Sinh",
        ("cosh", 1) => "Cosh",
        ("tanh", 1) => "Tanh",
        ("exp", 1) => "Exp",
        ("ln", 1) | ("log", 1) => "Ln",
        ("ln_1p", 1) | ("log1p", 1) => "Ln1p",
        ("exp_m1", 1) | ("expm1", 1) => "ExpM1",
        ("sqrt", 1) => "Sqrt",
        ("abs", 1) => "Abs",
        ("abs2", 1) => "Abs2",
        ("sqdiff", 2) => "SqDiff",
        ("powf", 2) | ("pow", 2) => "Powf",
        ("powi", 2) => "Powi",
        ("hypot", 2) => "Hypot",
        ("inv", 1) | ("recip", 1) => "Recip",
        ("min", 2) => "Min",
        ("max", 2) => "Max",
        ("sincos", 1) | ("sin_cos", 1) => "SinCos",
        ("convert", 1) => "Convert",
        _ => return None,
    })
}

fn expr_attrs(e: &Expr) -> &[Attribute] {
    match e {
        Expr::Binary(x) => &x.attrs,
        Expr::Call(x) => &x.attrs,
        Expr::MethodCall(x) => &x.attrs,
        Expr::If(x) => &x.attrs,
        Expr::While(x) => &x.attrs,
        Expr::Loop(x) => &x.attrs,
        Expr::ForLoop(x) => &x.attrs,
        Expr::Block(x) => &x.attrs,
        Expr::Macro(x) => &x.attrs,
        Expr::Assign(x) => &x.attrs,
        _ => &[],
    }
}

/// The span of the last token of `t` (with [`Spanned::span`], the first and the last token
/// delimit a range that error messages underline on stable Rust).
pub fn last_span(t: &impl ToTokens) -> Span {
    t.to_token_stream()
        .into_iter()
        .last()
        .map(|tt| tt.span())
        .unwrap_or_else(Span::call_site)
}

/// A place expression: `x`, `x.f`, `x.0`, `x[i]`, `*x`, `(x)`, `-x`.
pub fn place_of(e: &Expr) -> Option<Place> {
    match e {
        Expr::Path(p) if p.qself.is_none() && p.attrs.is_empty() => {
            let id = p.path.get_ident()?;
            Some(Place {
                root: id.clone(),
                path: vec![],
                neg: false,
                span: e.span(),
                end: last_span(e),
            })
        }
        Expr::Field(f) => {
            let mut p = place_of(&f.base)?;
            if p.neg {
                return None;
            }
            p.path.push(Proj::Field(f.member.clone()));
            p.span = e.span();
            p.end = last_span(e);
            Some(p)
        }
        Expr::Index(i) => {
            let mut p = place_of(&i.expr)?;
            if p.neg {
                return None;
            }
            p.path.push(Proj::Index((*i.index).clone()));
            p.span = e.span();
            p.end = last_span(e);
            Some(p)
        }
        Expr::Paren(p) => place_of(&p.expr),
        Expr::Unary(u) => match u.op {
            UnOp::Deref(_) => place_of(&u.expr),
            UnOp::Neg(_) => {
                let mut p = place_of(&u.expr)?;
                p.neg = !p.neg;
                p.span = e.span();
                p.end = last_span(e);
                Some(p)
            }
            _ => None,
        },
        _ => None,
    }
}

fn is_numeric_lit(l: &syn::Lit) -> bool {
    matches!(l, syn::Lit::Float(_) | syn::Lit::Int(_))
}

/// An instruction operand.
pub fn operand_of(e: &Expr) -> Operand {
    match e {
        Expr::Lit(l) if is_numeric_lit(&l.lit) => Operand::Lit {
            lit: l.lit.clone(),
            neg: false,
            span: e.span(),
        },
        Expr::Unary(u) if matches!(u.op, UnOp::Neg(_)) => match &*u.expr {
            Expr::Lit(l) if is_numeric_lit(&l.lit) => Operand::Lit {
                lit: l.lit.clone(),
                neg: true,
                span: e.span(),
            },
            _ => match place_of(e) {
                Some(p) => Operand::Place(p),
                None => Operand::Const {
                    expr: e.clone(),
                    explicit: false,
                },
            },
        },
        Expr::Paren(p) => operand_of(&p.expr),
        Expr::Tuple(t) => Operand::Tuple(t.elems.iter().map(operand_of).collect(), e.span()),
        Expr::Macro(m) if m.mac.path.is_ident("cst") => match m.mac.parse_body::<Expr>() {
            Ok(inner) => Operand::Const {
                expr: inner,
                explicit: true,
            },
            Err(_) => Operand::Const {
                expr: e.clone(),
                explicit: false,
            },
        },
        _ => match place_of(e) {
            Some(p) => Operand::Place(p),
            None => Operand::Const {
                expr: e.clone(),
                explicit: false,
            },
        },
    }
}

impl Parser<'_> {
    /// Parse a sequence of statements (one ancilla scope).
    pub fn block(&mut self, stmts: &[syn::Stmt], check: bool) -> Vec<Stmt> {
        let mut out = Vec::new();
        let mut routines: Vec<(Span, Vec<Stmt>)> = Vec::new();
        for s in stmts {
            self.stmt(s, check, &mut out, &mut routines);
        }
        for (span, _) in routines {
            self.errors.push(
                span,
                "`routine!` without a matching `unroutine!()` in the same block: the computed \
                 values would never be uncomputed",
            );
        }
        out
    }

    fn check_flag(&mut self, attrs: &[Attribute], check: bool) -> bool {
        let mut check = check;
        for a in attrs {
            if a.path().is_ident("nocheck") {
                check = false;
            } else if a.path().is_ident("from") {
                // handled by `while`
            } else {
                self.errors.push(
                    a.span(),
                    "unknown attribute in a reversible function: expected `#[nocheck]` or \
                     `#[from(condition)]`",
                );
            }
        }
        check
    }

    fn stmt(
        &mut self,
        s: &syn::Stmt,
        check: bool,
        out: &mut Vec<Stmt>,
        routines: &mut Vec<(Span, Vec<Stmt>)>,
    ) {
        match s {
            syn::Stmt::Local(l) => {
                let check = self.check_flag(&l.attrs, check);
                if let Some(st) = self.local(l, check) {
                    out.push(st);
                }
            }
            syn::Stmt::Macro(m) => {
                let (store, attrs) = crate::store::split_store_attr(&m.attrs);
                let check = self.check_flag(&attrs, check);
                let before = routines.len();
                self.mac(&m.mac, s.span(), stmt_text(s), check, out, routines);
                if store {
                    self.store_routine(&m.mac, s.span(), before, routines);
                }
            }
            syn::Stmt::Expr(e, _) => {
                let (store, attrs) = crate::store::split_store_attr(expr_attrs(e));
                let check = self.check_flag(&attrs, check);
                if let Expr::Macro(m) = e {
                    let before = routines.len();
                    self.mac(&m.mac, e.span(), stmt_text(e), check, out, routines);
                    if store {
                        self.store_routine(&m.mac, e.span(), before, routines);
                    }
                } else {
                    if store {
                        crate::store::misplaced(self.errors, e.span());
                    }
                    if let Some(st) = self.expr_stmt(e, check) {
                        out.push(st);
                    }
                }
            }
            syn::Stmt::Item(i) => self.errors.push(
                i.span(),
                "items (fn, struct, use, ...) are not allowed inside a reversible function body; \
                 define them outside",
            ),
        }
    }

    fn local(&mut self, l: &syn::Local, check: bool) -> Option<Stmt> {
        let Some(init) = &l.init else {
            self.errors.push(
                l.span(),
                "an ancilla needs an initial value: `let x = value;` (its deallocation \
                 `dealloc!(x = value)` checks the same value)",
            );
            return None;
        };
        if let Some((_, d)) = &init.diverge {
            self.errors
                .push(d.span(), "`let ... else` is not reversible");
            return None;
        }
        let (names, tuple, ty) = self.pattern(&l.pat)?;
        let text = stmt_text(l);
        if let Expr::Macro(m) = &*init.expr {
            if m.mac.path.is_ident("take") {
                // `let a = take!(x);`: move `x` into the new ancilla `a`; `x` is deallocated
                let src = m.mac.parse_body::<syn::Ident>();
                return match (src, names.as_slice(), tuple) {
                    (Ok(src), [dst], false) => Some(Stmt {
                        kind: StmtKind::Move {
                            dst: dst.clone(),
                            src,
                        },
                        span: l.span(),
                        text,
                        check,
                    }),
                    _ => {
                        self.errors.push(
                            m.span(),
                            "a move is written `let a = take!(x);` with one new name `a` and an \
                             ancilla `x`",
                        );
                        None
                    }
                };
            }
        }
        Some(Stmt {
            kind: StmtKind::Alloc(Anc {
                names,
                tuple,
                ty,
                value: (*init.expr).clone(),
            }),
            span: l.span(),
            text,
            check,
        })
    }

    fn pattern(&mut self, pat: &syn::Pat) -> Option<(Vec<syn::Ident>, bool, Option<syn::Type>)> {
        match pat {
            syn::Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => {
                Some((vec![pi.ident.clone()], false, None))
            }
            syn::Pat::Type(pt) => {
                let (n, t, _) = self.pattern(&pt.pat)?;
                Some((n, t, Some((*pt.ty).clone())))
            }
            syn::Pat::Tuple(t) => {
                let mut names = vec![];
                for p in &t.elems {
                    match p {
                        syn::Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => {
                            names.push(pi.ident.clone())
                        }
                        _ => {
                            self.errors
                                .push(p.span(), "ancilla patterns are a name or a tuple of names");
                            return None;
                        }
                    }
                }
                Some((names, true, None))
            }
            _ => {
                self.errors.push(
                    pat.span(),
                    "ancilla patterns are a name or a tuple of names: `let x = ...;` or `let (a, \
                     b) = ...;`",
                );
                None
            }
        }
    }

    fn mac(
        &mut self,
        m: &syn::Macro,
        span: Span,
        text: String,
        check: bool,
        out: &mut Vec<Stmt>,
        routines: &mut Vec<(Span, Vec<Stmt>)>,
    ) {
        let name = m
            .path
            .segments
            .last()
            .map(|s| s.ident.to_string())
            .unwrap_or_default();
        let mk = |kind| Stmt {
            kind,
            span,
            text: text.clone(),
            check,
        };
        match name.as_str() {
            "inv" | "routine" => {
                let Some(stmts) = self.parse_stmts(m) else {
                    return;
                };
                let body = self.block(&stmts, check);
                if name == "inv" {
                    out.push(mk(StmtKind::Seq(invert_block(&body))));
                } else {
                    routines.push((span, body.clone()));
                    out.push(mk(StmtKind::Routine { body, undo: false }));
                }
            }
            "unroutine" => {
                if !m.tokens.is_empty() {
                    self.errors
                        .push(m.tokens.span(), "`unroutine!()` takes no arguments");
                }
                match routines.pop() {
                    Some((_, body)) => out.push(mk(StmtKind::Routine {
                        body: invert_block(&body),
                        undo: true,
                    })),
                    None => self.errors.push(
                        span,
                        "`unroutine!()` without a preceding `routine! { ... }` in the same block",
                    ),
                }
            }
            "dealloc" => {
                let parsed = dealloc_args(m.tokens.clone());
                match parsed {
                    Ok((lhs, rhs)) => {
                        let names = match &lhs {
                            Expr::Path(p) => p.path.get_ident().map(|i| (vec![i.clone()], false)),
                            Expr::Tuple(t) => t
                                .elems
                                .iter()
                                .map(|e| match e {
                                    Expr::Path(p) => p.path.get_ident().cloned(),
                                    _ => None,
                                })
                                .collect::<Option<Vec<_>>>()
                                .map(|v| (v, true)),
                            _ => None,
                        };
                        match names {
                            Some((names, tuple)) => out.push(mk(StmtKind::Dealloc(Anc {
                                names,
                                tuple,
                                ty: None,
                                value: rhs,
                            }))),
                            None => self.errors.push(
                                lhs.span(),
                                "`dealloc!` takes an ancilla name (or a tuple of names) and its \
                                 value: `dealloc!(x = 0.0)`",
                            ),
                        }
                    }
                    Err(e) => self
                        .errors
                        .push(e.span(), "expected `dealloc!(name = value)`"),
                }
            }
            "safe" => out.push(mk(StmtKind::Safe(m.tokens.clone()))),
            "fresh" => {
                let args = Punctuated::<Expr, Token![,]>::parse_terminated.parse2(m.tokens.clone());
                match args {
                    Ok(a) if !a.is_empty() => {
                        let places: Option<Vec<Place>> =
                            a.iter().map(|e| place_of(e).filter(|p| !p.neg)).collect();
                        match places {
                            Some(p) => out.push(mk(StmtKind::Fresh(p))),
                            None => self.errors.push(
                                m.tokens.span(),
                                "`fresh!(ws, ..)` takes workspaces: variables, fields or elements",
                            ),
                        }
                    }
                    _ => self.errors.push(
                        m.tokens.span(),
                        "expected `fresh!(ws, ..)` with at least one workspace",
                    ),
                }
            }
            "push" | "pop" | "copy_push" | "copy_pop" => {
                let kind = match name.as_str() {
                    "push" => StackKind::Push,
                    "pop" => StackKind::Pop,
                    "copy_push" => StackKind::CopyPush,
                    _ => StackKind::CopyPop,
                };
                let args = Punctuated::<Expr, Token![,]>::parse_terminated.parse2(m.tokens.clone());
                match args {
                    Ok(a) if a.len() == 2 => {
                        let st = place_of(&a[0]);
                        let v = place_of(&a[1]);
                        match (st, v) {
                            (Some(stack), Some(value)) if !stack.neg && !value.neg => {
                                out.push(mk(StmtKind::Stack { kind, stack, value }))
                            }
                            _ => self.errors.push(
                                m.tokens.span(),
                                format!("`{name}!(stack, variable)` takes two places"),
                            ),
                        }
                    }
                    _ => self.errors.push(
                        m.tokens.span(),
                        format!("expected `{name}!(stack, variable)`"),
                    ),
                }
            }
            _ => self.errors.push(
                m.path.span(),
                format!(
                    "macro `{name}!` is not a reversible statement; wrap side-effect-only code \
                     (printing, asserts) in `safe! {{ ... }}`"
                ),
            ),
        }
    }

    fn parse_stmts(&mut self, m: &syn::Macro) -> Option<Vec<syn::Stmt>> {
        match syn::Block::parse_within.parse2(m.tokens.clone()) {
            Ok(s) => Some(s),
            Err(e) => {
                self.errors.push_err(e);
                None
            }
        }
    }

    fn expr_stmt(&mut self, e: &Expr, check: bool) -> Option<Stmt> {
        let text = stmt_text(e);
        let span = e.span();
        let kind = match e {
            Expr::Binary(b) => {
                let op = match b.op {
                    BinOp::AddAssign(_) => AccOp::Plus,
                    BinOp::SubAssign(_) => AccOp::Minus,
                    BinOp::BitXorAssign(_) => AccOp::Xor,
                    BinOp::MulAssign(_) => AccOp::Mul,
                    BinOp::DivAssign(_) => AccOp::Div,
                    _ => {
                        self.errors.push(
                            b.op.span(),
                            "not a reversible statement: expected an instruction `y += f(x)`, \
                             `y -= ...`, `y ^= ...`, `y *= ...`, `y /= ...`",
                        );
                        return None;
                    }
                };
                let target = operand_of(&b.left);
                match &target {
                    Operand::Place(_) => {}
                    Operand::Tuple(t, _) if t.iter().all(|o| matches!(o, Operand::Place(_))) => {}
                    _ => {
                        self.errors.push(
                            b.left.span(),
                            "the target of an instruction must be a variable, field, index or \
                             tuple of those",
                        );
                        return None;
                    }
                }
                let (func, args) = self.rhs(&b.right)?;
                StmtKind::Instr(Instr {
                    op,
                    target,
                    func,
                    args,
                })
            }
            Expr::Assign(a) => {
                self.errors.push_tokens(
                    a,
                    "plain assignment `=` destroys the old value and is not reversible; use \
                     `+=`/`-=`/`^=` into a zero-initialised variable, or `SWAP`",
                );
                return None;
            }
            Expr::Call(c) => {
                let Expr::Path(p) = &*c.func else {
                    self.errors
                        .push(c.func.span(), "only named functions can be called");
                    return None;
                };
                let args = c.args.iter().map(call_arg).collect();
                StmtKind::Call(Call {
                    callee: Callee::Path(p.clone()),
                    args,
                    inverse: false,
                })
            }
            Expr::MethodCall(mc) => {
                let Some(receiver) = place_of(&mc.receiver).filter(|p| !p.neg) else {
                    self.errors.push(
                        mc.receiver.span(),
                        "the receiver of a reversible method call must be a variable or field",
                    );
                    return None;
                };
                StmtKind::Call(Call {
                    callee: Callee::Method {
                        receiver,
                        method: mc.method.clone(),
                        turbofish: mc.turbofish.clone(),
                    },
                    args: mc.args.iter().map(call_arg).collect(),
                    inverse: false,
                })
            }
            Expr::If(i) => return self.if_chain(i, check, text),
            Expr::While(w) => {
                if let Some(l) = &w.label {
                    self.errors
                        .push(l.span(), "loop labels are not allowed (no `break`)");
                }
                let from = w.attrs.iter().find(|a| a.path().is_ident("from"));
                let body = self.block(&w.body.stmts, check);
                let (pre, post) = match (from, &*w.cond) {
                    (Some(a), cond) => match a.parse_args::<Expr>() {
                        Ok(start) => {
                            let pre = cond.clone();
                            let post: Expr = syn::parse_quote_spanned!(start.span()=> !(#start));
                            (pre, post)
                        }
                        Err(e) => {
                            self.errors.push_err(e);
                            return None;
                        }
                    },
                    (None, Expr::Tuple(t)) if t.elems.len() == 2 => {
                        (t.elems[0].clone(), t.elems[1].clone())
                    }
                    (None, c) => {
                        self.errors.push_tokens(
                            c,
                            "a reversible `while` needs a post-condition: `while (pre, post) { \
                             ... }` (post false at entry, true after every iteration) or \
                             `#[from(start_condition)] while pre { ... }`",
                        );
                        return None;
                    }
                };
                StmtKind::While { pre, post, body }
            }
            Expr::ForLoop(f) => {
                if let Some(l) = &f.label {
                    self.errors
                        .push(l.span(), "loop labels are not allowed (no `break`)");
                }
                let var = match &*f.pat {
                    syn::Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => {
                        pi.ident.clone()
                    }
                    syn::Pat::Wild(w) => syn::Ident::new("__nilang_unused", w.span()),
                    p => {
                        self.errors
                            .push(p.span(), "the loop variable must be a name");
                        return None;
                    }
                };
                let iter = self.for_iter(&f.expr)?;
                let mut body = self.block(&f.body.stmts, check);
                if let ForIter::Indices { slice, .. } = &iter {
                    // the emitter names the index of a slice loop over `var` the same way
                    let idx = quote::format_ident!("__nilang_i_{}", var, span = var.span());
                    substitute_places(&mut body, &var, slice, &idx);
                }
                StmtKind::For { var, iter, body }
            }
            Expr::Block(b) => {
                if b.label.is_some() {
                    self.errors
                        .push(b.span(), "labelled blocks are not allowed");
                }
                StmtKind::Block(self.block(&b.block.stmts, check))
            }
            Expr::Loop(l) => self.do_loop(l, check)?,
            Expr::Unsafe(u) => {
                self.errors.push(u.span(), "`unsafe` blocks are not allowed; use `safe! { ... }` for irreversible side effects");
                return None;
            }
            Expr::Return(_) | Expr::Break(_) | Expr::Continue(_) => {
                self.errors.push(
                    span,
                    "`return`, `break` and `continue` are not reversible: control flow must \
                     reach the end of every block (use a `while (pre, post)` condition)",
                );
                return None;
            }
            Expr::Try(_) => {
                self.errors.push(span, "`?` is not reversible");
                return None;
            }
            _ => {
                self.errors.push(
                    span,
                    "not a reversible statement: expected an instruction (`y += f(x)`), a call, \
                     `let`/`dealloc!`, `if (pre, post)`, `while (pre, post)`, `for`, `inv!`, \
                     `routine!`/`unroutine!`, `safe!` or a stack operation",
                );
                return None;
            }
        };
        Some(Stmt {
            kind,
            span,
            text,
            check,
        })
    }

    fn if_chain(&mut self, i: &syn::ExprIf, check: bool, text: String) -> Option<Stmt> {
        let mut branches = vec![];
        let mut otherwise = None;
        let mut cur = i;
        loop {
            let (pre, post) = match &*cur.cond {
                Expr::Tuple(t) if t.elems.len() == 2 => {
                    let pre = t.elems[0].clone();
                    let post = match &t.elems[1] {
                        Expr::Infer(_) => pre.clone(),
                        e => e.clone(),
                    };
                    (pre, post)
                }
                Expr::Paren(p) => ((*p.expr).clone(), (*p.expr).clone()),
                c => (c.clone(), c.clone()),
            };
            let body = self.block(&cur.then_branch.stmts, check);
            branches.push(Branch { pre, post, body });
            match &cur.else_branch {
                None => break,
                Some((_, e)) => match &**e {
                    Expr::If(next) => cur = next,
                    Expr::Block(b) => {
                        otherwise = Some(self.block(&b.block.stmts, check));
                        break;
                    }
                    other => {
                        self.errors
                            .push(other.span(), "expected `else { ... }` or `else if`");
                        return None;
                    }
                },
            }
        }
        Some(Stmt {
            kind: StmtKind::If {
                branches,
                otherwise,
            },
            span: i.span(),
            text,
            check,
        })
    }

    fn for_iter(&mut self, e: &Expr) -> Option<ForIter> {
        match e {
            Expr::Range(r) => {
                let (Some(start), Some(end)) = (&r.start, &r.end) else {
                    self.errors.push(
                        r.span(),
                        "a reversible `for` needs a bounded range `a..b` or `a..=b`",
                    );
                    return None;
                };
                Some(ForIter::Range {
                    start: (**start).clone(),
                    end: (**end).clone(),
                    inclusive: matches!(r.limits, syn::RangeLimits::Closed(_)),
                    step: None,
                    rev: false,
                })
            }
            Expr::Paren(p) => self.for_iter(&p.expr),
            Expr::MethodCall(m) if m.method == "rev" && m.args.is_empty() => {
                match self.for_iter(&m.receiver)? {
                    ForIter::Range {
                        start,
                        end,
                        inclusive,
                        step,
                        rev,
                    } => Some(ForIter::Range {
                        start,
                        end,
                        inclusive,
                        step,
                        rev: !rev,
                    }),
                    ForIter::Indices { slice, rev } => Some(ForIter::Indices { slice, rev: !rev }),
                }
            }
            Expr::MethodCall(m) if m.method == "step_by" && m.args.len() == 1 => {
                match self.for_iter(&m.receiver)? {
                    ForIter::Range {
                        start,
                        end,
                        inclusive,
                        step: None,
                        rev: false,
                    } => Some(ForIter::Range {
                        start,
                        end,
                        inclusive,
                        step: Some(m.args[0].clone()),
                        rev: false,
                    }),
                    _ => {
                        self.errors.push(
                            m.span(),
                            "`step_by` applies to a plain range `(a..b).step_by(s)`",
                        );
                        None
                    }
                }
            }
            _ => match place_of(e).filter(|p| !p.neg) {
                Some(slice) => Some(ForIter::Indices { slice, rev: false }),
                None => {
                    self.errors.push(
                        e.span(),
                        "a reversible `for` iterates over a range (`a..b`, `a..=b`, \
                         `(a..b).step_by(s)`, `.rev()`) or over a slice variable",
                    );
                    None
                }
            },
        }
    }

    /// `y op= rhs`: the function marker and its operands.
    fn rhs(&mut self, e: &Expr) -> Option<(FuncRef, Vec<Operand>)> {
        let (func, args) = match e {
            Expr::Paren(p) => return self.rhs(&p.expr),
            Expr::Binary(b) => {
                let f = match b.op {
                    BinOp::Add(_) => "Add",
                    BinOp::Sub(_) => "Sub",
                    BinOp::Mul(_) => "Mul",
                    BinOp::Div(_) => "Div",
                    BinOp::And(_) => "And",
                    BinOp::Or(_) => "Or",
                    BinOp::BitAnd(_) => "BitAnd",
                    BinOp::BitOr(_) => "BitOr",
                    _ => {
                        self.errors
                            .push(b.op.span(), "unsupported operator in an instruction");
                        return None;
                    }
                };
                (
                    FuncRef::Builtin(f),
                    vec![operand_of(&b.left), operand_of(&b.right)],
                )
            }
            Expr::Unary(u) if matches!(u.op, UnOp::Not(_)) => {
                (FuncRef::Builtin("Not"), vec![operand_of(&u.expr)])
            }
            Expr::Unary(u) if matches!(u.op, UnOp::Neg(_)) && !matches!(&*u.expr, Expr::Lit(_)) => {
                (FuncRef::Builtin("Neg"), vec![operand_of(&u.expr)])
            }
            Expr::Call(c) => {
                let Expr::Path(p) = &*c.func else {
                    self.errors.push(c.func.span(), "expected a function name");
                    return None;
                };
                if is_constructor(&p.path) {
                    // `Wrapping(i)`, `Some(x)`, `Complex::new`-less constructors: a constant value
                    return Some((FuncRef::Builtin("Identity"), vec![operand_of(e)]));
                }
                let args: Vec<Operand> = c.args.iter().map(operand_of).collect();
                let name = p.path.get_ident().map(|i| i.to_string());
                match name.as_deref().and_then(|n| builtin(n, args.len())) {
                    Some(b) => (FuncRef::Builtin(b), args),
                    None => (FuncRef::User(p.path.clone()), args),
                }
            }
            Expr::MethodCall(m) => {
                let mut args = vec![operand_of(&m.receiver)];
                args.extend(m.args.iter().map(operand_of));
                match builtin(&m.method.to_string(), args.len()) {
                    Some(b) => (FuncRef::Builtin(b), args),
                    None => {
                        self.errors.push(
                            m.method.span(),
                            format!(
                                "unknown method `{}` in an instruction: built-ins are sin, cos, \
                                 exp, ln, sqrt, powi, powf, ...; for your own function declare it \
                                 with `#[nilang::primitive]` and call it as `{}(x, ...)`",
                                m.method, m.method
                            ),
                        );
                        return None;
                    }
                }
            }
            _ => (FuncRef::Builtin("Identity"), vec![operand_of(e)]),
        };
        if args.is_empty() || args.len() > 3 {
            self.errors
                .push(e.span(), "instructions take 1 to 3 operands");
            return None;
        }
        let mut args = args;
        if matches!(func, FuncRef::Builtin("Powi")) {
            // a literal exponent becomes part of the function: `x.powi(3)` is `PowiN<3>(x)`
            if let Operand::Lit {
                lit: syn::Lit::Int(n),
                neg,
                span,
            } = &args[1]
            {
                let n = n.base10_digits();
                let n: TokenStream = if *neg {
                    format!("-{n}").parse().unwrap_or_default()
                } else {
                    n.parse().unwrap_or_default()
                };
                let path: Path =
                    syn::parse_quote_spanned!(*span=> ::nilang::instr::fns::PowiN<{ #n }>);
                args.truncate(1);
                return Some((FuncRef::User(path), args));
            }
        }
        Some((func, args))
    }
}

/// Whether a called path is a tuple-struct or enum-variant constructor (`Wrapping`, `Some`,
/// `E::Value`): its last segment is camel case (starts upper-case, has a lower-case letter;
/// functions and `#[primitive]`s are snake case) and no segment has generic arguments
/// (`PowiN::<N>(x)` and a marker type parameter `F(x)` are functions).
pub fn is_constructor(p: &Path) -> bool {
    let Some(last) = p.segments.last() else {
        return false;
    };
    let name = last.ident.to_string();
    name.chars().next().is_some_and(|c| c.is_uppercase())
        && name.chars().any(|c| c.is_lowercase())
        && p.segments
            .iter()
            .all(|s| matches!(s.arguments, syn::PathArguments::None))
}

/// The place read by a read-only call argument `&place`, if it is one.
pub fn read_place(e: &Expr) -> Option<Place> {
    match e {
        Expr::Reference(r) if r.mutability.is_none() => place_of(&r.expr).filter(|p| !p.neg),
        _ => None,
    }
}

/// Whether the tokens of `e` mention one of `names`.
pub fn mentions(e: &impl ToTokens, names: &std::collections::HashSet<String>) -> bool {
    fn walk(t: TokenStream, names: &std::collections::HashSet<String>) -> bool {
        t.into_iter().any(|tt| match tt {
            proc_macro2::TokenTree::Ident(i) => names.contains(&i.to_string()),
            proc_macro2::TokenTree::Group(g) => walk(g.stream(), names),
            _ => false,
        })
    }
    walk(e.to_token_stream(), names)
}

/// The arguments of `dealloc!(lhs = rhs)` (parsed as one assignment expression: `Expr`
/// parsing would otherwise swallow the `=`).
pub fn dealloc_args(tokens: TokenStream) -> syn::Result<(Expr, Expr)> {
    match syn::parse2::<Expr>(tokens)? {
        Expr::Assign(a) if a.attrs.is_empty() => Ok((*a.left, *a.right)),
        other => Err(syn::Error::new(
            other.span(),
            "expected `dealloc!(name = value)`",
        )),
    }
}

fn call_arg(e: &Expr) -> CallArg {
    match e {
        Expr::Reference(r) if r.mutability.is_some() => match place_of(&r.expr) {
            Some(p) if !p.neg => CallArg::InOut(p),
            _ => CallArg::Read(e.clone()),
        },
        Expr::Path(p) if p.path.get_ident().is_some() => match place_of(e) {
            // a bare name: in-out if it is a `&mut` parameter (decided when emitting)
            Some(pl) => CallArg::Name(pl),
            None => CallArg::Read(e.clone()),
        },
        _ => CallArg::Read(e.clone()),
    }
}

/// Replace the loop variable `var` of a slice loop by `slice[idx]` in every place of `body`.
fn substitute_places(body: &mut [Stmt], var: &syn::Ident, slice: &Place, idx: &syn::Ident) {
    let fix = |p: &mut Place| {
        if &p.root == var {
            let mut np = slice.clone();
            np.path.push(Proj::Index(syn::parse_quote!(#idx)));
            np.path.append(&mut p.path);
            np.neg = p.neg;
            np.span = p.span;
            np.end = p.end;
            *p = np;
        }
    };
    fn walk_op(o: &mut Operand, fix: &dyn Fn(&mut Place)) {
        match o {
            Operand::Place(p) => fix(p),
            Operand::Tuple(t, _) => t.iter_mut().for_each(|o| walk_op(o, fix)),
            _ => {}
        }
    }
    fn walk(body: &mut [Stmt], fix: &dyn Fn(&mut Place)) {
        for s in body {
            match &mut s.kind {
                StmtKind::Instr(i) => {
                    walk_op(&mut i.target, fix);
                    i.args.iter_mut().for_each(|o| walk_op(o, fix));
                }
                StmtKind::Call(c) => {
                    if let Callee::Method { receiver, .. } = &mut c.callee {
                        fix(receiver);
                    }
                    for a in &mut c.args {
                        if let CallArg::InOut(p) | CallArg::Name(p) = a {
                            fix(p)
                        }
                    }
                }
                StmtKind::If {
                    branches,
                    otherwise,
                } => {
                    branches.iter_mut().for_each(|b| walk(&mut b.body, fix));
                    if let Some(o) = otherwise {
                        walk(o, fix)
                    }
                }
                StmtKind::While { body, .. }
                | StmtKind::For { body, .. }
                | StmtKind::Block(body)
                | StmtKind::Seq(body)
                | StmtKind::Routine { body, .. } => walk(body, fix),
                StmtKind::DoLoop { first, second, .. } => {
                    walk(first, fix);
                    walk(second, fix);
                }
                StmtKind::Stack { stack, value, .. } => {
                    fix(stack);
                    fix(value);
                }
                StmtKind::Fresh(ps) => ps.iter_mut().for_each(fix),
                _ => {}
            }
        }
    }
    walk(body, &fix);
}

/// Unused: keeps `TokenStream` imported for doc links.
#[allow(dead_code)]
fn _tokens(_: TokenStream) {}
