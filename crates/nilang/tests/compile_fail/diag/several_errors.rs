use nilang::prelude::*;

#[i]
fn f(y: &mut f64, x: &f64) {
    y += y * x;
    x += 1.0;
    let t = 0.0;
    y = 2.0;
    return;
}

fn main() {}
