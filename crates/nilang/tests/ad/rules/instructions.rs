//! The tuple target (`sincos`) and the primitive instructions.
use super::{check_program, Num};
use nilang::instr::{fns::SinCos, PlusEq1};
use nilang::prelude::*;

#[i(rev = PSincos)]
pub(super) fn p_sincos<T: Num>(y: &mut T, x: &mut [T; 5])
where
    (T, T): PlusEq1<SinCos, T>,
{
    (x[1], x[2]) += sincos(x[0]);
    (x[3], x[4]) -= sincos(x[1]);
    y += x[2] * x[4];
    y += x[1] * x[3];
}
#[i(rev = PSwap)]
pub(super) fn p_swap<T: Num>(y: &mut T, x: &mut [T; 3]) {
    SWAP(&mut x[0], &mut x[1]);
    y += x[0] * x[2];
    y += exp(x[1]);
}
#[i(rev = PNegI)]
pub(super) fn p_neg_instr<T: Num>(y: &mut T, x: &mut [T; 2]) {
    NEG(&mut x[0]);
    y += x[0] * x[1];
    y += sin(x[0]);
}
#[i(rev = PInvI)]
pub(super) fn p_inv_instr<T: Num>(y: &mut T, x: &mut [T; 2]) {
    INV(&mut x[0]);
    y += x[0] * x[1];
    y += exp(x[0]);
}
#[i(rev = PRot)]
pub(super) fn p_rot<T: Num>(y: &mut T, x: &mut [T; 3]) {
    ROT(&mut x[0], &mut x[1], &mut x[2]);
    y += x[0] * x[1];
    y += sin(x[0]);
    ROT(&mut x[0], &mut x[1], &mut cst!(T::lit(0.4)));
    y += x[1] * x[2];
}
#[i(rev = PIrot)]
pub(super) fn p_irot<T: Num>(y: &mut T, x: &mut [T; 3]) {
    IROT(&mut x[0], &mut x[1], &mut x[2]);
    y += x[0] * x[1];
    y += cos(x[1]);
    IROT(&mut x[1], &mut x[0], &mut cst!(T::lit(-0.9)));
    y += x[0] * x[2];
}
#[i(rev = PHadamard)]
pub(super) fn p_hadamard<T: Num>(y: &mut T, x: &mut [T; 2]) {
    HADAMARD(&mut x[0], &mut x[1]);
    y += x[0] * x[1];
    y += exp(x[0]);
}
#[i(rev = PIncDec)]
pub(super) fn p_inc_dec<T: Num + Increment>(y: &mut T, x: &mut [T; 2]) {
    INC(&mut x[0]);
    DEC(&mut x[1]);
    DEC(&mut x[1]);
    y += x[0] * x[1];
    ADD_CONST(&mut x[0], T::lit(0.5));
    SUB_CONST(&mut x[1], T::lit(1.5));
    y += abs2(x[0]);
    y += x[1] * x[0];
}

#[test]
fn instructions() {
    let any = (-1.5, 1.5);
    check_program("sincos", &PSincos, [any; 5], 51);
    check_program("SWAP", &PSwap, [any; 3], 52);
    check_program("NEG", &PNegI, [any; 2], 53);
    check_program("INV", &PInvI, [(0.4, 2.0), any], 54);
    check_program("ROT", &PRot, [any; 3], 55);
    check_program("IROT", &PIrot, [any; 3], 56);
    check_program("HADAMARD", &PHadamard, [any; 2], 57);
    check_program("INC/DEC/ADD_CONST/SUB_CONST", &PIncDec, [any; 2], 58);
}
