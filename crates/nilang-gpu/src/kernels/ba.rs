//! Bundle adjustment: the residual block of every observation, and its 2×15 Jacobian block by
//! the gradient program (the instructions of `nilang_apps::ba::ba_routine`, in the same order,
//! with the ancillas of its `BaAnc` as scalars).
//!
//! Thread `t` is observation `t`: camera `obs_cam[t]` (11 parameters in `cams`), point
//! `obs_pt[t]` (3 in `pts`), weight `w[t]`, feature `feats[2t..2t+2]`; it accumulates the
//! weighted residual into `e[2t..2t+2]` and the weight error `1 − w²` into `werr[t]`. Cameras
//! and points are read by many threads and never written: their adjoints are *shared*
//! (accumulated across threads). For the Jacobian blocks, gather each observation's camera and
//! point (`obs_cam[t] = obs_pt[t] = t`) and seed one residual at a time.
use crate::{Arg, Buffer, Device, Elem};
use nilang::instr::fns::SinCos;
use nilang::instr::PlusEq1;
use nilang::prelude::*;

/// Values per camera.
pub const CAM: usize = 11;

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
    feats: &[T],
    obs_cam: &[u64],
    obs_pt: &[u64],
) where
    (T, T): PlusEq1<SinCos, T>,
{
    let c = obs_cam[t] as usize * CAM;
    let q = obs_pt[t] as usize * 3;
    let p0 = T::default();
    let p1 = T::default();
    let p2 = T::default();
    let sq = T::default();
    let theta = T::default();
    let st = T::default();
    let ct = T::default();
    let inv = T::default();
    let v0 = T::default();
    let v1 = T::default();
    let v2 = T::default();
    let x0 = T::default();
    let x1 = T::default();
    let x2 = T::default();
    let vdp = T::default();
    let omc = T::default();
    let tmp = T::default();
    let y0 = T::default();
    let y1 = T::default();
    let y2 = T::default();
    let iz = T::default();
    let u0 = T::default();
    let u1 = T::default();
    let rsq = T::default();
    let r4 = T::default();
    let lk = T::default();
    let ul0 = T::default();
    let ul1 = T::default();
    let pr0 = T::default();
    let pr1 = T::default();
    routine! {
        p0 += pts[q] - cams[c + 3];
        p1 += pts[q + 1] - cams[c + 4];
        p2 += pts[q + 2] - cams[c + 5];
        sq += abs2(cams[c]);
        sq += abs2(cams[c + 1]);
        sq += abs2(cams[c + 2]);
        if (sq.value() != 0.0, sq.value() != 0.0) {
            theta += sqrt(sq);
            (st, ct) += sincos(theta);
            inv += recip(theta);
            v0 += cams[c] * inv;
            v1 += cams[c + 1] * inv;
            v2 += cams[c + 2] * inv;
            x0 += v1 * p2;
            x0 -= v2 * p1;
            x1 += v2 * p0;
            x1 -= v0 * p2;
            x2 += v0 * p1;
            x2 -= v1 * p0;
            vdp += v0 * p0;
            vdp += v1 * p1;
            vdp += v2 * p2;
            omc += 1.0;
            omc -= ct;
            tmp += vdp * omc;
            y0 += p0 * ct;
            y0 += x0 * st;
            y0 += v0 * tmp;
            y1 += p1 * ct;
            y1 += x1 * st;
            y1 += v1 * tmp;
            y2 += p2 * ct;
            y2 += x2 * st;
            y2 += v2 * tmp;
        } else {
            y0 += p0;
            y1 += p1;
            y2 += p2;
            y0 += cams[c + 1] * p2;
            y0 -= cams[c + 2] * p1;
            y1 += cams[c + 2] * p0;
            y1 -= cams[c] * p2;
            y2 += cams[c] * p1;
            y2 -= cams[c + 1] * p0;
        }
        iz += recip(y2);
        u0 += y0 * iz;
        u1 += y1 * iz;
        rsq += abs2(u0);
        rsq += abs2(u1);
        r4 += abs2(rsq);
        lk += 1.0;
        lk += cams[c + 9] * rsq;
        lk += cams[c + 10] * r4;
        ul0 += u0 * lk;
        pr0 += cams[c + 6] * ul0;
        pr0 += cams[c + 7];
        pr0 -= feats[2 * t];
        ul1 += u1 * lk;
        pr1 += cams[c + 6] * ul1;
        pr1 += cams[c + 8];
        pr1 -= feats[2 * t + 1];
    }
    e[2 * t] += w[t] * pr0;
    e[2 * t + 1] += w[t] * pr1;
    unroutine!();
    werr[t] += 1.0;
    werr[t] -= abs2(w[t]);
    dealloc!(pr1 = T::default());
    dealloc!(pr0 = T::default());
    dealloc!(ul1 = T::default());
    dealloc!(ul0 = T::default());
    dealloc!(lk = T::default());
    dealloc!(r4 = T::default());
    dealloc!(rsq = T::default());
    dealloc!(u1 = T::default());
    dealloc!(u0 = T::default());
    dealloc!(iz = T::default());
    dealloc!(y2 = T::default());
    dealloc!(y1 = T::default());
    dealloc!(y0 = T::default());
    dealloc!(tmp = T::default());
    dealloc!(omc = T::default());
    dealloc!(vdp = T::default());
    dealloc!(x2 = T::default());
    dealloc!(x1 = T::default());
    dealloc!(x0 = T::default());
    dealloc!(v2 = T::default());
    dealloc!(v1 = T::default());
    dealloc!(v0 = T::default());
    dealloc!(inv = T::default());
    dealloc!(ct = T::default());
    dealloc!(st = T::default());
    dealloc!(theta = T::default());
    dealloc!(sq = T::default());
    dealloc!(p2 = T::default());
    dealloc!(p1 = T::default());
    dealloc!(p0 = T::default());
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
    pub e: Buffer<T>,
    pub werr: Buffer<T>,
    pub cams: Buffer<T>,
    pub pts: Buffer<T>,
    pub w: Buffer<T>,
    pub feats: Buffer<T>,
    pub obs_cam: Buffer<u64>,
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
    pub e: Buffer<T>,
    pub werr: Buffer<T>,
    pub cams: Buffer<T>,
    pub pts: Buffer<T>,
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
