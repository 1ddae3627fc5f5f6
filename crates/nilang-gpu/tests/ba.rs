//! Bundle adjustment on the device agrees with `nilang_apps::ba` on the CPU: residuals, the
//! inverse, the 2×15 Jacobian blocks, and the shared adjoints of cameras and points
//! (1e-12 relative, f64).
mod common;
use common::{assert_close, device, seq};
use nilang_adbench::ba::BaInput;
use nilang_apps::ba::{ba_block, ba_objective_into, w_err_grad};
use nilang_gpu::kernels::ba::{ba_residual, CAM};
use nilang_gpu::{Arg, Buffer, Device, Precision, Shared};

/// A random problem: `n` cameras, `m` points, `p` observations; camera 0 has no rotation
/// (the first-order branch).
fn problem(n: usize, m: usize, p: usize) -> BaInput {
    let mut cams = vec![];
    for j in 0..n {
        let r = seq(3, 100 + j as u64, -0.3, 0.3);
        let c = seq(3, 200 + j as u64, -1.0, 1.0);
        let f = seq(1, 300 + j as u64, 0.5, 1.5);
        let uv = seq(2, 400 + j as u64, -0.1, 0.1);
        let k = seq(2, 500 + j as u64, -0.05, 0.05);
        if j == 0 {
            cams.extend([0.0; 3]);
        } else {
            cams.extend(r);
        }
        cams.extend(c.iter().chain(&f).chain(&uv).chain(&k));
    }
    let mut x = vec![];
    for j in 0..m {
        let xy = seq(2, 600 + j as u64, -1.0, 1.0);
        x.extend(xy);
        x.push(seq(1, 700 + j as u64, 3.0, 5.0)[0]);
    }
    BaInput {
        n,
        m,
        p,
        cams,
        x,
        w: seq(p, 8, 0.5, 1.5),
        feats: seq(2 * p, 9, -1.0, 1.0),
        obs: (0..p).map(|i| (i % n, (i * 7) % m)).collect(),
    }
}

struct Bufs {
    e: Buffer<f64>,
    werr: Buffer<f64>,
    cams: Buffer<f64>,
    pts: Buffer<f64>,
    w: Buffer<f64>,
    feats: Buffer<f64>,
    oc: Buffer<u64>,
    op: Buffer<u64>,
}

fn upload(dev: &Device, b: &BaInput) -> Bufs {
    Bufs {
        e: dev.zeros(2 * b.p).unwrap(),
        werr: dev.zeros(b.p).unwrap(),
        cams: dev.buffer(&b.cams).unwrap(),
        pts: dev.buffer(&b.x).unwrap(),
        w: dev.buffer(&b.w).unwrap(),
        feats: dev.buffer(&b.feats).unwrap(),
        oc: dev
            .buffer(&b.obs.iter().map(|o| o.0 as u64).collect::<Vec<_>>())
            .unwrap(),
        op: dev
            .buffer(&b.obs.iter().map(|o| o.1 as u64).collect::<Vec<_>>())
            .unwrap(),
    }
}

#[test]
fn residuals_and_inverse() {
    let Some(dev) = device() else { return };
    let prog = dev.program::<ba_residual>(Precision::F64).unwrap();
    let b = problem(5, 40, 300);
    let (mut e0, mut z0) = (vec![0.0; 2 * b.p], vec![0.0; b.p]);
    ba_objective_into(&b, &mut e0, &mut z0);
    let g = upload(&dev, &b);
    let args = [
        Arg::from(&g.e),
        Arg::from(&g.werr),
        Arg::from(&g.cams),
        Arg::from(&g.pts),
        Arg::from(&g.w),
        Arg::from(&g.feats),
        Arg::from(&g.oc),
        Arg::from(&g.op),
    ];
    prog.forward(b.p, &args).unwrap();
    assert_close(
        "reprojection residuals",
        &g.e.read().unwrap(),
        &e0,
        1e-12,
        1e-300,
    );
    assert_close("weight errors", &g.werr.read().unwrap(), &z0, 1e-12, 1e-300);
    prog.inverse(b.p, &args).unwrap();
    let e = g.e.read().unwrap();
    assert!(
        e.iter().all(|v| v.abs() < 1e-14),
        "inverse: residuals back to zero: {:?}",
        &e[..4]
    );
    assert_eq!(g.cams.read().unwrap(), b.cams, "cameras only read");
}

