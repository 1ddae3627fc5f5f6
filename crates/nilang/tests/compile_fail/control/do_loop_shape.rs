use nilang::prelude::*;

#[i]
fn no_from(k: &mut i64) {
    loop {
        k += 1;
        if k == 3 {
            break;
        }
    }
}

#[i]
fn no_exit(k: &mut i64) {
    #[from(k == 0)]
    loop {
        k += 1;
    }
}

#[i]
fn two_exits(k: &mut i64) {
    #[from(k == 0)]
    loop {
        k += 1;
        if k == 3 {
            break;
        }
        if k == 5 {
            break;
        }
    }
}

#[i]
fn nested_break(k: &mut i64, j: &mut i64) {
    #[from(k == 0)]
    loop {
        k += 1;
        if (k > 1, k > 1) {
            j += 1;
            break;
        }
        if k == 3 {
            break;
        }
    }
}

fn main() {}
