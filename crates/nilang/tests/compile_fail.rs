//! Static errors of the language: one file per error, `tests/compile_fail/lang_*.rs`, all compiled
//! in one trybuild run. Regenerate the expected messages with `TRYBUILD=overwrite`.
#[test]
fn compile_fail() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/compile_fail/lang_*.rs");
}
