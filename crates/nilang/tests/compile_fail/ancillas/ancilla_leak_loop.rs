use nilang::prelude::*;

#[i]
fn f(y: &mut f64) {
    for _i in 0..3 {
        let t = 0.0;
        t += y;
    }
    while (y < 10.0, y > 0.0) {
        let z = 0.0;
        y += 1.0;
    }
}

fn main() {}
