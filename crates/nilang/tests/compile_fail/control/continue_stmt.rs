use nilang::prelude::*;

#[i]
fn f(y: &mut i64) {
    for i in 0..10 {
        if i == 3 {
            continue;
        }
        y += i;
    }
}

fn main() {}
