use nilang::prelude::*;

// every arm but a final `_` matches integer literals, ranges of them, or `|` of those
#[i]
fn guarded(y: &mut i64, k: &i64) {
    match k {
        0 if y > 0 => y += 1,
        n => y += n,
        _ => {}
    }
}

// `_` comes last
#[i]
fn wild_first(y: &mut i64, k: &i64) {
    match k {
        _ => {}
        1 => y += 1,
    }
}

// a final `_` arm, as Rust asks of a `match` on integers
#[i]
fn no_wild(y: &mut i64, k: &i64) {
    match k {
        1 => y += 1,
    }
}

fn main() {}
