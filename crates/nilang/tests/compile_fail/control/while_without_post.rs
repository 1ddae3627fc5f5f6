use nilang::prelude::*;

#[i]
fn f(x: &mut i64) {
    while x < 10 {
        x += 1;
    }
}

fn main() {}
