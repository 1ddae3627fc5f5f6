//! Every function of the table of elementary functions (`nilang_functions`) on the device:
//! forward, inverse and gradient of a kernel that applies each one agree with the CPU `#[i]`
//! program (f64, 1e-12 relative), so the device rules generated from the table agree with the
//! CPU rules generated from it.
mod common;
use common::{assert_close, device, seq};
use nilang::prelude::*;
use nilang::GVar;
use nilang_gpu::{Arg, Precision, Shared};

/// `y += f(u)` for each function of the table (`u` in (−0.8, 0.8)), `ln` of `v` (> 0).
#[i(kernel)]
fn each_function<T: Ordered>(t: usize, y: &mut [T], u: &mut [T], v: &mut [T]) {
    y[t] += sin(u[t]);
    y[t] -= cos(u[t]);
    y[t] += tan(u[t]);
    y[t] += asin(u[t]);
    y[t] -= acos(u[t]);
    y[t] += atan(u[t]);
    y[t] += sinh(u[t]);
    y[t] -= cosh(u[t]);
    y[t] += tanh(u[t]);
    y[t] += exp(u[t]);
    y[t] -= exp_m1(u[t]);
    y[t] += ln_1p(u[t]);
    y[t] += ln(v[t]);
    y[t] += asinh(u[t]);
    y[t] += v[t].asinh();
    y[t] += atanh(u[t]);
    y[t] += u[t].atanh();
    y[t] += softplus(u[t]);
    y[t] -= v[t].softplus();
}

const N: usize = 29;

#[test]
fn each_function_forward_inverse_gradient() {
    let Some(dev) = device() else { return };
    let prog = dev.program::<each_function>(Precision::F64).unwrap();
    let (y0, u0, v0) = (
        seq(N, 1, -1.0, 1.0),
        seq(N, 2, -0.8, 0.8),
        seq(N, 3, 0.3, 2.0),
    );
    let mut cy = y0.clone();
    let (mut cu, mut cv) = (u0.clone(), v0.clone());
    for t in 0..N {
        each_function(t, &mut cy, &mut cu, &mut cv);
    }
    let [y, u, v] = [&y0, &u0, &v0].map(|b| dev.buffer(b).unwrap());
    let args = [Arg::from(&y), Arg::from(&u), Arg::from(&v)];
    prog.forward(N, &args).unwrap();
    assert_close("forward y", &y.read().unwrap(), &cy, 1e-12, 1.0);
    prog.inverse(N, &args).unwrap();
    assert_close("inverse y", &y.read().unwrap(), &y0, 1e-12, 1.0);
    // gradient of sum(y · seed) w.r.t. u and v
    let seed = seq(N, 4, 0.5, 1.5);
    let gv = |x: &[f64], g: &[f64]| -> Vec<GVar<f64>> {
        x.iter().zip(g).map(|(&x, &g)| GVar::new(x, g)).collect()
    };
    let zeros = vec![0.0; N];
    let (mut gy, mut gu, mut gvv) = (gv(&cy, &seed), gv(&u0, &zeros), gv(&v0, &zeros));
    for t in (0..N).rev() {
        each_function_inv(t, &mut gy, &mut gu, &mut gvv);
    }
    let adj = |g: &[GVar<f64>]| g.iter().map(|g| g.g).collect::<Vec<_>>();
    y.write(&cy).unwrap();
    let (gyb, gub, gvb) = (
        dev.buffer(&seed).unwrap(),
        dev.zeros::<f64>(N).unwrap(),
        dev.zeros::<f64>(N).unwrap(),
    );
    let gargs = [
        Arg::grad(&y, &gyb),
        Arg::grad(&u, &gub),
        Arg::grad(&v, &gvb),
    ];
    prog.gradient(N, &gargs, Shared::Atomic).unwrap();
    assert_close("gradient: y restored", &y.read().unwrap(), &y0, 1e-12, 1.0);
    assert_close(
        "adjoint of u",
        &gub.read().unwrap(),
        &adj(&gu),
        1e-12,
        1e-300,
    );
    assert_close(
        "adjoint of v",
        &gvb.read().unwrap(),
        &adj(&gvv),
        1e-12,
        1e-300,
    );
}

#[test]
fn each_function_is_cuda() {
    common::check_cuda_syntax::<each_function>();
}
