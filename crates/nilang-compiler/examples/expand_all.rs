//! Print the expansion of every `#[i]` function found in the `.rs` files under the given
//! directories (default: `crates`), one per line, `file:name<TAB>tokens`: a refactoring of the
//! compiler that must not change its output is checked by diffing two runs.
//!
//! ```text
//! cargo run -p nilang-compiler --example expand_all > /tmp/before.txt
//! # change the compiler
//! cargo run -p nilang-compiler --example expand_all > /tmp/after.txt
//! cmp /tmp/before.txt /tmp/after.txt
//! ```
use quote::ToTokens;
use std::path::{Path, PathBuf};
use syn::visit::Visit;

/// The `.rs` files under `dir`, sorted.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| Some(e.ok()?.path())).collect();
    paths.sort();
    for p in paths {
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// The arguments of an `#[i]`, `#[i(..)]`, `#[nilang::i]` or `#[nilang::i(..)]` attribute.
fn i_attr(a: &syn::Attribute) -> Option<proc_macro2::TokenStream> {
    let last = a.path().segments.last()?;
    if last.ident != "i" {
        return None;
    }
    Some(match &a.meta {
        syn::Meta::List(l) => l.tokens.clone(),
        _ => proc_macro2::TokenStream::new(),
    })
}

/// Collects the expansion of every `#[i]` function of a file.
struct Expand<'a> {
    file: &'a str,
    out: Vec<String>,
}

impl<'ast> Visit<'ast> for Expand<'_> {
    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        if let Some(k) = f.attrs.iter().position(|a| i_attr(a).is_some()) {
            let attr = i_attr(&f.attrs[k]).unwrap_or_default();
            let mut item = f.clone();
            item.attrs.remove(k);
            let out = nilang_compiler::compile_fn(attr, item.to_token_stream());
            self.out
                .push(format!("{}:{}\t{}", self.file, f.sig.ident, out));
        }
        syn::visit::visit_item_fn(self, f);
    }
}

fn main() {
    let mut roots: Vec<String> = std::env::args().skip(1).collect();
    if roots.is_empty() {
        roots.push("crates".into());
    }
    let mut files = vec![];
    for r in &roots {
        rust_files(Path::new(r), &mut files);
    }
    let mut n = 0;
    for f in &files {
        let Ok(text) = std::fs::read_to_string(f) else {
            continue;
        };
        let Ok(file) = syn::parse_file(&text) else {
            continue;
        };
        let name = f.display().to_string();
        let mut v = Expand {
            file: &name,
            out: vec![],
        };
        v.visit_file(&file);
        n += v.out.len();
        for line in v.out {
            println!("{line}");
        }
    }
    eprintln!("{n} functions");
}
