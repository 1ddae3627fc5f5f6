//! The table of elementary functions ([`nilang_functions`]) as the compiler reads it: the
//! names the parser knows as built-ins, and each function's value and gradient rule in C for
//! the device backends.
use syn::{BinOp, Expr, Lit};

/// One row of the table of elementary functions (functions of one argument).
#[derive(Debug)]
pub struct Elementary {
    /// The marker type of `nilang::instr::fns` (`"Tanh"`).
    pub marker: &'static str,
    /// The names a user writes (`tanh(x)`, `x.tanh()`); the first is the method of `Real`.
    pub names: &'static [&'static str],
    /// The C function on the device.
    pub c: &'static str,
    /// The reverse rule is `x̄ += ȳ ∘ d` (else `x̄ -= ȳ ∘ d`).
    pub plus: bool,
    /// `∘` is `/` (else `*`).
    pub divide: bool,
    /// The derivative expression `d` of `x` and `r = f(x)`, as written in the table.
    pub derivative: &'static str,
}

macro_rules! rows {
    ($($F:ident { names: [$($n:ident),*], c: $c:ident, domain: $dom:literal, d: $s:tt $op:tt ($($d:tt)*), lanes: $l:ident },)*) => {
        /// The rows of the table, in its order.
        pub const ELEMENTARY: &[Elementary] = &[$(Elementary {
            marker: stringify!($F),
            names: &[$(stringify!($n)),*],
            c: stringify!($c),
            plus: rows!(@plus $s),
            divide: rows!(@divide $op),
            derivative: stringify!($($d)*),
        }),*];
    };
    (@plus +) => { true };
    (@plus -) => { false };
    (@divide *) => { false };
    (@divide /) => { true };
}
nilang_functions::elementary_functions!(rows! {});

/// The row of a marker type.
///
/// ```
/// assert_eq!(nilang_compiler::functions::by_marker("Ln1p").unwrap().c, "log1p");
/// ```
pub fn by_marker(marker: &str) -> Option<&'static Elementary> {
    ELEMENTARY.iter().find(|e| e.marker == marker)
}

/// The row of a name a user writes.
///
/// ```
/// assert_eq!(nilang_compiler::functions::by_name("log").unwrap().marker, "Ln");
/// ```
pub fn by_name(name: &str) -> Option<&'static Elementary> {
    ELEMENTARY.iter().find(|e| e.names.contains(&name))
}

impl Elementary {
    /// The value `f(x)` in C, `x` a C expression.
    ///
    /// ```
    /// let ln = nilang_compiler::functions::by_marker("Ln").unwrap();
    /// assert_eq!(ln.c_value("a"), "log(a)");
    /// ```
    pub fn c_value(&self, x: &str) -> String {
        format!("{}({x})", self.c)
    }

    /// The adjoint update `ȳ ∘ d` in C (without its sign, [`Self::plus`]), from the adjoint
    /// `g` of the result and the argument `x` (C expressions); the terms of `d` in the table's
    /// order, `r` recomputed as `f(x)`.
    ///
    /// ```
    /// let tanh = nilang_compiler::functions::by_marker("Tanh").unwrap();
    /// assert_eq!(tanh.c_update("g", "a"), "g * ((REAL)1 - tanh(a) * tanh(a))");
    /// ```
    pub fn c_update(&self, g: &str, x: &str) -> String {
        let (d, level) = match syn::parse_str::<Expr>(self.derivative) {
            Ok(e) => self.c_expr(&e, x),
            // every row parses (the tests of this module translate each)
            Err(_) => (String::from("NAN"), ATOM),
        };
        let d = if level == ATOM { d } else { format!("({d})") };
        format!("{g} {} {d}", if self.divide { '/' } else { '*' })
    }

