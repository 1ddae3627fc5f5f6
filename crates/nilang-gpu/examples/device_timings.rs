//! Device timings next to the same `#[i]` programs on one CPU core: the Bessel batch (value,
//! gradient), the BA residuals (value, gradient with shared cameras/points, 2×15 Jacobian
//! blocks) and the GMM per-point terms (value, gradient with shared parameters), the shared
//! adjoints by atomics and by per-thread rows.
//!
//! `cargo run --release -p nilang-gpu --example device_timings [-- SCALE]` (SCALE multiplies
//! the sizes; default 1). Prints one line and exits 0 where there is no OpenCL device.
use nilang::GVar;
use nilang_adbench::gmm::gmm_generate;
use nilang_apps::bessel::{besselj_n_value_grad, factorial, ibesselj_n};
use nilang_gpu::kernels::ba::ba_residual;
use nilang_gpu::kernels::bessel::{besselj_n_batch, MAX_TERMS};
use nilang_gpu::kernels::gmm::{
    gmm_point, gmm_shared_gradient_cpu, gmm_terms_cpu, gmm_workspace_sizes,
};
use nilang_gpu::{Arg, Buffer, Device, Precision, Shared};
use std::time::Instant;

/// The best of `reps` runs of `f`, in seconds.
fn best(reps: usize, mut f: impl FnMut()) -> f64 {
    (0..reps)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64()
        })
        .fold(f64::INFINITY, f64::min)
}

fn seq(n: usize, seed: u64, lo: f64, hi: f64) -> Vec<f64> {
    let mut s = seed;
    (0..n)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            lo + (hi - lo) * ((s >> 11) as f64 / (1u64 << 53) as f64)
        })
        .collect()
}

fn row(case: &str, cell: &str, secs: f64, cpu: f64) {
    println!(
        "{case:<28} {cell:<16} {:>12.3} ms   cpu/device {:>7.2}",
        secs * 1e3,
        cpu / secs
    );
}

fn zeros(dev: &Device, n: usize) -> Buffer<f64> {
    dev.zeros(n).unwrap()
}

