//! The loop kernel of the zero-cost measurements (`benches/zero_cost.rs`, `examples/zero_cost.rs`):
//! `y += a x` and `s += Σ x²` over a slice, as a `#[i(nocheck)]` function and hand-written.
use nilang::prelude::*;

/// `y += a x` and `s += Σ x²` over a slice.
#[i(nocheck)]
pub fn loop_kernel<T: Scalar>(s: &mut T, y: &mut [T], x: &[T], a: &T) {
    for i in 0..y.len() {
        y[i] += a * x[i];
        s += x[i].powi(2);
    }
}

/// The same loop, hand-written.
#[inline(never)]
pub fn loop_hand(s: &mut f64, y: &mut [f64], x: &[f64], a: f64) {
    for i in 0..y.len() {
        y[i] += a * x[i];
        *s += x[i].powi(2);
    }
}
