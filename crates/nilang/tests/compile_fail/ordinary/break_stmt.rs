use nilang::prelude::*;

#[ad]
fn f(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        if x[i] < 0.0 {
            break;
        }
        s += x[i];
    }
    s
}

fn main() {}
