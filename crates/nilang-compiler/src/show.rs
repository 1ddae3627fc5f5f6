//! A look inside: a reversible function's IR, its generated inverse and its gradient program,
//! printed in the language's own syntax (NiLang's `@code_reverse`/`nilang_ir`).
//!
//! [`show`] parses and lowers `#[i] fn ...` like [`compile_fn`](crate::compile_fn), inverts it
//! with [`invert_block`], and renders the statements with [`render_block`]. The gradient
//! program is what the gradient API runs on `GVar` numbers: the forward program (values), the
//! seed `out.g = 1`, then the inverse program, each instruction of which also moves adjoints
//! (rendered under it as a `//` comment, `∂` the partial derivative of the instruction's
//! function).
//!
//! ```
//! let shown = nilang_compiler::show::show(quote::quote!(
//!     fn f(y: &mut f64, x: &mut f64) {
//!         y += x * 2.0;
//!         x += 1.0;
//!     }
//! ))
//! .unwrap();
//! assert_eq!(shown.inverse, "fn f_inv(y: &mut f64, x: &mut f64) {\n    x -= 1.0;\n    y -= x * 2.0;\n}\n");
//! ```
//!
//! From the command line: `cargo run -p nilang-compiler --example show -- FILE FUNCTION`.
//! [`picture`] draws the same lowered program as an SVG (variables as wires, instructions as
//! gates).
use crate::errors::Errors;
use crate::invert::invert_block;
use crate::ir::*;
use crate::parse::Parser;
use quote::ToTokens;

pub mod picture;

/// The three views of a function: see the [module](self).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Shown {
    /// The lowered IR (routines expanded, `unroutine!()` replaced by the inverted routine,
    /// `inv! { }` inverted), in the language's syntax.
    pub ir: String,
    /// The generated inverse `f_inv`.
    pub inverse: String,
    /// What the gradient API runs on `GVar`: forward, seed, inverse with adjoint updates.
    pub gradient: String,
}

impl std::fmt::Display for Shown {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "// IR (lowered)\n{}\n// inverse\n{}\n// gradient program (on GVar)\n{}",
            self.ir, self.inverse, self.gradient
        )
    }
}

/// Parse, lower, check and invert `fn ...` (the item under `#[i]`) and render its views.
/// Compile errors come back as the `syn::Error`s `#[i]` would report, combined.
pub fn show(item: proc_macro2::TokenStream) -> Result<Shown, syn::Error> {
    let (f, body) = lowered(item)?;
    let inverse = invert_block(&body);
    let name = f.sig.ident.to_string();
    let params = tidy(&f.sig.inputs.to_token_stream().to_string());
    let generics = match f.sig.generics.params.is_empty() {
        true => String::new(),
        false => tidy(&f.sig.generics.to_token_stream().to_string()),
    };
    let head = |n: &str| format!("fn {n}{generics}({params}) {{\n");
    let ir = head(&name) + &render_block(&body, 1) + "}\n";
    let inv = head(&format!("{name}_inv")) + &render_block(&inverse, 1) + "}\n";
    let mut gradient = format!(
        "// 1. forward on GVar: {name}(..) (values; skipped when the function is\n\
         //    compute-copy-uncompute in the output)\n\
         // 2. seed: out.g = 1\n\
         // 3. the inverse with every number a GVar: values uncomputed, adjoints accumulated\n"
    );
    gradient += &head(&format!("{name}_inv"));
    gradient += &render(&inverse, 1, true);
    gradient += "}\n";
    Ok(Shown {
        ir,
        inverse: inv,
        gradient,
    })
}

/// The function and its lowered body, as `#[i]` parses, lowers and checks it.
fn lowered(item: proc_macro2::TokenStream) -> Result<(syn::ItemFn, Vec<Stmt>), syn::Error> {
    let f: syn::ItemFn = syn::parse2(item)?;
    let mut errors = Errors::default();
    let mut body = Parser {
        errors: &mut errors,
    }
    .block(&f.block.stmts, true);
    crate::lower::lower(&mut body, &mut errors);
    match errors.into_error() {
        Some(e) => Err(e),
        None => Ok((f, body)),
    }
}

