//! The tape layout: which overwrites the forward run records. A write records the old value
//! of a variable only when the adjoint reads that value (an operand of a nonlinear operation,
//! an index, an argument of a call, read since the variable was last written): a value still
//! live is never recorded, and a variable that only accumulates (`s += ..`) is never
//! recorded. Branch decisions and loop trip counts are recorded as integers.
use super::ir::*;
use proc_macro2::{TokenStream, TokenTree};
use std::collections::HashSet;

/// What the forward run records.
#[derive(Debug, Default)]
pub struct Layout {
    /// The statements (by address) that record the old value of what they write.
    pub recording: HashSet<usize>,
    /// The `for` loops (by address) whose bounds the adjoint evaluates again instead of
    /// reading them back: they name only parameters (not outputs), loop variables of
    /// enclosing `for`s (which the adjoint sets before it runs the body) and names that are
    /// not variables (constants, functions, methods), and the function has no early `return`
    /// (which could end a loop before its bound).
    pub stable_loops: HashSet<usize>,
    /// The integer assignments (by address) that the adjoint executes again at the start of
    /// their block's adjoint instead of recording the value they overwrite: the variable
    /// has no other assignment and the value reads only what [`Layout::stable_bounds`]
    /// allows and such variables of enclosing blocks (`let q0 = k + c * tri;` in a loop).
    pub recomputed: HashSet<usize>,
    /// The `f64` assignments and loops of them (by address) that the adjoint executes again
    /// at the start of their block's adjoint instead of recording what they overwrite: they
    /// read parameters only ([`super::remat`]).
    pub rematerialized: HashSet<usize>,
}

fn addr(s: &Stmt) -> usize {
    s as *const Stmt as usize
}

impl Layout {
    /// The layout of `f`'s (lowered) body: a forward pass over the statements keeping the
    /// variables whose current value the adjoint reads (`pending`: read by an operation
    /// that needs its value since the variable was last written); a write of a pending
    /// variable records its old value. Loops are iterated to a fixed point; arrays are one
    /// variable (an element write never clears them).
    pub fn of(f: &Func) -> Layout {
        let mut l = Layout::default();
        let mut pending = HashSet::new();
        l.block(f, &f.body, &mut pending);
        if !f.vars.iter().any(|v| v.name == super::lower::done()) {
            let mut sites = std::collections::HashMap::new();
            count_sites(&f.body, &mut sites);
            l.stable(f, &f.body, &sites, &mut vec![], &mut vec![], None);
            for a in &l.recomputed {
                l.recording.remove(a);
            }
            let mut inside = vec![];
            rematerialized_assigns(&f.body, &l.rematerialized, &mut inside);
            for a in inside {
                l.recording.remove(&a);
            }
        }
        l
    }

    /// Whether the adjoint executes the integer assignment `s` again (nothing recorded).
    pub fn recomputes(&self, s: &Stmt) -> bool {
        self.recomputed.contains(&addr(s))
    }

    /// Whether the adjoint executes the `f64` assignment (or loop of them) `s` again
    /// (nothing recorded).
    pub fn rematerializes(&self, s: &Stmt) -> bool {
        self.rematerialized.contains(&addr(s))
    }

    /// Whether the adjoint evaluates the bounds of `for` statement `s` again (nothing
    /// recorded for them).
    pub fn stable_bounds(&self, s: &Stmt) -> bool {
        self.stable_loops.contains(&addr(s))
    }

