//! Static errors: every file under `tests/compile_fail/<category>/` must fail to compile with
//! exactly the message (and the span) in its `.stderr` file. One trybuild run for all of them.
//! Regenerate the expected output with `TRYBUILD=overwrite cargo test -p nilang --test compile_fail`.
//!
//! Categories: `ancillas` (allocation, deallocation, leaks), `control` (loops, early exits,
//! routine pairs), `aliasing` (shared borrows), `writes` (assignments the inverse cannot
//! undo), `ad` (gradient programs), `numbers` (operations a number type lacks), `diag` (the
//! messages that point a user at the fix: a callee without `#[i]`, several errors at once),
//! `ordinary` (constructs outside the subset `#[ad]` differentiates), `safety` (the hidden items
//! generated code calls cannot be misused into undefined behaviour).
#[test]
fn static_errors() {
    let t = trybuild::TestCases::new();
    for category in [
        "ancillas", "control", "aliasing", "writes", "ad", "numbers", "diag", "ordinary", "safety",
    ] {
        t.compile_fail(format!("tests/compile_fail/{category}/*.rs"));
    }
}
