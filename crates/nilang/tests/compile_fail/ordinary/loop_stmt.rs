use nilang::prelude::*;

#[ad]
fn f(x: f64) -> f64 {
    let mut y = x;
    loop {
        y = y * 0.5;
    }
}

fn main() {}