    /// `outer`: the loop variables of enclosing `for`s and the recomputed variables of
    /// enclosing blocks and of this block so far, whose values the adjoint has set when it
    /// reaches a statement.
    fn stable(
        &mut self,
        f: &Func,
        b: &[Stmt],
        sites: &std::collections::HashMap<String, usize>,
        outer: &mut Vec<String>,
        known: &mut Vec<String>,
        top: Option<usize>,
    ) {
        let mark = outer.len();
        let known_mark = known.len();
        let stable_name = |n: &str, outer: &Vec<String>| {
            outer.iter().any(|o| o == n)
                || f.params.iter().any(|p| p.name == n && !p.output)
                || !f.vars.iter().any(|v| v.name == n) && !f.params.iter().any(|p| p.name == n)
        };
        let stable_names = |t: &[&TokenStream], outer: &Vec<String>| {
            let mut names = HashSet::new();
            for t in t {
                tokens(t, &mut names);
            }
            names.iter().all(|n| stable_name(n, outer))
        };
        // the end of the group of statements executed again that starts at each statement
        let mut group_end = 0;
        for (at, s) in b.iter().enumerate() {
            // a group starts at a statement that records (executing statements again
            // that record nothing would only cost time), and is the shortest that qualifies
            let mut records = vec![];
            all_assigns(s, &mut records);
            if at >= group_end && records.iter().any(|a| self.recording.contains(a)) {
                // variables no statement at or after this point (at the top level) writes
                let from = top.unwrap_or(at);
                let frozen = |n: &str| {
                    !f.body[from..].iter().any(|s| super::remat::writes(s, n))
                        && f.kind(&proc_macro2::Ident::new(n, proc_macro2::Span::call_site()))
                            .is_some()
                };
                let (o, k) = (outer.clone(), known.clone());
                let reads = super::remat::Reads {
                    stable: &|n| stable_name(n, &o),
                    invariant: &|n| stable_name(n, &vec![]),
                    known: &|n| k.iter().any(|x| x == n) || frozen(n),
                };
                if let Some((end, targets)) = (at + 1..=b.len())
                    .find_map(|end| super::remat::group(f, b, at, end, &reads).map(|t| (end, t)))
                {
                    for g in &b[at..end] {
                        self.rematerialized.insert(addr(g));
                    }
                    known.extend(targets);
                    group_end = end;
                }
            }
            // the top-level statement the blocks inside this one belong to
            let child_top = top.or(Some(at));
            match s {
                Stmt::Inactive { target, value } => {
                    let n = target.to_string();
                    if sites.get(&n) == Some(&1)
                        && f.kind(target) == Some(Kind::Inactive)
                        && stable_names(&[value], outer)
                    {
                        self.recomputed.insert(addr(s));
                        outer.push(n);
                    }
                }
                Stmt::For { var, lo, hi, body } => {
                    if stable_names(&[lo, hi], outer) {
                        self.stable_loops.insert(addr(s));
                    }
                    outer.push(var.to_string());
                    self.stable(f, body, sites, outer, known, child_top);
                    outer.pop();
                }
                Stmt::If { arms, otherwise } => {
                    for (_, body) in arms {
                        self.stable(f, body, sites, outer, known, child_top);
                    }
                    self.stable(f, otherwise, sites, outer, known, child_top);
                }
                Stmt::While { body, .. } => self.stable(f, body, sites, outer, known, child_top),
                _ => {}
            }
        }
        known.truncate(known_mark);
        outer.truncate(mark);
    }

    /// Whether statement `s` records the old value of what it writes.
    pub fn records(&self, _f: &Func, s: &Stmt, _name: &proc_macro2::Ident) -> bool {
        self.recording.contains(&addr(s))
    }

    fn write(
        &mut self,
        f: &Func,
        s: &Stmt,
        name: &proc_macro2::Ident,
        pending: &mut HashSet<String>,
    ) {
        let n = name.to_string();
        if pending.contains(&n) {
            self.recording.insert(addr(s));
        }
        if f.kind(name) != Some(Kind::Array) {
            pending.remove(&n);
        }
    }