#[test]
fn jacobian_blocks() {
    let Some(dev) = device() else { return };
    let prog = dev.program::<ba_residual>(Precision::F64).unwrap();
    let b = problem(4, 30, 200);
    // gathered: every observation its own camera and point
    let mut gb = BaInput {
        n: b.p,
        m: b.p,
        cams: vec![],
        x: vec![],
        obs: (0..b.p).map(|i| (i, i)).collect(),
        ..b.clone()
    };
    for &(c, q) in &b.obs {
        gb.cams.extend(b.cam(c));
        gb.x.extend(b.point(q));
    }
    let g = upload(&dev, &gb);
    let p = b.p;
    let (gcams, gpts, gw) = (
        dev.zeros::<f64>(CAM * p).unwrap(),
        dev.zeros::<f64>(3 * p).unwrap(),
        dev.zeros::<f64>(p).unwrap(),
    );
    let (ge, gwerr) = (
        dev.zeros::<f64>(2 * p).unwrap(),
        dev.zeros::<f64>(p).unwrap(),
    );
    let plain = [
        Arg::from(&g.e),
        Arg::from(&g.werr),
        Arg::from(&g.cams),
        Arg::from(&g.pts),
        Arg::from(&g.w),
        Arg::from(&g.feats),
        Arg::from(&g.oc),
        Arg::from(&g.op),
    ];
    let mut rows = vec![];
    for r in 0..2 {
        prog.forward(p, &plain).unwrap();
        let seed: Vec<f64> = (0..2 * p)
            .map(|k| if k % 2 == r { 1.0 } else { 0.0 })
            .collect();
        ge.write(&seed).unwrap();
        gwerr.write(&vec![0.0; p]).unwrap();
        for buf in [&gcams, &gpts, &gw] {
            buf.write(&vec![0.0; buf.len()]).unwrap();
        }
        let args = [
            Arg::grad(&g.e, &ge),
            Arg::grad(&g.werr, &gwerr),
            Arg::grad(&g.cams, &gcams),
            Arg::grad(&g.pts, &gpts),
            Arg::grad(&g.w, &gw),
            Arg::from(&g.feats),
            Arg::from(&g.oc),
            Arg::from(&g.op),
        ];
        prog.gradient(p, &args, Shared::Atomic).unwrap();
        rows.push((
            gcams.read().unwrap(),
            gpts.read().unwrap(),
            gw.read().unwrap(),
        ));
    }
    let (mut dev_blocks, mut cpu_blocks) = (vec![], vec![]);
    for i in 0..p {
        let (c, q) = b.obs[i];
        let blk = ba_block(b.cam(c), b.point(q), b.w[i], b.feat(i));
        for (r, (gc, gx, gw)) in rows.iter().enumerate() {
            dev_blocks.extend(&gc[CAM * i..CAM * (i + 1)]);
            dev_blocks.extend(&gx[3 * i..3 * (i + 1)]);
            dev_blocks.push(gw[i]);
            cpu_blocks.extend(blk[r]);
        }
    }
    assert_close(
        "2x15 Jacobian blocks",
        &dev_blocks,
        &cpu_blocks,
        1e-12,
        1e-300,
    );
    // the weight error's derivative, seeded alone
    prog.forward(p, &plain).unwrap();
    ge.write(&vec![0.0; 2 * p]).unwrap();
    gwerr.write(&vec![1.0; p]).unwrap();
    gw.write(&vec![0.0; p]).unwrap();
    let args = [
        Arg::grad(&g.e, &ge),
        Arg::grad(&g.werr, &gwerr),
        Arg::grad(&g.cams, &gcams),
        Arg::grad(&g.pts, &gpts),
        Arg::grad(&g.w, &gw),
        Arg::from(&g.feats),
        Arg::from(&g.oc),
        Arg::from(&g.op),
    ];
    prog.gradient(p, &args, Shared::Atomic).unwrap();
    let dz: Vec<f64> = b.w.iter().map(|&w| w_err_grad(w)).collect();
    assert_close("dz/dw", &gw.read().unwrap(), &dz, 1e-12, 1e-300);
}

#[test]
fn shared_camera_and_point_adjoints() {
    let Some(dev) = device() else { return };
    let prog = dev.program::<ba_residual>(Precision::F64).unwrap();
    let b = problem(3, 10, 400);
    let p = b.p;
    let seed = seq(2 * p, 77, -1.0, 1.0);
    // CPU: Σ_i seed_i · J_i scattered onto the shared cameras and points
    let (mut gc0, mut gx0) = (vec![0.0; b.cams.len()], vec![0.0; b.x.len()]);
    for i in 0..p {
        let (c, q) = b.obs[i];
        let blk = ba_block(b.cam(c), b.point(q), b.w[i], b.feat(i));
        for r in 0..2 {
            let s = seed[2 * i + r];
            for k in 0..CAM {
                gc0[CAM * c + k] += s * blk[r][k];
            }
            for k in 0..3 {
                gx0[3 * q + k] += s * blk[r][CAM + k];
            }
        }
    }
    let g = upload(&dev, &b);
    let plain = [
        Arg::from(&g.e),
        Arg::from(&g.werr),
        Arg::from(&g.cams),
        Arg::from(&g.pts),
        Arg::from(&g.w),
        Arg::from(&g.feats),
        Arg::from(&g.oc),
        Arg::from(&g.op),
    ];
    for shared in [Shared::Atomic, Shared::Rows] {
        g.e.write(&vec![0.0; 2 * p]).unwrap();
        g.werr.write(&vec![0.0; p]).unwrap();
        prog.forward(p, &plain).unwrap();
        let ge = dev.buffer(&seed).unwrap();
        let gwerr = dev.zeros::<f64>(p).unwrap();
        let gcams = dev.zeros::<f64>(b.cams.len()).unwrap();
        let gpts = dev.zeros::<f64>(b.x.len()).unwrap();
        let gw = dev.zeros::<f64>(p).unwrap();
        let args = [
            Arg::grad(&g.e, &ge),
            Arg::grad(&g.werr, &gwerr),
            Arg::grad(&g.cams, &gcams),
            Arg::grad(&g.pts, &gpts),
            Arg::grad(&g.w, &gw),
            Arg::from(&g.feats),
            Arg::from(&g.oc),
            Arg::from(&g.op),
        ];
        prog.gradient(p, &args, shared).unwrap();
        let what = format!("{shared:?}");
        assert_close(
            &format!("camera adjoints ({what})"),
            &gcams.read().unwrap(),
            &gc0,
            1e-12,
            1e-300,
        );
        assert_close(
            &format!("point adjoints ({what})"),
            &gpts.read().unwrap(),
            &gx0,
            1e-12,
            1e-300,
        );
    }
}
