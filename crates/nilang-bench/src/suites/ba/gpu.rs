//! `ba` suite, device cells (see [`crate::harness::gpu`]):
//! `nilang_gpu::kernels::ba::ba_residual`, one thread per observation.
//! - O: the forward launch over the shared cameras and points; the residuals read back.
//! - J: the cameras and points gathered per observation (so each thread's adjoints are its
//!   own block), then three gradient launches, each after a forward launch: the first and the
//!   second residual of every observation seeded (the 2×15 blocks: camera, point and weight
//!   columns), then the weight error seeded (its `∂/∂w` column); scattered into ADBench's CSR
//!   layout (`SparseJacobian::with_layout`), the same values as our CPU cell.
use super::BaCase;
use crate::harness::gpu::{fail, read, upload, zeros, Zeroed};
use crate::harness::Kernel;
use crate::report::Measure;
use nilang_apps::adbench::ba::BaInput;
use nilang_gpu::kernels::ba::{ba_residual, CAM};
use nilang_gpu::{Arg, Buffer, Device, Precision, Program, Shared};

/// Values in, residuals out: the program and the case's buffers on the device.
struct Residuals {
    prog: Program<ba_residual>,
    e: Zeroed,
    werr: Zeroed,
    cams: Buffer<f64>,
    pts: Buffer<f64>,
    w: Buffer<f64>,
    feats: Buffer<f64>,
    oc: Buffer<u64>,
    op: Buffer<u64>,
}

impl Residuals {
    /// The buffers of `b` with its observations' cameras `cams` and points `pts` (indexed by
    /// `oc`, `op`).
    fn new(dev: &Device, b: &BaInput, cams: &[f64], pts: &[f64], oc: &[u64], op: &[u64]) -> Self {
        let p = b.p;
        Residuals {
            prog: dev
                .program::<ba_residual>(Precision::F64)
                .unwrap_or_else(|e| fail("build ba_residual", e)),
            e: Zeroed::new(dev, 2 * p),
            werr: Zeroed::new(dev, p),
            cams: upload(dev, cams),
            pts: upload(dev, pts),
            w: upload(dev, &b.w),
            feats: upload(dev, &b.feats),
            oc: upload(dev, oc),
            op: upload(dev, op),
        }
    }

    fn forward(&self) {
        let args = [
            Arg::from(&self.e.buf),
            Arg::from(&self.werr.buf),
            Arg::from(&self.cams),
            Arg::from(&self.pts),
            Arg::from(&self.w),
            Arg::from(&self.feats),
            Arg::from(&self.oc),
            Arg::from(&self.op),
        ];
        self.prog
            .forward(self.w.len(), &args)
            .unwrap_or_else(|e| fail("forward", e));
    }
}

/// The O cell's state: residuals and the host copy `[e | werr]`.
struct Objective {
    r: Residuals,
    out: Vec<f64>,
}

impl Objective {
    fn run(&mut self) {
        let p = self.r.w.len();
        self.r.e.reset();
        self.r.werr.reset();
        self.r.forward();
        let (e, z) = self.out.split_at_mut(2 * p);
        read(&self.r.e.buf, e);
        read(&self.r.werr.buf, z);
    }
}

/// The J cell's state: gathered residuals, adjoint buffers, seeds and the CSR values.
struct Jacobian {
    r: Residuals,
    ge: Buffer<f64>,
    gwerr: Buffer<f64>,
    gcams: Zeroed,
    gpts: Zeroed,
    gw: Zeroed,
    /// The three seeds on the device: `(∂e, ∂werr)`.
    seeds: [(Buffer<f64>, Buffer<f64>); 3],
    /// Adjoints read back: cameras, points, weights.
    back: (Vec<f64>, Vec<f64>, Vec<f64>),
    vals: Vec<f64>,
}

impl Jacobian {
    fn new(dev: &Device, b: &BaInput) -> Self {
        let p = b.p;
        let mut cams = Vec::with_capacity(CAM * p);
        let mut pts = Vec::with_capacity(3 * p);
        for &(c, q) in &b.obs {
            cams.extend(b.cam(c));
            pts.extend(b.point(q));
        }
        let ident: Vec<u64> = (0..p as u64).collect();
        let row = |r: usize| -> Vec<f64> { (0..2 * p).map(|k| f64::from(k % 2 == r)).collect() };
        let seed = |e: &[f64], z: &[f64]| (upload(dev, e), upload(dev, z));
        Jacobian {
            r: Residuals::new(dev, b, &cams, &pts, &ident, &ident),
            ge: zeros(dev, 2 * p),
            gwerr: zeros(dev, p),
            gcams: Zeroed::new(dev, CAM * p),
            gpts: Zeroed::new(dev, 3 * p),
            gw: Zeroed::new(dev, p),
            seeds: [
                seed(&row(0), &vec![0.0; p]),
                seed(&row(1), &vec![0.0; p]),
                seed(&vec![0.0; 2 * p], &vec![1.0; p]),
            ],
            back: (vec![0.0; CAM * p], vec![0.0; 3 * p], vec![0.0; p]),
            vals: vec![0.0; 31 * p],
        }
    }

