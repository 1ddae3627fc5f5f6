//! ADBench's bundle-adjustment residuals: the instance type with its replicating
//! loader, the per-observation reprojection error, and the hand-written ("Manual")
//! 2x15 Jacobian blocks and sparse Jacobian.
//!
//! See `shared/data/adbench/README.md` for the definition that is implemented here.

use std::ops::{Add, Div, Mul, Sub};
use std::path::Path;

use crate::error::{check_arrays, read_to_string, AdbenchError};
use crate::sparse::SparseJacobian;
use crate::tokens::{check_size, checked_mul, Tokens};

/// Number of parameters of one camera: `[r (3) | c (3) | f | u0 v0 | k1 k2]`.
pub const CAM_LEN: usize = 11;
/// Number of inputs one reprojection residual pair depends on: camera, point, weight.
pub const BLOCK_LEN: usize = 15;

/// A bundle-adjustment instance with `n` cameras, `m` points and `p` observations.
///
/// ```
/// use nilang_adbench::ba::BaInput;
/// let b = BaInput::parse("2 3 4\n0 0 0 0 0 0 1 0 0 0 0\n0 0 1\n1\n0 0").unwrap();
/// assert_eq!(b.obs, vec![(0, 0), (1, 1), (0, 2), (1, 0)]);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct BaInput {
    /// Number of cameras.
    pub n: usize,
    /// Number of points.
    pub m: usize,
    /// Number of observations.
    pub p: usize,
    /// Camera parameters, `11*n`, camera-major.
    pub cams: Vec<f64>,
    /// Points, `3*m`, point-major.
    pub x: Vec<f64>,
    /// One weight per observation, `p`.
    pub w: Vec<f64>,
    /// Measured features, `2*p`, observation-major.
    pub feats: Vec<f64>,
    /// `(camera index, point index)` of every observation.
    pub obs: Vec<(usize, usize)>,
}

/// [`AdbenchError::TooLarge`] if the instance a BA header `(n, m, p)` announces (cameras,
/// points, weights and features as `f64`, the observation pairs as two `usize`) is over
/// `max_bytes`.
fn check_header_size(
    file: &str,
    (n, m, p): (usize, usize, usize),
    max_bytes: u64,
) -> Result<(), AdbenchError> {
    let (n2, m2, p2) = (n as u128, m as u128, p as u128);
    check_size(
        file,
        format!("n={n} m={m} p={p}"),
        CAM_LEN as u128 * n2 + 3 * m2 + 3 * p2,
        p2 * 2 * std::mem::size_of::<usize>() as u128,
        max_bytes,
    )
}

impl BaInput {
    /// Parses ADBench's BA format and replicates the single camera, point, weight
    /// and feature it holds; observation `i` connects camera `i mod n` with point
    /// `i mod m`.
    ///
    /// ```
    /// use nilang_adbench::ba::BaInput;
    /// let err = BaInput::parse("2 3 4\n0 0 0").unwrap_err().to_string();
    /// assert!(err.contains("truncated"), "{err}");
    /// ```
    pub fn parse(src: &str) -> Result<Self, AdbenchError> {
        Self::parse_named(src, "<string>")
    }

    /// Reads and parses a file; errors name the path.
    ///
    /// ```
    /// use nilang_adbench::{ba::BaInput, oracle::data_dir};
    /// let b = BaInput::from_file(data_dir().join("adbench/ba/test.txt")).unwrap();
    /// assert_eq!((b.n, b.m, b.p), (2, 10, 10));
    /// ```
    pub fn from_file(path: impl AsRef<Path>) -> Result<Self, AdbenchError> {
        let path = path.as_ref();
        let src = read_to_string(path)?;
        Self::parse_named(&src, &path.display().to_string())
    }

    /// The header `(n, m, p)` of a BA file, validated like [`BaInput::parse_named`] (positive
    /// integers): enough to estimate an instance's memory before loading it.
    ///
    /// ```
    /// use nilang_adbench::{ba::BaInput, oracle::data_dir};
    /// let h = BaInput::header_from_file(data_dir().join("adbench/ba/test.txt")).unwrap();
    /// assert_eq!(h, (2, 10, 10));
    /// assert!(BaInput::header_named("2 0 3", "f").is_err());
    /// ```
    pub fn header_from_file(path: impl AsRef<Path>) -> Result<(usize, usize, usize), AdbenchError> {
        let path = path.as_ref();
        let src = read_to_string(path)?;
        Self::header_named(&src, &path.display().to_string())
    }

