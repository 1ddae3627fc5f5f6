use nilang::prelude::*;

#[i]
fn f(y: &mut f64, x: &f64) {
    y += x.frobnicate();
}

fn main() {}
