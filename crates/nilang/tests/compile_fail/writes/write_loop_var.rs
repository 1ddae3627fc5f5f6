use nilang::prelude::*;

#[i]
fn f(y: &mut i64) {
    for i in 0..10 {
        i += 1;
        y += i;
    }
}

fn main() {}
