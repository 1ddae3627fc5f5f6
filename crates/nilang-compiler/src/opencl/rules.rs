//! The built-in functions on the device: their values, and their gradient rules on
//! value/adjoint pairs (the same expressions, in the same order, as the rules of
//! `nilang::ad::rules::elementary`, so results agree with the CPU to rounding; those of the
//! elementary functions from their table, [`crate::functions`]).
use super::emit::{CPlace, Cx};
use crate::functions::by_marker;
use proc_macro2::Span;

/// The `f` of an instruction.
pub enum Func<'a> {
    Builtin(&'a str),
    /// `x.powi(N)` with a literal `N`.
    PowiN(i64),
}

/// The value `f(args)` in C; `real`: the target is a real number.
pub fn value(cx: &mut Cx, f: &Func, args: &[CPlace], real: bool, span: Span) -> Option<String> {
    let a = |k: usize| args.get(k).map(|p| p.val.as_str()).unwrap_or("0");
    let (x, y) = (a(0), a(1));
    let n = args.len();
    let s = match f {
        Func::PowiN(k) => format!("nl_powi({x}, {k})"),
        Func::Builtin(b) => match (*b, n) {
            ("Identity", 1) => x.to_string(),
            ("Neg", 1) => format!("(-{x})"),
            ("Add", 2) => format!("({x} + {y})"),
            ("Sub", 2) => format!("({x} - {y})"),
            ("Mul", 2) => format!("({x} * {y})"),
            ("Div", 2) => format!("({x} / {y})"),
            ("BitAnd", 2) if !real => format!("({x} & {y})"),
            ("BitOr", 2) if !real => format!("({x} | {y})"),
            ("And", 2) if !real => format!("({x} && {y})"),
            ("Or", 2) if !real => format!("({x} || {y})"),
            ("Not", 1) if !real => format!("(!{x})"),
            ("Abs2", 1) => format!("({x} * {x})"),
            ("SqDiff", 2) => format!("nl_sqdiff({x}, {y})"),
            ("Min", 2) if real => format!("fmin({x}, {y})"),
            ("Max", 2) if real => format!("fmax({x}, {y})"),
            ("Min", 2) => format!("min({x}, {y})"),
            ("Max", 2) => format!("max({x}, {y})"),
            ("Abs", 1) if real => format!("fabs({x})"),
            ("Sqrt", 1) if real => format!("sqrt({x})"),
            (b, 1) if real && by_marker(b).is_some() => {
                by_marker(b).map_or_else(String::new, |e| e.c_value(x))
            }
            ("Recip", 1) if real => format!("(((REAL)1) / {x})"),
            ("Powf", 2) if real => format!("pow({x}, {y})"),
            ("Powi", 2) if real => format!("nl_powi({x}, (int)({y}))"),
            ("Hypot", 2) if real => format!("hypot({x}, {y})"),
            ("Atan2", 2) if real => format!("atan2({x}, {y})"),
            _ => {
                cx.err(
                    span,
                    format!(
                        "function `{b}` with {n} operand(s) is not supported on the device{}",
                        if real { "" } else { " for integers" }
                    ),
                );
                return None;
            }
        },
    };
    Some(s)
}

/// One adjoint update `args[k].g (+|-)= expr`, under an optional guard.
struct Up {
    k: usize,
    plus: bool,
    e: String,
    guard: Option<String>,
}

fn up(k: usize, plus: bool, e: String) -> Up {
    Up {
        k,
        plus,
        e,
        guard: None,
    }
}

