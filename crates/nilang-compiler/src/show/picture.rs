//! The memory-oriented picture of a reversible function, as the NiLang paper draws its
//! programs: every variable is a horizontal wire (parameters across the whole picture,
//! ancillas from their allocation to their deallocation), every instruction a gate on its
//! target's wire (`+= ×`, `-= sin`, ...) with a dot on each variable it reads, and every call a
//! box over the wires it touches (`f⁻¹` for `inv!`). Loops, branches and routines are framed
//! and labelled (not unrolled); a routine's uncomputation appears as its mirrored gates. The
//! picture is of the lowered IR ([`show`](super::show)'s first view): one gate per instruction
//! or call of that program, each with its statement as the tooltip (`<title>`).
//!
//! ```
//! let svg = nilang_compiler::show::picture::picture(quote::quote!(
//!     fn f(y: &mut f64, x: &mut f64) {
//!         let t = 0.0;
//!         t += sin(x);
//!         y += t * x;
//!         t -= sin(x);
//!         dealloc!(t = 0.0);
//!     }
//! ))
//! .unwrap();
//! assert!(svg.starts_with("<svg") && svg.ends_with("</svg>\n"));
//! assert_eq!(svg.matches("<g class=\"gate\">").count(), 3);
//! assert_eq!(svg.matches("<g class=\"wire\">").count(), 3); // y, x and the ancilla t
//! ```
//!
//! From the command line, every `#[i]` function of a Rust file or of a Markdown file's code
//! blocks: `cargo run -p nilang-compiler --example picture -- FILE OUT_DIR [FUNCTION..]`.
use super::{builtin_name, call, instr, lowered, op, place, tokens};
use crate::ir::*;
use crate::visit::Part;
use std::collections::HashMap;
use std::fmt::Write;

/// The picture of `fn ...` (the item under `#[i]`) as SVG text: see the [module](self).
/// Compile errors come back as the `syn::Error`s `#[i]` would report, combined.
pub fn picture(item: proc_macro2::TokenStream) -> Result<String, syn::Error> {
    let (f, body) = lowered(item)?;
    Ok(draw(&f, &body))
}

/// The source text of every function marked `#[i]` or `#[i(..)]` (on a line of its own) in
/// `text`, a Rust file or a Markdown file with Rust code blocks, in order, parsed; the
/// attributes are dropped. An item that does not parse is an error naming its line.
///
/// ```
/// let md = "Text\n```rust\n#[i]\nfn f(y: &mut f64) {\n    y += 1.0;\n}\n```\n";
/// let fs = nilang_compiler::show::picture::functions_in(md).unwrap();
/// assert_eq!(fs.len(), 1);
/// assert_eq!(fs[0].sig.ident, "f");
/// ```
pub fn functions_in(text: &str) -> Result<Vec<syn::ItemFn>, String> {
    let mut out = Vec::new();
    let mut offset = 0;
    for (no, line) in text.split_inclusive('\n').enumerate() {
        offset += line.len();
        let t = line.trim();
        if !(t == "#[i]" || (t.starts_with("#[i(") && t.ends_with(")]"))) {
            continue;
        }
        let rest = &text[offset..];
        let item = rest.find('{').and_then(|open| {
            let mut depth = 0usize;
            for (k, c) in rest[open..].char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(&rest[..open + k + 1]);
                        }
                    }
                    _ => {}
                }
            }
            None
        });
        let parsed = item.map(syn::parse_str::<syn::ItemFn>);
        match parsed {
            Some(Ok(mut f)) => {
                f.attrs.clear();
                out.push(f);
            }
            Some(Err(e)) => return Err(format!("line {}: not a function: {e}", no + 2)),
            None => return Err(format!("line {}: no function body", no + 2)),
        }
    }
    Ok(out)
}

/// Vertical distance between wires, and the height of one frame label.
const DY: f64 = 30.0;
const LABEL: f64 = 16.0;
/// Horizontal gap between gates, and a frame's padding.
const GAP: f64 = 12.0;
const PAD: f64 = 8.0;
/// Width of one character of the 12 px monospace font (generous).
const CHAR: f64 = 7.4;

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

