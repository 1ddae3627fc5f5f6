use nilang::prelude::*;

#[ad]
fn f(x: f64) -> f64 {
    let y = if x > 0.0 { x } else { -x };
    y * 2.0
}

fn main() {}
