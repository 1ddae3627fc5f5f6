// `#[i(kernel)]` / `#[i(device)]`: what the device cannot run is a compile error naming it.
use nilang::prelude::*;

#[i(kernel)]
fn no_thread_index<T: Scalar>(x: &mut [T]) {
    x[0] += 1.0;
}

#[i(kernel)]
fn scalar_inout<T: Scalar>(t: usize, y: &mut T, x: &mut [T]) {
    y += x[t];
}

#[i(kernel)]
fn stack<T: Scalar>(t: usize, x: &mut [T], st: &mut Vec<T>) {
    copy_push!(st, x[t]);
}

#[i(device)]
fn method_in_condition<T: Ordered>(y: &mut T, x: &mut T) {
    if (x.value().signum() > 0.0, _) {
        y += x;
    }
}

#[i(device)]
fn negation_view<T: Scalar>(y: &mut T, x: &mut T) {
    -y += x;
}

fn main() {}
