//! The crate's modules import one another without a cycle: the graph of `crate::…` and
//! `super::…` paths in `src/` (names re-exported at the crate root resolved to their module)
//! has no cycle, and the backends (`opencl`, `cuda`) are imported by `device` alone.
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Top-level module → the top-level modules its source names.
fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = vec![];
    let mut stack = vec![src.clone()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                files.push(p);
            }
        }
    }
    let lib = std::fs::read_to_string(src.join("lib.rs")).unwrap();
    // `mod x;` and `pub use x::{A, B};` at the crate root
    let mods: BTreeSet<String> = lib
        .lines()
        .filter_map(|l| {
            l.trim()
                .strip_prefix("pub mod ")
                .or(l.trim().strip_prefix("mod "))
        })
        .map(|l| l.trim_end_matches(';').to_string())
        .collect();
    let mut reexport = BTreeMap::new();
    for l in lib
        .lines()
        .filter_map(|l| l.trim().strip_prefix("pub use "))
    {
        let (m, names) = l.split_once("::").unwrap();
        for n in names.split(|c: char| !c.is_alphanumeric() && c != '_') {
            if !n.is_empty() {
                reexport.insert(n.to_string(), m.to_string());
            }
        }
    }
    let target = |name: &str| {
        if mods.contains(name) {
            Some(name.to_string())
        } else {
            reexport.get(name).cloned()
        }
    };
    let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for f in files {
        let rel = f.strip_prefix(&src).unwrap();
        let top = rel.iter().next().unwrap().to_string_lossy();
        let me = top.trim_end_matches(".rs").to_string();
        if me == "lib" {
            continue;
        }
        let text = std::fs::read_to_string(&f).unwrap();
        let code = text.split("#[cfg(test)]").next().unwrap();
        let deps = g.entry(me.clone()).or_default();
        for line in code.lines().filter(|l| !l.trim_start().starts_with("//")) {
            for (k, _) in line
                .match_indices("crate::")
                .chain(line.match_indices("super::"))
            {
                let rest = &line[k + 7..].trim_start_matches(':');
                let names: Vec<&str> = match rest.strip_prefix('{') {
                    Some(list) => list.split('}').next().unwrap().split(',').collect(),
                    None => vec![rest],
                };
                for n in names {
                    let n: String = n
                        .trim()
                        .chars()
                        .take_while(|c| c.is_alphanumeric() || *c == '_')
                        .collect();
                    if let Some(t) = target(&n).filter(|t| *t != me) {
                        deps.insert(t);
                    }
                }
            }
        }
    }
    g
}

#[test]
fn no_import_cycle_among_the_modules() {
    let g = graph();
    assert!(
        g.contains_key("device") && g["device"].contains("opencl"),
        "{g:?}"
    );
    // depth-first search for a back edge
    fn visit(
        m: &str,
        g: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) {
        if let Some(k) = path.iter().position(|p| p == m) {
            panic!("import cycle: {:?} → {m}", &path[k..]);
        }
        if done.contains(m) {
            return;
        }
        path.push(m.to_string());
        for d in g.get(m).into_iter().flatten() {
            visit(d, g, path, done);
        }
        path.pop();
        done.insert(m.to_string());
    }
    let mut done = BTreeSet::new();
    for m in g.keys() {
        visit(m, &g, &mut vec![], &mut done);
    }
    // the backends are reached through the `Driver` trait: only `device` names them
    for (m, deps) in &g {
        if m != "device" {
            assert!(
                !deps.contains("opencl") && !deps.contains("cuda"),
                "`{m}` imports a backend: {deps:?}"
            );
        }
    }
}
