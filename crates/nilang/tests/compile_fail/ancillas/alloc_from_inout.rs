use nilang::prelude::*;

#[i]
fn f(x: &mut f64, y: &mut f64) {
    let z = y;
    x += z;
    dealloc!(z = y);
}

fn main() {}
