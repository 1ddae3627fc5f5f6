//! Static errors of differentiable programs (`tests/compile_fail/ad_*.rs`): NiLang's silent
//! wrong ancilla gradient (inventory case 34) is a compile error here.
#[test]
fn compile_fail_ad() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/compile_fail/ad_*.rs");
}
