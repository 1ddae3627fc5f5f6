//! Instructions `y op= f(x, ..)`: the accumulation operator, the target, the function (a
//! built-in marker or a `#[primitive]`) and its operands.
use super::Parser;
use crate::ir::*;
use crate::syntax::{is_constructor, operand_of};
use syn::spanned::Spanned;
use syn::{BinOp, Expr, UnOp};

/// The built-in function markers of `nilang::instr::fns` besides the table of elementary
/// functions ([`crate::functions`]): (name a user writes, number of operands, marker type).
#[rustfmt::skip]
const BUILTINS: &[(&str, usize, &str)] = &[
    ("identity", 1, "Identity"), ("convert", 1, "Convert"),
    ("sincos", 1, "SinCos"), ("sin_cos", 1, "SinCos"), ("atan", 2, "Atan2"), ("atan2", 2, "Atan2"),
    ("sqrt", 1, "Sqrt"), ("abs", 1, "Abs"), ("abs2", 1, "Abs2"), ("inv", 1, "Recip"), ("recip", 1, "Recip"),
    ("powf", 2, "Powf"), ("pow", 2, "Powf"), ("powi", 2, "Powi"), ("hypot", 2, "Hypot"), ("sqdiff", 2, "SqDiff"),
    ("min", 2, "Min"), ("max", 2, "Max"),
];

/// The built-ins other than the elementary functions: `(name a user writes, marker)`.
///
/// ```
/// assert!(nilang_compiler::parse::builtin_names().any(|n| n == ("abs2", "Abs2")));
/// ```
pub fn builtin_names() -> impl Iterator<Item = (&'static str, &'static str)> {
    BUILTINS.iter().map(|(n, _, m)| (*n, *m))
}

/// The built-in function markers, by the names a user writes (`sin(x)` or `x.sin()`): the
/// elementary functions of the table ([`crate::functions`]) and the others.
///
/// ```
/// assert_eq!(nilang_compiler::parse::builtin("log1p", 1), Some("Ln1p"));
/// assert_eq!(nilang_compiler::parse::builtin("atan", 2), Some("Atan2"));
/// assert_eq!(nilang_compiler::parse::builtin("sin", 2), None);
/// ```
pub fn builtin(name: &str, nargs: usize) -> Option<&'static str> {
    let elementary = crate::functions::by_name(name).filter(|_| nargs == 1);
    elementary.map(|e| e.marker).or_else(|| {
        BUILTINS
            .iter()
            .find(|(n, k, _)| *n == name && *k == nargs)
            .map(|(_, _, marker)| *marker)
    })
}

impl Parser<'_> {
    /// `target op= rhs`.
    pub(super) fn instr(&mut self, b: &syn::ExprBinary) -> Option<StmtKind> {
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
                    "the target of an instruction must be a variable, field, index or tuple \
                     of those",
                );
                return None;
            }
        }
        let (func, args) = self.rhs(&b.right)?;
        Some(StmtKind::Instr(Instr {
            op,
            target,
            func,
            args,
        }))
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
        Some((func, args))
    }
}
