use nilang::prelude::*;

#[ad]
fn f(w: f64, #[data] x: &[f64], #[data] s: f64) -> f64 {
    x[0] = w * 2.0;
    s = w;
    w * x[1] * s
}

fn main() {}
