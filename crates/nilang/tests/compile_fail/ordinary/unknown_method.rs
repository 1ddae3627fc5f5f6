use nilang::prelude::*;

#[ad]
fn f(x: f64) -> f64 {
    x.cbrt() * x
}

fn main() {}
