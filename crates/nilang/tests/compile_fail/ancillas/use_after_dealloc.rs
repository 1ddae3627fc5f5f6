use nilang::prelude::*;

#[i]
fn f(x: &mut f64) {
    let z = 5.0;
    dealloc!(z = 5.0);
    x += z * 2.0;
    for _i in 0..3 {
        x += z;
    }
}

fn main() {}
