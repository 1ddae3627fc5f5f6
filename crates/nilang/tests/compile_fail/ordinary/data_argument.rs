use nilang::prelude::*;

#[ad]
fn g(a: f64, #[data] c: f64) -> f64 {
    a * c
}

// a value with a derivative passed to a `#[data]` parameter: its derivative would be lost
#[ad]
fn f(w: f64) -> f64 {
    g(w, w)
}

fn main() {}