    /// The header `(n, m, p)` of BA text, `file` naming it in errors. A header announcing an
    /// instance over [`crate::MAX_INSTANCE_BYTES`] is an error here too (a corrupt header is
    /// reported, not mistaken for an instance too large for this machine).
    ///
    /// ```
    /// use nilang_adbench::{ba::BaInput, AdbenchError};
    /// let e = BaInput::header_named("2 1000000000000 10", "f").unwrap_err();
    /// assert!(matches!(e, AdbenchError::TooLarge { .. }), "{e}");
    /// ```
    pub fn header_named(src: &str, file: &str) -> Result<(usize, usize, usize), AdbenchError> {
        let mut t = Tokens::new(file, src);
        let header = (
            t.positive(&|| "n (the number of cameras, first header value)".into())?,
            t.positive(&|| "m (the number of points, second header value)".into())?,
            t.positive(&|| "p (the number of observations, third header value)".into())?,
        );
        check_header_size(file, header, crate::MAX_INSTANCE_BYTES)?;
        Ok(header)
    }

    /// Parses with an explicit file name for messages.
    pub fn parse_named(src: &str, file: &str) -> Result<Self, AdbenchError> {
        Self::parse_named_limited(src, file, crate::MAX_INSTANCE_BYTES)
    }

    /// [`BaInput::parse_named`] with an explicit size limit in bytes. The file holds one
    /// camera, point and observation that are replicated to `n`, `m`, `p`, so the limit is
    /// checked from the header before allocating.
    ///
    /// ```
    /// use nilang_adbench::{ba::BaInput, AdbenchError};
    /// let src = "1000000000000 10 10\n0 0 0 0 0 0 1 0 0 0 0\n0 0 1\n1\n0 0";
    /// let e = BaInput::parse_named_limited(src, "<s>", 1 << 30).unwrap_err();
    /// assert!(matches!(e, AdbenchError::TooLarge { .. }), "{e}");
    /// ```
    pub fn parse_named_limited(
        src: &str,
        file: &str,
        max_bytes: u64,
    ) -> Result<Self, AdbenchError> {
        const CAM_NAMES: [&str; CAM_LEN] = [
            "r1", "r2", "r3", "C1", "C2", "C3", "f", "u0", "v0", "k1", "k2",
        ];
        let mut t = Tokens::new(file, src);
        let n = t.positive(&|| "n (the number of cameras, first header value)".into())?;
        let m = t.positive(&|| "m (the number of points, second header value)".into())?;
        let p = t.positive(&|| "p (the number of observations, third header value)".into())?;
        check_header_size(file, (n, m, p), max_bytes)?;
        let mut cam = Vec::new();
        t.f64s(&mut cam, CAM_LEN, &|j| {
            format!("camera parameter {}", CAM_NAMES[j])
        })?;
        let mut pt = Vec::new();
        t.f64s(&mut pt, 3, &|j| format!("point coordinate X{}", j + 1))?;
        let w = t.f64(&|| "the weight w".into())?;
        let mut feat = Vec::new();
        t.f64s(&mut feat, 2, &|j| {
            format!("feature coordinate {}", ["x", "y"][j])
        })?;
        t.end()?;
        let cams_len = checked_mul(t.file(), n, CAM_LEN, "11*n")?;
        let x_len = checked_mul(t.file(), m, 3, "3*m")?;
        let feats_len = checked_mul(t.file(), p, 2, "2*p")?;
        let mut cams = Vec::with_capacity(cams_len);
        for _ in 0..n {
            cams.extend_from_slice(&cam);
        }
        let mut x = Vec::with_capacity(x_len);
        for _ in 0..m {
            x.extend_from_slice(&pt);
        }
        let mut feats = Vec::with_capacity(feats_len);
        for _ in 0..p {
            feats.extend_from_slice(&feat);
        }
        Ok(BaInput {
            n,
            m,
            p,
            cams,
            x,
            w: vec![w; p],
            feats,
            obs: (0..p).map(|i| (i % n, i % m)).collect(),
        })
    }

