//! The look inside (`nilang_compiler::show`): the printed IR, inverse and gradient program of
//! small functions, against the expected text.
use nilang_compiler::show::show;

#[test]
fn the_inverse_of_a_small_function_is_printed_in_the_language() {
    let shown = show(quote::quote!(
        fn f(y: &mut f64, x: &mut [f64], t: &mut f64) {
            routine! {
                t += x[0] * x[1];
            }
            y += sin(t);
            unroutine!();
            for i in 0..x.len() {
                x[i] += 1.0;
            }
        }
    ))
    .unwrap();
    assert_eq!(
        shown.inverse,
        "fn f_inv(y: &mut f64, x: &mut [f64], t: &mut f64) {
    for i in (0..x.len()).rev() {
        x[i] -= 1.0;
    }
    // routine
    t += x[0] * x[1];
    y -= sin(t);
    // unroutine: the routine inverted
    t -= x[0] * x[1];
}
"
    );
    assert_eq!(
        shown.ir,
        "fn f(y: &mut f64, x: &mut [f64], t: &mut f64) {
    // routine
    t += x[0] * x[1];
    y += sin(t);
    // unroutine: the routine inverted
    t -= x[0] * x[1];
    for i in 0..x.len() {
        x[i] += 1.0;
    }
}
"
    );
    assert!(
        shown.gradient.contains(
            "    t -= x[0] * x[1];\n    //   x[0].g += x[1] * t.g; x[1].g += x[0] * t.g\n"
        ),
        "{}",
        shown.gradient
    );
}

#[test]
fn errors_come_back_as_syn_errors() {
    let e = show(quote::quote!(
        fn f(y: &mut f64) {
            y = 1.0;
        }
    ))
    .unwrap_err();
    assert!(!e.to_string().is_empty());
}
