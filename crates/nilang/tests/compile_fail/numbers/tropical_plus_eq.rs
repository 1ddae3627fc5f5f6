// Tropical `+` is `max`, which is irreversible: `+=` on a tropical number does not exist.
use nilang::prelude::*;

#[i]
fn add_tropical(x: &mut Tropical<f64>, y: &Tropical<f64>) {
    x += y;
}

fn main() {}
