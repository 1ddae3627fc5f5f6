use nilang::prelude::*;

#[i]
fn f(y: &mut i64) {
    while (y < 10, y > 0) {
        y += 1;
        break;
    }
}

fn main() {}