fn text_width(s: &str, size: f64) -> f64 {
    s.chars().count() as f64 * CHAR * size / 12.0
}

/// The variables, in order: the parameters, then every other name as it first appears.
#[derive(Default)]
struct Wires {
    names: Vec<String>,
    /// Parameter (a wire across the picture) or not (drawn where it is allocated).
    param: Vec<bool>,
    /// Its type, for the tooltip.
    ty: Vec<String>,
}

impl Wires {
    fn of(&mut self, name: &str) -> usize {
        match self.names.iter().position(|n| n == name) {
            Some(k) => k,
            None => {
                self.names.push(name.to_string());
                self.param.push(false);
                self.ty.push(String::new());
                self.names.len() - 1
            }
        }
    }
}

fn operand_places(o: &Operand, out: &mut Vec<Place>) {
    match o {
        Operand::Place(p) => out.push(p.clone()),
        Operand::Tuple(os, _) => os.iter().for_each(|o| operand_places(o, out)),
        Operand::Lit { .. } | Operand::Const { .. } => {}
    }
}

fn call_places(c: &Call) -> Vec<Place> {
    let mut ps: Vec<Place> = c
        .args
        .iter()
        .filter_map(|a| match a {
            CallArg::InOut(p) | CallArg::Name(p) => Some(p.clone()),
            CallArg::Read(_) => None,
        })
        .collect();
    ps.extend(c.read_places());
    if let Callee::Method { receiver, .. } = &c.callee {
        ps.insert(0, receiver.clone());
    }
    ps
}

/// The nested statement lists of a statement, with the frame each is drawn in.
fn children(s: &Stmt) -> Vec<(Option<String>, &[Stmt])> {
    match &s.kind {
        StmtKind::If {
            branches,
            otherwise,
        } => {
            let mut v: Vec<(Option<String>, &[Stmt])> = branches
                .iter()
                .enumerate()
                .map(|(k, b)| {
                    let head = if k == 0 { "if" } else { "else if" };
                    let label = format!("{head} ({}, {})", tokens(&b.pre), tokens(&b.post));
                    (Some(label), &b.body[..])
                })
                .collect();
            if let Some(o) = otherwise {
                v.push((Some("else".into()), &o[..]));
            }
            v
        }
        StmtKind::While {
            pre,
            post,
            body,
            step,
            step_first,
        } => {
            let head = Some(format!("while ({}, {})", tokens(pre), tokens(post)));
            match (step.is_empty(), step_first) {
                (true, _) => vec![(head, &body[..])],
                (false, false) => vec![(head, &body[..]), (Some("step".into()), &step[..])],
                (false, true) => vec![(head, &step[..]), (Some("then".into()), &body[..])],
            }
        }
        StmtKind::For { var, iter, body } => {
            let it = match iter {
                ForIter::Range(r) => format!(
                    "{}..{}{}{}{}",
                    tokens(&r.start),
                    if r.inclusive { "=" } else { "" },
                    tokens(&r.end),
                    r.step
                        .as_ref()
                        .map(|s| format!(" step {}", tokens(s)))
                        .unwrap_or_default(),
                    if r.rev { " reversed" } else { "" }
                ),
                ForIter::Indices { slice, rev } => format!(
                    "0..{}.len(){}",
                    place(slice),
                    if *rev { " reversed" } else { "" }
                ),
            };
            // a `for _ in ..` loop's variable, as the user wrote it
            let var = match var.to_string() {
                v if v.starts_with("__nilang") => "_".to_string(),
                v => v,
            };
            vec![(Some(format!("for {var} in {it}")), &body[..])]
        }
        StmtKind::DoLoop {
            from,
            first,
            until,
            second,
        } => vec![
            (Some(format!("loop from {}", tokens(from))), &first[..]),
            (Some(format!("until {}", tokens(until))), &second[..]),
        ],
        StmtKind::Routine { body, undo } => vec![(
            Some(if *undo { "uncompute" } else { "routine" }.into()),
            &body[..],
        )],
        // every other kind: its statement lists, unlabelled
        _ => crate::visit::parts(s)
            .into_iter()
            .filter_map(|p| match p {
                Part::Block(b) | Part::Spliced(b) => Some((None, b)),
                _ => None,
            })
            .collect(),
    }
}