    fn block(&mut self, f: &Func, b: &[Stmt], pending: &mut HashSet<String>) {
        for s in b {
            match s {
                Stmt::Assign { target, value } => {
                    let ssa = Ssa::of(value);
                    let need = ssa.needed(&ssa.active(|p| f.is_active(p)));
                    for (k, op) in ssa.ops.iter().enumerate() {
                        match op {
                            Op::Read(p) => {
                                if need[k] {
                                    place(p, pending)
                                } else if let Place::Elem(_, i) = p {
                                    tokens(i, pending)
                                }
                            }
                            Op::Const(t) | Op::Powi(_, t) => tokens(t, pending),
                            _ => {}
                        }
                    }
                    if let Place::Elem(_, i) = target {
                        tokens(i, pending);
                    }
                    let root = match target {
                        Place::Var(v) | Place::Elem(v, _) => v,
                    };
                    self.write(f, s, root, pending);
                }
                Stmt::Inactive { target, .. } => self.write(f, s, target, pending),
                Stmt::Call { target, args, .. } => {
                    for a in args {
                        match a {
                            Arg::Value(Expr::Read(p)) => place(p, pending),
                            Arg::Value(Expr::Const(t)) | Arg::Const(t) | Arg::Data(t) => {
                                tokens(t, pending)
                            }
                            Arg::Array(a, t) => {
                                pending.insert(a.to_string());
                                tokens(t, pending)
                            }
                            Arg::Value(_) => {}
                        }
                    }
                    self.write(f, s, target, pending);
                }
                Stmt::Reversible { args, .. } => {
                    // the inverse restores what the call overwrote (nothing recorded); the
                    // adjoint needs the values after the call
                    for p in args {
                        place(p, pending);
                    }
                }
                Stmt::Array { .. } | Stmt::Return(_) => {}
                Stmt::If { arms, otherwise } => {
                    let start = pending.clone();
                    let mut out = HashSet::new();
                    for body in arms
                        .iter()
                        .map(|(_, b)| b)
                        .chain(std::iter::once(otherwise))
                    {
                        let mut p = start.clone();
                        self.block(f, body, &mut p);
                        out.extend(p);
                    }
                    *pending = out;
                }
                Stmt::For { body, .. } | Stmt::While { body, .. } => loop {
                    let mut p = pending.clone();
                    self.block(f, body, &mut p);
                    let before = pending.len();
                    pending.extend(p);
                    if pending.len() == before {
                        break;
                    }
                },
            }
        }
    }
}

/// The assignments (by address) that the rematerialized statements `remat` are or hold.
fn rematerialized_assigns(b: &[Stmt], remat: &HashSet<usize>, out: &mut Vec<usize>) {
    for s in b {
        if remat.contains(&addr(s)) {
            all_assigns(s, out);
            continue;
        }
        match s {
            Stmt::If { arms, otherwise } => {
                for (_, body) in arms {
                    rematerialized_assigns(body, remat, out);
                }
                rematerialized_assigns(otherwise, remat, out);
            }
            Stmt::For { body, .. } | Stmt::While { body, .. } => {
                rematerialized_assigns(body, remat, out)
            }
            _ => {}
        }
    }
}

/// The assignments (by address) `s` is or holds.
fn all_assigns(s: &Stmt, out: &mut Vec<usize>) {
    match s {
        Stmt::Assign { .. } => out.push(addr(s)),
        Stmt::For { body, .. } | Stmt::While { body, .. } => {
            body.iter().for_each(|s| all_assigns(s, out))
        }
        Stmt::If { arms, otherwise } => arms
            .iter()
            .flat_map(|(_, b)| b)
            .chain(otherwise)
            .for_each(|s| all_assigns(s, out)),
        _ => {}
    }
}

/// How many statements assign each integer variable (loop variables count).
fn count_sites(b: &[Stmt], sites: &mut std::collections::HashMap<String, usize>) {
    for s in b {
        match s {
            Stmt::Inactive { target, .. } => *sites.entry(target.to_string()).or_default() += 1,
            Stmt::For { var, body, .. } => {
                *sites.entry(var.to_string()).or_default() += 1;
                count_sites(body, sites);
            }
            Stmt::If { arms, otherwise } => {
                for (_, body) in arms {
                    count_sites(body, sites);
                }
                count_sites(otherwise, sites);
            }
            Stmt::While { body, .. } => count_sites(body, sites),
            _ => {}
        }
    }
}

fn tokens(t: &TokenStream, pending: &mut HashSet<String>) {
    for tt in t.clone() {
        match tt {
            TokenTree::Ident(i) => {
                pending.insert(i.to_string());
            }
            TokenTree::Group(g) => tokens(&g.stream(), pending),
            _ => {}
        }
    }
}

fn place(p: &Place, pending: &mut HashSet<String>) {
    match p {
        Place::Var(v) => {
            pending.insert(v.to_string());
        }
        Place::Elem(a, i) => {
            pending.insert(a.to_string());
            tokens(i, pending);
        }
    }
}