    /// Checks lengths, observation indices and finiteness.
    ///
    /// ```
    /// use nilang_adbench::ba::BaInput;
    /// let mut b = BaInput::parse("1 1 1\n0 0 0 0 0 0 1 0 0 0 0\n0 0 1\n1\n0 0").unwrap();
    /// b.obs[0] = (0, 5);
    /// assert!(b.validate().is_err());
    /// ```
    pub fn validate(&self) -> Result<(), AdbenchError> {
        let f = "<BaInput>";
        let checks: [(&str, &[f64], Option<usize>); 4] = [
            ("cams", &self.cams, self.n.checked_mul(CAM_LEN)),
            ("x", &self.x, self.m.checked_mul(3)),
            ("w", &self.w, Some(self.p)),
            ("feats", &self.feats, self.p.checked_mul(2)),
        ];
        let sizes = format!("n={}, m={}, p={}", self.n, self.m, self.p);
        check_arrays(f, &sizes, &checks)?;
        if self.obs.len() != self.p {
            return Err(AdbenchError::invalid(
                f,
                format!("obs has length {} but p = {}", self.obs.len(), self.p),
            ));
        }
        if let Some(i) = self
            .obs
            .iter()
            .position(|&(c, q)| c >= self.n || q >= self.m)
        {
            return Err(AdbenchError::invalid(
                f,
                format!(
                    "obs[{i}] = {:?} is out of range (n={}, m={})",
                    self.obs[i], self.n, self.m
                ),
            ));
        }
        Ok(())
    }

    /// The [`BLOCK_LEN`] inputs of observation `i`: `[camera (11) | point (3) | weight]`,
    /// the arguments of one reprojection block.
    ///
    /// ```
    /// let b = nilang_adbench::BaInput::parse("1 1 2\n1 2 3 4 5 6 7 8 9 10 11\n1 2 3\n0.5\n1 2\n").unwrap();
    /// let v = b.block_inputs(1);
    /// assert_eq!((v[0], v[10], v[11], v[14]), (1.0, 11.0, 1.0, 0.5));
    /// ```
    #[inline]
    pub fn block_inputs(&self, i: usize) -> [f64; BLOCK_LEN] {
        let (c, q) = self.obs[i];
        let mut v = [0.0; BLOCK_LEN];
        v[..CAM_LEN].copy_from_slice(self.cam(c));
        v[CAM_LEN..CAM_LEN + 3].copy_from_slice(self.point(q));
        v[BLOCK_LEN - 1] = self.w[i];
        v
    }

    /// The parameters of camera `j`.
    #[inline]
    pub fn cam(&self, j: usize) -> &[f64; CAM_LEN] {
        self.cams[CAM_LEN * j..CAM_LEN * (j + 1)]
            .try_into()
            .expect("slice has camera length")
    }

    /// The coordinates of point `j`.
    #[inline]
    pub fn point(&self, j: usize) -> &[f64; 3] {
        self.x[3 * j..3 * (j + 1)]
            .try_into()
            .expect("slice has point length")
    }

    /// The measured feature of observation `i`.
    #[inline]
    pub fn feat(&self, i: usize) -> &[f64; 2] {
        self.feats[2 * i..2 * (i + 1)]
            .try_into()
            .expect("slice has feature length")
    }

    fn assert_shapes(&self) {
        assert_eq!(
            self.cams.len(),
            CAM_LEN * self.n,
            "BaInput: cams.len() != 11n"
        );
        assert_eq!(self.x.len(), 3 * self.m, "BaInput: x.len() != 3m");
        assert_eq!(self.w.len(), self.p, "BaInput: w.len() != p");
        assert_eq!(self.feats.len(), 2 * self.p, "BaInput: feats.len() != 2p");
        assert_eq!(self.obs.len(), self.p, "BaInput: obs.len() != p");
    }
}

