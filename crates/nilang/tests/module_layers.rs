//! The runtime's number concept and the modules built on it form layers (docs/architecture.md):
//!
//! `check` ← `number` (the number concept) ← `instr` (instructions, `Scalar`) ← `numbers`
//! (number types) ← `ad` (gradient numbers and gradients)
//!
//! Each module names only modules below it, so no two of them import each other. This test reads
//! the crate's sources (comments, string literals and `#[cfg(test)]` modules left out), collects
//! every path into another top-level module (`crate::m::..`, `$crate::m::..`, `nilang::m::..`,
//! and root re-exports such as `crate::GVar`, resolved through `lib.rs`), and checks the layers,
//! and that no other top-level modules lie on a cycle than the known group `ad`, `stdlib`, `tape`.
//!
//! Run: `cargo test -p nilang --test module_layers` (it prints the module graph with
//! `-- --nocapture`).
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The layers, lowest first: a module may name only the modules before it.
const LAYERS: [&str; 5] = ["check", "number", "instr", "numbers", "ad"];

fn src_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Every `.rs` file under `dir`.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The source with comments, string and character literals blanked out (a space each), so
/// that only code remains.
fn code_only(src: &str) -> String {
    let c: Vec<char> = src.chars().collect();
    let mut out = String::with_capacity(src.len());
    let mut i = 0;
    let at = |j: usize| c.get(j).copied().unwrap_or('\0');
    while i < c.len() {
        if c[i] == '/' && at(i + 1) == '/' {
            while i < c.len() && c[i] != '\n' {
                i += 1;
            }
        } else if c[i] == '/' && at(i + 1) == '*' {
            let mut depth = 0;
            while i < c.len() {
                if c[i] == '/' && at(i + 1) == '*' {
                    depth += 1;
                    i += 2;
                } else if c[i] == '*' && at(i + 1) == '/' {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
            out.push(' ');
        } else if c[i] == 'r'
            && (at(i + 1) == '"'
                || (at(i + 1) == '#' && at(i + 2) == '#' || at(i + 1) == '#' && at(i + 2) == '"'))
            && (i == 0 || !(c[i - 1].is_alphanumeric() || c[i - 1] == '_'))
        {
            // raw string r"..." / r#"..."#
            let mut j = i + 1;
            let mut hashes = 0;
            while c.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            j += 1; // the opening quote
            loop {
                if j >= c.len() {
                    break;
                }
                if c[j] == '"' && (0..hashes).all(|h| c.get(j + 1 + h) == Some(&'#')) {
                    j += 1 + hashes;
                    break;
                }
                j += 1;
            }
            i = j;
            out.push(' ');
        } else if c[i] == '"' {
            i += 1;
            while i < c.len() && c[i] != '"' {
                i += if c[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
            out.push(' ');
        } else if c[i] == '\'' && (at(i + 1) == '\\' || at(i + 2) == '\'') {
            // a character literal (a lifetime has no closing quote two characters on)
            i += 1;
            while i < c.len() && c[i] != '\'' {
                i += if c[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
            out.push(' ');
        } else {
            out.push(c[i]);
            i += 1;
        }
    }
    out
}

/// `code` without its `#[cfg(test)]` modules (unit tests may use any module).
fn without_test_modules(code: &str) -> String {
    let mut out = String::new();
    let mut rest = code;
    while let Some(at) = rest.find("#[cfg(test)]") {
        out.push_str(&rest[..at]);
        let after = &rest[at..];
        let item = after["#[cfg(test)]".len()..].trim_start();
        if !item.starts_with("mod ") {
            out.push_str("#[cfg(test)]");
            rest = &after["#[cfg(test)]".len()..];
            continue;
        }
        let open = after.find('{').expect("a test module has a body");
        let mut depth = 0;
        let mut end = after.len();
        for (k, ch) in after[open..].char_indices() {
            match ch {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = open + k + 1;
                        break;
                    }
                }
                _ => {}
            }
        }
        rest = &after[end..];
    }
    out.push_str(rest);
    out
}

/// The identifiers that follow `prefix` in `code` (`prefix` not preceded by an identifier
/// character).
fn names_after<'a>(code: &'a str, prefix: &str) -> Vec<&'a str> {
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(k) = code[from..].find(prefix) {
        let at = from + k;
        from = at + prefix.len();
        let before = code[..at].chars().next_back();
        if before.is_some_and(|b| b.is_alphanumeric() || b == '_') {
            continue;
        }
        let name: &str = code[from..]
            .split(|ch: char| !(ch.is_alphanumeric() || ch == '_'))
            .next()
            .unwrap_or("");
        if !name.is_empty() {
            found.push(name);
        }
    }
    found
}

/// The module graph: top-level module → the other top-level modules its code names.
fn module_graph() -> BTreeMap<String, BTreeSet<String>> {
    let src = src_dir();
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let modules: BTreeSet<String> = files
        .iter()
        .map(|f| {
            let rel = f.strip_prefix(&src).unwrap();
            let first = rel
                .components()
                .next()
                .unwrap()
                .as_os_str()
                .to_string_lossy();
            first.trim_end_matches(".rs").to_string()
        })
        .filter(|m| m != "lib")
        .collect();

    // names re-exported at the crate root (and in its prelude) → the module they come from
    let lib = code_only(&std::fs::read_to_string(src.join("lib.rs")).unwrap());
    let mut root: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for stmt in lib.split(';') {
        let Some(at) = stmt.find("pub use ") else {
            continue;
        };
        let path = stmt[at + "pub use ".len()..].trim();
        let path = path.trim_start_matches("crate::");
        let Some((module, items)) = path.split_once("::") else {
            continue;
        };
        if !modules.contains(module) {
            continue;
        }
        let items = items.rsplit("::").next().unwrap_or(items);
        for item in items.split(|ch: char| !(ch.is_alphanumeric() || ch == '_' || ch == '*')) {
            if !item.is_empty() {
                root.entry(item.to_string())
                    .or_default()
                    .insert(module.to_string());
            }
        }
    }
    let prelude: BTreeSet<String> = root.values().flatten().cloned().collect();

    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for f in &files {
        let rel = f.strip_prefix(&src).unwrap();
        let module = rel
            .components()
            .next()
            .unwrap()
            .as_os_str()
            .to_string_lossy();
        let module = module.trim_end_matches(".rs").to_string();
        if module == "lib" {
            continue;
        }
        let code = without_test_modules(&code_only(&std::fs::read_to_string(f).unwrap()));
        let deps = graph.entry(module.clone()).or_default();
        for prefix in ["crate::", "nilang::"] {
            for name in names_after(&code, prefix) {
                let targets: BTreeSet<String> = if modules.contains(name) {
                    [name.to_string()].into()
                } else if name == "prelude" {
                    prelude.clone()
                } else {
                    root.get(name).cloned().unwrap_or_default()
                };
                deps.extend(targets.into_iter().filter(|t| *t != module));
            }
        }
    }
    graph
}

#[test]
fn the_number_layers_name_only_the_layers_below() {
    let graph = module_graph();
    for (m, deps) in &graph {
        println!(
            "{m} -> {}",
            deps.iter().cloned().collect::<Vec<_>>().join(", ")
        );
    }
    // the scan sees the edges that must be there (it is not vacuous)
    for (from, to) in [
        ("ad", "instr"),
        ("ad", "numbers"),
        ("numbers", "instr"),
        ("instr", "number"),
    ] {
        assert!(graph[from].contains(to), "expected `{from}` to name `{to}`");
    }
    let mut wrong = Vec::new();
    for (level, m) in LAYERS.iter().enumerate() {
        let deps = &graph[*m];
        for d in deps {
            let allowed = LAYERS[..level].contains(&d.as_str());
            // `ad` also builds on the modules outside these layers (tape, stdlib, ...)
            let above_all = *m == "ad" && !LAYERS.contains(&d.as_str());
            if !allowed && !above_all {
                wrong.push(format!("`{m}` names `{d}`"));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "layer violations (see docs/architecture.md): {wrong:?}"
    );
}

#[test]
fn no_two_of_the_number_modules_import_each_other() {
    let graph = module_graph();
    let mut both_ways = Vec::new();
    for a in LAYERS {
        for b in LAYERS {
            if a < b && graph[a].contains(b) && graph[b].contains(a) {
                both_ways.push(format!("{a} <-> {b}"));
            }
        }
    }
    assert!(
        both_ways.is_empty(),
        "modules importing each other: {both_ways:?}"
    );
}

/// The one group of top-level modules that still reach each other (docs/architecture.md):
/// `ad::time_loop` runs `stdlib`'s checkpointing schedules, which lift states to `GVar`; the
/// gradient drivers own a `tape::Tape`, which stores `GVar<f64>` specially.
const KNOWN_GROUP: [&str; 3] = ["ad", "stdlib", "tape"];

#[test]
fn no_other_module_cycle_anywhere_in_the_crate() {
    let graph = module_graph();
    let reaches = |from: &str, to: &str| {
        let mut seen = BTreeSet::new();
        let mut todo = vec![from.to_string()];
        while let Some(m) = todo.pop() {
            for d in graph.get(&m).into_iter().flatten() {
                if d == to {
                    return true;
                }
                if seen.insert(d.clone()) {
                    todo.push(d.clone());
                }
            }
        }
        false
    };
    let mut cycles = Vec::new();
    for a in graph.keys() {
        for b in graph.keys() {
            let known = KNOWN_GROUP.contains(&a.as_str()) && KNOWN_GROUP.contains(&b.as_str());
            if a < b && !known && reaches(a, b) && reaches(b, a) {
                cycles.push(format!("{a} <-> {b}"));
            }
        }
    }
    assert!(cycles.is_empty(), "modules on a cycle: {cycles:?}");
}

#[test]
fn the_scan_reads_code_and_not_comments_or_strings() {
    let code = code_only(
        "use crate::a; // crate::b\n/* crate::c */ let s = \"crate::d\"; let r = r#\"crate::e\"#; \
         let q = '\"'; fn f<'a>(x: &'a crate::g::T) {}\n#[cfg(test)]\nmod tests { use crate::h; }",
    );
    let code = without_test_modules(&code);
    assert_eq!(names_after(&code, "crate::"), ["a", "g"]);
}
