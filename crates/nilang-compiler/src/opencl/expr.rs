//! Rust expressions (conditions, indices, ancilla values, constants) as OpenCL C.
use super::emit::Cx;
use super::sig::{number_type, Shape, Ty};
use syn::spanned::Spanned;
use syn::{BinOp, Expr, UnOp};

/// The type of a device expression.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Et {
    Num(Ty),
    Bool,
    /// A host constant (its C literal carries its type).
    Unknown,
}

impl Et {
    fn join(self, o: Et) -> Et {
        match (self, o) {
            (Et::Num(Ty::Real), _) | (_, Et::Num(Ty::Real)) => Et::Num(Ty::Real),
            (Et::Num(t), _) | (_, Et::Num(t)) => Et::Num(t),
            (Et::Bool, Et::Bool) => Et::Bool,
            _ => Et::Unknown,
        }
    }
}

const INT: Et = Et::Num(Ty::Int {
    signed: true,
    bytes: 8,
});

impl Cx<'_> {
    /// Whether `e` mentions a variable of the function or a generic parameter (else it is a
    /// host constant, evaluated in Rust when the program source is built).
    fn is_device(&self, e: &Expr) -> bool {
        let mut names: std::collections::HashSet<String> =
            self.scopes.iter().map(|(n, _)| n.clone()).collect();
        names.extend(self.generics.iter().cloned());
        names.insert("self".into());
        crate::parse::mentions(e, &names)
    }

    /// `e` as C (a value: in gradient mode, the value part of a number).
    pub fn cexpr(&mut self, e: &Expr) -> (String, Et) {
        match e {
            Expr::Lit(l) => return self.lit(&l.lit, false),
            Expr::Paren(p) => {
                let (s, t) = self.cexpr(&p.expr);
                return (format!("({s})"), t);
            }
            Expr::Group(g) => return self.cexpr(&g.expr),
            Expr::Macro(m) if m.mac.path.is_ident("cst") => {
                if let Ok(inner) = m.mac.parse_body::<Expr>() {
                    return self.cexpr(&inner);
                }
            }
            _ => {}
        }
        if !self.is_device(e) {
            return (self.host(e), Et::Unknown);
        }
        match e {
            Expr::Path(p) if p.path.get_ident().is_some() => {
                let name = p
                    .path
                    .get_ident()
                    .map(|i| i.to_string())
                    .unwrap_or_default();
                match self.lookup(&name) {
                    Some(v) => match v.shape {
                        Shape::Value => (v.c.clone(), Et::Num(v.ty)),
                        Shape::Ptr => (format!("(*{})", v.c), Et::Num(v.ty)),
                        Shape::Slice { .. } => {
                            self.err(
                                e.span(),
                                format!("slice `{name}` used as a number in a device expression"),
                            );
                            (String::new(), Et::Unknown)
                        }
                    },
                    None => {
                        self.err(
                            e.span(),
                            format!(
                                "`{name}`: a type parameter as a value is not supported on the \
                                 device"
                            ),
                        );
                        (String::new(), Et::Unknown)
                    }
                }
            }
            Expr::Binary(b) => {
                let (l, lt) = self.cexpr(&b.left);
                let (r, rt) = self.cexpr(&b.right);
                let (op, cmp) = match b.op {
                    BinOp::Add(_) => ("+", false),
                    BinOp::Sub(_) => ("-", false),
                    BinOp::Mul(_) => ("*", false),
                    BinOp::Div(_) => ("/", false),
                    BinOp::Rem(_) => ("%", false),
                    BinOp::And(_) => ("&&", true),
                    BinOp::Or(_) => ("||", true),
                    BinOp::BitAnd(_) => ("&", false),
                    BinOp::BitOr(_) => ("|", false),
                    BinOp::BitXor(_) => ("^", false),
                    BinOp::Shl(_) => ("<<", false),
                    BinOp::Shr(_) => (">>", false),
                    BinOp::Eq(_) => ("==", true),
                    BinOp::Ne(_) => ("!=", true),
                    BinOp::Lt(_) => ("<", true),
                    BinOp::Le(_) => ("<=", true),
                    BinOp::Gt(_) => (">", true),
                    BinOp::Ge(_) => (">=", true),
                    _ => {
                        self.err(b.op.span(), "this operator is not supported on the device");
                        ("+", false)
                    }
                };
                if op == "%" && (lt == Et::Num(Ty::Real) || rt == Et::Num(Ty::Real)) {
                    return (format!("fmod({l}, {r})"), Et::Num(Ty::Real));
                }
                let t = if cmp { Et::Bool } else { lt.join(rt) };
                (format!("({l} {op} {r})"), t)
            }
            Expr::Unary(u) => {
                let (s, t) = self.cexpr(&u.expr);
                match u.op {
                    UnOp::Neg(_) => (format!("(-{s})"), t),
                    UnOp::Not(_) if t == Et::Bool => (format!("(!{s})"), t),
                    UnOp::Not(_) => (format!("(~{s})"), t),
                    UnOp::Deref(_) => (s, t),
                    _ => {
                        self.err(u.span(), "this operator is not supported on the device");
                        (s, t)
                    }
                }
            }
            Expr::Reference(r) => self.cexpr(&r.expr),
            Expr::Index(ix) => {
                let (i, _) = self.cexpr(&ix.index);
                let name = match &*ix.expr {
                    Expr::Path(p) => p.path.get_ident().map(|i| i.to_string()),
                    _ => None,
                };
                match name.as_deref().and_then(|n| self.lookup(n)) {
                    Some(v) if matches!(v.shape, Shape::Slice { .. }) => {
                        (format!("{}[{i}]", v.c), Et::Num(v.ty))
                    }
                    _ => {
                        self.err(
                            ix.expr.span(),
                            "on the device only slice parameters can be indexed",
                        );
                        (String::new(), Et::Unknown)
                    }
                }
            }
            Expr::Cast(c) => {
                let (s, _) = self.cexpr(&c.expr);
                match number_type(&c.ty, &self.generics) {
                    Some(ty) => (format!("(({})({s}))", ty.c_scalar()), Et::Num(ty)),
                    None => {
                        self.err(c.ty.span(), "cast to a type the device does not have");
                        (s, Et::Unknown)
                    }
                }
            }
            Expr::MethodCall(m) => self.method(m),
            Expr::Call(c) => self.call_expr(c),
            other => {
                self.err(
                    other.span(),
                    format!(
                        "expression not supported on the device: `{}`",
                        crate::parse::stmt_text(other)
                    ),
                );
                (String::new(), Et::Unknown)
            }
        }
    }

    fn method(&mut self, m: &syn::ExprMethodCall) -> (String, Et) {
        let name = m.method.to_string();
        if name == "len" && m.args.is_empty() {
            if let Expr::Path(p) = &*m.receiver {
                if let Some(v) = p.path.get_ident().and_then(|i| self.lookup(&i.to_string())) {
                    if matches!(v.shape, Shape::Slice { .. }) {
                        return (
                            format!("{}_len", v.c),
                            Et::Num(Ty::Int {
                                signed: false,
                                bytes: 8,
                            }),
                        );
                    }
                }
            }
        }
        let (r, t) = self.cexpr(&m.receiver);
        let args: Vec<String> = m.args.iter().map(|a| self.cexpr(a).0).collect();
        let real = t != INT && !matches!(t, Et::Num(Ty::Int { .. }));
        let s = match (name.as_str(), args.len()) {
            ("value", 0) | ("clone", 0) => return (r, t),
            // `nilang::ad::AbsAbove`: one lane per thread
            ("abs_above", 1) if real => {
                return (format!("(fabs({r}) > (REAL)({}))", args[0]), Et::Bool)
            }
            ("abs", 0) if real => format!("fabs({r})"),
            ("abs", 0) => format!("(({r}) < 0 ? -({r}) : ({r}))"),
            (
                "sqrt" | "exp" | "sin" | "cos" | "tan" | "sinh" | "cosh" | "tanh" | "floor"
                | "ceil" | "round" | "trunc",
                0,
            ) => format!("{name}({r})"),
            ("ln", 0) => format!("log({r})"),
            ("ln_1p", 0) => format!("log1p({r})"),
            ("exp_m1", 0) => format!("expm1({r})"),
            // the other elementary functions of the table
            (f, 0) if real && crate::functions::by_name(f).is_some() => {
                crate::functions::by_name(f).map_or_else(String::new, |e| e.c_value(&r))
            }
            ("powi", 1) => format!("nl_powi({r}, (int)({}))", args[0]),
            ("powf", 1) => format!("pow({r}, {})", args[0]),
            ("min", 1) if real => format!("fmin({r}, {})", args[0]),
            ("max", 1) if real => format!("fmax({r}, {})", args[0]),
            ("min", 1) => format!("min({r}, {})", args[0]),
            ("max", 1) => format!("max({r}, {})", args[0]),
            _ => {
                self.err(
                    m.method.span(),
                    format!("method `{name}` is not supported in a device expression"),
                );
                return (String::new(), Et::Unknown);
            }
        };
        (s, if real { Et::Num(Ty::Real) } else { t })
    }

    fn call_expr(&mut self, c: &syn::ExprCall) -> (String, Et) {
        let Expr::Path(p) = &*c.func else {
            self.err(c.func.span(), "call not supported on the device");
            return (String::new(), Et::Unknown);
        };
        let segs: Vec<String> = p
            .path
            .segments
            .iter()
            .map(|s| s.ident.to_string())
            .collect();
        // `max_of(&s)` (`nilang::ad::max_of`) of a slice: its largest value (`nl_max_of`)
        if segs.last().is_some_and(|l| l == "max_of") && c.args.len() == 1 {
            let arg = match &c.args[0] {
                Expr::Reference(r) => &*r.expr,
                e => e,
            };
            if let Expr::Path(a) = arg {
                let v = a.path.get_ident().and_then(|i| self.lookup(&i.to_string()));
                if let Some(v) = v.filter(|v| v.ty == Ty::Real) {
                    if matches!(v.shape, Shape::Slice { .. }) {
                        return (format!("nl_max_of({0}, {0}_len)", v.c), Et::Num(Ty::Real));
                    }
                }
            }
        }
        let ty_ok = segs.len() == 2
            && (self.generics.contains(&segs[0]) || segs[0] == "f64" || segs[0] == "f32");
        if ty_ok {
            match (segs[1].as_str(), c.args.len()) {
                ("default" | "zero", 0) => return ("((REAL)0)".into(), Et::Num(Ty::Real)),
                ("one", 0) => return ("((REAL)1)".into(), Et::Num(Ty::Real)),
                ("lit" | "from", 1) => {
                    let (s, _) = self.cexpr(&c.args[0]);
                    return (format!("((REAL)({s}))"), Et::Num(Ty::Real));
                }
                _ => {}
            }
        }
        self.err(
            c.span(),
            format!(
                "call of `{}` on device values: not supported in a device expression (only \
                 `T::default()`, `T::zero()`, `T::one()`, `T::lit(x)`, `max_of(&slice)` and host \
                 constants)",
                segs.join("::")
            ),
        );
        (String::new(), Et::Unknown)
    }

    /// A literal (with its sign).
    pub fn lit(&mut self, l: &syn::Lit, neg: bool) -> (String, Et) {
        let sign = if neg { "-" } else { "" };
        match l {
            syn::Lit::Int(i) => {
                let suffix = i.suffix();
                let ty = if suffix.is_empty() {
                    Ty::Int {
                        signed: true,
                        bytes: 8,
                    }
                } else {
                    let t: syn::Type =
                        syn::parse_str(suffix).unwrap_or_else(|_| syn::parse_quote!(i64));
                    number_type(&t, &self.generics).unwrap_or(Ty::Int {
                        signed: true,
                        bytes: 8,
                    })
                };
                let digits = i.base10_digits();
                match ty {
                    Ty::Real => (format!("((REAL){sign}{digits}.0)"), Et::Num(ty)),
                    _ => (format!("(({}){sign}{digits})", ty.c_scalar()), Et::Num(ty)),
                }
            }
            syn::Lit::Float(f) => {
                let d = f.base10_digits();
                let d = if d.contains(['.', 'e', 'E']) {
                    d.to_string()
                } else {
                    format!("{d}.0")
                };
                (format!("((REAL){sign}{d})"), Et::Num(Ty::Real))
            }
            syn::Lit::Bool(b) => ((if b.value { "1" } else { "0" }).into(), Et::Bool),
            other => {
                self.err(other.span(), "literal not supported on the device");
                (String::new(), Et::Unknown)
            }
        }
    }
}
