//! GMM per-point terms on the device agree with the CPU: values with a plain evaluation and
//! with the CPU `#[i]` program; the gradient (shared parameter adjoints, by atomics and by
//! per-thread rows) with the CPU gradient of the same program (1e-12 relative, f64).
mod common;
use common::{assert_close, device, max_abs, to32, up, Conv};
use nilang::prelude::Ordered;
use nilang::GVar;
use nilang_adbench::gmm::{gmm_generate, GmmInput};
use nilang_apps::gmm::lower_index;
use nilang_gpu::kernels::gmm::{gmm_point, gmm_workspace_sizes, GmmCpu};
use nilang_gpu::{Arg, Buffer, Device, Elem, Precision, Shared};

/// Point `i`'s log-sum-exp term, plainly.
fn plain_term(g: &GmmInput, i: usize) -> f64 {
    let (d, k) = (g.d, g.k);
    let tri = d * (d + 1) / 2;
    let mains: Vec<f64> = (0..k)
        .map(|c| {
            let q = &g.icf[c * tri..c * tri + d];
            let l = &g.icf[c * tri + d..(c + 1) * tri];
            let xc: Vec<f64> = (0..d)
                .map(|r| g.x[i * d + r] - g.means[c * d + r])
                .collect();
            let mut sq = 0.0;
            for r in 0..d {
                let mut y = q[r].exp() * xc[r];
                for col in 0..r {
                    y += l[lower_index(d, r, col)] * xc[col];
                }
                sq += y * y;
            }
            g.alphas[c] + q.iter().sum::<f64>() - 0.5 * sq
        })
        .collect();
    let mx = mains.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    mains.iter().map(|m| (m - mx).exp()).sum::<f64>().ln() + mx
}

/// The device's terms and shared gradients in `T` against the CPU program in `T`
/// (`conv`/`back`: to and from `f64`); relative tolerance `tol` (norm-wise for the gradients:
/// sums over all points).
fn check<T: Elem + Ordered>(dev: &Device, precision: Precision, (conv, back): Conv<T>, tol: f64)
where
    GVar<T>: Ordered,
{
    let prog = dev.program::<gmm_point>(precision).unwrap();
    for (d, k, n) in [(2, 3, 50), (5, 4, 200), (10, 5, 100)] {
        let g = gmm_generate(d, k, n, 7);
        let ws = gmm_workspace_sizes(n, d, k);
        let (alpha, mu, icf, x) = (conv(&g.alphas), conv(&g.means), conv(&g.icf), conv(&g.x));
        // CPU: the same program, point by point
        let cpu_prob = GmmCpu {
            alpha: &alpha,
            mu: &mu,
            icf: &icf,
            x: &x,
            d,
            k,
        };
        let cpu_out = cpu_prob.terms();
        let plain: Vec<f64> = (0..n).map(|i| plain_term(&g, i)).collect();
        let tag = format!("({d},{k},{n}) {precision:?}");
        let vs_plain = if precision == Precision::F64 {
            1e-12
        } else {
            1e-5
        };
        let cpu = back(&cpu_out);
        assert_close(
            &format!("CPU program vs plain {tag}"),
            &cpu,
            &plain,
            vs_plain,
            1.0,
        );
        // device forward
        let out = dev.zeros::<T>(n).unwrap();
        let w: Vec<Buffer<T>> = ws.iter().map(|&s| dev.zeros(s).unwrap()).collect();
        let params = [&alpha, &mu, &icf].map(|v| dev.buffer(v).unwrap());
        let xb = dev.buffer(&x).unwrap();
        let ints = [Arg::Int(d as i64), Arg::Int(k as i64)];
        let mut args: Vec<Arg> = vec![Arg::from(&out)];
        args.extend(w.iter().chain(&params).chain([&xb]).map(Arg::from));
        args.extend(ints);
        prog.forward(n, &args).unwrap();
        let got = back(&out.read().unwrap());
        assert_close(&format!("device terms {tag}"), &got, &cpu, tol, 1e-300);
        // uncomputed: back to zero up to the rounding of the values they held
        let zero_tol = if precision == Precision::F64 {
            1e-12
        } else {
            1e-3
        };
        for b in &w {
            let left = max_abs(&back(&b.read().unwrap()));
            assert!(left < zero_tol, "workspace back to zero: {left:e}");
        }
        // CPU gradient of Σ_i out_i
        let cpu_grad = cpu_prob.shared_gradient(&cpu_out);
        for shared in [Shared::Atomic, Shared::Rows] {
            out.write(&cpu_out).unwrap();
            let gout = dev.buffer(&vec![T::lit(1.0); n]).unwrap();
            let gws: Vec<Buffer<T>> = ws.iter().map(|&s| dev.zeros(s).unwrap()).collect();
            let gparams = params.each_ref().map(|p| dev.zeros::<T>(p.len()).unwrap());
            let mut args: Vec<Arg> = vec![Arg::grad(&out, &gout)];
            args.extend(w.iter().zip(&gws).map(|(v, g)| Arg::grad(v, g)));
            args.extend(params.iter().zip(&gparams).map(|(v, g)| Arg::grad(v, g)));
            args.push(Arg::from(&xb));
            args.extend(ints);
            prog.gradient(n, &args, shared).unwrap();
            for (name, (gd, want)) in ["alpha", "mu", "icf"]
                .iter()
                .zip(gparams.iter().zip(&cpu_grad))
            {
                let (got, want) = (back(&gd.read().unwrap()), back(want));
                let what = format!("d/d{name} {tag} {shared:?}");
                assert_close(&what, &got, &want, tol, max_abs(&want));
            }
            let left = max_abs(&back(&out.read().unwrap()));
            assert!(left < zero_tol, "outputs uncomputed: {left:e}");
        }
    }
}

#[test]
fn gmm_terms_and_shared_gradient() {
    let Some(dev) = device() else { return };
    let id = <[f64]>::to_vec;
    check::<f64>(&dev, Precision::F64, (id, id), 1e-12);
}

/// f32: against the CPU program on `f32`/`GVar<f32>`. Both round every operation to `f32` in
/// the same order, but `exp`/`log` of the device (OpenCL allows 3 ulp) may differ from Rust's by
/// an ulp, and the shared adjoints are sums over all points added in another order: 1e-5
/// relative (≈ 80 ulp), norm-wise for the gradients.
#[test]
fn gmm_terms_and_shared_gradient_f32() {
    let Some(dev) = device() else { return };
    check::<f32>(&dev, Precision::F32, (to32, up), 1e-5);
}

#[test]
fn cuda_source_compiles() {
    common::check_cuda_syntax::<gmm_point>();
}
