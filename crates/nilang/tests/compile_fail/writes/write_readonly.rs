use nilang::prelude::*;

#[i]
fn f(y: &mut f64, x: &f64, n: i64) {
    x += y;
    n += 1;
}

fn main() {}
