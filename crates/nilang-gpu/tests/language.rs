//! The device programs of a kernel that uses every supported construct agree with the CPU
//! `#[i]` program: forward, inverse (back to the inputs) and gradient, in f64 (1e-12
//! relative) and f32; shared-read adjoints by atomics and by per-thread rows.
mod common;
use common::{assert_close, device, max_abs, seq, to32, up, Conv};
use nilang::prelude::*;
use nilang::GVar;
use nilang_gpu::{Arg, Buffer, Device, Elem, Precision, Shared};

/// `out += a · b` (a device function called by the kernel).
#[i(device)]
fn mulacc<T: Scalar>(out: &mut T, a: &mut T, b: &mut T) {
    out += a * b;
}

/// `out += x²` through an ancilla and a routine.
#[i(device)]
fn square_into<T: Scalar>(out: &mut T, x: &mut T) {
    routine! {
        let s = T::default();
        s += abs2(x);
    }
    out += s;
    unroutine!();
}

#[i(kernel)]
fn mix<T: Ordered>(t: usize, y: &mut [T], x: &mut [T], p: &mut [T], w: &[T], idx: &[usize], a: T) {
    let s = T::default();
    let c = T::default();
    let k = 0i64;
    routine! {
        s += sin(x[t]);
        c += cos(x[t]);
        s += x[t] / a;
        s += w[idx[t]] * p[idx[t]];
        c += p[0].powi(3);
        c += tanh(p[1]);
    }
    if (s.value() > 0.0, _) {
        y[t] += s * c;
        y[t] += exp(c);
    } else {
        y[t] -= sqrt(p[2]);
        y[t] += abs2(s);
    }
    unroutine!();
    dealloc!(c = T::default());
    dealloc!(s = T::default());
    for j in 0..3 {
        mulacc(&mut y[t], &mut p[j], &mut x[t]);
    }
    for j in (0..4).step_by(2).rev() {
        y[t] += p[j] * x[t];
    }
    #[from(k == 0)]
    while k < 3 {
        k += 1;
        square_into(&mut y[t], &mut p[3]);
        y[t] += atan2(p[4], x[t]);
    }
    dealloc!(k = 3i64);
    inv! { mulacc(&mut y[t], &mut p[5], &mut p[6]) }
    match t % 3 {
        0 => y[t] += x[t] * p[7],
        1 | 2 => y[t] -= p[7],
        _ => {}
    }
    let u = T::lit(2.5);
    y[t] += hypot(u, x[t]);
    u -= 0.5;
    y[t] += ln(u);
    u += 0.5;
    dealloc!(u = T::lit(2.5));
    SWAP(&mut x[t], &mut x[t + N_THREADS]);
    NEG(&mut x[t]);
}

const N_THREADS: usize = 37;

struct Data {
    y: Vec<f64>,
    x: Vec<f64>,
    p: Vec<f64>,
    w: Vec<f64>,
    idx: Vec<usize>,
    a: f64,
}

fn data() -> Data {
    let n = N_THREADS;
    let mut p = seq(8, 3, 0.2, 1.5);
    p[2] = 0.7;
    Data {
        y: seq(n, 1, -1.0, 1.0),
        x: seq(2 * n, 2, -2.0, 2.0),
        p,
        w: seq(n, 4, -1.0, 1.0),
        idx: (0..n).map(|t| (t * 5) % 8).collect(),
        a: 1.7,
    }
}

fn g(v: &[f64], adj: &[f64]) -> Vec<GVar<f64>> {
    v.iter().zip(adj).map(|(&x, &g)| GVar::new(x, g)).collect()
}

