use nilang::prelude::*;

#[ad]
fn f(w: f64, #[data] n: usize, #[data] e: &mut [f64], #[data(x)] x: &[f64]) {
    e[0] = w * x[0] * n as f64;
}

fn main() {}
