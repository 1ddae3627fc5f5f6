use nilang::prelude::*;

#[i]
fn f(x: &mut f64, y: &mut f64) {
    x -= y * y;
}

fn main() {}
