//! A crate outside the workspace, as a user writes it: `nilang` renamed (`nl = { package =
//! "nilang", .. }`, found without `#[i(crate = ..)]`), without default features (no `sprs`),
//! a parameter named like its function and a bare read-only `&[T]` passed on to a callee.
//! Written to a temporary directory and built and run with `cargo run --offline` (the
//! workspace's `Cargo.lock` pins the versions, all in the local registry cache after the
//! workspace's own build).
use std::path::Path;
use std::process::Command;

const MAIN: &str = r#"
use nl::prelude::*;

#[i]
fn dot<T: Scalar>(dot: &mut T, a: &[T], b: &[T]) {
    for i in 0..a.len() {
        dot += a[i] * b[i];
    }
}

#[i]
fn energy<T: Scalar>(e: &mut T, x: &[T]) {
    dot(e, x, x);
}

fn main() {
    let x = [1.0, 2.0, 3.0];
    let mut e = 0.5;
    energy(&mut e, &x);
    println!("energy {e}");
    energy_inv(&mut e, &x);
    println!("restored {e}");
    let (d, _, _) = Dot.call((&mut e, &x[..], &x[..]));
    println!("value {d}");
}
"#;

#[test]
fn renamed_dependency_builds_and_runs() {
    let root = Path::new(env!("CARGO_TARGET_TMPDIR")).join("downstream");
    let nilang = Path::new(env!("CARGO_MANIFEST_DIR"));
    let workspace = nilang.parent().unwrap().parent().unwrap();
    std::fs::create_dir_all(root.join("src")).unwrap();
    let manifest = format!(
        "[package]\nname = \"downstream\"\nversion = \"0.0.0\"\nedition = \"2021\"\n\n\
         [dependencies]\nnl = {{ package = \"nilang\", path = {:?}, default-features = false }}\n\n\
         [workspace]\n",
        nilang.display().to_string()
    );
    std::fs::write(root.join("Cargo.toml"), manifest).unwrap();
    std::fs::write(root.join("src/main.rs"), MAIN).unwrap();
    std::fs::copy(workspace.join("Cargo.lock"), root.join("Cargo.lock")).unwrap();
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .args(["run", "--offline", "--quiet"])
        .current_dir(&root)
        .env("CARGO_TARGET_DIR", root.join("target"))
        .env_remove("RUSTC_WRAPPER")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "downstream build failed:\n{stderr}");
    assert_eq!(
        stdout.lines().collect::<Vec<_>>(),
        ["energy 14.5", "restored 0.5", "value 14.5"],
        "{stderr}"
    );
}
