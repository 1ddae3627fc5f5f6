// A `const` item on a right-hand side is an `f64` operand, not a literal: in a program generic
// over `T` the instruction `T += Identity(f64)` must be a bound (`PlusEq1<Identity, f64>`).
// rustc's error points at the operand.
use nilang::prelude::*;

const LN_2PI: f64 = 1.8378770664093453;

#[i]
fn add_const<T: Scalar>(y: &mut T) {
    y += LN_2PI;
}

fn main() {}
