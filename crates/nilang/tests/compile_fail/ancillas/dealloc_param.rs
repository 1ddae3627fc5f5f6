use nilang::prelude::*;

#[i]
fn f(x: &mut f64) {
    dealloc!(x = 0.0);
}

fn main() {}