/// The places a statement itself touches (not those of nested statements).
fn own_places(s: &Stmt) -> Vec<Place> {
    let mut ps = Vec::new();
    match &s.kind {
        StmtKind::Instr(i) => {
            operand_places(&i.target, &mut ps);
            i.args.iter().for_each(|a| operand_places(a, &mut ps));
        }
        StmtKind::Call(c) => ps = call_places(c),
        StmtKind::Fresh(f) => ps = f.clone(),
        StmtKind::Stack { stack, value, .. } => ps = vec![stack.clone(), value.clone()],
        _ => {}
    }
    ps
}

/// Wires in order of appearance, and the deepest nesting of frames.
fn collect(stmts: &[Stmt], wires: &mut Wires, depth: usize) -> usize {
    let mut deepest = depth;
    for s in stmts {
        match &s.kind {
            StmtKind::Alloc(a) | StmtKind::Dealloc(a) => {
                a.names.iter().for_each(|n| {
                    wires.of(&n.to_string());
                });
            }
            StmtKind::Move { dst, src } => {
                wires.of(&src.to_string());
                wires.of(&dst.to_string());
            }
            _ => own_places(s).iter().for_each(|p| {
                wires.of(&p.root.to_string());
            }),
        }
        for (frame, body) in children(s) {
            let d = depth + usize::from(frame.is_some());
            deepest = deepest.max(collect(body, wires, d));
        }
    }
    deepest
}

struct Canvas {
    wires: Wires,
    top: f64,
    x: f64,
    /// Frames with their nesting depth (drawn first, outer ones under inner ones), then
    /// gates and markers.
    frames: Vec<(usize, String)>,
    items: Vec<String>,
    /// Where each allocated wire is alive: (wire, from, to).
    alive: Vec<(usize, f64, f64)>,
    open: HashMap<usize, f64>,
}

impl Canvas {
    fn y(&self, wire: usize) -> f64 {
        self.top + wire as f64 * DY
    }
    fn bottom(&self) -> f64 {
        self.y(self.wires.names.len().saturating_sub(1)) + DY * 0.6
    }

    /// A gate: a box labelled `label` on the `targets`' wires, a dot on each of `reads`, a
    /// line joining them; the projection (`[i]`, `.re`) of an element written next to it.
    fn gate(&mut self, class: &str, title: &str, label: &str, targets: &[Place], reads: &[Place]) {
        let tw: Vec<usize> = targets
            .iter()
            .map(|p| self.wires.of(&p.root.to_string()))
            .collect();
        let rw: Vec<usize> = reads
            .iter()
            .map(|p| self.wires.of(&p.root.to_string()))
            .collect();
        let shared = rw.iter().any(|w| tw.contains(w));
        let left = self.x + if shared { 12.0 } else { 0.0 };
        let w = (text_width(label, 12.0) + 12.0).max(28.0);
        let cx = left + w / 2.0;
        let mut g = format!("<g class=\"{class}\"><title>{}</title>", esc(title));
        let ys: Vec<f64> = tw.iter().chain(&rw).map(|&k| self.y(k)).collect();
        let (lo, hi) = ys
            .iter()
            .fold((f64::MAX, f64::MIN), |(a, b), &y| (a.min(y), b.max(y)));
        if hi > lo {
            let _ = write!(
                g,
                "<line x1=\"{cx:.1}\" y1=\"{lo:.1}\" x2=\"{cx:.1}\" y2=\"{hi:.1}\" stroke=\"#333\"/>"
            );
        }
        // one dot per read operand; the projections of those on one wire written together
        let mut on_wire: Vec<(usize, Vec<&Place>)> = Vec::new();
        for (p, &k) in reads.iter().zip(&rw) {
            let (dx, y) = (if tw.contains(&k) { self.x + 5.0 } else { cx }, self.y(k));
            let _ = write!(
                g,
                "<circle cx=\"{dx:.1}\" cy=\"{y:.1}\" r=\"3.5\" fill=\"#333\"/>"
            );
            match on_wire.iter_mut().find(|(w, _)| *w == k) {
                Some((_, ps)) => ps.push(p),
                None => on_wire.push((k, vec![p])),
            }
        }
        for (k, ps) in on_wire {
            let dx = if tw.contains(&k) { self.x + 5.0 } else { cx };
            projection(&mut g, &ps, dx + 5.0, self.y(k) - 5.0);
        }
        let (t_lo, t_hi) = tw.iter().fold((f64::MAX, f64::MIN), |(a, b), &k| {
            (a.min(self.y(k)), b.max(self.y(k)))
        });
        let (t_lo, t_hi) = if tw.is_empty() {
            (lo, hi)
        } else {
            (t_lo, t_hi)
        };
        let _ = write!(
            g,
            "<rect x=\"{left:.1}\" y=\"{:.1}\" width=\"{w:.1}\" height=\"{:.1}\" rx=\"3\" \
             fill=\"#fff7e0\" stroke=\"#333\"/>",
            t_lo - 10.0,
            t_hi - t_lo + 20.0
        );
        let _ = write!(
            g,
            "<text x=\"{cx:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>",
            (t_lo + t_hi) / 2.0 + 4.0,
            esc(label)
        );
        for (p, &k) in targets.iter().zip(&tw) {
            projection(&mut g, &[p], left + w + 2.0, self.y(k) - 11.0);
        }
        g.push_str("</g>");
        self.items.push(g);
        self.x = left + w + GAP;
    }