#[inline]
fn cross<T: Copy + Sub<Output = T> + Mul<Output = T>>(a: &[T; 3], b: &[T; 3]) -> [T; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

#[inline]
fn dot<T: Copy + Add<Output = T> + Mul<Output = T>>(a: &[T; 3], b: &[T; 3]) -> T {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// What [`rodrigues_rotate_in`] needs of a scalar `T` beyond `+ − × ÷`. It is a value passed
/// alongside, not a trait of `T`, so that another crate can supply it for scalar types it does
/// not own (the automatic-differentiation numbers of num-dual or echidna).
pub trait RotationOps<T> {
    /// Whether the value of `x` is zero (derivative parts are not looked at).
    fn is_zero(&self, x: T) -> bool;
    /// `√x`.
    fn sqrt(&self, x: T) -> T;
    /// `(sin x, cos x)`.
    fn sin_cos(&self, x: T) -> (T, T);
    /// The constant 1.
    fn one(&self) -> T;
}

/// The [`RotationOps`] of `f64`.
#[derive(Clone, Copy, Debug, Default)]
pub struct F64Ops;

impl RotationOps<f64> for F64Ops {
    #[inline]
    fn is_zero(&self, x: f64) -> bool {
        x == 0.0
    }
    #[inline]
    fn sqrt(&self, x: f64) -> f64 {
        x.sqrt()
    }
    #[inline]
    fn sin_cos(&self, x: f64) -> (f64, f64) {
        x.sin_cos()
    }
    #[inline]
    fn one(&self) -> f64 {
        1.0
    }
}

/// Rotates `p` by the angle-axis vector `r` (Rodrigues); for `r == 0` uses the
/// first-order form `p + r x p`, as ADBench does.
///
/// ```
/// use nilang_adbench::ba::rodrigues_rotate;
/// // a quarter turn about z takes x to y
/// let y = rodrigues_rotate(&[0.0, 0.0, std::f64::consts::FRAC_PI_2], &[1.0, 0.0, 0.0]);
/// assert!(y[0].abs() < 1e-15 && (y[1] - 1.0).abs() < 1e-15 && y[2] == 0.0);
/// ```
#[inline]
pub fn rodrigues_rotate(r: &[f64; 3], p: &[f64; 3]) -> [f64; 3] {
    rodrigues_rotate_in(&F64Ops, r, p)
}

/// [`rodrigues_rotate`] for any scalar `T`, with its operations `ops`.
///
/// ```
/// use nilang_adbench::ba::{rodrigues_rotate, rodrigues_rotate_in, F64Ops};
/// let (r, p) = ([0.1, -0.2, 0.3], [1.0, 2.0, 3.0]);
/// assert_eq!(rodrigues_rotate_in(&F64Ops, &r, &p), rodrigues_rotate(&r, &p));
/// ```
#[inline]
pub fn rodrigues_rotate_in<T, O>(ops: &O, r: &[T; 3], p: &[T; 3]) -> [T; 3]
where
    T: Copy + Add<Output = T> + Sub<Output = T> + Mul<Output = T> + Div<Output = T>,
    O: RotationOps<T>,
{
    let sqtheta = dot(r, r);
    if !ops.is_zero(sqtheta) {
        let theta = ops.sqrt(sqtheta);
        let (st, ct) = ops.sin_cos(theta);
        let v = [r[0] / theta, r[1] / theta, r[2] / theta];
        let vxp = cross(&v, p);
        let tmp = dot(&v, p) * (ops.one() - ct);
        [
            p[0] * ct + vxp[0] * st + v[0] * tmp,
            p[1] * ct + vxp[1] * st + v[1] * tmp,
            p[2] * ct + vxp[2] * st + v[2] * tmp,
        ]
    } else {
        let rxp = cross(r, p);
        [p[0] + rxp[0], p[1] + rxp[1], p[2] + rxp[2]]
    }
}

/// Reprojection error `w * (proj(cam, x) - feat)` of one observation.
///
/// ```
/// use nilang_adbench::ba::ba_reproj;
/// // Identity camera (f = 1, no distortion) looking at (1, 2, 4): projects to (0.25, 0.5).
/// let cam = [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0];
/// let e = ba_reproj(&cam, &[1.0, 2.0, 4.0], 2.0, &[0.0, 0.0]);
/// assert_eq!(e, [0.5, 1.0]);
/// ```
#[inline]
pub fn ba_reproj(cam: &[f64; CAM_LEN], x: &[f64; 3], w: f64, feat: &[f64; 2]) -> [f64; 2] {
    let p = [x[0] - cam[3], x[1] - cam[4], x[2] - cam[5]];
    let y = rodrigues_rotate(&[cam[0], cam[1], cam[2]], &p);
    let u = [y[0] / y[2], y[1] / y[2]];
    let rsq = u[0] * u[0] + u[1] * u[1];
    let l = 1.0 + cam[9] * rsq + cam[10] * rsq * rsq;
    [
        w * (cam[6] * u[0] * l + cam[7] - feat[0]),
        w * (cam[6] * u[1] * l + cam[8] - feat[1]),
    ]
}

/// The "Zach weight error" `1 - w^2`.
#[inline]
pub fn ba_w_err(w: f64) -> f64 {
    1.0 - w * w
}

/// All residuals: `(reproj_err (2p), w_err (p))`.
///
/// # Panics
/// If vector lengths disagree with `n`, `m`, `p` (see [`BaInput::validate`]).
///
/// ```
/// use nilang_adbench::{ba::{ba_objective, BaInput}, oracle::data_dir};
/// let b = BaInput::from_file(data_dir().join("adbench/ba/test.txt")).unwrap();
/// let (e, z) = ba_objective(&b);
/// assert!((e[0] + 0.269048849235189).abs() < 1e-10);
/// assert!((z[0] - 0.826092651516).abs() < 1e-12);
/// ```
pub fn ba_objective(b: &BaInput) -> (Vec<f64>, Vec<f64>) {
    b.assert_shapes();
    let mut reproj = vec![0.0; 2 * b.p];
    for (i, (&(c, q), e)) in b.obs.iter().zip(reproj.chunks_exact_mut(2)).enumerate() {
        let r = ba_reproj(b.cam(c), b.point(q), b.w[i], b.feat(i));
        e.copy_from_slice(&r);
    }
    let w_err = b.w.iter().map(|&w| ba_w_err(w)).collect();
    (reproj, w_err)
}

/// One observation's residual pair and its hand-written 2x15 Jacobian block with
/// respect to `[cam (11) | x (3) | w]` (row `r` is residual `r`).
///
/// ```
/// use nilang_adbench::ba::{ba_reproj, ba_reproj_jacobian};
/// let cam = [0.1, -0.2, 0.3, 0.0, 0.0, -5.0, 2.0, 0.1, 0.2, 0.01, 0.001];
/// let (e, j) = ba_reproj_jacobian(&cam, &[1.0, 2.0, 4.0], 0.5, &[0.3, 0.4]);
/// assert_eq!(e, ba_reproj(&cam, &[1.0, 2.0, 4.0], 0.5, &[0.3, 0.4]));
/// assert_eq!(j[0][7], 0.5); // d e_x / d u0 = w
/// ```
pub fn ba_reproj_jacobian(
    cam: &[f64; CAM_LEN],
    x: &[f64; 3],
    w: f64,
    feat: &[f64; 2],
) -> ([f64; 2], [[f64; BLOCK_LEN]; 2]) {
    let r = [cam[0], cam[1], cam[2]];
    let p = [x[0] - cam[3], x[1] - cam[4], x[2] - cam[5]];
    let (f, k1, k2) = (cam[6], cam[9], cam[10]);

    // Rotation: y = R(r) p, with dy/dp = R and dy/dr.
    let sqtheta = dot(&r, &r);
    let (y, rot, dy_dr) = if sqtheta != 0.0 {
        let theta = sqtheta.sqrt();
        let (st, ct) = theta.sin_cos();
        let v = [r[0] / theta, r[1] / theta, r[2] / theta];
        let vxp = cross(&v, &p);
        let vdp = dot(&v, &p);
        let omc = 1.0 - ct;
        // Same expression as `ba_reproj`, so the residuals agree bit for bit.
        let y = rodrigues_rotate(&r, &p);
        // R = ct I + st [v]x + (1 - ct) v v^T
        let vx = skew(&v);
        let mut rot = [[0.0; 3]; 3];
        for i in 0..3 {
            for j in 0..3 {
                let id = if i == j { 1.0 } else { 0.0 };
                rot[i][j] = ct * id + st * vx[i][j] + omc * v[i] * v[j];
            }
        }
        // dy/dr = a v^T + B (I - v v^T) / theta, where
        //   a = dy/dtheta = -st p + ct (v x p) + st v (v.p)
        //   B = dy/dv     = -st [p]x + (1 - ct) ((v.p) I + v p^T)
        let a = [
            -st * p[0] + ct * vxp[0] + st * v[0] * vdp,
            -st * p[1] + ct * vxp[1] + st * v[1] * vdp,
            -st * p[2] + ct * vxp[2] + st * v[2] * vdp,
        ];
        let px = skew(&p);
        let mut bm = [[0.0; 3]; 3];
        for i in 0..3 {
            for j in 0..3 {
                let id = if i == j { 1.0 } else { 0.0 };
                bm[i][j] = -st * px[i][j] + omc * (vdp * id + v[i] * p[j]);
            }
        }
        let mut dy_dr = [[0.0; 3]; 3];
        for i in 0..3 {
            for j in 0..3 {
                let mut s = a[i] * v[j];
                for (t, &vt) in v.iter().enumerate() {
                    let id = if t == j { 1.0 } else { 0.0 };
                    s += bm[i][t] * (id - vt * v[j]) / theta;
                }
                dy_dr[i][j] = s;
            }
        }
        (y, rot, dy_dr)
    } else {
        // y = p + r x p: dy/dp = I + [r]x, dy/dr = -[p]x
        let y = rodrigues_rotate(&r, &p);
        let mut rot = skew(&r);
        for (i, row) in rot.iter_mut().enumerate() {
            row[i] += 1.0;
        }
        let px = skew(&p);
        let dy_dr = px.map(|row| row.map(|e| -e));
        (y, rot, dy_dr)
    };

    // Projection and distortion.
    let inv_z = 1.0 / y[2];
    let u = [y[0] / y[2], y[1] / y[2]];
    let rsq = u[0] * u[0] + u[1] * u[1];
    let l = 1.0 + k1 * rsq + k2 * rsq * rsq;
    let dl_drsq = k1 + 2.0 * k2 * rsq;
    let proj = [f * u[0] * l + cam[7], f * u[1] * l + cam[8]];
    let err = [w * (proj[0] - feat[0]), w * (proj[1] - feat[1])];

    // du'/du = l I + u (2 dl/drsq u)^T ; du/dy = [[1/z, 0, -y1/z^2], [0, 1/z, -y2/z^2]]
    let dud = [
        [l + 2.0 * dl_drsq * u[0] * u[0], 2.0 * dl_drsq * u[0] * u[1]],
        [2.0 * dl_drsq * u[1] * u[0], l + 2.0 * dl_drsq * u[1] * u[1]],
    ];
    let du_dy = [[inv_z, 0.0, -u[0] * inv_z], [0.0, inv_z, -u[1] * inv_z]];
    // M = w f (du'/du) (du/dy): de/dy, 2x3.
    let mut mm = [[0.0; 3]; 2];
    for i in 0..2 {
        for j in 0..3 {
            mm[i][j] = w * f * (dud[i][0] * du_dy[0][j] + dud[i][1] * du_dy[1][j]);
        }
    }

    let mut jac = [[0.0; BLOCK_LEN]; 2];
    for i in 0..2 {
        let row = &mut jac[i];
        for j in 0..3 {
            let mut d_r = 0.0;
            let mut d_p = 0.0;
            for t in 0..3 {
                d_r += mm[i][t] * dy_dr[t][j];
                d_p += mm[i][t] * rot[t][j];
            }
            row[j] = d_r; // rotation
            row[3 + j] = -d_p; // camera centre: p = x - c
            row[11 + j] = d_p; // point
        }
        row[6] = w * u[i] * l; // f
        row[7 + i] = w; // u0 or v0 (the other stays 0)
        row[9] = w * f * u[i] * rsq; // k1
        row[10] = w * f * u[i] * rsq * rsq; // k2
        row[14] = proj[i] - feat[i]; // w
    }
    (err, jac)
}

#[inline]
fn skew(v: &[f64; 3]) -> [[f64; 3]; 3] {
    [[0.0, -v[2], v[1]], [v[2], 0.0, -v[0]], [-v[1], v[0], 0.0]]
}

/// The full sparse Jacobian of `[reproj_err | w_err]` in ADBench's CSR layout,
/// from the hand-written blocks (ADBench's "Manual" baseline).
///
/// ```
/// use nilang_adbench::{ba::{ba_jacobian, BaInput}, oracle::data_dir};
/// let b = BaInput::from_file(data_dir().join("adbench/ba/test.txt")).unwrap();
/// let j = ba_jacobian(&b);
/// assert_eq!((j.nrows, j.ncols, j.vals.len()), (30, 62, 310));
/// ```
pub fn ba_jacobian(b: &BaInput) -> SparseJacobian {
    let mut jac = SparseJacobian::with_layout(b);
    ba_jacobian_into(b, &mut jac);
    jac
}

/// Fills the values of a Jacobian built by [`SparseJacobian::with_layout`] for the
/// same instance; allocates nothing.
///
/// # Panics
/// If `jac` does not have the layout of `b`.
pub fn ba_jacobian_into(b: &BaInput, jac: &mut SparseJacobian) {
    b.assert_shapes();
    assert_eq!(
        jac.nnz(),
        31 * b.p,
        "SparseJacobian layout does not match the instance"
    );
    for (i, &(c, q)) in b.obs.iter().enumerate() {
        let (_, block) = ba_reproj_jacobian(b.cam(c), b.point(q), b.w[i], b.feat(i));
        jac.fill_block(i, &block);
    }
    for (i, &w) in b.w.iter().enumerate() {
        jac.fill_w(i, -2.0 * w);
    }
}
