use nilang::prelude::*;

#[ad]
fn f(x: f64) -> f64 {
    x = x * 2.0;
    x
}

fn main() {}
