use nilang::prelude::*;

#[ad]
fn f<T: Copy>(x: f64, t: T) -> f64 {
    x * x
}

fn main() {}
