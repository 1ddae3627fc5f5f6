//! Draw `#[i]` functions as SVG pictures, variables as wires and instructions as gates (see
//! `nilang_compiler::show::picture`).
//!
//! `cargo run -p nilang-compiler --example picture -- FILE OUT_DIR [FUNCTION..]`: every
//! function marked `#[i]` in FILE (a Rust file, or Markdown with Rust code blocks), or only
//! those named, to `OUT_DIR/NAME.svg` (`NAME-2.svg`, .. for a name met again). The guide's
//! pictures: `cargo run -p nilang-compiler --example picture -- docs/guide.md docs/pictures`.
use nilang_compiler::show::picture::{functions_in, picture};
use quote::ToTokens;
use std::collections::HashMap;
use std::path::PathBuf;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [file, out_dir, names @ ..] = &args[..] else {
        eprintln!("usage: picture FILE OUT_DIR [FUNCTION..]");
        std::process::exit(2);
    };
    let fail = |msg: String| -> ! {
        eprintln!("{file}: {msg}");
        std::process::exit(1)
    };
    let src = std::fs::read_to_string(file).unwrap_or_else(|e| fail(format!("cannot read: {e}")));
    let fs = functions_in(&src).unwrap_or_else(|e| fail(e));
    std::fs::create_dir_all(out_dir)
        .unwrap_or_else(|e| fail(format!("cannot create {out_dir}: {e}")));
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut drawn = 0;
    for f in fs {
        let name = f.sig.ident.to_string();
        if !names.is_empty() && !names.contains(&name) {
            continue;
        }
        let svg = picture(f.into_token_stream()).unwrap_or_else(|e| fail(format!("{name}: {e}")));
        let n = seen.entry(name.clone()).or_default();
        *n += 1;
        let path = PathBuf::from(out_dir).join(match *n {
            1 => format!("{name}.svg"),
            k => format!("{name}-{k}.svg"),
        });
        std::fs::write(&path, svg)
            .unwrap_or_else(|e| fail(format!("cannot write {}: {e}", path.display())));
        println!("{}", path.display());
        drawn += 1;
    }
    if drawn == 0 {
        fail("no `#[i]` function drawn".into());
    }
}
