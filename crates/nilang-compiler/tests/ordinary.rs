//! The `#[ad]` pipeline as a library: the single-assignment form, the tape layout, errors
//! reported all at once, and random expressions through every stage without a panic.
use nilang_compiler::ordinary::{compile, show};
use proptest::prelude::*;
use quote::quote;

#[test]
fn single_assignment_form_and_tape_layout() {
    let s = show(quote!(
        fn f(x: &[f64]) -> f64 {
            let mut s = 0.0;
            let mut p = 1.0;
            for i in 0..x.len() {
                s += x[i] * x[i];
                p = p * x[i].exp();
            }
            s * p
        }
    ))
    .unwrap();
    assert!(s.ssa.contains("t3 = t1 * t2"), "{}", s.ssa);
    assert!(s.ssa.contains("t2 = exp(t1)"), "{}", s.ssa);
    // `p` is read by a product and overwritten in the loop: recorded; `s` only accumulates
    assert!(s.tape.contains("p: f64 per overwrite"), "{}", s.tape);
    assert!(!s.tape.contains("s: f64"), "{}", s.tape);
    assert!(s.vjp.contains("f__ad_vjp"));
}

#[test]
fn every_error_at_once() {
    let out = compile(
        quote!(),
        quote!(
            fn f(x: f64) -> f64 {
                let g = |v: f64| v;
                loop {}
                x.cbrt() % 2.0
            }
        ),
    )
    .to_string();
    assert_eq!(out.matches("compile_error").count(), 3, "{out}");
    assert!(out.contains("closures are not supported"));
    assert!(out.contains("`loop` is not supported"));
}

/// A random expression of `a`, `b` and constants.
fn expr() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        Just("a".to_string()),
        Just("b".to_string()),
        (1u32..9).prop_map(|k| format!("{k}.5")),
    ];
    leaf.prop_recursive(5, 40, 2, |inner| {
        prop_oneof![
            (inner.clone(), inner.clone(), 0usize..4)
                .prop_map(|(l, r, o)| format!("({l} {} {r})", ["+", "-", "*", "/"][o])),
            (inner.clone(), 0usize..5)
                .prop_map(|(e, m)| format!("({e}).{}()", ["sin", "exp", "tanh", "sqrt", "abs"][m])),
            inner.prop_map(|e| format!("-({e})")),
        ]
    })
}

proptest! {
    #[test]
    fn random_expressions_lower(e in expr(), f in expr()) {
        let src = format!("fn f(a: f64, b: f64) -> f64 {{ let mut c = {e}; c = c * ({f}); c }}");
        let item: proc_macro2::TokenStream = src.parse().unwrap();
        let s = show(item.clone()).unwrap();
        prop_assert!(s.ssa.contains("c = t"));
        let out = compile(quote!(), item).to_string();
        prop_assert!(!out.contains("compile_error"), "{}", out);
        // the generated code parses as Rust items
        prop_assert!(syn::parse_str::<syn::File>(&out).is_ok());
    }
}

/// An `f64` without derivative (data, `i as f64`) overwritten in a loop is recorded as an
/// `f64` (an integer record would truncate it), and gets no adjoint code.
#[test]
fn values_of_data_are_f64_variables_without_adjoint() {
    let s = show(quote!(
        fn f(w: &[f64], #[data] x: &[f64]) -> f64 {
            let mut v = x[0];
            let mut u = 0 as f64;
            let mut s = 0.0;
            for i in 1..x.len() {
                s += (v * w[i]).sin() + (u * w[i]).cos();
                v = x[i];
                u = i as f64 * 0.5;
            }
            s
        }
    ))
    .unwrap();
    assert!(s.tape.contains("v: f64 per overwrite"), "{}", s.tape);
    assert!(s.tape.contains("u: f64 per overwrite"), "{}", s.tape);
    assert!(!s.tape.contains(": integer per overwrite"), "{}", s.tape);
    assert!(
        !s.vjp.contains("v__bar +=") && !s.vjp.contains("x__bar"),
        "{}",
        s.vjp
    );
}
