use nilang::prelude::*;

// no bound on `T`: our own error, at `T`, suggesting `T: Scalar`
#[i]
fn scale<T>(y: &mut T, x: &T) {
    y += x * 2.0;
}

// a bound that does not give the instruction: the instruction trait explains
#[i]
fn shift<T: Copy + std::fmt::Debug>(y: &mut T, x: &T) {
    y += sin(x);
}

fn main() {}
