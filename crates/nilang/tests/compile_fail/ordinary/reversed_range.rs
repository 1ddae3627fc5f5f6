use nilang::prelude::*;

#[ad]
fn f(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in (0..x.len()).rev() {
        s = s * x[i];
    }
    s
}

fn main() {}
