use nilang::prelude::*;

#[ad]
fn f(x: f64, k: usize) -> f64 {
    let mut y = x;
    match k {
        0 => y = y * 2.0,
        _ => y = y.sin(),
    }
    y
}

fn main() {}
