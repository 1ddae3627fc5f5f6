// A program with a data-dependent condition needs `T: Ordered`; a batch is not ordered.
use nilang::numbers::F64x4;
use nilang::prelude::*;

#[i]
fn relu<T: Ordered>(y: &mut T, x: &mut T) {
    if (x.value() > 0.0, _) {
        y += x;
    }
}

fn main() {
    let (mut y, mut x) = (F64x4::splat(0.0), F64x4::new([1.0, -1.0, 2.0, -2.0]));
    relu(&mut y, &mut x);
}
