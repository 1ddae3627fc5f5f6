use nilang::prelude::*;

#[i]
fn f(x: &mut f64, y: &mut f64) {
    routine! {
        x += y;
    }
}

fn main() {}
