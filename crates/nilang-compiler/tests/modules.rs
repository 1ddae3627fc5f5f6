//! The structure of issue 25 holds: the language stages (`analyze`, `invert`) do not import the
//! AD analyses (`ad`), the facts or the emitter; `emit` reads the facts and does not call the
//! analyses; and no import cycle runs through any of them. The graph is that of the
//! `crate::…` paths in the non-test code of each top-level module of `src/`.
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
    let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for f in &files {
        let rel = f.strip_prefix(&src).unwrap();
        let me = rel.iter().next().unwrap().to_string_lossy();
        let me = me.trim_end_matches(".rs").to_string();
        if me == "lib" || me == "tests" {
            continue;
        }
        let text = std::fs::read_to_string(f).unwrap();
        let code = text.split("#[cfg(test)]").next().unwrap();
        let deps = g.entry(me.clone()).or_default();
        for line in code.lines().filter(|l| !l.trim_start().starts_with("//")) {
            for (k, _) in line.match_indices("crate::") {
                let rest = &line[k + "crate::".len()..];
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
                    if !n.is_empty() && n != me {
                        deps.insert(n);
                    }
                }
            }
        }
    }
    g
}

/// Whether `from` reaches `to` through one or more imports.
fn reaches(g: &BTreeMap<String, BTreeSet<String>>, from: &str, to: &str) -> bool {
    let mut seen = BTreeSet::new();
    let mut stack: Vec<&str> = g
        .get(from)
        .into_iter()
        .flatten()
        .map(|s| s.as_str())
        .collect();
    while let Some(m) = stack.pop() {
        if m == to {
            return true;
        }
        if seen.insert(m) {
            stack.extend(g.get(m).into_iter().flatten().map(|s| s.as_str()));
        }
    }
    false
}

#[test]
fn the_language_stages_the_analyses_and_the_emitter_import_without_a_cycle() {
    let g = graph();
    assert!(
        g["facts"].contains("ad") && g["emit"].contains("facts"),
        "{g:?}"
    );
    for m in [
        "analyze", "invert", "ad", "facts", "emit", "abi", "cond", "visit",
    ] {
        assert!(
            !reaches(&g, m, m),
            "an import cycle runs through `{m}`: {g:?}"
        );
    }
    for m in ["analyze", "invert"] {
        for other in ["ad", "facts", "emit"] {
            assert!(!reaches(&g, m, other), "`{m}` reaches `{other}`: {g:?}");
        }
    }
    // emission reads the facts; it does not call the analyses
    assert!(
        !g["emit"].contains("ad"),
        "`emit` imports `ad`: {:?}",
        g["emit"]
    );
    assert!(
        !reaches(&g, "ad", "emit") && !reaches(&g, "ad", "facts"),
        "{g:?}"
    );
}
