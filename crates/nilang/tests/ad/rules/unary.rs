//! One-argument functions: `y += f(x0)` and `y -= f(x1)`, so both directions of the rule run.
use super::{ad_grad, check_program, Num};
use nilang::prelude::*;

macro_rules! unary_programs {
    ($($fn:ident $Ty:ident |$y:ident, $x:ident| $body:tt),* $(,)?) => {$(
        #[i(rev = $Ty)]
        pub(super) fn $fn<T: Num>($y: &mut T, $x: &mut [T; 2]) $body
    )*};
}
unary_programs! {
    p_identity PIdentity |y, x| { y += x[0]; y -= identity(x[1]); },
    p_neg PNeg |y, x| { y += -x[0]; y -= -x[1]; },
    p_sin PSin |y, x| { y += sin(x[0]); y -= x[1].sin(); },
    p_cos PCos |y, x| { y += cos(x[0]); y -= cos(x[1]); },
    p_tan PTan |y, x| { y += tan(x[0]); y -= tan(x[1]); },
    p_asin PAsin |y, x| { y += asin(x[0]); y -= asin(x[1]); },
    p_acos PAcos |y, x| { y += acos(x[0]); y -= acos(x[1]); },
    p_atan PAtan |y, x| { y += atan(x[0]); y -= atan(x[1]); },
    p_sinh PSinh |y, x| { y += sinh(x[0]); y -= sinh(x[1]); },
    p_cosh PCosh |y, x| { y += cosh(x[0]); y -= cosh(x[1]); },
    p_tanh PTanh |y, x| { y += tanh(x[0]); y -= tanh(x[1]); },
    p_asinh PAsinh |y, x| { y += asinh(x[0]); y -= x[1].asinh(); },
    p_atanh PAtanh |y, x| { y += atanh(x[0]); y -= x[1].atanh(); },
    p_exp PExp |y, x| { y += exp(x[0]); y -= exp(x[1]); },
    p_ln PLn |y, x| { y += ln(x[0]); y -= log(x[1]); },
    p_ln1p PLn1p |y, x| { y += ln_1p(x[0]); y -= log1p(x[1]); },
    p_expm1 PExpm1 |y, x| { y += exp_m1(x[0]); y -= expm1(x[1]); },
    p_sqrt PSqrt |y, x| { y += sqrt(x[0]); y -= x[1].sqrt(); },
    p_abs PAbs |y, x| { y += abs(x[0]); y -= abs(x[1]); },
    p_abs2 PAbs2 |y, x| { y += abs2(x[0]); y -= abs2(x[1]); },
    p_inv PInv |y, x| { y += inv(x[0]); y -= recip(x[1]); },
    p_powi2 PPowi2 |y, x| { y += x[0].powi(2); y -= x[1].powi(2); },
    p_powi3 PPowi3 |y, x| { y += x[0].powi(3); y -= x[1].powi(3); },
    p_powi4 PPowi4 |y, x| { y += x[0].powi(4); y -= x[1].powi(4); },
    p_powim1 PPowim1 |y, x| { y += x[0].powi(-1); y -= x[1].powi(-1); },
    p_powim2 PPowim2 |y, x| { y += x[0].powi(-2); y -= x[1].powi(-2); },
}

#[test]
fn unary_rules() {
    let any = (-1.5, 1.5);
    let pos = (0.3, 2.5);
    let unit = (-0.9, 0.9);
    check_program("identity", &PIdentity, [any; 2], 1);
    check_program("neg", &PNeg, [any; 2], 2);
    check_program("sin", &PSin, [any; 2], 3);
    check_program("cos", &PCos, [any; 2], 4);
    check_program("tan", &PTan, [(-1.2, 1.2); 2], 5);
    check_program("asin", &PAsin, [unit; 2], 6);
    check_program("acos", &PAcos, [unit; 2], 7);
    check_program("atan", &PAtan, [any; 2], 8);
    check_program("sinh", &PSinh, [any; 2], 9);
    check_program("cosh", &PCosh, [any; 2], 10);
    check_program("tanh", &PTanh, [any; 2], 11);
    check_program("exp", &PExp, [any; 2], 12);
    check_program("ln", &PLn, [pos; 2], 13);
    check_program("ln_1p", &PLn1p, [unit; 2], 14);
    check_program("exp_m1", &PExpm1, [any; 2], 15);
    check_program("sqrt", &PSqrt, [pos; 2], 16);
    check_program("abs (negative)", &PAbs, [(-2.0, -0.1); 2], 17);
    check_program("abs (positive)", &PAbs, [(0.1, 2.0); 2], 18);
    check_program("abs2", &PAbs2, [any; 2], 19);
    check_program("inv", &PInv, [pos; 2], 20);
    check_program("powi 2", &PPowi2, [any; 2], 21);
    check_program("powi 3", &PPowi3, [any; 2], 22);
    check_program("powi 4", &PPowi4, [any; 2], 23);
    check_program("powi -1", &PPowim1, [pos; 2], 24);
    check_program("powi -2", &PPowim2, [(-2.0, -0.4); 2], 25);
    check_program("asinh", &PAsinh, [(-3.0, 3.0); 2], 26);
    check_program("atanh", &PAtanh, [(-0.9, 0.9); 2], 27);
}

#[test]
fn sqrt_at_zero_has_no_gradient() {
    // NiLang: `gradient(opm(sqrt), (1.0, 0.0); iloss=1)[2] == 0`
    let g = ad_grad(&PSqrt, [0.0, 0.0]);
    assert_eq!(g, [0.0, 0.0]);
}
