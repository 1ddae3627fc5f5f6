//! GMM per-point terms on the device agree with the CPU: values with a plain evaluation and
//! with the CPU `#[i]` program; the gradient (shared parameter adjoints, by atomics and by
//! per-thread rows) with the CPU gradient of the same program (1e-12 relative, f64).
mod common;
use common::{assert_close, device};
use nilang_adbench::gmm::{gmm_generate, GmmInput};
use nilang_apps::gmm::lower_index;
use nilang_gpu::kernels::gmm::{
    gmm_point, gmm_shared_gradient_cpu, gmm_terms_cpu, gmm_workspace_sizes,
};
use nilang_gpu::{Arg, Buffer, Device, Precision, Shared};

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

fn buffers(dev: &Device, sizes: &[usize]) -> Vec<Buffer<f64>> {
    sizes
        .iter()
        .map(|&s| dev.zeros::<f64>(s).unwrap())
        .collect()
}

#[test]
fn gmm_terms_and_shared_gradient() {
    let Some(dev) = device() else { return };
    let prog = dev.program::<gmm_point>(Precision::F64).unwrap();
    for (d, k, n) in [(2, 3, 50), (5, 4, 200), (10, 5, 100)] {
        let g = gmm_generate(d, k, n, 7);
        let tri = d * (d + 1) / 2;
        let ws = gmm_workspace_sizes(n, d, k);
        // CPU: the same program, point by point
        let cpu_out = gmm_terms_cpu(&g.alphas, &g.means, &g.icf, &g.x, n, d, k);
        let plain: Vec<f64> = (0..n).map(|i| plain_term(&g, i)).collect();
        assert_close(
            &format!("CPU program vs plain ({d},{k},{n})"),
            &cpu_out,
            &plain,
            1e-12,
            1e-300,
        );
        // device forward
        let out = dev.zeros::<f64>(n).unwrap();
        let w = buffers(&dev, &ws);
        let (a, m, q, x) = (
            dev.buffer(&g.alphas).unwrap(),
            dev.buffer(&g.means).unwrap(),
            dev.buffer(&g.icf).unwrap(),
            dev.buffer(&g.x).unwrap(),
        );
        let mut args: Vec<Arg> = vec![Arg::from(&out)];
        args.extend(w.iter().map(Arg::from));
        args.extend([Arg::from(&a), Arg::from(&m), Arg::from(&q), Arg::from(&x)]);
        args.extend([Arg::Int(d as i64), Arg::Int(k as i64)]);
        prog.forward(n, &args).unwrap();
        assert_close(
            &format!("device terms ({d},{k},{n})"),
            &out.read().unwrap(),
            &cpu_out,
            1e-12,
            1e-300,
        );
        for b in &w {
            assert!(
                b.read().unwrap().iter().all(|v| v.abs() < 1e-12),
                "workspace back to zero"
            );
        }
        // CPU gradient of Σ_i out_i
        let [ga, gm, gq] =
            gmm_shared_gradient_cpu(&cpu_out, &g.alphas, &g.means, &g.icf, &g.x, n, d, k);
        for shared in [Shared::Atomic, Shared::Rows] {
            out.write(&cpu_out).unwrap();
            let gout_d = dev.buffer(&vec![1.0; n]).unwrap();
            let gws = buffers(&dev, &ws);
            let (gad, gmd, gqd) = (
                dev.zeros::<f64>(k).unwrap(),
                dev.zeros::<f64>(k * d).unwrap(),
                dev.zeros::<f64>(k * tri).unwrap(),
            );
            let mut args: Vec<Arg> = vec![Arg::grad(&out, &gout_d)];
            args.extend(w.iter().zip(&gws).map(|(v, g)| Arg::grad(v, g)));
            args.extend([
                Arg::grad(&a, &gad),
                Arg::grad(&m, &gmd),
                Arg::grad(&q, &gqd),
                Arg::from(&x),
            ]);
            args.extend([Arg::Int(d as i64), Arg::Int(k as i64)]);
            prog.gradient(n, &args, shared).unwrap();
            let tag = format!("({d},{k},{n}) {shared:?}");
            assert_close(
                &format!("d/dalpha {tag}"),
                &gad.read().unwrap(),
                &ga,
                1e-12,
                1e-300,
            );
            assert_close(
                &format!("d/dmu {tag}"),
                &gmd.read().unwrap(),
                &gm,
                1e-12,
                1e-300,
            );
            assert_close(
                &format!("d/dicf {tag}"),
                &gqd.read().unwrap(),
                &gq,
                1e-12,
                1e-300,
            );
            assert!(
                out.read().unwrap().iter().all(|v| v.abs() < 1e-12),
                "outputs uncomputed"
            );
        }
    }
}
