// NiLang FAQ: `x ← y; z += x; x → y` silently drops the gradient of `y` (NiLang gives the
// wrong gradient (1.0, 0.0)). Here allocating an ancilla from a variable is a compile error;
// the constant-allocated version (`let x = T::default(); x += y; ...`) gives (1.0, 1.0).
use nilang::prelude::*;

#[i]
fn f1<T: Scalar>(z: &mut T, y: &mut T) {
    let x = y;
    z += x;
    dealloc!(x = y);
}

fn main() {}