    fn run(&mut self) {
        let p = self.r.w.len();
        for (pass, (se, sz)) in self.seeds.iter().enumerate() {
            self.r.forward();
            self.ge.copy_from(se).unwrap_or_else(|e| fail("seed", e));
            self.gwerr.copy_from(sz).unwrap_or_else(|e| fail("seed", e));
            for g in [&self.gcams, &self.gpts, &self.gw] {
                g.reset();
            }
            let r = &self.r;
            let args = [
                Arg::grad(&r.e.buf, &self.ge),
                Arg::grad(&r.werr.buf, &self.gwerr),
                Arg::grad(&r.cams, &self.gcams.buf),
                Arg::grad(&r.pts, &self.gpts.buf),
                Arg::grad(&r.w, &self.gw.buf),
                Arg::from(&r.feats),
                Arg::from(&r.oc),
                Arg::from(&r.op),
            ];
            r.prog
                .gradient(p, &args, Shared::Atomic)
                .unwrap_or_else(|e| fail("gradient", e));
            let (gc, gx, gw) = &mut self.back;
            read(&self.gw.buf, gw);
            if pass == 2 {
                self.vals[30 * p..].copy_from_slice(gw);
                continue;
            }
            read(&self.gcams.buf, gc);
            read(&self.gpts.buf, gx);
            for i in 0..p {
                let row = &mut self.vals[30 * i + 15 * pass..30 * i + 15 * (pass + 1)];
                row[..CAM].copy_from_slice(&gc[CAM * i..CAM * (i + 1)]);
                row[CAM..CAM + 3].copy_from_slice(&gx[3 * i..3 * (i + 1)]);
                row[CAM + 3] = gw[i];
            }
        }
    }
}

/// Bytes the cells of `b` allocate on the device (the J cell's gathered copies dominate).
pub fn device_bytes(b: &BaInput) -> usize {
    8 * (b.cams.len() + b.x.len() + 3 * (CAM + 3 + 2 + 1 + 2) * b.p + 9 * b.p)
}

/// O and J of the case on `dev`.
pub fn kernels<'a>(dev: &Device, case: &'a BaCase) -> Vec<Kernel<'a>> {
    let b = &case.inst;
    let oc: Vec<u64> = b.obs.iter().map(|&(c, _)| c as u64).collect();
    let op: Vec<u64> = b.obs.iter().map(|&(_, q)| q as u64).collect();
    vec![
        Kernel::with_state(
            Measure::O,
            Objective {
                r: Residuals::new(dev, b, &b.cams, &b.x, &oc, &op),
                out: vec![0.0; 3 * b.p],
            },
            Objective::run,
            |s| s.out.clone(),
        ),
        Kernel::with_state(Measure::J, Jacobian::new(dev, b), Jacobian::run, |s| {
            s.vals.clone()
        }),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::gpu::{close, test_device, twice};
    use nilang_adbench::ba::{ba_jacobian, ba_objective};

    /// 3 cameras, 5 points, 12 observations, each camera and point seen several times.
    fn problem() -> BaInput {
        let v = |i: usize, s: f64| ((i as f64 * 0.7 + s).sin()) * 0.2;
        let (n, m, p) = (3, 5, 12);
        let mut cams: Vec<f64> = (0..11 * n).map(|i| v(i, 0.3)).collect();
        for c in 0..n {
            cams[11 * c + 6] = 1.0 + v(c, 1.0); // focal length
        }
        let mut x: Vec<f64> = (0..3 * m).map(|i| v(i, 2.0) * 5.0).collect();
        for q in 0..m {
            x[3 * q + 2] += 4.0; // in front of the cameras
        }
        BaInput {
            n,
            m,
            p,
            cams,
            x,
            w: (0..p).map(|i| 0.8 + v(i, 3.0)).collect(),
            feats: (0..2 * p).map(|i| v(i, 4.0)).collect(),
            obs: (0..p).map(|i| (i % n, (i * 2) % m)).collect(),
        }
    }

    #[test]
    fn device_cells_match_the_plain_jacobian_and_repeat() {
        let Some(dev) = test_device() else { return };
        let case = BaCase {
            name: "t".into(),
            inst: problem(),
        };
        let (e, z) = ba_objective(&case.inst);
        let obj: Vec<f64> = e.into_iter().chain(z).collect();
        let jac = ba_jacobian(&case.inst).vals;
        let mut ks = kernels(&dev, &case);
        for (k, want) in ks.iter_mut().zip([obj, jac]) {
            let (a, b) = twice(k);
            assert!(
                close(&a, &want, 1e-10),
                "{:?}: {a:?} vs {want:?}",
                k.measure
            );
            assert_eq!(a, b, "{:?}: a second run gives the same result", k.measure);
        }
    }
}
