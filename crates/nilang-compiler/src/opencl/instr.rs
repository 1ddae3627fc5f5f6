//! Instructions and ancillas on the device, plain or on value/adjoint pairs.
use super::emit::{CPlace, Cx, Var};
use super::expr::Et;
use super::rules;
use super::sig::{Shape, Ty};
use crate::ir::*;
use proc_macro2::Span;
use syn::spanned::Spanned;

impl Cx<'_> {
    /// `let a = [x; N]`: a private array of `N` reals (and its adjoints, zero), each `x`; a
    /// slice of the thread's own, passed to device functions as private memory.
    fn alloc_array(&mut self, name: &str, r: &syn::ExprRepeat) {
        let (v, t) = self.cexpr(&r.expr);
        if !matches!(t, Et::Num(Ty::Real)) {
            self.err(
                r.expr.span(),
                format!("array ancilla `{name}`: its elements must be reals (`T::default()`)"),
            );
            return;
        }
        let (n, _) = self.cexpr(&r.len);
        let c = self.fresh(name);
        // zeros by the initializer (no loop over the array, which would keep it out of
        // registers), other values by a loop the device compiler drops when `v` is zero
        let fill = |a: &str, v: &str| {
            format!(
                "REAL {a}[{n}] = {{0}}; if ({v} != 0) for (ulong nl_k = 0; nl_k < {n}; nl_k++) \
                 {a}[nl_k] = {v};"
            )
        };
        self.line(fill(&c, &v));
        if self.gvar {
            self.line(format!("REAL {c}_g[{n}] = {{0}};"));
        }
        self.line(format!("ulong {c}_len = {n};"));
        self.spaces.push((c.clone(), "p".into()));
        self.scopes.push((
            name.to_string(),
            Var {
                c,
                ty: Ty::Real,
                shape: Shape::Slice {
                    mutable: true,
                    shared: false,
                },
                readonly: false,
            },
        ));
    }

    pub(super) fn alloc(&mut self, a: &Anc, span: Span) {
        if a.tuple || a.names.len() != 1 {
            self.err(span, "tuple ancillas are not supported on the device");
            return;
        }
        let name = a.names[0].to_string();
        if let syn::Expr::Repeat(r) = &a.value {
            return self.alloc_array(&name, r);
        }
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

    pub(super) fn instr(&mut self, i: &Instr, span: Span) {
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
