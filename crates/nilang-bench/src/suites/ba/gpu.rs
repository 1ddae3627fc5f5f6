//! `ba` suite, device cells (see [`crate::harness::gpu`]):
//! `nilang_gpu::kernels::ba::ba_residual`, one thread per observation.
//! - O: the forward launch over the shared cameras and points; the residuals read back.
//! - J: the cameras and points gathered per observation (so each thread's adjoints are its
//!   own block), then three gradient launches, each after a forward launch: the first and the
//!   second residual of every observation seeded (the 2×15 blocks: camera, point and weight
//!   columns), then the weight error seeded (its `∂/∂w` column); scattered into ADBench's CSR
//!   layout (`SparseJacobian::with_layout`), the same values as our CPU cell.
use super::BaCase;
use crate::harness::gpu::{fail, read, upload, zeros};
use crate::harness::Kernel;
use crate::report::Measure;
use nilang_apps::adbench::ba::BaInput;
use nilang_gpu::kernels::ba::{ba_residual, BaAdjoints, BaBuffers, CAM};
use nilang_gpu::{Buffer, Device, Precision, Program, Shared};

/// The program and a problem's buffers on the device, with zero twins of the outputs.
struct Residuals {
    prog: Program<ba_residual>,
    b: BaBuffers<f64>,
    zero_e: Buffer<f64>,
    zero_werr: Buffer<f64>,
}

impl Residuals {
    /// The buffers of `b` with the cameras `cams` and points `pts` of observations `obs`.
    fn new(dev: &Device, b: &BaInput, cams: &[f64], pts: &[f64], obs: &[(usize, usize)]) -> Self {
        Residuals {
            prog: dev
                .program::<ba_residual>(Precision::F64)
                .unwrap_or_else(|e| fail("build ba_residual", e)),
            b: BaBuffers::new(dev, cams, pts, &b.w, &b.feats, obs)
                .unwrap_or_else(|e| fail("upload", e)),
            zero_e: zeros(dev, 2 * b.p),
            zero_werr: zeros(dev, b.p),
        }
    }

    /// Residuals and weight errors back to zero.
    fn reset(&self) {
        let r =
            |z: &Buffer<f64>, b: &Buffer<f64>| b.copy_from(z).unwrap_or_else(|e| fail("reset", e));
        r(&self.zero_e, &self.b.e);
        r(&self.zero_werr, &self.b.werr);
    }

    fn forward(&self) {
        self.prog
            .forward(self.b.w.len(), &self.b.args())
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
        let p = self.r.b.w.len();
        self.r.reset();
        self.r.forward();
        let (e, z) = self.out.split_at_mut(2 * p);
        read(&self.r.b.e, e);
        read(&self.r.b.werr, z);
    }
}

/// The J cell's state: gathered residuals, adjoint buffers (and zero twins of those that
/// accumulate), seeds and the CSR values.
struct Jacobian {
    r: Residuals,
    adj: BaAdjoints<f64>,
    zeros: [Buffer<f64>; 3],
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
        let ident: Vec<(usize, usize)> = (0..p).map(|i| (i, i)).collect();
        let row = |r: usize| -> Vec<f64> { (0..2 * p).map(|k| f64::from(k % 2 == r)).collect() };
        let seed = |e: &[f64], z: &[f64]| (upload(dev, e), upload(dev, z));
        let r = Residuals::new(dev, b, &cams, &pts, &ident);
        let adj = BaAdjoints::seeded(dev, &r.b, &vec![0.0; 2 * p], &vec![0.0; p])
            .unwrap_or_else(|e| fail("allocate", e));
        Jacobian {
            r,
            adj,
            zeros: [zeros(dev, CAM * p), zeros(dev, 3 * p), zeros(dev, p)],
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
        let p = self.r.b.w.len();
        let a = &self.adj;
        for (pass, (se, sz)) in self.seeds.iter().enumerate() {
            self.r.forward();
            let copies = [(&a.e, se), (&a.werr, sz)]
                .into_iter()
                .chain([&a.cams, &a.pts, &a.w].into_iter().zip(&self.zeros));
            for (to, from) in copies {
                to.copy_from(from).unwrap_or_else(|e| fail("seed", e));
            }
            self.r
                .prog
                .gradient(p, &self.r.b.grad_args(a), Shared::Atomic)
                .unwrap_or_else(|e| fail("gradient", e));
            let (gc, gx, gw) = &mut self.back;
            read(&a.w, gw);
            if pass == 2 {
                self.vals[30 * p..].copy_from_slice(gw);
                continue;
            }
            read(&a.cams, gc);
            read(&a.pts, gx);
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
    vec![
        Kernel::with_state(
            Measure::O,
            Objective {
                r: Residuals::new(dev, b, &b.cams, &b.x, &b.obs),
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