    /// A marker on one wire (allocation, deallocation, `fresh!`): a bar and a short label.
    fn marker(&mut self, class: &str, title: &str, label: &str, wire: usize) {
        let y = self.y(wire);
        let x = self.x + 2.0;
        let w = text_width(label, 10.0);
        self.items.push(format!(
            "<g class=\"{class}\"><title>{}</title><line x1=\"{x:.1}\" y1=\"{:.1}\" \
             x2=\"{x:.1}\" y2=\"{:.1}\" stroke=\"#333\" stroke-width=\"2\"/><text x=\"{:.1}\" \
             y=\"{:.1}\" font-size=\"10\" fill=\"#555\">{}</text></g>",
            esc(title),
            y - 8.0,
            y + 8.0,
            x + 3.0,
            y - 4.0,
            esc(label)
        ));
        self.x += (w + 8.0).max(12.0);
    }

    fn stmts(&mut self, stmts: &[Stmt], depth: usize) {
        for s in stmts {
            self.stmt(s, depth);
        }
    }

    fn stmt(&mut self, s: &Stmt, depth: usize) {
        match &s.kind {
            StmtKind::Instr(i) => {
                let (mut t, mut r) = (Vec::new(), Vec::new());
                operand_places(&i.target, &mut t);
                i.args.iter().for_each(|a| operand_places(a, &mut r));
                let f = match &i.func {
                    FuncRef::Builtin(b) => match *b {
                        "Identity" => String::new(),
                        "Neg" => "-".into(),
                        "Add" => "+".into(),
                        "Sub" => "−".into(),
                        "Mul" => "×".into(),
                        "Div" => "÷".into(),
                        b => builtin_name(b),
                    },
                    FuncRef::User(p) => function_name(p),
                };
                let label = format!("{} {f}", op(i.op));
                self.gate("gate", &instr(i), label.trim_end(), &t, &r);
            }
            StmtKind::Call(c) => {
                let name = match &c.callee {
                    Callee::Path(p) => p
                        .path
                        .segments
                        .last()
                        .map(|s| s.ident.to_string())
                        .unwrap_or_default(),
                    Callee::Method { method, .. } => format!(".{method}"),
                };
                let label = if c.inverse {
                    format!("{name}⁻¹")
                } else {
                    name
                };
                let title = match c.inverse {
                    true => format!("inv! {{ {}; }}", call(c)),
                    false => call(c),
                };
                self.gate("gate", &title, &label, &call_places(c), &[]);
            }
            StmtKind::Alloc(a) => {
                for n in &a.names {
                    let k = self.wires.of(&n.to_string());
                    self.open.insert(k, self.x);
                    let title = format!("let {n} = {}", tokens(&a.value));
                    self.marker("alloc", &title, &tokens(&a.value), k);
                }
            }
            StmtKind::Dealloc(a) => {
                let x = self.x;
                for n in &a.names {
                    let k = self.wires.of(&n.to_string());
                    let title = format!("dealloc!({n} = {})", tokens(&a.value));
                    self.marker("dealloc", &title, &tokens(&a.value), k);
                    let from = self.open.remove(&k).unwrap_or(x);
                    self.alive.push((k, from, x + 2.0));
                }
            }
            StmtKind::Move { dst, src } => {
                let (d, sw) = (
                    self.wires.of(&dst.to_string()),
                    self.wires.of(&src.to_string()),
                );
                self.open.insert(d, self.x);
                if let Some(from) = self.open.remove(&sw) {
                    self.alive.push((sw, from, self.x + 2.0));
                }
                self.marker("move", &format!("let {dst} = take!({src})"), "take", d);
            }
            StmtKind::Fresh(ps) => {
                for p in ps {
                    let k = self.wires.of(&p.root.to_string());
                    self.marker("fresh", &format!("fresh!({})", place(p)), "fresh", k);
                }
            }
            StmtKind::Stack { kind, stack, value } => {
                let m = match kind {
                    StackKind::Push => "push",
                    StackKind::Pop => "pop",
                    StackKind::CopyPush => "copy_push",
                    StackKind::CopyPop => "copy_pop",
                };
                let title = format!("{m}!({}, {})", place(stack), place(value));
                self.gate(
                    "stack",
                    &title,
                    m,
                    std::slice::from_ref(value),
                    std::slice::from_ref(stack),
                );
            }
            StmtKind::Safe(t) => {
                let title = format!("safe! {{ {} }}", super::tidy(&t.to_string()));
                self.marker("safe", &title, "safe", 0);
            }
            StmtKind::Surface(_) => {}
            _ => {
                for (frame, body) in children(s) {
                    match frame {
                        None => self.stmts(body, depth),
                        Some(label) => self.frame(&label, body, depth),
                    }
                }
            }
        }
    }

