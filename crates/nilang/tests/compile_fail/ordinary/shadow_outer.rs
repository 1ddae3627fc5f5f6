use nilang::prelude::*;

#[ad]
fn f(x: f64) -> f64 {
    let y = x * 2.0;
    if x > 1.0 {
        let y = x.sin();
        return y;
    }
    y
}

fn main() {}