/// The statements in the language's syntax, indented by `depth` levels of four spaces.
pub fn render_block(stmts: &[Stmt], depth: usize) -> String {
    render(stmts, depth, false)
}

fn render(stmts: &[Stmt], depth: usize, adjoints: bool) -> String {
    let mut out = String::new();
    for s in stmts {
        stmt(&mut out, s, depth, adjoints);
    }
    out
}

fn stmt(out: &mut String, s: &Stmt, depth: usize, adj: bool) {
    let pad = "    ".repeat(depth);
    let line = |out: &mut String, text: &str| {
        out.push_str(&pad);
        out.push_str(text);
        out.push('\n');
    };
    let block = |out: &mut String, head: &str, body: &[Stmt], tail: &str| {
        line(out, &format!("{head} {{"));
        out.push_str(&render(body, depth + 1, adj));
        line(out, &format!("}}{tail}"));
    };
    match &s.kind {
        StmtKind::Instr(i) => {
            line(out, &format!("{};", instr(i)));
            if adj {
                if let Some(a) = adjoint(i) {
                    line(out, &format!("//   {a}"));
                }
            }
        }
        StmtKind::Call(c) if c.inverse => line(out, &format!("inv! {{ {}; }}", call(c))),
        StmtKind::Call(c) => line(out, &format!("{};", call(c))),
        StmtKind::Alloc(a) => line(
            out,
            &format!(
                "let {}{} = {};",
                names(a),
                a.ty.as_ref()
                    .map(|t| format!(": {}", tokens(t)))
                    .unwrap_or_default(),
                tokens(&a.value)
            ),
        ),
        StmtKind::Dealloc(a) => line(
            out,
            &format!("dealloc!({} = {});", names(a), tokens(&a.value)),
        ),
        StmtKind::If {
            branches,
            otherwise,
        } => {
            for (k, b) in branches.iter().enumerate() {
                let head = format!(
                    "{}if ({}, {})",
                    if k == 0 { "" } else { "} else " },
                    tokens(&b.pre),
                    tokens(&b.post)
                );
                line(out, &format!("{head} {{"));
                out.push_str(&render(&b.body, depth + 1, adj));
            }
            if let Some(o) = otherwise {
                line(out, "} else {");
                out.push_str(&render(o, depth + 1, adj));
            }
            line(out, "}");
        }
        StmtKind::While {
            pre,
            post,
            body,
            step,
            step_first,
        } => {
            let step_text = render(step, 0, adj);
            let step_text = step_text.trim().trim_end_matches(';');
            let header = match (step.is_empty(), step_first) {
                (true, _) => format!("while ({}, {})", tokens(pre), tokens(post)),
                (false, false) => format!("while ({}, {}, {step_text})", tokens(pre), tokens(post)),
                // the inverse of a stepped loop: its step runs before its body
                (false, true) => {
                    format!(
                        "while ({}, {}) /* first: {step_text} */",
                        tokens(pre),
                        tokens(post)
                    )
                }
            };
            block(out, &header, body, "")
        }
        StmtKind::For { var, iter, body } => {
            let it = match iter {
                ForIter::Range(r) => {
                    let mut t = format!(
                        "{}..{}{}",
                        tokens(&r.start),
                        if r.inclusive { "=" } else { "" },
                        tokens(&r.end)
                    );
                    if r.step.is_some() || r.rev {
                        t = format!("({t})");
                    }
                    if let Some(step) = &r.step {
                        t += &format!(".step_by({})", tokens(step));
                    }
                    if r.rev {
                        t += ".rev()";
                    }
                    t
                }
                ForIter::Indices { slice, rev } => format!(
                    "0..{}.len(){}",
                    place(slice),
                    if *rev { ".rev()" } else { "" }
                ),
            };
            block(out, &format!("for {var} in {it}"), body, "")
        }
        StmtKind::DoLoop {
            from,
            first,
            until,
            second,
        } => {
            line(out, &format!("#[from({})]", tokens(from)));
            line(out, "loop {");
            out.push_str(&render(first, depth + 1, adj));
            line(out, &format!("    if {} {{ break }}", tokens(until)));
            out.push_str(&render(second, depth + 1, adj));
            line(out, "}");
        }
        StmtKind::Block(b) => block(out, "", b, ""),
        StmtKind::Seq(b) => out.push_str(&render(b, depth, adj)),
        StmtKind::Routine { body, undo } => {
            line(
                out,
                if *undo {
                    "// unroutine: the routine inverted"
                } else {
                    "// routine"
                },
            );
            out.push_str(&render(body, depth, adj));
        }
        StmtKind::Move { dst, src } => line(out, &format!("let {dst} = take!({src});")),
        StmtKind::Fresh(ps) => line(
            out,
            &format!(
                "fresh!({});",
                ps.iter().map(place).collect::<Vec<_>>().join(", ")
            ),
        ),
        StmtKind::Safe(t) => line(out, &format!("safe! {{ {} }}", tidy(&t.to_string()))),
        StmtKind::Stack { kind, stack, value } => {
            let m = match kind {
                StackKind::Push => "push!",
                StackKind::Pop => "pop!",
                StackKind::CopyPush => "copy_push!",
                StackKind::CopyPop => "copy_pop!",
            };
            line(out, &format!("{m}({}, {});", place(stack), place(value)))
        }
        StmtKind::Surface(_) => line(out, "// (surface syntax, not lowered)"),
    }
}

