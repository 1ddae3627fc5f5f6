// A function with an error, used elsewhere: only its own error is reported (the generated
// items are emitted as stubs next to it).
use nilang::prelude::*;

#[i]
fn bad<T: Scalar>(y: &mut T, x: &mut T) {
    y = x;
}

fn main() {
    let (mut y, mut x) = (0.0, 1.0);
    bad(&mut y, &mut x);
    bad_inv(&mut y, &mut x);
    Bad.call((&mut y, &mut x));
    let _ = bad::ADDITIVE;
}
