use nilang::prelude::*;

#[i]
fn f(x: &mut f64, y: &mut f64) {
    x += y;
    unroutine!();
}

fn main() {}
