//! The CUDA backend: discovery never panics; where a CUDA device is present (skipped with one
//! printed line elsewhere, unless `NILANG_REQUIRE_CUDA=1`), `Device::first` picks it and a
//! kernel's forward, inverse and gradient (shared adjoints both ways) run on it in `f64` and
//! `f32` and agree with the CPU. (Every other test of this crate also runs on CUDA there:
//! they take `Device::first()`.)
mod common;
use common::{assert_close, max_abs, seq, to32, up};
use nilang::prelude::*;
use nilang::GVar;
use nilang_gpu::{Arg, Backend, Device, GpuError, Precision, Shared};

/// `y[t] += x[t]² + a · x[t] + w[t mod 4] · x[t]`, `w` shared (read by many threads).
#[i(kernel)]
fn axpy2<T: Scalar>(t: usize, y: &mut [T], x: &mut [T], w: &mut [T], a: T) {
    y[t] += x[t].powi(2);
    y[t] += a * x[t];
    y[t] += w[t % 4] * x[t];
}

fn cuda() -> Option<Device> {
    match Device::first_of(Backend::Cuda) {
        Ok(d) => Some(d),
        Err(e) => {
            assert!(
                matches!(
                    e,
                    GpuError::NoLibrary(_) | GpuError::NoDevice | GpuError::Cuda { .. }
                ),
                "{e:?}"
            );
            if std::env::var("NILANG_REQUIRE_CUDA").as_deref() == Ok("1") {
                panic!("NILANG_REQUIRE_CUDA=1 but no CUDA device: {e}");
            }
            println!("skipped (no CUDA device: {e})");
            None
        }
    }
}

#[test]
fn cuda_is_preferred_when_present() {
    let Some(dev) = cuda() else { return };
    assert_eq!(dev.backend(), Backend::Cuda);
    assert!(dev.is_gpu() && dev.supports_f64());
    if std::env::var("NILANG_GPU_BACKEND").is_err() {
        assert_eq!(Device::first().unwrap().backend(), Backend::Cuda);
    }
    assert!(Device::all()
        .unwrap()
        .iter()
        .any(|d| d.backend() == Backend::Cuda));
}

#[test]
fn kernel_on_cuda_f64_and_f32() {
    let Some(dev) = cuda() else { return };
    let n = 1000;
    let (y0, x0, w0, a) = (
        seq(n, 1, -1.0, 1.0),
        seq(n, 2, -2.0, 2.0),
        seq(4, 3, 0.0, 1.0),
        0.7,
    );
    // the CPU program and its gradient (seed 1 on every y)
    let (mut y, mut x, mut w) = (y0.clone(), x0.clone(), w0.clone());
    for t in 0..n {
        axpy2(t, &mut y, &mut x, &mut w, a);
    }
    let gv = |v: &[f64], g: f64| v.iter().map(|&x| GVar::new(x, g)).collect::<Vec<_>>();
    let (mut gy, mut gx, mut gw) = (gv(&y, 1.0), gv(&x0, 0.0), gv(&w0, 0.0));
    for t in (0..n).rev() {
        axpy2_inv(t, &mut gy, &mut gx, &mut gw, GVar::from(a));
    }
    let adj = |v: &[GVar<f64>]| v.iter().map(|g| g.g).collect::<Vec<_>>();
    // f64
    let prog = dev.program::<axpy2>(Precision::F64).unwrap();
    assert!(prog.source().contains("extern \"C\" __global__"));
    let (yb, xb, wb) = (
        dev.buffer(&y0).unwrap(),
        dev.buffer(&x0).unwrap(),
        dev.buffer(&w0).unwrap(),
    );
    let args = [Arg::from(&yb), Arg::from(&xb), Arg::from(&wb), Arg::Real(a)];
    prog.forward(n, &args).unwrap();
    assert_close("CUDA forward", &yb.read().unwrap(), &y, 1e-12, 1e-300);
    prog.inverse(n, &args).unwrap();
    assert_close("CUDA inverse", &yb.read().unwrap(), &y0, 1e-12, 1.0);
    for shared in [Shared::Atomic, Shared::Rows] {
        yb.write(&y).unwrap();
        let (gyb, gxb, gwb) = (
            dev.buffer(&vec![1.0; n]).unwrap(),
            dev.zeros::<f64>(n).unwrap(),
            dev.zeros::<f64>(4).unwrap(),
        );
        let g = [
            Arg::grad(&yb, &gyb),
            Arg::grad(&xb, &gxb),
            Arg::grad(&wb, &gwb),
            Arg::Real(a),
        ];
        prog.gradient(n, &g, shared).unwrap();
        assert_close("CUDA dx", &gxb.read().unwrap(), &adj(&gx), 1e-12, 1e-300);
        assert_close(
            "CUDA dw (shared)",
            &gwb.read().unwrap(),
            &adj(&gw),
            1e-12,
            1e-300,
        );
    }
    // f32 (only + − × and powi by squaring: a few ulp; the shared sums in another order)
    let prog = dev.program::<axpy2>(Precision::F32).unwrap();
    let (yb, xb, wb) = (
        dev.buffer(&to32(&y0)).unwrap(),
        dev.buffer(&to32(&x0)).unwrap(),
        dev.buffer(&to32(&w0)).unwrap(),
    );
    let args = [Arg::from(&yb), Arg::from(&xb), Arg::from(&wb), Arg::Real(a)];
    prog.forward(n, &args).unwrap();
    assert_close("CUDA f32 forward", &up(&yb.read().unwrap()), &y, 1e-5, 1.0);
    let (gyb, gxb, gwb) = (
        dev.buffer(&vec![1f32; n]).unwrap(),
        dev.zeros::<f32>(n).unwrap(),
        dev.zeros::<f32>(4).unwrap(),
    );
    let g = [
        Arg::grad(&yb, &gyb),
        Arg::grad(&xb, &gxb),
        Arg::grad(&wb, &gwb),
        Arg::Real(a),
    ];
    prog.gradient(n, &g, Shared::Atomic).unwrap();
    assert_close(
        "CUDA f32 dx",
        &up(&gxb.read().unwrap()),
        &adj(&gx),
        1e-5,
        1.0,
    );
    let dw = adj(&gw);
    assert_close(
        "CUDA f32 dw",
        &up(&gwb.read().unwrap()),
        &dw,
        1e-5,
        max_abs(&dw),
    );
}

#[test]
fn cuda_source_compiles() {
    common::check_cuda_syntax::<axpy2>();
}

#[test]
fn handles_are_send_and_sync() {
    fn check<T: Send + Sync>() {}
    check::<Device>();
    check::<nilang_gpu::Buffer<f64>>();
    check::<nilang_gpu::Program<axpy2>>();
}
