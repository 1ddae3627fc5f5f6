//! The lowering of a parsed `#[ad]` function to the form the forward and adjoint emitters
//! read: every call of an `#[ad]` function its own statement on argument reads (so the
//! adjoint of a statement recomputes no call), and early `return`s turned into a result
//! variable and a flag that guards what follows (the guards are branches, whose decisions
//! the forward run records).
use super::ir::*;
use proc_macro2::Ident;
use quote::{format_ident, quote};

/// The result variable.
pub fn ret() -> Ident {
    format_ident!("__ad_ret")
}
/// The flag set by an early `return`.
pub fn done() -> Ident {
    format_ident!("__ad_done")
}

/// Lower `f`'s body in place.
pub fn lower(f: &mut Func) {
    let body = std::mem::take(&mut f.body);
    let mut l = Lowering { f, fresh: 0 };
    let body = l.calls_block(body);
    let (mut body, early) = l.returns(body, true);
    let mut vars = vec![Var {
        name: ret(),
        kind: Kind::Active,
        ty: None,
    }];
    if early {
        vars.push(Var {
            name: done(),
            kind: Kind::Inactive,
            ty: Some(syn::parse_quote!(bool)),
        });
        let d = done();
        body.insert(
            0,
            Stmt::Inactive {
                target: d,
                value: quote!(false),
            },
        );
    }
    f.vars.extend(vars);
    f.body = body;
}

struct Lowering<'a> {
    f: &'a mut Func,
    fresh: usize,
}

impl Lowering<'_> {
    fn temp(&mut self, what: &str) -> Ident {
        self.fresh += 1;
        let id = format_ident!("__ad_{}{}", what, self.fresh);
        self.f.vars.push(Var {
            name: id.clone(),
            kind: Kind::Active,
            ty: None,
        });
        id
    }

    fn calls_block(&mut self, body: Vec<Stmt>) -> Vec<Stmt> {
        let mut out = vec![];
        for s in body {
            match s {
                Stmt::Assign { target, value } => {
                    let value = self.calls_expr(value, &mut out);
                    out.push(Stmt::Assign { target, value });
                }
                Stmt::Return(value) => {
                    let value = self.calls_expr(value, &mut out);
                    out.push(Stmt::Return(value));
                }
                Stmt::If { arms, otherwise } => {
                    let arms = arms
                        .into_iter()
                        .map(|(c, b)| (c, self.calls_block(b)))
                        .collect();
                    let otherwise = self.calls_block(otherwise);
                    out.push(Stmt::If { arms, otherwise });
                }
                Stmt::For { var, lo, hi, body } => {
                    let body = self.calls_block(body);
                    out.push(Stmt::For { var, lo, hi, body });
                }
                Stmt::While { cond, body } => {
                    let body = self.calls_block(body);
                    out.push(Stmt::While { cond, body });
                }
                s => out.push(s),
            }
        }
        out
    }

    /// `e` with every call replaced by a read of a new variable that a statement before it
    /// (pushed to `out`) assigns.
    fn calls_expr(&mut self, e: Expr, out: &mut Vec<Stmt>) -> Expr {
        match e {
            Expr::Call(func, args) => {
                let args = args
                    .into_iter()
                    .map(|a| match a {
                        Arg::Value(v) => {
                            let v = self.calls_expr(v, out);
                            match v {
                                Expr::Read(_) | Expr::Const(_) => Arg::Value(v),
                                v => {
                                    let t = self.temp("arg");
                                    out.push(Stmt::Assign {
                                        target: Place::Var(t.clone()),
                                        value: v,
                                    });
                                    Arg::Value(Expr::Read(Place::Var(t)))
                                }
                            }
                        }
                        a => a,
                    })
                    .collect();
                let t = self.temp("call");
                out.push(Stmt::Call {
                    target: t.clone(),
                    func,
                    args,
                });
                Expr::Read(Place::Var(t))
            }
            Expr::Bin(o, a, b) => {
                let a = self.calls_expr(*a, out);
                let b = self.calls_expr(*b, out);
                Expr::Bin(o, Box::new(a), Box::new(b))
            }
            Expr::Neg(a) => Expr::Neg(Box::new(self.calls_expr(*a, out))),
            Expr::Unary(u, a) => Expr::Unary(u, Box::new(self.calls_expr(*a, out))),
            Expr::Powi(a, n) => Expr::Powi(Box::new(self.calls_expr(*a, out)), n),
            Expr::Binary(f, a, b) => {
                let a = self.calls_expr(*a, out);
                let b = self.calls_expr(*b, out);
                Expr::Binary(f, Box::new(a), Box::new(b))
            }
            e => e,
        }
    }

    /// The block with `return v` as `ret = v; done = true` and every statement after one
    /// that may return guarded by `!done`; whether it may return. `top`: the function's
    /// outermost block, where a final `return` needs no flag.
    fn returns(&mut self, body: Vec<Stmt>, top: bool) -> (Vec<Stmt>, bool) {
        let mut out = vec![];
        let n = body.len();
        let mut it = body.into_iter().enumerate();
        while let Some((k, s)) = it.next() {
            let last = k + 1 == n;
            let may = match s {
                Stmt::Return(v) => {
                    out.push(Stmt::Assign {
                        target: Place::Var(ret()),
                        value: v,
                    });
                    if top && last {
                        false
                    } else {
                        out.push(Stmt::Inactive {
                            target: done(),
                            value: quote!(true),
                        });
                        true
                    }
                }
                Stmt::If { arms, otherwise } => {
                    let mut may = false;
                    let arms = arms
                        .into_iter()
                        .map(|(c, b)| {
                            let (b, m) = self.returns(b, false);
                            may |= m;
                            (c, b)
                        })
                        .collect();
                    let (otherwise, m) = self.returns(otherwise, false);
                    out.push(Stmt::If { arms, otherwise });
                    may || m
                }
                Stmt::For { var, lo, hi, body } => {
                    let (body, may) = self.returns(body, false);
                    out.push(Stmt::For { var, lo, hi, body });
                    may
                }
                Stmt::While { cond, body } => {
                    let (body, may) = self.returns(body, false);
                    out.push(Stmt::While { cond, body });
                    may
                }
                s => {
                    out.push(s);
                    false
                }
            };
            if may {
                let rest: Vec<Stmt> = it.map(|(_, s)| s).collect();
                if !rest.is_empty() {
                    let (rest, _) = self.returns(rest, false);
                    let d = done();
                    out.push(Stmt::If {
                        arms: vec![(quote!(!#d), rest)],
                        otherwise: vec![],
                    });
                }
                return (out, true);
            }
        }
        (out, false)
    }
}
