//! Bundle adjustment on the device agrees with `nilang_apps::ba` on the CPU: residuals, the
//! inverse, the 2×15 Jacobian blocks, and the shared adjoints of cameras and points
//! (1e-12 relative, f64).
mod common;
use common::{assert_close, device, max_abs, max_rel, seq, to32, up};
use nilang::GVar;
use nilang_adbench::ba::BaInput;
use nilang_apps::ba::{ba_block, ba_objective_into, w_err_grad};
use nilang_gpu::kernels::ba::{ba_residual, ba_residual_inv, BaAdjoints, BaBuffers, CAM};
use nilang_gpu::{Device, Elem, Precision, Shared};

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

/// The problem's buffers on the device, in `T` (`f64` or `f32`).
fn upload<T: Elem>(dev: &Device, b: &BaInput, conv: fn(&[f64]) -> Vec<T>) -> BaBuffers<T> {
    let (cams, pts, w, feats) = (conv(&b.cams), conv(&b.x), conv(&b.w), conv(&b.feats));
    BaBuffers::new(dev, &cams, &pts, &w, &feats, &b.obs).unwrap()
}

/// Fresh adjoints: seeds `se` (residuals) and `sw` (weight errors), zeros elsewhere.
fn adjoints<T: Elem>(dev: &Device, g: &BaBuffers<T>, se: &[T], sw: &[T]) -> BaAdjoints<T> {
    BaAdjoints::seeded(dev, g, se, sw).unwrap()
}

fn f64s(v: &[f64]) -> Vec<f64> {
    v.to_vec()
}

#[test]
fn residuals_and_inverse() {
    let Some(dev) = device() else { return };
    let prog = dev.program::<ba_residual>(Precision::F64).unwrap();
    let b = problem(5, 40, 300);
    let (mut e0, mut z0) = (vec![0.0; 2 * b.p], vec![0.0; b.p]);
    ba_objective_into(&b, &mut e0, &mut z0);
    let g = upload(&dev, &b, f64s);
    prog.forward(b.p, &g.args()).unwrap();
    let e = g.e.read().unwrap();
    assert_close("reprojection residuals", &e, &e0, 1e-12, 1e-300);
    assert_close("weight errors", &g.werr.read().unwrap(), &z0, 1e-12, 1e-300);
    prog.inverse(b.p, &g.args()).unwrap();
    let e = g.e.read().unwrap();
    assert!(
        e.iter().all(|v| v.abs() < 1e-14),
        "inverse: residuals back to zero: {:?}",
        &e[..4]
    );
    assert_eq!(g.cams.read().unwrap(), b.cams, "cameras only read");
}

/// Every observation with its own camera and point (for the Jacobian blocks).
fn gathered(b: &BaInput) -> BaInput {
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
    gb
}

/// One-hot seeds of residual row `r` of every observation.
fn row_seed<T: nilang::prelude::Scalar>(p: usize, r: usize) -> Vec<T> {
    (0..2 * p)
        .map(|k| T::lit(if k % 2 == r { 1.0 } else { 0.0 }))
        .collect()
}

#[test]
fn jacobian_blocks() {
    let Some(dev) = device() else { return };
    let prog = dev.program::<ba_residual>(Precision::F64).unwrap();
    let b = problem(4, 30, 200);
    let g = upload(&dev, &gathered(&b), f64s);
    let p = b.p;
    let mut rows = vec![];
    for r in 0..2 {
        prog.forward(p, &g.args()).unwrap();
        let a = adjoints(&dev, &g, &row_seed(p, r), &vec![0.0; p]);
        prog.gradient(p, &g.grad_args(&a), Shared::Atomic).unwrap();
        rows.push(a);
    }
    let (mut dev_blocks, mut cpu_blocks) = (vec![], vec![]);
    let rows: Vec<_> = rows
        .iter()
        .map(|a| {
            (
                a.cams.read().unwrap(),
                a.pts.read().unwrap(),
                a.w.read().unwrap(),
            )
        })
        .collect();
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
    prog.forward(p, &g.args()).unwrap();
    let a = adjoints(&dev, &g, &vec![0.0; 2 * p], &vec![1.0; p]);
    prog.gradient(p, &g.grad_args(&a), Shared::Atomic).unwrap();
    let dz: Vec<f64> = b.w.iter().map(|&w| w_err_grad(w)).collect();
    assert_close("dz/dw", &a.w.read().unwrap(), &dz, 1e-12, 1e-300);
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
    let g = upload(&dev, &b, f64s);
    for shared in [Shared::Atomic, Shared::Rows] {
        g.e.write(&vec![0.0; 2 * p]).unwrap();
        g.werr.write(&vec![0.0; p]).unwrap();
        prog.forward(p, &g.args()).unwrap();
        let a = adjoints(&dev, &g, &seed, &vec![0.0; p]);
        prog.gradient(p, &g.grad_args(&a), shared).unwrap();
        let cams = format!("camera adjoints ({shared:?})");
        assert_close(&cams, &a.cams.read().unwrap(), &gc0, 1e-12, 1e-300);
        let pts = format!("point adjoints ({shared:?})");
        assert_close(&pts, &a.pts.read().unwrap(), &gx0, 1e-12, 1e-300);
    }
}