/// The device programs of `mix` in `T` against the CPU program in `T` (`GVar<T>` for the
/// gradient): forward, inverse, gradient with `p` shared (both ways). `tol`: relative
/// tolerance of values and adjoints (norm-wise for the shared `p`); `x` is only swapped and
/// negated, so it must come back exactly.
fn check_mix<T: Elem + Ordered>(dev: &Device, precision: Precision, (conv, back): Conv<T>, tol: f64)
where
    GVar<T>: Ordered,
{
    let prog = dev.program::<mix>(precision).unwrap();
    let (d0, n) = (data(), N_THREADS);
    let (y0, x0, p0, w0, a) = (
        conv(&d0.y),
        conv(&d0.x),
        conv(&d0.p),
        conv(&d0.w),
        T::lit(d0.a),
    );
    let (mut cy, mut cx, mut cp) = (y0.clone(), x0.clone(), p0.clone());
    for t in 0..n {
        mix(t, &mut cy, &mut cx, &mut cp, &w0, &d0.idx, a);
    }
    let [y, x, p, w] = [&y0, &x0, &p0, &w0].map(|v| dev.buffer(v).unwrap());
    let idx = dev.buffer(&d0.idx).unwrap(); // `usize` elements: `&[usize]` on the device
    let args = [
        Arg::from(&y),
        Arg::from(&x),
        Arg::from(&p),
        Arg::from(&w),
        Arg::from(&idx),
        Arg::Real(d0.a),
    ];
    let read = |b: &Buffer<T>| back(&b.read().unwrap());
    let tag = format!("{precision:?}");
    prog.forward(n, &args).unwrap();
    assert_close(&format!("{tag} forward y"), &read(&y), &back(&cy), tol, 1.0);
    assert_close(
        &format!("{tag} forward x"),
        &read(&x),
        &back(&cx),
        0.0,
        1e-30,
    );
    assert_eq!(read(&p), back(&p0), "p is only read");
    prog.inverse(n, &args).unwrap();
    assert_close(&format!("{tag} inverse y"), &read(&y), &back(&y0), tol, 1.0);
    assert_close(
        &format!("{tag} inverse x"),
        &read(&x),
        &back(&x0),
        0.0,
        1e-30,
    );
    // gradient of sum(y · seed) w.r.t. x and p (p shared: read by every thread)
    let seed = conv(&seq(n, 9, 0.5, 1.5));
    let gv = |v: &[T], s: &[T]| {
        v.iter()
            .zip(s)
            .map(|(&x, &g)| GVar::new(x, g))
            .collect::<Vec<_>>()
    };
    let zeros = |m: usize| vec![T::default(); m];
    let (mut gy, mut gx, mut gp) = (gv(&cy, &seed), gv(&cx, &zeros(2 * n)), gv(&cp, &zeros(8)));
    let gw: Vec<GVar<T>> = w0.iter().map(|&v| GVar::from(v)).collect();
    for t in (0..n).rev() {
        mix_inv(t, &mut gy, &mut gx, &mut gp, &gw, &d0.idx, GVar::from(a));
    }
    let adjs = |v: &[GVar<T>]| back(&v.iter().map(|g| g.g).collect::<Vec<_>>());
    // f64 element-wise; f32 with a floor for entries near zero (norm-wise for shared sums)
    let f64 = precision == Precision::F64;
    let small = if f64 { 1e-300 } else { 1e-6 };
    for shared in [Shared::Atomic, Shared::Rows] {
        y.write(&cy).unwrap();
        x.write(&cx).unwrap();
        let gyb = dev.buffer(&seed).unwrap();
        let (gxb, gpb) = (dev.zeros::<T>(2 * n).unwrap(), dev.zeros::<T>(8).unwrap());
        let gargs = [
            Arg::grad(&y, &gyb),
            Arg::grad(&x, &gxb),
            Arg::grad(&p, &gpb),
            Arg::from(&w),
            Arg::from(&idx),
            Arg::Real(d0.a),
        ];
        prog.gradient(n, &gargs, shared).unwrap();
        let tag = format!("{tag} {shared:?}");
        assert_close(
            &format!("{tag}: y restored"),
            &read(&y),
            &back(&y0),
            tol,
            1.0,
        );
        assert_close(
            &format!("{tag}: x restored"),
            &read(&x),
            &back(&x0),
            0.0,
            1e-30,
        );
        assert_close(
            &format!("{tag}: adjoint of y"),
            &read(&gyb),
            &adjs(&gy),
            tol,
            small,
        );
        assert_close(
            &format!("{tag}: adjoint of x"),
            &read(&gxb),
            &adjs(&gx),
            tol,
            small,
        );
        let want = adjs(&gp);
        let what = format!("{tag}: adjoint of shared p");
        let floor = if f64 { 1e-300 } else { max_abs(&want) };
        assert_close(&what, &read(&gpb), &want, tol, floor);
    }
}

#[test]
fn forward_inverse_gradient_f64() {
    let Some(dev) = device() else { return };
    let id = <[f64]>::to_vec;
    check_mix::<f64>(&dev, Precision::F64, (id, id), 1e-12);
}

/// f32: against the CPU program on `f32`/`GVar<f32>`. Same operations in the same order, but
/// the device's `sin`, `cos`, `tanh`, `exp`, `atan2`, `hypot`, `log` may differ from Rust's by
/// a few ulp (OpenCL allows up to 4–6 ulp for these in `float`), and atomics add in another
/// order: 2e-5 relative (≈ 170 ulp).
#[test]
fn forward_inverse_gradient_f32() {
    let Some(dev) = device() else { return };
    check_mix::<f32>(&dev, Precision::F32, (to32, up), 2e-5);
}

#[test]
fn argument_errors_are_values() {
    let Some(dev) = device() else { return };
    let prog = dev.program::<mix>(Precision::F64).unwrap();
    let y = dev.zeros::<f64>(4).unwrap();
    let e = prog.forward(4, &[Arg::from(&y)]).unwrap_err();
    assert!(e.to_string().contains("1 arguments given"), "{e}");
    let i = dev.zeros::<u64>(4).unwrap();
    // an integer buffer for `y`, then plain slices where the gradient needs value/adjoint pairs
    let wrong = |first| {
        [
            first,
            Arg::from(&y),
            Arg::from(&y),
            Arg::from(&y),
            Arg::from(&i),
            Arg::Real(1.0),
        ]
    };
    let e = prog.forward(4, &wrong(Arg::from(&i))).unwrap_err();
    assert!(e.to_string().contains("`y`"), "{e}");
    let e = prog
        .gradient(4, &wrong(Arg::from(&y)), Shared::Atomic)
        .unwrap_err();
    assert!(e.to_string().contains("Arg::grad"), "{e}");
    assert!(matches!(
        dev.program::<mulacc>(Precision::F64),
        Err(nilang_gpu::GpuError::NotAKernel("mulacc"))
    ));
}

