use nilang::prelude::*;

fn g(y: &mut f64, x: f64) {
    *y += x;
}

#[i]
fn f(y: &mut f64, x: f64) {
    g(y, x);
}

fn main() {}
