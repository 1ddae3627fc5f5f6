// A condition on a batch's value does not compile: its lanes could take different branches.
use nilang::numbers::F64x4;
use nilang::prelude::*;

#[i]
fn relu4(y: &mut F64x4, x: &mut F64x4) {
    if (x.value() > 0.0, _) {
        y += x;
    }
}

fn main() {
    let (mut y, mut x) = (F64x4::splat(0.0), F64x4::splat(1.0));
    relu4(&mut y, &mut x);
}
