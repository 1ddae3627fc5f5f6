use nilang::prelude::*;

// a hand-written reversible pair, called from `#[i]` code without `nilang::additive!(g, g_inv: 0)`
fn g(y: &mut f64, x: f64) {
    *y += x;
}

fn g_inv(y: &mut f64, x: f64) {
    *y -= x;
}

#[i]
fn f(y: &mut f64, x: f64) {
    g(y, x);
}

fn main() {}
