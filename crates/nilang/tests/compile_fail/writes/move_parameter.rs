use nilang::prelude::*;

#[i]
fn f(x: &mut f64) {
    let a = take!(x);
    dealloc!(a = 0.0);
}

fn main() {}
