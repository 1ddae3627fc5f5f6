//! The README lists only examples that exist, and every example is listed.

#[test]
fn readme_lists_exactly_the_examples() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("../../README.md")).unwrap();
    let start = readme
        .find("`nilang-apps` (each `cargo run --release -p nilang-apps --example NAME`)")
        .expect("the README's example paragraph");
    let para = &readme[start..];
    let para = &para[..para.find("\n\n").unwrap_or(para.len())];
    // the names are the backticked words of the paragraph's list, which ends where the
    // sentence about the ADBench programs begins
    let end = para
        .find("The ADBench")
        .expect("the sentence after the list");
    let list = &para[para.find("):").unwrap() + 2..end];
    let mut listed: Vec<String> = list
        .split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect();
    listed.sort();
    let mut present: Vec<String> = std::fs::read_dir(root.join("examples"))
        .unwrap()
        .filter_map(|e| {
            let name = e.ok()?.file_name().into_string().ok()?;
            name.strip_suffix(".rs").map(str::to_string)
        })
        .collect();
    present.sort();
    assert_eq!(listed, present);
}
