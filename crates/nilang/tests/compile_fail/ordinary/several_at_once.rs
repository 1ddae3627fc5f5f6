use nilang::prelude::*;

#[ad]
fn f(x: &[f64]) -> f64 {
    let mut s = 0.0;
    while let Some(v) = x.first() {
        s += v;
    }
    let t = x[0].cbrt();
    s + t
}

fn main() {}
