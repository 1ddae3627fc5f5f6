use nilang::prelude::*;

#[ad]
fn f(x: f64) -> f64 {
    let g = |v: f64| v * v;
    g(x)
}

fn main() {}
