use nilang::prelude::*;

// outputs are arrays (`&mut [f64]`); a scalar is returned
#[ad]
fn f(x: &[f64], y: &mut f64) -> f64 {
    x[0]
}

fn main() {}
