use nilang::prelude::*;

#[ad]
fn energy(x: &[f64]) -> f64 {
    x[0] * x[1]
}

// `#[i]` code calls `energy` through its pair `energy_add` (`out += energy(x)`), which runs on
// `f64` and `GVar<f64>` only: the number type needs the bound `AdNum`
#[i]
fn model<T: Scalar>(out: &mut T, x: &mut [T]) {
    energy_add(out, x);
}

fn main() {}
