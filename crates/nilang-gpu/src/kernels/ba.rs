//! Bundle adjustment: the residual block of every observation, and its 2×15 Jacobian block by
//! the gradient program, by the CPU program's own device functions:
//! compute–copy–uncompute of `nilang_apps::ba::ba_routine` (the projection, every
//! intermediate in the thread's private ancilla array `a`, and its adjoints in the gradient),
//! the copy `nilang_apps::ba::ba_copy` (`e += w · (proj − m)`), and the weight error
//! `nilang_apps::ba::ba_w_err_i` (`1 − w²`).
//!
//! Thread `t` is observation `t`: camera `obs_cam[t]` (11 parameters in `cams`), point
//! `obs_pt[t]` (3 in `pts`), weight `w[t]`, feature `feats[2t..2t+2]`, ancillas
//! `[T; ANC]` (private, zero on entry and on exit); it accumulates the weighted residual
//! into `e[2t..2t+2]` and the weight error `1 − w²` into `werr[t]`. Cameras and points are read
//! by many threads and never written: their adjoints are *shared* (accumulated across
//! threads). For the Jacobian blocks, gather each observation's camera and point
//! (`obs_cam[t] = obs_pt[t] = t`) and seed one residual at a time. `feats` are data in the
//! program's precision (`f64` in the CPU program, `REAL` on the device).
use crate::{Arg, Buffer, Device, Elem};
use nilang::instr::fns::SinCos;
use nilang::instr::PlusEq1;
use nilang::prelude::*;
use nilang_apps::ba::anc;

/// Values per camera.
pub const CAM: usize = 11;

/// Ancillas per observation (the length of `nilang_apps::ba::BaAnc`).
pub const ANC: usize = anc::LEN;

/// The residuals of observation `t` (see the module docs).
#[i(kernel)]
#[allow(clippy::too_many_arguments)]
pub fn ba_residual<T: Ordered>(
    t: usize,
    e: &mut [T],
    werr: &mut [T],
    cams: &mut [T],
    pts: &mut [T],
    w: &mut [T],
    feats: &[f64],
    obs_cam: &[u64],
    obs_pt: &[u64],
) where
    (T, T): PlusEq1<SinCos, T>,
{
    let c = obs_cam[t] as usize * CAM;
    let q = obs_pt[t] as usize * 3;
    let z = T::default();
    let a = [T::default(); ANC];
    routine! {
        nilang_apps::ba::ba_routine(
            &mut a,
            &mut cams[c..c + CAM],
            &mut pts[q..q + 3],
            &feats[2 * t..2 * t + 2],
        );
    }
    nilang_apps::ba::ba_copy(
        &mut e[2 * t..2 * t + 2],
        &mut w[t],
        &mut a[anc::PR..anc::PR + 2],
    );
    unroutine!();
    SWAP(&mut z, &mut werr[t]);
    nilang_apps::ba::ba_w_err_i(&mut z, &mut w[t]);
    SWAP(&mut z, &mut werr[t]);
    dealloc!(a = [T::default(); ANC]);
    dealloc!(z = T::default());
    dealloc!(q = obs_pt[t] as usize * 3);
    dealloc!(c = obs_cam[t] as usize * CAM);
}

/// The buffers of [`ba_residual`] on a device, in `T` (`f64` or `f32`): residuals `e` and
/// weight errors `werr` (zero when made), and the problem (cameras, points, weights, features,
/// and the camera and point index of every observation).
///
/// ```
/// use nilang_gpu::kernels::ba::{ba_residual, BaAdjoints, BaBuffers};
/// use nilang_gpu::{Device, Precision, Shared};
/// let Ok(dev) = Device::first() else { return };
/// // one camera at the origin looking down z, one point, one observation
/// let mut cam = [0.0; 11];
/// cam[6] = 1.0; // focal length
/// let b = BaBuffers::new(&dev, &cam, &[0.5, 0.25, 2.0], &[1.0], &[0.0, 0.0], &[(0, 0)]).unwrap();
/// let prog = dev.program::<ba_residual>(Precision::F64).unwrap();
/// prog.forward(1, &b.args()).unwrap();
/// assert_eq!(b.e.read().unwrap(), [0.25, 0.125]); // the projection x/z, y/z
/// // ∂e₀ / ∂(camera, point, weight), seeded on the first residual
/// let a = BaAdjoints::seeded(&dev, &b, &[1.0, 0.0], &[0.0]).unwrap();
/// prog.gradient(1, &b.grad_args(&a), Shared::Atomic).unwrap();
/// assert_eq!(a.w.read().unwrap(), [0.25]);
/// ```
pub struct BaBuffers<T> {
    /// The residuals, two per observation.
    pub e: Buffer<T>,
    /// The weight errors, one per observation.
    pub werr: Buffer<T>,
    /// The cameras, 11 numbers each.
    pub cams: Buffer<T>,
    /// The points, 3 numbers each.
    pub pts: Buffer<T>,
    /// The weights, one per observation.
    pub w: Buffer<T>,
    /// The observed features, 2 numbers per observation.
    pub feats: Buffer<T>,
    /// The camera index of each observation.
    pub obs_cam: Buffer<u64>,
    /// The point index of each observation.
    pub obs_pt: Buffer<u64>,
}

