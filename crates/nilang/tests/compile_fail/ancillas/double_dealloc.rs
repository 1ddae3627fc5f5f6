use nilang::prelude::*;

#[i]
fn f(y: &mut f64) {
    let t = 0.0;
    y += t;
    dealloc!(t = 0.0);
    dealloc!(t = 0.0);
}

fn main() {}
