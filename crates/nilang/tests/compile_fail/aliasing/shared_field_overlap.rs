use nilang::prelude::*;

#[i]
fn f(t: &mut (f64, f64), s: &mut f64) {
    SWAP(t, &mut t.0);
    s += t.1;
}

fn main() {}