fn names(a: &Anc) -> String {
    let n: Vec<String> = a.names.iter().map(|n| n.to_string()).collect();
    if a.tuple {
        format!("({})", n.join(", "))
    } else {
        n.join(", ")
    }
}

fn tokens(t: &impl ToTokens) -> String {
    tidy(&t.to_token_stream().to_string())
}

/// `proc_macro2`'s token spacing made readable: no space before `.`, `,`, `;`, `(`, `[`, `)`,
/// `]`, `?`, `::`, `!` of a macro, and none after `(`, `[`, `.`, `&`, `::`, `!`.
fn tidy(s: &str) -> String {
    let mut t = s.to_string();
    for (from, to) in [
        (" . ", "."),
        (" ,", ","),
        (" ;", ";"),
        (" (", "("),
        ("( ", "("),
        (" )", ")"),
        (" [", "["),
        ("[ ", "["),
        (" ]", "]"),
        (" :: ", "::"),
        (":: ", "::"),
        (" ::", "::"),
        ("& mut ", "&mut "),
        ("& ", "&"),
        (" !", "!"),
        ("! ", "!"),
        (" < ", "<"),
        ("< ", "<"),
        (" >", ">"),
        (" :", ":"),
        (" ?", "?"),
    ] {
        t = t.replace(from, to);
    }
    // binary operators were spaced by the token printer and stay so; restore `a: b`
    t.replace(":", ": ")
        .replace(":  ", ": ")
        .replace(": : ", "::")
        .replace("&mut[", "&mut [")
}

fn place(p: &Place) -> String {
    let mut s = p.root.to_string();
    for proj in &p.path {
        match proj {
            Proj::Field(m) => s += &format!(".{}", tokens(m)),
            Proj::Index(e) => s += &format!("[{}]", tokens(e)),
        }
    }
    if p.neg {
        format!("-{s}")
    } else {
        s
    }
}

fn operand(o: &Operand) -> String {
    match o {
        Operand::Place(p) => place(p),
        Operand::Lit { lit, neg, .. } => format!("{}{}", if *neg { "-" } else { "" }, tokens(lit)),
        Operand::Const { expr, explicit } => match explicit {
            true => format!("cst!({})", tokens(expr)),
            false => tokens(expr),
        },
        Operand::Tuple(os, _) => format!(
            "({})",
            os.iter().map(operand).collect::<Vec<_>>().join(", ")
        ),
    }
}

fn op(o: AccOp) -> &'static str {
    match o {
        AccOp::Plus => "+=",
        AccOp::Minus => "-=",
        AccOp::Xor => "^=",
        AccOp::Mul => "*=",
        AccOp::Div => "/=",
    }
}

