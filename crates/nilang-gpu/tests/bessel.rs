//! The Bessel batches on the device agree with `nilang_apps::bessel` on the CPU: values,
//! inverse, and the gradient `dJ_ν/dz`.
mod common;
use common::{assert_close, device, seq, to32, up, Conv};
use nilang::instr::fns::PowiN;
use nilang::instr::PlusEq1;
use nilang::prelude::Ordered;
use nilang::GVar;
use nilang_apps::bessel::{
    factorial, ibesselj, ibesselj_inv, ibesselj_n, ibesselj_n_inv, series_ratios,
};
use nilang_gpu::kernels::bessel::{besselj_batch, besselj_n_batch, MAX_TERMS};
use nilang_gpu::{Arg, Device, Elem, Precision, Shared};

/// The numbers `ibesselj_n` runs on for the orders 0..=3 tested.
trait BesselNum:
    Ordered
    + PlusEq1<PowiN<0>, Self>
    + PlusEq1<PowiN<1>, Self>
    + PlusEq1<PowiN<2>, Self>
    + PlusEq1<PowiN<3>, Self>
{
}
impl<T> BesselNum for T where
    T: Ordered
        + PlusEq1<PowiN<0>, T>
        + PlusEq1<PowiN<1>, T>
        + PlusEq1<PowiN<2>, T>
        + PlusEq1<PowiN<3>, T>
{
}

/// `ibesselj_n::<T, NU>` and its gradient `dJ/dz` (by `ibesselj_n_inv` on `GVar<T>`) on the
/// CPU, for `T = f64` and `f32`.
fn cpu_n<T: BesselNum>(nu: usize, z: T) -> (T, T)
where
    GVar<T>: BesselNum,
{
    fn run<T, const NU: i32>(z: T) -> (T, T)
    where
        T: Ordered + PlusEq1<PowiN<NU>, T>,
        GVar<T>: Ordered,
        GVar<T>: PlusEq1<PowiN<NU>, GVar<T>>,
    {
        let (mut out, mut zz) = (T::default(), z);
        ibesselj_n::<T, NU>(&mut out, &mut zz);
        let (mut og, mut zg) = (GVar::new(out, T::lit(1.0)), GVar::new(z, T::default()));
        ibesselj_n_inv::<GVar<T>, NU>(&mut og, &mut zg);
        (out, zg.g)
    }
    match nu {
        0 => run::<T, 0>(z),
        1 => run::<T, 1>(z),
        2 => run::<T, 2>(z),
        3 => run::<T, 3>(z),
        _ => unreachable!("orders 0..=3 are tested"),
    }
}

/// `besselj_n_batch` on the device in `T` against `ibesselj_n::<T, NU>` on the CPU for
/// orders 0..=3 and `n` arguments in `(0.05, zmax)`: values, the exact inverse, `dJ/dz`
/// (relative tolerance `tol`); `conv`/`back`: to and from `f64`.
fn check_n_batch<T: Elem + BesselNum + std::fmt::Debug>(
    dev: &Device,
    precision: Precision,
    (conv, back): Conv<T>,
    zmax: f64,
    tol: f64,
) -> Vec<(Vec<T>, Vec<f64>)>
where
    GVar<T>: BesselNum,
{
    let prog = dev.program::<besselj_n_batch>(precision).unwrap();
    let n = 1000;
    let mut values = vec![];
    for nu in [0usize, 1, 2, 3] {
        let zs = conv(&seq(n, 21 + nu as u64, 0.05, zmax));
        let (vals, grads): (Vec<T>, Vec<T>) = zs.iter().map(|&z| cpu_n(nu, z)).unzip();
        let out = dev.zeros::<T>(n).unwrap();
        let z = dev.buffer(&zs).unwrap();
        let terms = dev.zeros::<T>(n * MAX_TERMS).unwrap();
        let ratios = dev.buffer(&conv(&series_ratios(nu))).unwrap();
        let inv_fact = 1.0 / factorial(nu);
        let ints = [Arg::Int(nu as i64), Arg::Real(inv_fact)];
        let args = [
            Arg::from(&out),
            Arg::from(&z),
            Arg::from(&terms),
            Arg::from(&ratios),
            ints[0],
            ints[1],
        ];
        prog.forward(n, &args).unwrap();
        let what = format!("{precision:?} J_{nu}(z)");
        assert_close(&what, &back(&out.read().unwrap()), &back(&vals), tol, 1e-30);
        let zero = T::default();
        assert!(
            terms.read().unwrap().iter().all(|&t| t == zero),
            "workspace back to zero"
        );
        prog.inverse(n, &args).unwrap();
        assert!(
            out.read().unwrap().iter().all(|&o| o == zero),
            "the inverse is exact"
        );
        out.write(&vals).unwrap();
        let (gout, gz) = (
            dev.buffer(&vec![T::lit(1.0); n]).unwrap(),
            dev.zeros::<T>(n).unwrap(),
        );
        let gterms = dev.zeros::<T>(n * MAX_TERMS).unwrap();
        let gargs = [
            Arg::grad(&out, &gout),
            Arg::grad(&z, &gz),
            Arg::grad(&terms, &gterms),
            Arg::from(&ratios),
            ints[0],
            ints[1],
        ];
        prog.gradient(n, &gargs, Shared::Atomic).unwrap();
        let what = format!("{precision:?} dJ_{nu}/dz");
        assert_close(&what, &back(&gz.read().unwrap()), &back(&grads), tol, 1e-30);
        assert_eq!(z.read().unwrap(), zs, "z restored by the gradient program");
        values.push((zs, back(&vals)));
    }
    values
}

