use nilang::prelude::*;

#[ad]
fn f(x: &mut [f64]) -> f64 {
    x[0]
}

fn main() {}
