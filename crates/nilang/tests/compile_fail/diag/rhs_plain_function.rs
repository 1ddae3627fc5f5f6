use nilang::prelude::*;

fn half(x: f64) -> f64 {
    x / 2.0
}

#[i]
fn f(y: &mut f64, x: &f64) {
    y += half(x);
}

fn main() {}
