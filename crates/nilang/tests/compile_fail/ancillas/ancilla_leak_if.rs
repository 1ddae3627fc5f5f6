use nilang::prelude::*;

#[i]
fn f(y: &mut f64, c: bool) {
    if c {
        let t = 0.0;
        t += y;
    } else {
        y += 1.0;
    }
}

fn main() {}
