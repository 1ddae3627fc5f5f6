// A kernel whose slice `out` is written only inside a device callee: the kernel takes `out`
// for a shared slice (adjoints accumulated across threads), which would give a wrong adjoint;
// the callee's recorded analysis (`add_sq::WRITES`) makes it a compile error at the call.
use nilang::prelude::*;

#[i(device)]
fn add_sq<T: Scalar>(y: &mut T, x: &mut T) {
    y += x.powi(2);
}

#[i(kernel)]
fn sq_all<T: Scalar>(t: usize, out: &mut [T], x: &mut [T]) {
    add_sq(&mut out[t], &mut x[t]);
}

fn main() {
    let _ = <sq_all as nilang::kernel::DeviceCode>::device_code;
}