/// The CPU `#[i]` program on `f32`: residuals and weight errors of every observation.
fn cpu_forward_f32(b: &BaInput) -> (Vec<f32>, Vec<f32>) {
    let (mut e, mut werr) = (vec![0f32; 2 * b.p], vec![0f32; b.p]);
    let (mut cams, mut pts, mut w) = (to32(&b.cams), to32(&b.x), to32(&b.w));
    let ids =
        |f: fn(&(usize, usize)) -> usize| b.obs.iter().map(|o| f(o) as u64).collect::<Vec<_>>();
    let (oc, op) = (ids(|o| o.0), ids(|o| o.1));
    for t in 0..b.p {
        ba_residual(
            t, &mut e, &mut werr, &mut cams, &mut pts, &mut w, &b.feats, &oc, &op,
        );
    }
    (e, werr)
}

/// The CPU gradient program on `GVar<f32>` from the forward state `(e, werr)` with seeds
/// `se`, `sw`: the adjoints of cameras, points, weights (threads in reverse order).
fn cpu_gradient_f32(
    b: &BaInput,
    fwd: &(Vec<f32>, Vec<f32>),
    se: &[f32],
    sw: &[f32],
) -> [Vec<f64>; 3] {
    let gv = |v: &[f32], s: &[f32]| {
        v.iter()
            .zip(s)
            .map(|(&x, &g)| GVar::new(x, g))
            .collect::<Vec<_>>()
    };
    let zero = |v: &[f64]| gv(&to32(v), &vec![0.0; v.len()]);
    let (mut e, mut werr) = (gv(&fwd.0, se), gv(&fwd.1, sw));
    let (mut cams, mut pts, mut w) = (zero(&b.cams), zero(&b.x), zero(&b.w));
    let ids =
        |f: fn(&(usize, usize)) -> usize| b.obs.iter().map(|o| f(o) as u64).collect::<Vec<_>>();
    let (oc, op) = (ids(|o| o.0), ids(|o| o.1));
    for t in (0..b.p).rev() {
        ba_residual_inv(
            t, &mut e, &mut werr, &mut cams, &mut pts, &mut w, &b.feats, &oc, &op,
        );
    }
    let adj = |v: &[GVar<f32>]| v.iter().map(|g| f64::from(g.g)).collect::<Vec<_>>();
    [adj(&cams), adj(&pts), adj(&w)]
}

