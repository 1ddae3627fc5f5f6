use nilang::prelude::*;

#[i]
fn f(x: &mut f64) {
    x += 1.0;
    dealloc!(y = 0.0);
}

fn main() {}
