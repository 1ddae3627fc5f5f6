//! Compile-fail tests of the number types: instructions a number type does not have.
#[test]
fn number_types_compile_fail() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/compile_fail/ulog_plus_eq.rs");
    t.compile_fail("tests/compile_fail/tropical_plus_eq.rs");
}
