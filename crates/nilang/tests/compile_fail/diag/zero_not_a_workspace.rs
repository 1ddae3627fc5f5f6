// `zero(..)` names workspace parameters: `&mut` parameters zero on entry and on exit
use nilang::prelude::*;

#[i(zero(x, w))]
fn f(y: &mut f64, x: &f64) {
    y += x;
}

fn main() {}
