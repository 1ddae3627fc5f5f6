use nilang::prelude::*;

#[i]
fn f(x: &mut f64) {
    let x = 0.0;
    dealloc!(x = 0.0);
}

fn main() {}