fn main() {
    let scale: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(1);
    let dev = match Device::first() {
        Ok(d) => d,
        Err(e) => {
            println!("no OpenCL device: {e}");
            return;
        }
    };
    println!(
        "device: {} ({}, {} compute units, gpu: {}); cpu column: the same program on one core",
        dev.name(),
        dev.platform(),
        dev.compute_units(),
        dev.is_gpu()
    );
    let reps = 5;

    // Bessel batch J_2
    let n = 100_000 * scale;
    let zs = seq(n, 1, 0.05, 12.0);
    let prog = dev.program::<besselj_n_batch>(Precision::F64).unwrap();
    let (out, z, terms) = (
        zeros(&dev, n),
        dev.buffer(&zs).unwrap(),
        zeros(&dev, n * MAX_TERMS),
    );
    let inv_fact = 1.0 / factorial(2);
    let args = [
        Arg::from(&out),
        Arg::from(&z),
        Arg::from(&terms),
        Arg::Int(2),
        Arg::Real(inv_fact),
    ];
    let cpu_o = best(reps, || {
        for &zz in &zs {
            let (mut o, mut z) = (0.0, zz);
            ibesselj_n::<f64, 2>(&mut o, &mut z);
            std::hint::black_box(o);
        }
    });
    let dev_o = best(reps, || {
        prog.forward(n, &args).unwrap();
        prog.inverse(n, &args).unwrap();
    }) / 2.0;
    row(&format!("bessel J2 n={n}"), "gpu-O", dev_o, cpu_o);
    let cpu_g = best(reps, || {
        for &zz in &zs {
            std::hint::black_box(besselj_n_value_grad::<2>(zz));
        }
    });
    let (gout, gz, gterms) = (zeros(&dev, n), zeros(&dev, n), zeros(&dev, n * MAX_TERMS));
    let gargs = [
        Arg::grad(&out, &gout),
        Arg::grad(&z, &gz),
        Arg::grad(&terms, &gterms),
        Arg::Int(2),
        Arg::Real(inv_fact),
    ];
    let dev_g = best(reps, || {
        prog.forward(n, &args).unwrap();
        gout.write(&vec![1.0; n]).unwrap();
        prog.gradient(n, &gargs, Shared::Atomic).unwrap();
    });
    row(&format!("bessel J2 n={n}"), "gpu-G", dev_g, cpu_g);

    // BA: p observations of 50 cameras and 2000 points
    let p = 100_000 * scale;
    let (nc, np) = (50, 2000);
    let cams: Vec<f64> = (0..nc)
        .flat_map(|j| {
            let mut c = seq(11, 10 + j as u64, -0.3, 0.3);
            c[6] += 1.0;
            c
        })
        .collect();
    let pts: Vec<f64> = (0..np)
        .flat_map(|j| {
            let mut x = seq(3, 5000 + j as u64, -1.0, 1.0);
            x[2] += 4.0;
            x
        })
        .collect();
    let w = seq(p, 3, 0.5, 1.5);
    let feats = seq(2 * p, 4, -1.0, 1.0);
    let oc: Vec<u64> = (0..p as u64).map(|i| i % nc as u64).collect();
    let op: Vec<u64> = (0..p as u64).map(|i| (i * 7) % np as u64).collect();
    let prog = dev.program::<ba_residual>(Precision::F64).unwrap();
    let (e, werr) = (zeros(&dev, 2 * p), zeros(&dev, p));
    let (cb, pb, wb, fb) = (
        dev.buffer(&cams).unwrap(),
        dev.buffer(&pts).unwrap(),
        dev.buffer(&w).unwrap(),
        dev.buffer(&feats).unwrap(),
    );
    let (ocb, opb) = (dev.buffer(&oc).unwrap(), dev.buffer(&op).unwrap());
    let args = [
        Arg::from(&e),
        Arg::from(&werr),
        Arg::from(&cb),
        Arg::from(&pb),
        Arg::from(&wb),
        Arg::from(&fb),
        Arg::from(&ocb),
        Arg::from(&opb),
    ];
    let cpu_o = best(reps, || {
        let (mut e, mut z) = (vec![0.0; 2 * p], vec![0.0; p]);
        let (mut c, mut x, mut ww) = (cams.clone(), pts.clone(), w.clone());
        for t in 0..p {
            ba_residual(t, &mut e, &mut z, &mut c, &mut x, &mut ww, &feats, &oc, &op);
        }
        std::hint::black_box(e);
    });
    let dev_o = best(reps, || {
        prog.forward(p, &args).unwrap();
        prog.inverse(p, &args).unwrap();
    }) / 2.0;
    row(&format!("ba residuals p={p}"), "gpu-O", dev_o, cpu_o);
    let (ge, gwerr, gc, gp, gw) = (
        zeros(&dev, 2 * p),
        zeros(&dev, p),
        zeros(&dev, cams.len()),
        zeros(&dev, pts.len()),
        zeros(&dev, p),
    );
    let gargs = [
        Arg::grad(&e, &ge),
        Arg::grad(&werr, &gwerr),
        Arg::grad(&cb, &gc),
        Arg::grad(&pb, &gp),
        Arg::grad(&wb, &gw),
        Arg::from(&fb),
        Arg::from(&ocb),
        Arg::from(&opb),
    ];
    let cpu_g = best(reps.min(3), || {
        let (mut e, mut z) = (vec![0.0; 2 * p], vec![0.0; p]);
        let (mut c, mut x, mut ww) = (cams.clone(), pts.clone(), w.clone());
        for t in 0..p {
            ba_residual(t, &mut e, &mut z, &mut c, &mut x, &mut ww, &feats, &oc, &op);
        }
        let g = |v: &[f64], s: f64| v.iter().map(|&x| GVar::new(x, s)).collect::<Vec<_>>();
        let (mut e, mut z) = (g(&e, 1.0), g(&z, 0.0));
        let (mut c, mut x, mut ww) = (g(&cams, 0.0), g(&pts, 0.0), g(&w, 0.0));
        let f = g(&feats, 0.0);
        for t in (0..p).rev() {
            nilang_gpu::kernels::ba::ba_residual_inv(
                t, &mut e, &mut z, &mut c, &mut x, &mut ww, &f, &oc, &op,
            );
        }
        std::hint::black_box(c);
    });
    for shared in [Shared::Atomic, Shared::Rows] {
        let dev_g = best(reps, || {
            prog.forward(p, &args).unwrap();
            ge.write(&vec![1.0; 2 * p]).unwrap();
            gc.write(&vec![0.0; cams.len()]).unwrap();
            gp.write(&vec![0.0; pts.len()]).unwrap();
            prog.gradient(p, &gargs, shared).unwrap();
        });
        row(
            &format!("ba gradient p={p}"),
            &format!("gpu-G {shared:?}"),
            dev_g,
            cpu_g,
        );
    }
    // Jacobian blocks: gathered cameras/points, two seeded backward passes
    let gcams: Vec<f64> = oc
        .iter()
        .flat_map(|&c| cams[11 * c as usize..11 * c as usize + 11].to_vec())
        .collect();
    let gpts: Vec<f64> = op
        .iter()
        .flat_map(|&q| pts[3 * q as usize..3 * q as usize + 3].to_vec())
        .collect();
    let ident: Vec<u64> = (0..p as u64).collect();
    let (jc, jp, ji) = (
        dev.buffer(&gcams).unwrap(),
        dev.buffer(&gpts).unwrap(),
        dev.buffer(&ident).unwrap(),
    );
    let (gjc, gjp) = (zeros(&dev, gcams.len()), zeros(&dev, gpts.len()));
    let jargs = [
        Arg::from(&e),
        Arg::from(&werr),
        Arg::from(&jc),
        Arg::from(&jp),
        Arg::from(&wb),
        Arg::from(&fb),
        Arg::from(&ji),
        Arg::from(&ji),
    ];
    let jgargs = [
        Arg::grad(&e, &ge),
        Arg::grad(&werr, &gwerr),
        Arg::grad(&jc, &gjc),
        Arg::grad(&jp, &gjp),
        Arg::grad(&wb, &gw),
        Arg::from(&fb),
        Arg::from(&ji),
        Arg::from(&ji),
    ];
    let cpu_j = best(reps.min(3), || {
        for t in 0..p {
            let c = oc[t] as usize;
            let q = op[t] as usize;
            let cam: &[f64; 11] = cams[11 * c..11 * c + 11].try_into().unwrap();
            let x: &[f64; 3] = pts[3 * q..3 * q + 3].try_into().unwrap();
            let f: &[f64; 2] = feats[2 * t..2 * t + 2].try_into().unwrap();
            std::hint::black_box(nilang_apps::ba::ba_block(cam, x, w[t], f));
        }
    });
    let dev_j = best(reps, || {
        for r in 0..2 {
            prog.forward(p, &jargs).unwrap();
            ge.write(
                &(0..2 * p)
                    .map(|k| if k % 2 == r { 1.0 } else { 0.0 })
                    .collect::<Vec<_>>(),
            )
            .unwrap();
            gjc.write(&vec![0.0; gcams.len()]).unwrap();
            gjp.write(&vec![0.0; gpts.len()]).unwrap();
            prog.gradient(p, &jgargs, Shared::Atomic).unwrap();
        }
    });
    row(&format!("ba jacobian p={p}"), "gpu-J", dev_j, cpu_j);

    // GMM per-point terms, d = 10, K = 25
    let (d, k, n) = (10, 25, 10_000 * scale);
    let g = gmm_generate(d, k, n, 1);
    let prog = dev.program::<gmm_point>(Precision::F64).unwrap();
    let sizes = gmm_workspace_sizes(n, d, k);
    let out = zeros(&dev, n);
    let ws: Vec<Buffer<f64>> = sizes.iter().map(|&s| zeros(&dev, s)).collect();
    let (a, m, q, x) = (
        dev.buffer(&g.alphas).unwrap(),
        dev.buffer(&g.means).unwrap(),
        dev.buffer(&g.icf).unwrap(),
        dev.buffer(&g.x).unwrap(),
    );
    let mut args: Vec<Arg> = vec![Arg::from(&out)];
    args.extend(ws.iter().map(Arg::from));
    args.extend([
        Arg::from(&a),
        Arg::from(&m),
        Arg::from(&q),
        Arg::from(&x),
        Arg::Int(d as i64),
        Arg::Int(k as i64),
    ]);
    let cpu_o = best(reps.min(3), || {
        std::hint::black_box(gmm_terms_cpu(&g.alphas, &g.means, &g.icf, &g.x, n, d, k));
    });
    let dev_o = best(reps, || {
        prog.forward(n, &args).unwrap();
        prog.inverse(n, &args).unwrap();
    }) / 2.0;
    row(&format!("bessel J2 n={n}"), "gpu-O", dev_o, cpu_o);
    let cpu_g = best(reps, || {
        for &zz in &zs {
            std::hint::black_box(besselj_n_value_grad::<2>(zz));
        }
    });
    let (gout, gz, gterms) = (zeros(&dev, n), zeros(&dev, n), zeros(&dev, n * MAX_TERMS));
    let gargs = [
        Arg::grad(&out, &gout),
        Arg::grad(&z, &gz),
        Arg::grad(&terms, &gterms),
        Arg::Int(2),
        Arg::Real(inv_fact),
    ];
    let dev_g = best(reps, || {
        prog.forward(n, &args).unwrap();
        gout.write(&vec![1.0; n]).unwrap();
        prog.gradient(n, &gargs, Shared::Atomic).unwrap();
    });
    row(&format!("bessel J2 n={n}"), "gpu-G", dev_g, cpu_g);

    // BA: p observations of 50 cameras and 2000 points
    let p = 100_000 * scale;
    let (nc, np) = (50, 2000);
    let cams: Vec<f64> = (0..nc)
        .flat_map(|j| {
            let mut c = seq(11, 10 + j as u64, -0.3, 0.3);
            c[6] += 1.0;
            c
        })
        .collect();
    let pts: Vec<f64> = (0..np)
        .flat_map(|j| {
            let mut x = seq(3, 5000 + j as u64, -1.0, 1.0);
            x[2] += 4.0;
            x
        })
        .collect();
    let w = seq(p, 3, 0.5, 1.5);
    let feats = seq(2 * p, 4, -1.0, 1.0);
    let oc: Vec<u64> = (0..p as u64).map(|i| i % nc as u64).collect();
    let op: Vec<u64> = (0..p as u64).map(|i| (i * 7) % np as u64).collect();
    let prog = dev.program::<ba_residual>(Precision::F64).unwrap();
    let (e, werr) = (zeros(&dev, 2 * p), zeros(&dev, p));
    let (cb, pb, wb, fb) = (
        dev.buffer(&cams).unwrap(),
        dev.buffer(&pts).unwrap(),
        dev.buffer(&w).unwrap(),
        dev.buffer(&feats).unwrap(),
    );
    let (ocb, opb) = (dev.buffer(&oc).unwrap(), dev.buffer(&op).unwrap());
    let args = [
        Arg::from(&e),
        Arg::from(&werr),
        Arg::from(&cb),
        Arg::from(&pb),
        Arg::from(&wb),
        Arg::from(&fb),
        Arg::from(&ocb),
        Arg::from(&opb),
    ];
    let cpu_o = best(reps, || {
        let (mut e, mut z) = (vec![0.0; 2 * p], vec![0.0; p]);
        let (mut c, mut x, mut ww) = (cams.clone(), pts.clone(), w.clone());
        for t in 0..p {
            ba_residual(t, &mut e, &mut z, &mut c, &mut x, &mut ww, &feats, &oc, &op);
        }
        std::hint::black_box(e);
    });
    let dev_o = best(reps, || {
        prog.forward(p, &args).unwrap();
        prog.inverse(p, &args).unwrap();
    }) / 2.0;
    row(&format!("ba residuals p={p}"), "gpu-O", dev_o, cpu_o);
    let (ge, gwerr, gc, gp, gw) = (
        zeros(&dev, 2 * p),
        zeros(&dev, p),
        zeros(&dev, cams.len()),
        zeros(&dev, pts.len()),
        zeros(&dev, p),
    );
    let gargs = [
        Arg::grad(&e, &ge),
        Arg::grad(&werr, &gwerr),
        Arg::grad(&cb, &gc),
        Arg::grad(&pb, &gp),
        Arg::grad(&wb, &gw),
        Arg::from(&fb),
        Arg::from(&ocb),
        Arg::from(&opb),
    ];
    let cpu_g = best(reps.min(3), || {
        let (mut e, mut z) = (vec![0.0; 2 * p], vec![0.0; p]);
        let (mut c, mut x, mut ww) = (cams.clone(), pts.clone(), w.clone());
        for t in 0..p {
            ba_residual(t, &mut e, &mut z, &mut c, &mut x, &mut ww, &feats, &oc, &op);
        }
        let g = |v: &[f64], s: f64| v.iter().map(|&x| GVar::new(x, s)).collect::<Vec<_>>();
        let (mut e, mut z) = (g(&e, 1.0), g(&z, 0.0));
        let (mut c, mut x, mut ww) = (g(&cams, 0.0), g(&pts, 0.0), g(&w, 0.0));
        let f = g(&feats, 0.0);
        for t in (0..p).rev() {
            nilang_gpu::kernels::ba::ba_residual_inv(
                t, &mut e, &mut z, &mut c, &mut x, &mut ww, &f, &oc, &op,
            );
        }
        std::hint::black_box(c);
    });
    for shared in [Shared::Atomic, Shared::Rows] {
        let dev_g = best(reps, || {
            prog.forward(p, &args).unwrap();
            ge.write(&vec![1.0; 2 * p]).unwrap();
            gc.write(&vec![0.0; cams.len()]).unwrap();
            gp.write(&vec![0.0; pts.len()]).unwrap();
            prog.gradient(p, &gargs, shared).unwrap();
        });
        row(
            &format!("ba gradient p={p}"),
            &format!("gpu-G {shared:?}"),
            dev_g,
            cpu_g,
        );
    }
    // Jacobian blocks: gathered cameras/points, two seeded backward passes
    let gcams: Vec<f64> = oc
        .iter()
        .flat_map(|&c| cams[11 * c as usize..11 * c as usize + 11].to_vec())
        .collect();
    let gpts: Vec<f64> = op
        .iter()
        .flat_map(|&q| pts[3 * q as usize..3 * q as usize + 3].to_vec())
        .collect();
    let ident: Vec<u64> = (0..p as u64).collect();
    let (jc, jp, ji) = (
        dev.buffer(&gcams).unwrap(),
        dev.buffer(&gpts).unwrap(),
        dev.buffer(&ident).unwrap(),
    );
    let (gjc, gjp) = (zeros(&dev, gcams.len()), zeros(&dev, gpts.len()));
    let jargs = [
        Arg::from(&e),
        Arg::from(&werr),
        Arg::from(&jc),
        Arg::from(&jp),
        Arg::from(&wb),
        Arg::from(&fb),
        Arg::from(&ji),
        Arg::from(&ji),
    ];
    let jgargs = [
        Arg::grad(&e, &ge),
        Arg::grad(&werr, &gwerr),
        Arg::grad(&jc, &gjc),
        Arg::grad(&jp, &gjp),
        Arg::grad(&wb, &gw),
        Arg::from(&fb),
        Arg::from(&ji),
        Arg::from(&ji),
    ];
    let cpu_j = best(reps.min(3), || {
        for t in 0..p {
            let c = oc[t] as usize;
            let q = op[t] as usize;
            let cam: &[f64; 11] = cams[11 * c..11 * c + 11].try_into().unwrap();
            let x: &[f64; 3] = pts[3 * q..3 * q + 3].try_into().unwrap();
            let f: &[f64; 2] = feats[2 * t..2 * t + 2].try_into().unwrap();
            std::hint::black_box(nilang_apps::ba::ba_block(cam, x, w[t], f));
        }
    });
    let dev_j = best(reps, || {
        for r in 0..2 {
            prog.forward(p, &jargs).unwrap();
            ge.write(
                &(0..2 * p)
                    .map(|k| if k % 2 == r { 1.0 } else { 0.0 })
                    .collect::<Vec<_>>(),
            )
            .unwrap();
            gjc.write(&vec![0.0; gcams.len()]).unwrap();
            gjp.write(&vec![0.0; gpts.len()]).unwrap();
            prog.gradient(p, &jgargs, Shared::Atomic).unwrap();
        }
    });
    row(&format!("ba jacobian p={p}"), "gpu-J", dev_j, cpu_j);

    // GMM per-point terms, d = 10, K = 25
    let (d, k, n) = (10, 25, 10_000 * scale);
    let g = gmm_generate(d, k, n, 1);
    let prog = dev.program::<gmm_point>(Precision::F64).unwrap();
    let sizes = gmm_workspace_sizes(n, d, k);
    let out = zeros(&dev, n);
    let ws: Vec<Buffer<f64>> = sizes.iter().map(|&s| zeros(&dev, s)).collect();
    let (a, m, q, x) = (
        dev.buffer(&g.alphas).unwrap(),
        dev.buffer(&g.means).unwrap(),
        dev.buffer(&g.icf).unwrap(),
        dev.buffer(&g.x).unwrap(),
    );
    let mut args: Vec<Arg> = vec![Arg::from(&out)];
    args.extend(ws.iter().map(Arg::from));
    args.extend([
        Arg::from(&a),
        Arg::from(&m),
        Arg::from(&q),
        Arg::from(&x),
        Arg::Int(d as i64),
        Arg::Int(k as i64),
    ]);
    let cpu_o = best(reps.min(3), || {
        let mut o = vec![0.0; n];
        let mut w: Vec<Vec<f64>> = sizes.iter().map(|&s| vec![0.0; s]).collect();
        let (mut al, mut mu, mut icf) = (g.alphas.clone(), g.means.clone(), g.icf.clone());
        for i in 0..n {
            let [xc, y, sq, main, tt, mxs, s, ls] = &mut w[..] else {
                unreachable!()
            };
            gmm_point(
                i, &mut o, xc, y, sq, main, tt, mxs, s, ls, &mut al, &mut mu, &mut icf, &g.x, d, k,
            );
        }
        std::hint::black_box(o);
    });
    let dev_o = best(reps, || {
        prog.forward(n, &args).unwrap();
        prog.inverse(n, &args).unwrap();
    }) / 2.0;
    row(
        &format!("gmm terms d={d} K={k} n={n}"),
        "gpu-O",
        dev_o,
        cpu_o,
    );
    let cpu_g = best(reps.min(3), || {
        let o = gmm_terms_cpu(&g.alphas, &g.means, &g.icf, &g.x, n, d, k);
        std::hint::black_box(gmm_shared_gradient_cpu(
            &o, &g.alphas, &g.means, &g.icf, &g.x, n, d, k,
        ));
    });
    let gout = zeros(&dev, n);
    let gws: Vec<Buffer<f64>> = sizes.iter().map(|&s| zeros(&dev, s)).collect();
    let (gad, gmd, gqd) = (
        zeros(&dev, g.alphas.len()),
        zeros(&dev, g.means.len()),
        zeros(&dev, g.icf.len()),
    );
    let mut gargs: Vec<Arg> = vec![Arg::grad(&out, &gout)];
    gargs.extend(ws.iter().zip(&gws).map(|(v, g)| Arg::grad(v, g)));
    gargs.extend([
        Arg::grad(&a, &gad),
        Arg::grad(&m, &gmd),
        Arg::grad(&q, &gqd),
        Arg::from(&x),
        Arg::Int(d as i64),
        Arg::Int(k as i64),
    ]);
    for shared in [Shared::Atomic, Shared::Rows] {
        let dev_g = best(reps, || {
            prog.forward(n, &args).unwrap();
            gout.write(&vec![1.0; n]).unwrap();
            prog.gradient(n, &gargs, shared).unwrap();
        });
        row(
            &format!("gmm gradient d={d} K={k} n={n}"),
            &format!("gpu-G {shared:?}"),
            dev_g,
            cpu_g,
        );
    }
}
