//! Two-argument functions: every operand mix (gradient number with gradient number, with a
//! literal, with a constant expression) in both directions.
use super::{check_program, Num};
use nilang::prelude::*;

// Each program runs the rule on every operand mix: two gradient numbers (with `+=` and `-=`), a
// gradient number with the literal `$lit`, and the constant expression `-$neg` with a
// gradient number.

/// Programs of a binary operator `x $op y`.
macro_rules! operator_programs {
    ($($fn:ident $Ty:ident $op:tt $lit:tt $neg:tt),* $(,)?) => {$(
        #[i(rev = $Ty)]
        pub(super) fn $fn<T: Num>(y: &mut T, x: &mut [T; 4]) {
            y += x[0] $op x[1];
            y -= x[2] $op x[3];
            y += x[0] $op $lit;
            y -= cst!(T::lit(-$neg)) $op x[1];
        }
    )*};
}
operator_programs! {
    p_add PAdd + 0.7 1.3,
    p_sub PSub - 0.7 1.3,
    p_mul PMul * 0.7 1.3,
    p_div PDiv / 0.7 1.3,
}

/// Programs of a two-argument function `$f(x, y)`.
macro_rules! function_programs {
    ($($fn:ident $Ty:ident $f:ident $lit:tt $neg:tt),* $(,)?) => {$(
        #[i(rev = $Ty)]
        pub(super) fn $fn<T: Num>(y: &mut T, x: &mut [T; 4]) {
            y += $f(x[0], x[1]);
            y -= $f(x[2], x[3]);
            y += $f(x[0], $lit);
            y -= $f(cst!(T::lit(-$neg)), x[1]);
        }
    )*};
}
function_programs! {
    p_atan2 PAtan2 atan2 0.7 1.3,
    p_hypot PHypot hypot 0.7 1.3,
    p_min PMin min 0.1 0.2,
    p_max PMax max 0.1 0.2,
}

/// `powf` on a positive base, also as a method call.
#[i(rev = PPowf)]
pub(super) fn p_powf<T: Num>(y: &mut T, x: &mut [T; 4]) {
    y += powf(x[0], x[1]);
    y -= x[2].powf(x[3]);
    y += powf(x[0], 2.5);
    y -= powf(cst!(T::lit(1.3)), x[1]);
}
/// Operand mixes on the target side: a gradient-number target with plain-constant operands
/// only (no adjoint flows into constants) and an operand read twice.
#[i(rev = PMixed)]
fn p_mixed<T: Num>(y: &mut T, x: &mut [T; 2]) {
    y += cst!(T::lit(2.0)) * cst!(T::lit(0.5));
    y += x[0] * x[1];
    y -= sin(cst!(T::lit(0.3)));
    y += exp(x[1]);
    y -= abs2(x[0]);
}

#[test]
fn binary_rules() {
    let any = (-1.5, 1.5);
    let nz = (0.4, 2.0);
    check_program("add", &PAdd, [any; 4], 31);
    check_program("sub", &PSub, [any; 4], 32);
    check_program("mul", &PMul, [any; 4], 33);
    check_program("div", &PDiv, [any, nz, any, nz], 34);
    check_program("powf", &PPowf, [nz, any, nz, any], 35);
    check_program("atan2", &PAtan2, [any; 4], 36);
    check_program("hypot", &PHypot, [any; 4], 37);
    check_program("min", &PMin, [any; 4], 38);
    check_program("max", &PMax, [any; 4], 39);
    check_program("mixed operands", &PMixed, [any; 2], 40);
}
