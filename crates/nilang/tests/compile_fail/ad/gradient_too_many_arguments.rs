use nilang::prelude::*;

// 34 parameters: `#[i]` compiles it, the gradient API takes at most 32 arguments
#[i]
#[allow(clippy::too_many_arguments)]
fn long<T: Scalar>(out: &mut T, x0: &mut T, x1: &mut T, x2: &mut T, x3: &mut T, x4: &mut T, x5: &mut T, x6: &mut T, x7: &mut T, x8: &mut T, x9: &mut T, x10: &mut T, x11: &mut T, x12: &mut T, x13: &mut T, x14: &mut T, x15: &mut T, x16: &mut T, x17: &mut T, x18: &mut T, x19: &mut T, x20: &mut T, x21: &mut T, x22: &mut T, x23: &mut T, x24: &mut T, x25: &mut T, x26: &mut T, x27: &mut T, x28: &mut T, x29: &mut T, x30: &mut T, x31: &mut T, x32: &mut T) {
    out += x0;
    out += x1;
    out += x2;
    out += x3;
    out += x4;
    out += x5;
    out += x6;
    out += x7;
    out += x8;
    out += x9;
    out += x10;
    out += x11;
    out += x12;
    out += x13;
    out += x14;
    out += x15;
    out += x16;
    out += x17;
    out += x18;
    out += x19;
    out += x20;
    out += x21;
    out += x22;
    out += x23;
    out += x24;
    out += x25;
    out += x26;
    out += x27;
    out += x28;
    out += x29;
    out += x30;
    out += x31;
    out += x32;
}

fn main() {
    let _ = nilang::gradient(&Long, (&mut 0.0, &mut 1.0, &mut 1.0, &mut 1.0, &mut 1.0, &mut 1.0, &mut 1.0, &mut 1.0, &mut 1.0, &mut 1.0, &mut 1.0, &mut 1.0, &mut 1.0, &mut 1.0, &mut 1.0, &mut 1.0, &mut 1.0, &mut 1.0, &mut 1.0, &mut 1.0, &mut 1.0, &mut 1.0, &mut 1.0, &mut 1.0, &mut 1.0, &mut 1.0, &mut 1.0, &mut 1.0, &mut 1.0, &mut 1.0, &mut 1.0, &mut 1.0, &mut 1.0, &mut 1.0), 0);
}
