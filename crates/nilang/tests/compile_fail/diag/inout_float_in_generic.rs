// An in-out `f64` read by an instruction on a generic target: our message at the operand
// (rustc's would be "expected `&mut T`, found `&mut f64`" at the attribute).
use nilang::prelude::*;

#[i]
fn wdot<T: Scalar>(z: &mut T, w: &mut T, x: &mut [f64], c: &mut f64) {
    for i in 0..x.len() {
        z += w * x[i];
    }
    z += c;
}

fn main() {}