    /// A frame around `body`'s gates, labelled at nesting level `depth`.
    fn frame(&mut self, label: &str, body: &[Stmt], depth: usize) {
        let start = self.x;
        self.x += PAD;
        self.stmts(body, depth + 1);
        let need = text_width(label, 11.0) + 2.0 * PAD;
        self.x = (self.x - GAP + PAD).max(start + need).max(self.x);
        let top = 6.0 + depth as f64 * LABEL;
        let bottom = self.bottom() + 12.0 - depth as f64 * 4.0;
        let (fill, dash) = match label {
            "routine" => ("#e8f0ff", ""),
            "uncompute" => ("#ffe8e8", ""),
            _ => ("none", " stroke-dasharray=\"4 3\""),
        };
        self.frames.push((
            depth,
            format!(
                "<g class=\"frame\"><rect x=\"{start:.1}\" y=\"{top:.1}\" width=\"{:.1}\" \
             height=\"{:.1}\" fill=\"{fill}\" stroke=\"#888\"{dash}/><text x=\"{:.1}\" \
             y=\"{:.1}\" font-size=\"11\" fill=\"#555\">{}</text></g>",
                self.x - start,
                bottom - top,
                start + 4.0,
                top + 12.0,
                esc(label)
            ),
        ));
        self.x += GAP;
    }
}

/// A called function's short name: the last segment of its path; the library's instruction
/// functions by the names a user writes (`PowiN<{ 2 }>` is `powi(2)`).
fn function_name(p: &syn::Path) -> String {
    let Some(last) = p.segments.last() else {
        return String::new();
    };
    let name = last.ident.to_string();
    let library = p.segments.iter().any(|s| s.ident == "nilang");
    match (&last.arguments, library) {
        (syn::PathArguments::AngleBracketed(a), true) if name == "PowiN" => {
            let n = tokens(&a.args);
            format!("powi({})", n.trim_matches(|c| "{} ".contains(c)))
        }
        (_, true) => builtin_name(&name),
        (_, false) => name,
    }
}