/// The name a user writes for a built-in marker (`Abs2` → `abs2`).
fn builtin_name(marker: &str) -> String {
    if let Some(e) = crate::functions::ELEMENTARY
        .iter()
        .find(|e| e.marker == marker)
    {
        return e.names[0].to_string();
    }
    crate::parse::builtin_names()
        .find(|(_, m)| *m == marker)
        .map(|(n, _)| n.to_string())
        .unwrap_or_else(|| marker.to_lowercase())
}

fn rhs(i: &Instr) -> String {
    let a: Vec<String> = i.args.iter().map(operand).collect();
    let bin = |o: &str| format!("{} {o} {}", a[0], a[1]);
    match &i.func {
        FuncRef::Builtin(b) => match (*b, a.len()) {
            ("Identity", 1) => a[0].clone(),
            ("Neg", 1) => format!("-{}", a[0]),
            ("Not", 1) => format!("!{}", a[0]),
            ("Add", 2) => bin("+"),
            ("Sub", 2) => bin("-"),
            ("Mul", 2) => bin("*"),
            ("Div", 2) => bin("/"),
            ("And", 2) => bin("&&"),
            ("Or", 2) => bin("||"),
            ("BitAnd", 2) => bin("&"),
            ("BitOr", 2) => bin("|"),
            _ => format!("{}({})", builtin_name(b), a.join(", ")),
        },
        FuncRef::User(p) => format!("{}({})", tokens(p), a.join(", ")),
    }
}

fn instr(i: &Instr) -> String {
    format!("{} {} {}", operand(&i.target), op(i.op), rhs(i))
}

/// The adjoint update an instruction `y ±= f(x₁, ..)` performs on `GVar` (the instructions of
/// the inverse program: `xⱼ.g ±= ∂f/∂xⱼ · y.g` for every place operand `xⱼ`).
fn adjoint(i: &Instr) -> Option<String> {
    let y = operand(&i.target);
    let places: Vec<(usize, String)> = i
        .args
        .iter()
        .enumerate()
        .filter_map(|(k, o)| match o {
            Operand::Place(p) => Some((k, place(p))),
            _ => None,
        })
        .collect();
    if places.is_empty() {
        return None;
    }
    // the inverse's `y -= f(x)` undoes `y += f(x)`, whose adjoint is `x.g += ∂f/∂x · y.g`
    let sign = match i.op {
        AccOp::Minus => "+=",
        AccOp::Plus => "-=",
        _ => {
            return Some(format!(
                "adjoints of `{y} {} ..` (multiplicative)",
                op(i.op)
            ))
        }
    };
    let a: Vec<String> = i.args.iter().map(operand).collect();
    let parts: Vec<String> = places
        .iter()
        .map(|(k, x)| {
            let d = match (&i.func, a.len(), *k) {
                (FuncRef::Builtin("Identity"), 1, _) => String::new(),
                (FuncRef::Builtin("Neg"), 1, _) => "-".into(),
                (FuncRef::Builtin("Add"), 2, _) => String::new(),
                (FuncRef::Builtin("Sub"), 2, 0) => String::new(),
                (FuncRef::Builtin("Sub"), 2, _) => "-".into(),
                (FuncRef::Builtin("Mul"), 2, k) => format!("{} * ", a[1 - k]),
                (FuncRef::Builtin("Abs2"), 1, _) => format!("2 * {} * ", a[0]),
                _ => format!("∂{}/∂{x} * ", rhs(i)),
            };
            format!("{x}.g {sign} {d}{y}.g")
        })
        .collect();
    Some(parts.join("; "))
}

fn call(c: &Call) -> String {
    let args: Vec<String> = c
        .args
        .iter()
        .map(|a| match a {
            CallArg::InOut(p) => format!("&mut {}", place(p)),
            CallArg::Name(p) => place(p),
            CallArg::Read(e) => tokens(e),
        })
        .collect();
    let callee = match &c.callee {
        Callee::Path(p) => tokens(p),
        Callee::Method {
            receiver,
            method,
            turbofish,
        } => format!(
            "{}.{method}{}",
            place(receiver),
            turbofish
                .as_ref()
                .map(|t| format!("::{}", tokens(t)))
                .unwrap_or_default()
        ),
    };
    format!("{callee}({})", args.join(", "))
}