#[test]
fn shared_params_are_detected() {
    use nilang::kernel::{DeviceCode, ParamKind};
    let kinds: Vec<ParamKind> = mix::PARAMS.iter().map(|p| p.kind).collect();
    assert_eq!(kinds[0], ParamKind::Thread);
    assert_eq!(kinds[1], ParamKind::RealSliceMut { shared: false });
    assert_eq!(kinds[2], ParamKind::RealSliceMut { shared: false });
    assert_eq!(kinds[3], ParamKind::RealSliceMut { shared: true });
    assert_eq!(kinds[4], ParamKind::RealSlice);
    assert_eq!(
        kinds[5],
        ParamKind::IntSlice {
            bytes: 8,
            signed: false
        }
    );
    assert_eq!(kinds[6], ParamKind::Real);
}

/// The built-ins the kernel above does not use.
#[i(kernel)]
fn builtins<T: Scalar>(t: usize, y: &mut [T], x: &mut [T], z: &mut [T], w: &mut [T]) {
    y[t] += tan(x[t]);
    y[t] += asin(z[t]);
    y[t] += acos(z[t]);
    y[t] += atan(x[t]);
    y[t] += sinh(x[t]);
    y[t] -= cosh(z[t]);
    y[t] += ln_1p(z[t]);
    y[t] += exp_m1(x[t]);
    y[t] += abs(x[t]);
    y[t] += sqdiff(x[t], z[t]);
    y[t] += recip(x[t]);
    y[t] += powf(w[t], x[t]);
    y[t] += min(x[t], z[t]);
    y[t] += max(x[t], z[t]);
    y[t] -= -x[t];
    y[t] += x[t] - z[t];
}

#[test]
fn every_builtin_gradient_f64() {
    let Some(dev) = device() else { return };
    let prog = dev.program::<builtins>(Precision::F64).unwrap();
    let n = 64;
    let mut xs = seq(n, 31, 0.1, 1.2);
    for (t, v) in xs.iter_mut().enumerate() {
        if t % 2 == 1 {
            *v = -*v;
        }
    }
    let (ys, zs, ws) = (
        seq(n, 32, -1.0, 1.0),
        seq(n, 33, -0.9, 0.9),
        seq(n, 34, 0.5, 2.0),
    );
    let (mut cy, mut cx, mut cz, mut cw) = (ys.clone(), xs.clone(), zs.clone(), ws.clone());
    for t in 0..n {
        builtins(t, &mut cy, &mut cx, &mut cz, &mut cw);
    }
    let (y, x, z, w) = (
        dev.buffer(&ys).unwrap(),
        dev.buffer(&xs).unwrap(),
        dev.buffer(&zs).unwrap(),
        dev.buffer(&ws).unwrap(),
    );
    let args = [Arg::from(&y), Arg::from(&x), Arg::from(&z), Arg::from(&w)];
    prog.forward(n, &args).unwrap();
    assert_close("builtins forward", &y.read().unwrap(), &cy, 1e-12, 1e-300);
    let seed = seq(n, 35, 0.5, 1.5);
    let (mut gy, mut gx, mut gz, mut gw) = (
        g(&cy, &seed),
        g(&xs, &[0.0; 64]),
        g(&zs, &[0.0; 64]),
        g(&ws, &[0.0; 64]),
    );
    for t in (0..n).rev() {
        builtins_inv(t, &mut gy, &mut gx, &mut gz, &mut gw);
    }
    let bufs: Vec<_> = (0..4).map(|_| dev.zeros::<f64>(n).unwrap()).collect();
    bufs[0].write(&seed).unwrap();
    let gargs = [
        Arg::grad(&y, &bufs[0]),
        Arg::grad(&x, &bufs[1]),
        Arg::grad(&z, &bufs[2]),
        Arg::grad(&w, &bufs[3]),
    ];
    prog.gradient(n, &gargs, Shared::Atomic).unwrap();
    let adjs = |v: &[GVar<f64>]| v.iter().map(|g| g.g).collect::<Vec<_>>();
    for (k, (name, cpu)) in [("x", &gx), ("z", &gz), ("w", &gw)].into_iter().enumerate() {
        assert_close(
            &format!("adjoint of {name}"),
            &bufs[k + 1].read().unwrap(),
            &adjs(cpu),
            1e-12,
            1e-300,
        );
    }
    assert_close("y restored", &y.read().unwrap(), &ys, 1e-12, 1.0);
}

#[test]
fn cuda_source_compiles() {
    common::check_cuda_syntax::<mix>();
    common::check_cuda_syntax::<builtins>();
}
