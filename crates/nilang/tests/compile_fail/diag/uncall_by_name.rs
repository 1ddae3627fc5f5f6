use nilang::prelude::*;

#[i]
fn g(y: &mut f64, x: &mut f64) {
    y += x;
}

// Janus's `uncall g`: written as a call of the generated inverse
#[i]
fn f(y: &mut f64, x: &mut f64) {
    g_inv(y, x);
}

fn main() {}
