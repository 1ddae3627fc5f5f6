//! Statements as OpenCL C, plain (forward, inverse) or on value/adjoint pairs (gradient): the
//! emission context, places and operands, blocks. Control flow is in `control`, instructions
//! and ancillas in `instr`, calls of device functions in `call`.
use super::expr::Et;
use super::sig::{Shape, Ty};
use crate::errors::Errors;
use crate::ir::*;
use proc_macro2::Span;
use std::collections::HashSet;
use std::fmt::Write;

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

/// Whether a place's adjoint is accumulated across threads (with `NL_SHARED_ADD`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Sharing {
    /// The thread's own: plain updates.
    Own,
    /// Shared: `NL_SHARED_ADD`.
    Shared,
    /// Decided when the source is assembled, by a host constant (its C text, `1` for shared):
    /// a slice parameter of a device function that the function never writes itself is
    /// shared unless a callee writes it (the function's own `WRITES` analysis). The second
    /// string is the add to use when shared (`NL_SHARED_ADD`, or a plain add in the version
    /// of the function where the slice is a private array; see [`Cx::spaces`]).
    Host(String, String),
}

/// A number place in C: its value, and its adjoint when it has one (`shared`: how the
/// adjoint is accumulated).
#[derive(Clone, Debug)]
pub struct CPlace {
    pub val: String,
    pub adj: Option<String>,
    pub shared: Sharing,
    pub ty: Ty,
}

impl CPlace {
    /// A value without adjoint (a literal or a constant expression) of C type `t`.
    fn value(val: String, t: Et) -> CPlace {
        let ty = match t {
            Et::Num(t) => t,
            _ => Ty::Real,
        };
        CPlace {
            val,
            adj: None,
            shared: Sharing::Own,
            ty,
        }
    }
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
    /// The slice parameters whose sharing is decided when the source is assembled (see
    /// [`Sharing::Host`]): name → the host constant's C text.
    pub host_shared: Vec<(String, String)>,
    /// The address space of slices passed to callees, by C name: `p` for a private array of
    /// the function, the parameter's index for a slice parameter of a device function (its
    /// address space is that of the function's version); others are global. Calls name
    /// the callee's version through a `\u{2}C<callee>:<spaces>\u{2}` hole resolved when the
    /// source is assembled (`nilang::kernel::program_source_in`).
    pub spaces: Vec<(String, String)>,
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

    pub(super) fn fresh(&mut self, base: &str) -> String {
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
                shared: Sharing::Own,
                ty: v.ty,
            }),
            ([], Shape::Ptr) => Some(CPlace {
                val: format!("(*{})", v.c),
                adj: real.then(|| format!("(*{}_g)", v.c)),
                shared: Sharing::Own,
                ty: v.ty,
            }),
            ([Proj::Index(ix)], Shape::Slice { mutable, shared }) => {
                let (i, _) = self.cexpr(ix);
                let host = self.host_shared.iter().find(|(n, _)| *n == name);
                let shared = match (shared, host) {
                    (false, _) => Sharing::Own,
                    (true, Some((_, h))) => Sharing::Host(h.clone(), self.shared_add(&v.c)),
                    (true, None) => Sharing::Shared,
                };
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
                Some(CPlace::value(s, t))
            }
            Operand::Const { expr, .. } => {
                let (s, t) = self.cexpr(expr);
                Some(CPlace::value(s, t))
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
        let atomic = |add: &str| {
            let v = if plus {
                v.to_string()
            } else {
                format!("-({v})")
            };
            format!("{add}(&{a}, {v});")
        };
        let plain = || format!("{a} {}= {v};", if plus { '+' } else { '-' });
        match &p.shared {
            Sharing::Own => self.line(plain()),
            Sharing::Shared => self.line(atomic("NL_SHARED_ADD")),
            Sharing::Host(h, add) => {
                self.line(format!("if ({h}) {} else {}", atomic(add), plain()))
            }
        }
    }

    /// The address-space token of the slice whose C name is `c` (see [`Cx::spaces`]).
    pub fn space(&self, c: &str) -> &str {
        self.spaces
            .iter()
            .find(|(n, _)| n == c)
            .map_or("g", |(_, s)| s.as_str())
    }

    /// The add on a shared adjoint of the slice parameter whose C name is `c`: a hole that
    /// becomes `NL_SHARED_ADD`, or `NL_OWN_ADD` in a version where the slice is private.
    pub fn shared_add(&self, c: &str) -> String {
        format!("\u{2}X{}\u{2}", self.space(c))
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
}

/// Writes `s` (helper for `write!` on strings that cannot fail).
pub fn w(out: &mut String, s: std::fmt::Arguments) {
    let _ = out.write_fmt(s);
}
