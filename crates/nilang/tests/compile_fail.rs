//! Static errors: every file under `tests/compile_fail/` must fail to compile with exactly the
//! message (and the span) in its `.stderr` file. One trybuild run for all of them.
//! Regenerate the expected output with `TRYBUILD=overwrite cargo test -p nilang --test compile_fail`.
#[test]
fn static_errors() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/compile_fail/*.rs");
}