impl<T: Elem> BaBuffers<T> {
    /// Upload a problem: `cams` (11 per camera), `pts` (3 per point), one weight and two
    /// features per observation, `obs[i] = (camera, point)` of observation `i`.
    pub fn new(
        dev: &Device,
        cams: &[T],
        pts: &[T],
        w: &[T],
        feats: &[T],
        obs: &[(usize, usize)],
    ) -> crate::Result<Self> {
        let ids = |f: fn(&(usize, usize)) -> usize| obs.iter().map(|o| f(o) as u64).collect();
        let (oc, op): (Vec<u64>, Vec<u64>) = (ids(|o| o.0), ids(|o| o.1));
        Ok(BaBuffers {
            e: dev.zeros(2 * obs.len())?,
            werr: dev.zeros(obs.len())?,
            cams: dev.buffer(cams)?,
            pts: dev.buffer(pts)?,
            w: dev.buffer(w)?,
            feats: dev.buffer(feats)?,
            obs_cam: dev.buffer(&oc)?,
            obs_pt: dev.buffer(&op)?,
        })
    }

    /// The arguments of a forward or inverse launch.
    pub fn args(&self) -> [Arg<'_>; 8] {
        [
            Arg::from(&self.e),
            Arg::from(&self.werr),
            Arg::from(&self.cams),
            Arg::from(&self.pts),
            Arg::from(&self.w),
            Arg::from(&self.feats),
            Arg::from(&self.obs_cam),
            Arg::from(&self.obs_pt),
        ]
    }

    /// The arguments of a gradient launch with the adjoints `a`.
    pub fn grad_args<'a>(&'a self, a: &'a BaAdjoints<T>) -> [Arg<'a>; 8] {
        [
            Arg::grad(&self.e, &a.e),
            Arg::grad(&self.werr, &a.werr),
            Arg::grad(&self.cams, &a.cams),
            Arg::grad(&self.pts, &a.pts),
            Arg::grad(&self.w, &a.w),
            Arg::from(&self.feats),
            Arg::from(&self.obs_cam),
            Arg::from(&self.obs_pt),
        ]
    }
}

/// The adjoints of a gradient launch of [`ba_residual`]: the seeds of the residuals and weight
/// errors, and the adjoints accumulated into cameras, points and weights.
pub struct BaAdjoints<T> {
    /// The seeds of the residuals (in), two per observation.
    pub e: Buffer<T>,
    /// The seeds of the weight errors (in), one per observation.
    pub werr: Buffer<T>,
    /// The adjoints accumulated into the cameras (out).
    pub cams: Buffer<T>,
    /// The adjoints accumulated into the points (out).
    pub pts: Buffer<T>,
    /// The adjoints accumulated into the weights (out).
    pub w: Buffer<T>,
}

impl<T: Elem> BaAdjoints<T> {
    /// Seeds `se` (residuals) and `sw` (weight errors), zeros for the inputs of `b`.
    pub fn seeded(dev: &Device, b: &BaBuffers<T>, se: &[T], sw: &[T]) -> crate::Result<Self> {
        Ok(BaAdjoints {
            e: dev.buffer(se)?,
            werr: dev.buffer(sw)?,
            cams: dev.zeros(b.cams.len())?,
            pts: dev.zeros(b.pts.len())?,
            w: dev.zeros(b.w.len())?,
        })
    }
}