    /// A derivative (sub)expression in C, and its precedence level ([`ATOM`], [`PRODUCT`],
    /// [`SUM`]).
    fn c_expr(&self, e: &Expr, x: &str) -> (String, u8) {
        let operand = |(s, level): (String, u8), max: u8| {
            if level <= max {
                s
            } else {
                format!("({s})")
            }
        };
        match e {
            Expr::Lit(l) => match &l.lit {
                Lit::Int(i) => (format!("(REAL){}", i.base10_digits()), ATOM),
                Lit::Float(f) => (format!("(REAL){}", f.base10_digits()), ATOM),
                _ => (String::from("NAN"), ATOM),
            },
            Expr::Path(p) if p.path.is_ident("x") => (x.to_string(), ATOM),
            Expr::Path(p) if p.path.is_ident("r") => (self.c_value(x), ATOM),
            Expr::Paren(p) => self.c_expr(&p.expr, x),
            // `-e` (a sum's leading minus, `exp(-x)`)
            Expr::Unary(u) if matches!(u.op, syn::UnOp::Neg(_)) => {
                let e = operand(self.c_expr(&u.expr, x), ATOM);
                (format!("-{e}"), ATOM)
            }
            Expr::Binary(b) => {
                let (op, level) = match b.op {
                    BinOp::Add(_) => ("+", SUM),
                    BinOp::Sub(_) => ("-", SUM),
                    BinOp::Mul(_) => ("*", PRODUCT),
                    _ => ("/", PRODUCT),
                };
                // left to right: the left operand as is up to its level, the right one below
                let l = operand(self.c_expr(&b.left, x), level);
                let r = operand(self.c_expr(&b.right, x), level - 1);
                (format!("{l} {op} {r}"), level)
            }
            Expr::Call(c) => {
                let g = match &*c.func {
                    Expr::Path(p) => p.path.get_ident().map(|i| i.to_string()),
                    _ => None,
                }
                .unwrap_or_default();
                let a = c.args.first().map(|a| self.c_expr(a, x));
                let a = a.unwrap_or_else(|| (String::from("NAN"), ATOM));
                if g == "abs2" {
                    let a = operand(a, ATOM);
                    return (format!("{a} * {a}"), PRODUCT);
                }
                let cg = by_name(&g).map_or(g.as_str(), |e| e.c);
                (format!("{cg}({})", a.0), ATOM)
            }
            _ => (String::from("NAN"), ATOM),
        }
    }
}

/// Precedence levels of C expressions: one operand, a product, a sum.
const ATOM: u8 = 0;
const PRODUCT: u8 = 1;
const SUM: u8 = 2;

#[cfg(test)]
mod tests {
    use super::*;

    /// Every row's derivative translates (no unknown form), and its functions are C functions
    /// of the table or `sqrt`.
    #[test]
    fn every_row_translates() {
        for e in ELEMENTARY {
            let u = e.c_update("g", "a");
            assert!(!u.contains("NAN"), "{}: {u}", e.marker);
            let d = syn::parse_str::<Expr>(e.derivative).unwrap();
            let mut calls = Vec::new();
            collect_calls(&d, &mut calls);
            for g in calls {
                assert!(
                    g == "abs2" || g == "sqrt" || by_name(&g).is_some(),
                    "{}: {g}",
                    e.marker
                );
            }
        }
    }

    fn collect_calls(e: &Expr, out: &mut Vec<String>) {
        match e {
            Expr::Call(c) => {
                if let Expr::Path(p) = &*c.func {
                    out.push(p.path.get_ident().unwrap().to_string());
                }
                c.args.iter().for_each(|a| collect_calls(a, out));
            }
            Expr::Binary(b) => {
                collect_calls(&b.left, out);
                collect_calls(&b.right, out);
            }
            Expr::Paren(p) => collect_calls(&p.expr, out),
            _ => {}
        }
    }

    /// The device rules are the expressions the device backends had before the table (so the
    /// kernels' results are unchanged), except `exp_m1`'s (now `r + 1`, as the CPU's rule).
    #[test]
    fn device_rules() {
        let rule = |m: &str| {
            let e = by_marker(m).unwrap();
            (e.plus, e.c_update("g", "x"))
        };
        assert_eq!(rule("Sin"), (true, "g * cos(x)".into()));
        assert_eq!(rule("Cos"), (false, "g * sin(x)".into()));
        assert_eq!(
            rule("Tan"),
            (true, "g * (tan(x) * tan(x) + (REAL)1)".into())
        );
        assert_eq!(rule("Asin"), (true, "g / sqrt((REAL)1 - x * x)".into()));
        assert_eq!(rule("Acos"), (false, "g / sqrt((REAL)1 - x * x)".into()));
        assert_eq!(rule("Atan"), (true, "g / (x * x + (REAL)1)".into()));
        assert_eq!(rule("Sinh"), (true, "g * cosh(x)".into()));
        assert_eq!(rule("Cosh"), (true, "g * sinh(x)".into()));
        assert_eq!(
            rule("Tanh"),
            (true, "g * ((REAL)1 - tanh(x) * tanh(x))".into())
        );
        assert_eq!(rule("Exp"), (true, "g * exp(x)".into()));
        assert_eq!(rule("ExpM1"), (true, "g * (expm1(x) + (REAL)1)".into()));
        assert_eq!(rule("Ln"), (true, "g / x".into()));
        assert_eq!(rule("Ln1p"), (true, "g / (x + (REAL)1)".into()));
        assert_eq!(rule("Asinh"), (true, "g / sqrt(x * x + (REAL)1)".into()));
        assert_eq!(rule("Atanh"), (true, "g / ((REAL)1 - x * x)".into()));
        // the logistic sigmoid from `x` alone (a sum starting with `-`)
        assert_eq!(rule("Softplus"), (true, "g / (exp(-x) + (REAL)1)".into()));
        assert_eq!(by_name("softplus").unwrap().c_value("a"), "nl_softplus(a)");
    }
}
