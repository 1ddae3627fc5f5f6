use nilang::prelude::*;

#[ad]
fn f(w: f64, #[data] x: &[f64]) -> f64 {
    w * x[0]
}

fn main() {
    let x = [1.5];
    // data has no gradient: it comes back as the `&[f64]` that went in
    let (_, (_, gw, gx)) = nilang::ad::value_and_gradient(&F, (&mut 0.0, &mut 2.0, &x[..]), 0);
    let _ = gw.g + gx[0].g;
}