#[test]
fn bessel_n_batch_matches_cpu_f64() {
    let Some(dev) = device() else { return };
    let id = <[f64]>::to_vec;
    check_n_batch::<f64>(&dev, Precision::F64, (id, id), 12.0, 1e-12);
}

/// f32: the device agrees with `ibesselj_n::<f32, NU>` on the CPU. Both round every operation
/// to `f32` in the same order (no contraction) and the kernel uses only `+ − × ÷` and `powi`
/// (by squaring), correctly rounded on both sides, so the tolerance is a few ulp: 1e-6
/// relative (≈ 8 ulp of `f32`).
#[test]
fn bessel_n_batch_matches_cpu_f32() {
    let Some(dev) = device() else { return };
    let runs = check_n_batch::<f32>(&dev, Precision::F32, (to32, up), 8.0, 1e-6);
    // against f64: the f32 program's own rounding error (absolute, |J| ≤ 1), which the
    // series' cancellation for larger z makes larger than a few ulp
    for (nu, (zs, vals)) in runs.iter().enumerate() {
        let exact: Vec<f64> = zs.iter().map(|&z| cpu_n(nu, f64::from(z)).0).collect();
        assert_close(&format!("f32 J_{nu} vs f64"), vals, &exact, 3e-5, 1.0);
    }
}

#[test]
fn bessel_paper_batch_matches_cpu_to_atol() {
    let Some(dev) = device() else { return };
    let prog = dev.program::<besselj_batch>(Precision::F64).unwrap();
    let n = 500;
    for nu in [0usize, 2] {
        let zs = seq(n, 11 + nu as u64, 0.05, 6.0);
        let mut outs = vec![0.0; n];
        let mut grads = vec![0.0; n];
        for t in 0..n {
            let mut z = zs[t];
            ibesselj(&mut outs[t], nu, &mut z);
            let (mut og, mut zg) = (GVar::new(outs[t], 1.0), GVar::new(zs[t], 0.0));
            ibesselj_inv(&mut og, nu, &mut zg);
            grads[t] = zg.g;
        }
        let out = dev.zeros::<f64>(n).unwrap();
        let z = dev.buffer(&zs).unwrap();
        let fact = factorial(nu);
        let args = [
            Arg::from(&out),
            Arg::from(&z),
            Arg::Int(nu as i64),
            Arg::Real(fact),
        ];
        prog.forward(n, &args).unwrap();
        // the series may stop one term apart (see the kernel's docs): the value moves by ≈ ATOL
        let dev_out = out.read().unwrap();
        for (a, b) in dev_out.iter().zip(&outs) {
            assert!((a - b).abs() < 1e-7, "J_{nu}: {a} vs {b}");
        }
        out.write(&outs).unwrap();
        let (gout, gz) = (
            dev.buffer(&vec![1.0; n]).unwrap(),
            dev.zeros::<f64>(n).unwrap(),
        );
        let gargs = [
            Arg::grad(&out, &gout),
            Arg::grad(&z, &gz),
            Arg::Int(nu as i64),
            Arg::Real(fact),
        ];
        prog.gradient(n, &gargs, Shared::Atomic).unwrap();
        // The gradient is as sensitive to the stop as the paper's algorithm is: on the CPU, a
        // change of z by one ulp moves it by up to 6.2e-6 (ν = 0) and 2.7e-6 (ν = 2) on these
        // points, and it lies within 3.9e-6 of the true J_ν' (measured at stop 37). So the
        // device and the CPU are each checked against the true derivative, to 1e-5 (a lost or
        // doubled term of the series would be off by ~1e-2 and more).
        for ((a, b), &zt) in gz.read().unwrap().iter().zip(&grads).zip(&zs) {
            let exact = besselj_prime_exact(nu as u32, zt);
            assert!(
                (b - exact).abs() < 1e-5,
                "CPU dJ_{nu}/dz({zt}): {b} vs exact {exact}"
            );
            assert!(
                (a - exact).abs() < 1e-5,
                "device dJ_{nu}/dz({zt}): {a} vs exact {exact} (CPU {b})"
            );
        }
    }
}

/// J_ν(z) by the series summed until a term no longer changes the sum (no truncation).
fn besselj_converged(nu: u32, z: f64) -> f64 {
    let h2 = 0.25 * z * z;
    let mut t = (0.5 * z).powi(nu as i32) / (1..=nu).map(f64::from).product::<f64>();
    let mut out = t;
    for k in 1u32.. {
        t *= -(h2 / f64::from(k * (k + nu)));
        if out + t == out {
            break;
        }
        out += t;
    }
    out
}

/// J_ν'(z) from the converged series: (J_{ν-1} − J_{ν+1}) / 2, and J_0' = −J_1.
fn besselj_prime_exact(nu: u32, z: f64) -> f64 {
    if nu == 0 {
        -besselj_converged(1, z)
    } else {
        0.5 * (besselj_converged(nu - 1, z) - besselj_converged(nu + 1, z))
    }
}

#[test]
fn cuda_source_compiles() {
    common::check_cuda_syntax::<besselj_batch>();
    common::check_cuda_syntax::<besselj_n_batch>();
}