/// f32: residuals, the inverse, the 2×15 Jacobian blocks and the shared adjoints agree with
/// the CPU program on `f32`/`GVar<f32>`. Both sides round every operation to `f32` in the same
/// order, but `sin`, `cos` and `sqrt` of the device (OpenCL allows 4 ulp for `sin`/`cos`)
/// may differ from Rust's by an ulp, which the projection amplifies by its condition number;
/// atomic accumulation adds in another order than the CPU: 2e-5 relative (≈ 170 ulp; measured
/// on pocl: ≤ 4e-6), norm-wise for the shared adjoints (sums of ~130 terms that cancel), and
/// 1e-4 for single Jacobian entries (measured: 1.3e-5).
#[test]
fn ba_matches_cpu_f32() {
    let Some(dev) = device() else { return };
    let prog = dev.program::<ba_residual>(Precision::F32).unwrap();
    let b = problem(5, 40, 300);
    let p = b.p;
    let fwd = cpu_forward_f32(&b);
    let g = upload(&dev, &b, to32);
    prog.forward(p, &g.args()).unwrap();
    let (e, werr) = (up(&g.e.read().unwrap()), up(&g.werr.read().unwrap()));
    assert_close("f32 residuals", &e, &up(&fwd.0), 2e-5, 1e-6);
    assert_close("f32 weight errors", &werr, &up(&fwd.1), 2e-5, 1e-6);
    // the f32 program's own error against f64 (for the record)
    let (mut e0, mut z0) = (vec![0.0; 2 * p], vec![0.0; p]);
    ba_objective_into(&b, &mut e0, &mut z0);
    println!("f32 residuals vs f64: {:e}", max_rel(&e, &e0, max_abs(&e0)));
    prog.inverse(p, &g.args()).unwrap();
    let back = up(&g.e.read().unwrap());
    assert!(
        back.iter().all(|v| v.abs() < 1e-5),
        "f32 inverse: {:?}",
        &back[..4]
    );
    // shared adjoints, both ways of accumulating them
    let se = to32(&seq(2 * p, 78, -1.0, 1.0));
    let sw = to32(&seq(p, 79, -1.0, 1.0));
    let cpu = cpu_gradient_f32(&b, &fwd, &se, &sw);
    for shared in [Shared::Atomic, Shared::Rows] {
        g.e.write(&fwd.0).unwrap();
        g.werr.write(&fwd.1).unwrap();
        let a = adjoints(&dev, &g, &se, &sw);
        prog.gradient(p, &g.grad_args(&a), shared).unwrap();
        for (what, got, want) in [
            ("cameras", &a.cams, &cpu[0]),
            ("points", &a.pts, &cpu[1]),
            ("weights", &a.w, &cpu[2]),
        ] {
            let got = up(&got.read().unwrap());
            let what = format!("f32 {what} adjoints ({shared:?})");
            assert_close(&what, &got, want, 2e-5, max_abs(want));
        }
    }
    // the Jacobian blocks: gathered, one residual row at a time
    let gb = gathered(&b);
    let gg = upload(&dev, &gb, to32);
    let gfwd = cpu_forward_f32(&gb);
    for r in 0..2 {
        let se = row_seed::<f32>(p, r);
        let cpu = cpu_gradient_f32(&gb, &gfwd, &se, &vec![0.0; p]);
        gg.e.write(&gfwd.0).unwrap();
        gg.werr.write(&gfwd.1).unwrap();
        let a = adjoints(&dev, &gg, &se, &vec![0.0; p]);
        prog.gradient(p, &gg.grad_args(&a), Shared::Atomic).unwrap();
        let got = [&a.cams, &a.pts, &a.w].map(|b| up(&b.read().unwrap()));
        for (k, what) in ["camera", "point", "weight"].iter().enumerate() {
            let what = format!("f32 Jacobian row {r}: {what} columns");
            // relative to a thousandth of the row's largest entry (entries cancel to ~0);
            // single entries amplify a one-ulp `sin`/`cos` difference most: 1e-4 (measured on
            // pocl: 1.3e-5)
            assert_close(&what, &got[k], &cpu[k], 1e-4, 1e-3 * max_abs(&cpu[k]));
        }
    }
}

#[test]
fn cuda_source_compiles() {
    common::check_cuda_syntax::<ba_residual>();
}

/// The ancillas are a private array of each thread: `ba_routine` and `ba_copy` run in the
/// versions whose ancilla slice is private (`__private`), next to their all-global versions.
#[test]
fn ancillas_are_private() {
    let src = nilang::kernel::program_source::<ba_residual>();
    assert!(src.contains("REAL v_a_"), "{src}");
    assert!(src.contains("NL_FN_PRIVATE void nl_ba_routine_p1_ginv(__private REAL* v_a, __private REAL* v_a_g, ulong v_a_len, __global REAL* v_cam"), "{src}");
    assert!(
        src.contains("NL_FN void nl_ba_routine_ginv(__global REAL* v_a"),
        "{src}"
    );
    assert!(src.contains("nl_ba_copy_p4_ginv("), "{src}");
}