/// `y (+|-)= f(args)` on value/adjoint pairs: the value, then the adjoints of the operands
/// (for `-=`, the backward rule; for `+=`, its inverse: the updates reversed and negated).
pub fn gvar(cx: &mut Cx, plus: bool, y: &CPlace, f: &Func, args: &[CPlace], v: &str) {
    let g = y.adj.clone().unwrap_or_else(|| "0".into());
    let a = |k: usize| args.get(k).map(|p| p.val.clone()).unwrap_or_default();
    let (x, b) = (a(0), a(1));
    let mut ups: Vec<Up> = match f {
        Func::PowiN(2) => vec![
            up(0, true, format!("{g} * {x}")),
            up(0, true, format!("{g} * {x}")),
        ],
        Func::PowiN(1) => vec![up(0, true, g.clone())],
        Func::PowiN(n) => vec![Up {
            k: 0,
            plus: true,
            e: format!("{g} * ((nl_powi({x}, {n}) / {x}) * ((REAL){n}))"),
            guard: Some(format!("{x} != 0")),
        }],
        Func::Builtin(name) => match *name {
            "Identity" => vec![up(0, true, g.clone())],
            "Neg" => vec![up(0, false, g.clone())],
            "Add" => vec![up(0, true, g.clone()), up(1, true, g.clone())],
            "Sub" => vec![up(0, true, g.clone()), up(1, false, g.clone())],
            "Mul" => vec![
                up(0, true, format!("{g} * {b}")),
                up(1, true, format!("{g} * {x}")),
            ],
            // the CPU rule's arithmetic (`ad/rules/elementary.rs`): `t = ȳ·(1/b)`,
            // `ā += t`, `b̄ -= t·(a/b)`, so both give the same bits
            "Div" => vec![
                up(0, true, format!("{g} * ((REAL)1 / {b})")),
                up(1, false, format!("({g} * ((REAL)1 / {b})) * ({x} / {b})")),
            ],
            // the elementary functions of the table
            name if by_marker(name).is_some() => by_marker(name)
                .map(|e| vec![up(0, e.plus, e.c_update(&g, &x))])
                .unwrap_or_default(),
            "Sqrt" => vec![Up {
                k: 0,
                plus: true,
                e: format!("{g} / (sqrt({x}) * (REAL)2)"),
                guard: Some(format!("sqrt({x}) * (REAL)2 > 0")),
            }],
            "Abs" => vec![
                Up {
                    k: 0,
                    plus: true,
                    e: g.clone(),
                    guard: Some(format!("{x} >= 0")),
                },
                Up {
                    k: 0,
                    plus: false,
                    e: g.clone(),
                    guard: Some(format!("!({x} >= 0)")),
                },
            ],
            "Abs2" => vec![
                up(0, true, format!("{g} * {x}")),
                up(0, true, format!("{g} * {x}")),
            ],
            "SqDiff" => vec![
                up(0, true, format!("({g} * ({x} - {b})) * (REAL)2")),
                up(1, false, format!("({g} * ({x} - {b})) * (REAL)2")),
            ],
            "Recip" => vec![up(0, false, format!("{g} / ({x} * {x})"))],
            "Powf" => vec![
                up(0, true, format!("{g} * (pow({x}, {b} - (REAL)1) * {b})")),
                Up {
                    k: 1,
                    plus: true,
                    e: format!("{g} * (pow({x}, {b}) * log({x}))"),
                    guard: Some(format!("{x} > 0")),
                },
            ],
            // as the CPU's rule of `PowiN<N>`: N = 2 like `abs2`, N = 1 like `identity`,
            // else N·(x^N / x) where x ≠ 0
            "Powi" => vec![
                Up {
                    k: 0,
                    plus: true,
                    e: format!("{g} * {x}"),
                    guard: Some(format!("({b}) == 2")),
                },
                Up {
                    k: 0,
                    plus: true,
                    e: format!("{g} * {x}"),
                    guard: Some(format!("({b}) == 2")),
                },
                Up {
                    k: 0,
                    plus: true,
                    e: g.clone(),
                    guard: Some(format!("({b}) == 1")),
                },
                Up {
                    k: 0,
                    plus: true,
                    e: format!("{g} * ((nl_powi({x}, (int)({b})) / {x}) * (REAL)({b}))"),
                    guard: Some(format!("({b}) != 2 && ({b}) != 1 && {x} != 0")),
                },
            ],
            "Hypot" => vec![
                up(0, true, format!("({g} / hypot({x}, {b})) * {x}")),
                up(1, true, format!("({g} / hypot({x}, {b})) * {b}")),
            ],
            "Atan2" => vec![
                up(0, true, format!("({g} / ({x} * {x} + {b} * {b})) * {b}")),
                up(1, false, format!("({g} / ({x} * {x} + {b} * {b})) * {x}")),
            ],
            "Min" => vec![
                Up {
                    k: 0,
                    plus: true,
                    e: g.clone(),
                    guard: Some(format!("{x} <= {b}")),
                },
                Up {
                    k: 1,
                    plus: true,
                    e: g.clone(),
                    guard: Some(format!("!({x} <= {b})")),
                },
            ],
            "Max" => vec![
                Up {
                    k: 0,
                    plus: true,
                    e: g.clone(),
                    guard: Some(format!("{x} >= {b}")),
                },
                Up {
                    k: 1,
                    plus: true,
                    e: g.clone(),
                    guard: Some(format!("!({x} >= {b})")),
                },
            ],
            // integer-only functions never reach here (their target is an integer)
            _ => vec![],
        },
    };
    if plus {
        // the inverse of the backward rule: value first, updates reversed and negated
        cx.line(format!("{} += {v};", y.val));
        ups.reverse();
        for u in &mut ups {
            u.plus = !u.plus;
        }
    } else {
        cx.line(format!("{} -= {v};", y.val));
    }
    for u in ups {
        let Some(p) = args.get(u.k) else { continue };
        if p.adj.is_none() {
            continue;
        }
        if let Some(gd) = &u.guard {
            cx.line(format!("if ({gd}) {{"));
            cx.depth += 1;
            cx.adj_update(p, u.plus, &u.e);
            cx.depth -= 1;
            cx.line("}");
        } else {
            cx.adj_update(p, u.plus, &u.e);
        }
    }
}

/// `(s, c) (+|-)= sincos(a)`.
pub fn sincos(cx: &mut Cx, plus: bool, s: &CPlace, c: &CPlace, a: &CPlace) {
    let x = &a.val;
    let op = if plus { '+' } else { '-' };
    if !cx.gvar {
        cx.line(format!("{} {op}= sin({x});", s.val));
        cx.line(format!("{} {op}= cos({x});", c.val));
        return;
    }
    let (sg, cg) = (
        s.adj.clone().unwrap_or_else(|| "0".into()),
        c.adj.clone().unwrap_or_else(|| "0".into()),
    );
    if plus {
        cx.adj_update(a, true, &format!("{cg} * sin({x})"));
        cx.adj_update(a, false, &format!("{sg} * cos({x})"));
        cx.line(format!("{} += sin({x});", s.val));
        cx.line(format!("{} += cos({x});", c.val));
    } else {
        cx.line(format!("{} -= sin({x});", s.val));
        cx.line(format!("{} -= cos({x});", c.val));
        cx.adj_update(a, true, &format!("{sg} * cos({x})"));
        cx.adj_update(a, false, &format!("{cg} * sin({x})"));
    }
}
