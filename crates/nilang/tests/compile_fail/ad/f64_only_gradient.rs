use nilang::prelude::*;

// written for `f64` only (like the guide's first example), then differentiated
#[i]
fn norm(out: &mut f64, x: &mut f64) {
    out += x * 2.0;
}

fn main() {
    let _ = nilang::gradient(&Norm, (&mut 0.0, &mut 3.0), 0);
}
