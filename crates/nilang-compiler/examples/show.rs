//! Print a `#[i]` function's lowered IR, its generated inverse and its gradient program (see
//! `nilang_compiler::show`).
//!
//! `cargo run -p nilang-compiler --example show -- FILE FUNCTION` (FILE a Rust source file
//! holding `#[i] fn FUNCTION ...`, at top level or inside inline modules).
use quote::ToTokens;

fn find<'a>(items: &'a [syn::Item], name: &str) -> Option<&'a syn::ItemFn> {
    items.iter().find_map(|item| match item {
        syn::Item::Fn(f) if f.sig.ident == name => Some(f),
        syn::Item::Mod(m) => m.content.as_ref().and_then(|(_, items)| find(items, name)),
        _ => None,
    })
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [file, name] = &args[..] else {
        eprintln!("usage: show FILE FUNCTION");
        std::process::exit(2);
    };
    let src = std::fs::read_to_string(file).unwrap_or_else(|e| {
        eprintln!("cannot read {file}: {e}");
        std::process::exit(1);
    });
    let ast = syn::parse_file(&src).unwrap_or_else(|e| {
        eprintln!("{file}: not Rust: {e}");
        std::process::exit(1);
    });
    let Some(f) = find(&ast.items, name) else {
        eprintln!("{file}: no function `{name}`");
        std::process::exit(1);
    };
    let mut f = f.clone();
    f.attrs.clear();
    match nilang_compiler::show::show(f.into_token_stream()) {
        Ok(shown) => print!("{shown}"),
        Err(e) => {
            for e in e {
                eprintln!("{file}: {name}: {e}");
            }
            std::process::exit(1);
        }
    }
}
