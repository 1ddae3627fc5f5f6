use nilang::prelude::*;

#[i]
fn f(y: &mut f64) {
    let t = 0.0;
    t += y;
}

fn main() {}