/// The projections (`[i]`, `.re`) of indexed or field places of one wire, in small type.
fn projection(g: &mut String, ps: &[&Place], x: f64, y: f64) {
    let projs: Vec<String> = ps
        .iter()
        .map(|p| {
            let full = place(p);
            let root = p.root.to_string();
            full.trim_start_matches('-')
                .trim_start_matches(&root)
                .to_string()
        })
        .filter(|s| !s.is_empty())
        .collect();
    let proj = projs.join(", ");
    if !proj.is_empty() {
        let _ = write!(
            g,
            "<text x=\"{x:.1}\" y=\"{y:.1}\" font-size=\"9\" fill=\"#a04000\">{}</text>",
            esc(&proj)
        );
    }
}

fn draw(f: &syn::ItemFn, body: &[Stmt]) -> String {
    let mut wires = Wires::default();
    for input in &f.sig.inputs {
        let (name, ty) = match input {
            syn::FnArg::Receiver(r) => ("self".to_string(), tokens(&r.ty)),
            syn::FnArg::Typed(t) => (tokens(&t.pat), tokens(&t.ty)),
        };
        let k = wires.of(name.trim_start_matches("mut "));
        wires.param[k] = true;
        wires.ty[k] = ty;
    }
    let depth = collect(body, &mut wires, 0);
    let left = wires
        .names
        .iter()
        .map(|n| text_width(n, 12.0))
        .fold(0.0, f64::max)
        + 20.0;
    let mut c = Canvas {
        wires,
        top: 14.0 + depth as f64 * LABEL + DY * 0.6,
        x: left,
        frames: Vec::new(),
        items: Vec::new(),
        alive: Vec::new(),
        open: HashMap::new(),
    };
    c.stmts(body, 0);
    let right = c.x + 10.0;
    let open: Vec<(usize, f64)> = c.open.drain().collect();
    for (k, from) in open {
        c.alive.push((k, from, right));
    }
    let height = c.bottom() + 16.0;
    let name = f.sig.ident.to_string();
    let mut svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{:.0}\" height=\"{height:.0}\" \
         viewBox=\"0 0 {:.0} {height:.0}\" font-family=\"monospace\" font-size=\"12\">\n\
         <title>{}: variables as wires, instructions as gates</title>\n\
         <rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n",
        right + 10.0,
        right + 10.0,
        esc(&name)
    );
    c.frames.sort_by_key(|(depth, _)| *depth);
    for (_, s) in &c.frames {
        svg += s;
        svg.push('\n');
    }
    for (k, n) in c.wires.names.iter().enumerate() {
        let y = c.y(k);
        let title = match c.wires.param[k] {
            true => format!("parameter {n}: {}", c.wires.ty[k]),
            false => format!("{n} (allocated in the body)"),
        };
        let mut g = format!("<g class=\"wire\"><title>{}</title>", esc(&title));
        let spans: Vec<(f64, f64)> = match c.wires.param[k] {
            true => vec![(left - 6.0, right)],
            false => c
                .alive
                .iter()
                .filter(|(w, ..)| *w == k)
                .map(|&(_, a, b)| (a, b))
                .collect(),
        };
        for (a, b) in spans {
            let _ = write!(
                g,
                "<line x1=\"{a:.1}\" y1=\"{y:.1}\" x2=\"{b:.1}\" y2=\"{y:.1}\" stroke=\"#333\"/>"
            );
        }
        let _ = writeln!(
            g,
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\"{}>{}</text></g>",
            left - 10.0,
            y + 4.0,
            if c.wires.param[k] {
                ""
            } else {
                " fill=\"#555\" font-style=\"italic\""
            },
            esc(n)
        );
        svg += &g;
    }
    for s in &c.items {
        svg += s;
        svg.push('\n');
    }
    svg += "</svg>\n";
    svg
}
