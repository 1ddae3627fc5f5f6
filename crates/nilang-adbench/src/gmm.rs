//! ADBench's Gaussian-mixture objective (negative log-posterior with a Wishart
//! prior): the instance type, its file format, the objective and a hand-written
//! analytic gradient.
//!
//! See `shared/data/adbench/README.md` for the definition that is implemented here.

use std::fmt::Write as _;
use std::path::Path;

use crate::error::{check_arrays, read_to_string, AdbenchError};
use crate::special::{log_gamma_d, logsumexp, ADBENCH_PI};
use crate::tokens::{check_size, checked_mul, Tokens};

/// One GMM instance: parameters (`alphas`, `means`, `icf`), data `x` and the
/// Wishart hyper-parameters `gamma`, `m`.
///
/// All matrices are flat and row-major with respect to the component (or point):
/// `means[k*d + j]`, `icf[k*d(d+1)/2 + t]`, `x[i*d + j]`. Each `icf` block is
/// `[q (d log-diagonal entries) | l (d(d-1)/2 strictly-lower entries, column by column)]`.
///
/// ```
/// use nilang_adbench::gmm::GmmInput;
/// let src = "1 1 1\n0\n0\n0\n0\n1 0\n";
/// let g = GmmInput::parse(src).unwrap();
/// assert_eq!((g.d, g.k, g.n), (1, 1, 1));
/// assert_eq!(g.n_params(), 3);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct GmmInput {
    /// Dimension of the data points.
    pub d: usize,
    /// Number of mixture components.
    pub k: usize,
    /// Number of data points.
    pub n: usize,
    /// Unnormalised log mixture weights, length `k`.
    pub alphas: Vec<f64>,
    /// Means, `k*d`, component-major.
    pub means: Vec<f64>,
    /// Inverse-covariance factors, `k*d(d+1)/2`, component-major.
    pub icf: Vec<f64>,
    /// Data points, `n*d`, point-major.
    pub x: Vec<f64>,
    /// Wishart scale hyper-parameter.
    pub gamma: f64,
    /// Wishart degrees-of-freedom hyper-parameter.
    pub m: i64,
}

/// `d(d+1)/2`: the number of `icf` entries per component.
#[inline]
pub fn icf_len(d: usize) -> usize {
    d * (d + 1) / 2
}

/// Position of the strictly-lower entry `L[row, col]` (`col < row`) in the
/// column-by-column packed `l` block of dimension `d`.
#[inline]
fn lower_index(d: usize, row: usize, col: usize) -> usize {
    col * (2 * d - col - 1) / 2 + (row - col - 1)
}

impl GmmInput {
    /// Parses the ADBench text format (see the module docs). Numbers must be finite,
    /// counts must match the header, and nothing may follow `gamma m`.
    ///
    /// ```
    /// use nilang_adbench::gmm::GmmInput;
    /// assert!(GmmInput::parse("1 1 1\n0\n0\n0\nnan\n1 0").is_err());
    /// ```
    pub fn parse(src: &str) -> Result<Self, AdbenchError> {
        Self::parse_named(src, "<string>", false)
    }

    /// Parses the "replicate point" (`-rep`) variant: the `x` block holds one point
    /// that is used for all `n` points.
    pub fn parse_replicated(src: &str) -> Result<Self, AdbenchError> {
        Self::parse_named(src, "<string>", true)
    }

    /// Reads and parses a file; errors name the path.
    ///
    /// ```
    /// use nilang_adbench::{gmm::GmmInput, oracle::data_dir};
    /// let g = GmmInput::from_file(data_dir().join("adbench/gmm/test.txt")).unwrap();
    /// assert_eq!((g.d, g.k, g.n), (2, 3, 1));
    /// ```
    pub fn from_file(path: impl AsRef<Path>) -> Result<Self, AdbenchError> {
        let path = path.as_ref();
        let src = read_to_string(path)?;
        Self::parse_named(&src, &path.display().to_string(), false)
    }

    /// Parses with an explicit file name for messages; `replicate` selects the
    /// `-rep` variant.
    pub fn parse_named(src: &str, file: &str, replicate: bool) -> Result<Self, AdbenchError> {
        Self::parse_named_limited(src, file, replicate, crate::MAX_INSTANCE_BYTES)
    }

    /// [`GmmInput::parse_named`] with an explicit size limit in bytes, checked from the
    /// header before allocating.
    ///
    /// ```
    /// use nilang_adbench::{gmm::GmmInput, AdbenchError};
    /// let e = GmmInput::parse_named_limited("2 3 1000000000000\n", "<s>", true, 1 << 30);
    /// assert!(matches!(e, Err(AdbenchError::TooLarge { .. })));
    /// ```
    pub fn parse_named_limited(
        src: &str,
        file: &str,
        replicate: bool,
        max_bytes: u64,
    ) -> Result<Self, AdbenchError> {
        let mut t = Tokens::new(file, src);
        let d = t.positive(&|| "d (the dimension, first header value)".into())?;
        let k = t.positive(&|| "K (the number of components, second header value)".into())?;
        let n = t.positive(&|| "n (the number of points, third header value)".into())?;
        let (d2, k2, n2) = (d as u128, k as u128, n as u128);
        check_size(
            file,
            format!("d={d} K={k} n={n}"),
            // d, K, n < 2^64, so every product fits in u128 except K * d(d+1)/2: saturate
            k2.saturating_mul(1 + d2 + d2 * (d2 + 1) / 2)
                .saturating_add(n2 * d2),
            0,
            max_bytes,
        )?;
        let tri = d
            .checked_add(1)
            .and_then(|d1| d1.checked_mul(d))
            .map(|v| v / 2)
            .ok_or_else(|| {
                AdbenchError::invalid(file, format!("d(d+1)/2 overflows for d = {d}"))
            })?;
        let kd = checked_mul(file, k, d, "K*d")?;
        let kt = checked_mul(file, k, tri, "K*d(d+1)/2")?;
        let nd = checked_mul(file, n, d, "n*d")?;

        let mut alphas = Vec::new();
        t.f64s(&mut alphas, k, &|c| format!("alpha[{c}]"))?;
        let mut means = Vec::new();
        t.f64s(&mut means, kd, &|j| format!("mean[{}][{}]", j / d, j % d))?;
        let mut icf = Vec::new();
        t.f64s(&mut icf, kt, &|j| format!("icf[{}][{}]", j / tri, j % tri))?;
        let mut x = Vec::new();
        if replicate {
            t.f64s(&mut x, d, &|j| format!("x[0][{j}] (replicated point)"))?;
            let point = x.clone();
            x.reserve(nd.saturating_sub(d));
            for _ in 1..n {
                x.extend_from_slice(&point);
            }
        } else {
            t.f64s(&mut x, nd, &|j| format!("x[{}][{}]", j / d, j % d))?;
        }
        let gamma = t.f64(&|| "gamma (Wishart prior, after the points)".into())?;
        let m = t.i64(&|| "m (Wishart prior, after gamma)".into())?;
        t.end()?;
        if gamma <= 0.0 {
            return Err(AdbenchError::invalid(
                file,
                format!("gamma = {gamma} must be positive"),
            ));
        }
        Ok(GmmInput {
            d,
            k,
            n,
            alphas,
            means,
            icf,
            x,
            gamma,
            m,
        })
    }

    /// Checks that all lengths agree with `d`, `k`, `n` and that all values are finite.
    ///
    /// ```
    /// use nilang_adbench::gmm::gmm_generate;
    /// let mut g = gmm_generate(2, 3, 4, 0);
    /// assert!(g.validate().is_ok());
    /// g.means.pop();
    /// assert!(g.validate().unwrap_err().to_string().contains("means"));
    /// ```
    pub fn validate(&self) -> Result<(), AdbenchError> {
        let f = "<GmmInput>";
        let checks: [(&str, &[f64], Option<usize>); 4] = [
            ("alphas", &self.alphas, Some(self.k)),
            ("means", &self.means, self.k.checked_mul(self.d)),
            (
                "icf",
                &self.icf,
                self.d
                    .checked_add(1)
                    .and_then(|d1| d1.checked_mul(self.d))
                    .and_then(|v| self.k.checked_mul(v / 2)),
            ),
            ("x", &self.x, self.n.checked_mul(self.d)),
        ];
        let sizes = format!("d={}, K={}, n={}", self.d, self.k, self.n);
        check_arrays(f, &sizes, &checks)?;
        if !(self.gamma.is_finite() && self.gamma > 0.0) {
            return Err(AdbenchError::invalid(
                f,
                format!("gamma = {} must be positive", self.gamma),
            ));
        }
        Ok(())
    }

    /// Length of the flat parameter vector `K*(1 + d + d(d+1)/2)`.
    pub fn n_params(&self) -> usize {
        self.k * (1 + self.d + icf_len(self.d))
    }

    /// The parameters in ADBench's flat layout `[alphas | means | icf]`.
    ///
    /// ```
    /// use nilang_adbench::gmm::gmm_generate;
    /// let mut g = gmm_generate(2, 3, 4, 0);
    /// let p = g.params();
    /// g.set_params(&p);
    /// assert_eq!(g.params(), p);
    /// ```
    pub fn params(&self) -> Vec<f64> {
        let mut p = Vec::with_capacity(self.n_params());
        p.extend_from_slice(&self.alphas);
        p.extend_from_slice(&self.means);
        p.extend_from_slice(&self.icf);
        p
    }

    /// Overwrites the parameters from the flat layout `[alphas | means | icf]`.
    ///
    /// # Panics
    /// If `p.len() != self.n_params()`.
    pub fn set_params(&mut self, p: &[f64]) {
        assert_eq!(
            p.len(),
            self.n_params(),
            "flat GMM parameter vector has the wrong length"
        );
        let (a, rest) = p.split_at(self.k);
        let (mu, icf) = rest.split_at(self.k * self.d);
        self.alphas.copy_from_slice(a);
        self.means.copy_from_slice(mu);
        self.icf.copy_from_slice(icf);
    }

    /// Writes the instance in ADBench's text format. Values that are exactly
    /// representable with 6 decimals are printed as `%.6f` (like ADBench's files);
    /// other values use the shortest round-trip form, so `parse(write())` is lossless.
    ///
    /// ```
    /// use nilang_adbench::gmm::{gmm_generate, GmmInput};
    /// let g = gmm_generate(3, 2, 5, 7);
    /// assert_eq!(GmmInput::parse(&g.write()).unwrap(), g);
    /// ```
    pub fn write(&self) -> String {
        let mut s = String::with_capacity(12 * (self.n_params() + self.x.len()) + 32);
        let _ = writeln!(s, "{} {} {}", self.d, self.k, self.n);
        for &a in &self.alphas {
            push_num(&mut s, a);
            s.push('\n');
        }
        let rows = |s: &mut String, v: &[f64], width: usize| {
            for row in v.chunks(width.max(1)) {
                for &e in row {
                    push_num(s, e);
                    s.push(' ');
                }
                s.push('\n');
            }
        };
        rows(&mut s, &self.means, self.d);
        rows(&mut s, &self.icf, icf_len(self.d));
        rows(&mut s, &self.x, self.d);
        push_num(&mut s, self.gamma);
        let _ = writeln!(s, " {} ", self.m);
        s
    }

    fn assert_shapes(&self) {
        assert_eq!(self.alphas.len(), self.k, "GmmInput: alphas.len() != k");
        assert_eq!(
            self.means.len(),
            self.k * self.d,
            "GmmInput: means.len() != k*d"
        );
        assert_eq!(
            self.icf.len(),
            self.k * icf_len(self.d),
            "GmmInput: icf.len() != k*d(d+1)/2"
        );
        assert_eq!(self.x.len(), self.n * self.d, "GmmInput: x.len() != n*d");
    }
}

fn push_num(s: &mut String, v: f64) {
    let six = format!("{v:.6}");
    if six.parse::<f64>() == Ok(v) {
        s.push_str(&six);
    } else {
        let _ = write!(s, "{v:?}");
    }
}

/// The constant terms of the objective, `-n d/2 log(2 PI) - K C` with the Wishart
/// normaliser `C = N d (log gamma - log(2)/2) - log Gamma_d(N/2)`, `N = d + m + 1`
/// (ADBench's truncated [`ADBENCH_PI`]).
///
/// ```
/// use nilang_adbench::gmm::gmm_constant;
/// use nilang_adbench::special::ADBENCH_PI;
/// // d = K = n = 1, gamma = 1, m = 0: N = 2, C = -log 2 - log Gamma(1) = -log 2
/// let c = gmm_constant(1, 1, 1, 1.0, 0);
/// assert!((c - (2f64.ln() - 0.5 * (2.0 * ADBENCH_PI).ln())).abs() < 1e-14);
/// ```
pub fn gmm_constant(d: usize, k: usize, n: usize, gamma: f64, m: i64) -> f64 {
    let (df, mf) = (d as f64, m as f64);
    let big_n = df + mf + 1.0;
    let c = big_n * df * (gamma.ln() - 0.5 * 2f64.ln()) - log_gamma_d(d, 0.5 * big_n);
    -(n as f64) * df * 0.5 * (2.0 * ADBENCH_PI).ln() - k as f64 * c
}

/// The terms that do not depend on the data points:
/// `-n logsumexp(alpha) + prior` plus [`gmm_constant`].
fn data_free_terms(g: &GmmInput) -> f64 {
    let (d, k, n) = (g.d, g.k, g.n);
    let tri = icf_len(d);
    let lse_alphas = logsumexp(&g.alphas);
    let g2 = g.gamma * g.gamma;
    let mf = g.m as f64;
    let mut prior = 0.0;
    for c in 0..k {
        let icf = &g.icf[c * tri..(c + 1) * tri];
        let (q, l) = icf.split_at(d);
        let sum_q: f64 = q.iter().sum();
        let sq_diag: f64 = q.iter().map(|&v| (2.0 * v).exp()).sum();
        let sq_l: f64 = l.iter().map(|v| v * v).sum();
        prior += 0.5 * g2 * (sq_diag + sq_l) - mf * sum_q;
    }
    gmm_constant(d, k, n, g.gamma, g.m) - n as f64 * lse_alphas + prior
}

/// The GMM objective `f` exactly as ADBench defines it (see the README).
///
/// Cost `O(n K d^2)`; allocation is `O(K d^2)` scratch once per call, none per point.
///
/// # Panics
/// If the vector lengths disagree with `d`, `k`, `n` (use [`GmmInput::validate`]).
///
/// ```
/// use nilang_adbench::{gmm::{gmm_objective, GmmInput}, oracle::data_dir};
/// let g = GmmInput::from_file(data_dir().join("adbench/gmm/test.txt")).unwrap();
/// assert!((gmm_objective(&g) - 8.07380408004975791).abs() < 1e-12);
/// ```
pub fn gmm_objective(g: &GmmInput) -> f64 {
    g.assert_shapes();
    let (d, k, n) = (g.d, g.k, g.n);
    let tri = icf_len(d);
    let lrow_len = tri - d;
    // Per-component precomputation: exp(q), alpha + sum(q), and L re-packed row by row
    // (row r holds L[r, 0..r] contiguously at offset r(r-1)/2) so that
    // (Q xc)_r = exp(q_r) xc_r + dot(L[r, ..r], xc[..r]).
    let mut qdiag = vec![0.0; k * d];
    let mut base = vec![0.0; k];
    let mut lrows = vec![0.0; k * lrow_len];
    for c in 0..k {
        let icf = &g.icf[c * tri..(c + 1) * tri];
        let (q, l) = icf.split_at(d);
        base[c] = g.alphas[c] + q.iter().sum::<f64>();
        for (qd, &qv) in qdiag[c * d..(c + 1) * d].iter_mut().zip(q) {
            *qd = qv.exp();
        }
        let lr = &mut lrows[c * lrow_len..(c + 1) * lrow_len];
        for r in 1..d {
            for col in 0..r {
                lr[r * (r - 1) / 2 + col] = l[lower_index(d, r, col)];
            }
        }
    }
    let mut xc = vec![0.0; d];
    let mut main = vec![0.0; k];
    let mut slse = 0.0;
    for xi in g.x.chunks_exact(d) {
        for c in 0..k {
            let mu = &g.means[c * d..(c + 1) * d];
            for ((o, &a), &b) in xc.iter_mut().zip(xi).zip(mu) {
                *o = a - b;
            }
            let qd = &qdiag[c * d..(c + 1) * d];
            let lr = &lrows[c * lrow_len..(c + 1) * lrow_len];
            let mut sq = 0.0;
            for r in 0..d {
                let row = &lr[r * r.saturating_sub(1) / 2..][..r];
                let dot: f64 = row.iter().zip(&xc[..r]).map(|(a, b)| a * b).sum();
                let y = qd[r] * xc[r] + dot;
                sq += y * y;
            }
            main[c] = base[c] - 0.5 * sq;
        }
        slse += logsumexp(&main);
    }
    debug_assert_eq!(g.x.len(), n * d);
    slse + data_free_terms(g)
}

/// The objective and its gradient in ADBench's flat layout
/// `[alpha (K) | mu (K*d) | icf (K*d(d+1)/2)]`, written by hand (no AD).
///
/// # Panics
/// If the vector lengths disagree with `d`, `k`, `n`.
///
/// ```
/// use nilang_adbench::gmm::{gmm_generate, gmm_objective, gmm_objective_and_gradient};
/// let g = gmm_generate(2, 3, 10, 1);
/// let (f, grad) = gmm_objective_and_gradient(&g);
/// assert!((f - gmm_objective(&g)).abs() < 1e-9 * f.abs().max(1.0));
/// assert_eq!(grad.len(), g.n_params());
/// ```
pub fn gmm_objective_and_gradient(g: &GmmInput) -> (f64, Vec<f64>) {
    g.assert_shapes();
    let (d, k, n) = (g.d, g.k, g.n);
    let tri = icf_len(d);
    let off_mu = k;
    let off_icf = k + k * d;
    let mut grad = vec![0.0; g.n_params()];

    let mut qdiag = vec![0.0; k * d];
    let mut base = vec![0.0; k];
    for c in 0..k {
        let q = &g.icf[c * tri..c * tri + d];
        base[c] = g.alphas[c] + q.iter().sum::<f64>();
        for (qd, &qv) in qdiag[c * d..(c + 1) * d].iter_mut().zip(q) {
            *qd = qv.exp();
        }
    }
    // Scratch for one point: centred points and Q (x - mu) for every component.
    let mut xcs = vec![0.0; k * d];
    let mut ys = vec![0.0; k * d];
    let mut main = vec![0.0; k];
    let mut qty = vec![0.0; d];
    let mut slse = 0.0;
    for xi in g.x.chunks_exact(d) {
        for c in 0..k {
            let mu = &g.means[c * d..(c + 1) * d];
            let xc = &mut xcs[c * d..(c + 1) * d];
            for ((o, &a), &b) in xc.iter_mut().zip(xi).zip(mu) {
                *o = a - b;
            }
            let qd = &qdiag[c * d..(c + 1) * d];
            let l = &g.icf[c * tri + d..(c + 1) * tri];
            let y = &mut ys[c * d..(c + 1) * d];
            for r in 0..d {
                y[r] = qd[r] * xc[r];
            }
            // L is packed column by column: column `col` holds rows col+1..d.
            let mut off = 0;
            for (col, &xv) in xc.iter().enumerate() {
                let len = d - 1 - col;
                for (yr, &lv) in y[col + 1..].iter_mut().zip(&l[off..off + len]) {
                    *yr += lv * xv;
                }
                off += len;
            }
            main[c] = base[c] - 0.5 * y.iter().map(|v| v * v).sum::<f64>();
        }
        let lse = logsumexp(&main);
        slse += lse;
        for c in 0..k {
            let p = (main[c] - lse).exp();
            let xc = &xcs[c * d..(c + 1) * d];
            let y = &ys[c * d..(c + 1) * d];
            let qd = &qdiag[c * d..(c + 1) * d];
            let l = &g.icf[c * tri + d..(c + 1) * tri];
            grad[c] += p;
            // d main / d q_r = 1 - y_r exp(q_r) xc_r
            let gq = &mut grad[off_icf + c * tri..off_icf + (c + 1) * tri];
            for r in 0..d {
                gq[r] += p * (1.0 - y[r] * qd[r] * xc[r]);
                qty[r] = qd[r] * y[r];
            }
            // d main / d L[r, col] = -y_r xc_col ; (Q^T y)_col += L[r, col] y_r
            let gl = &mut gq[d..];
            let mut off = 0;
            for (col, (qt, &xv)) in qty.iter_mut().zip(xc).enumerate() {
                let len = d - 1 - col;
                let mut acc = 0.0;
                for ((gv, &lv), &yv) in gl[off..off + len]
                    .iter_mut()
                    .zip(&l[off..off + len])
                    .zip(&y[col + 1..])
                {
                    *gv -= p * yv * xv;
                    acc += lv * yv;
                }
                *qt += acc;
                off += len;
            }
            // d main / d mu = Q^T y
            let gmu = &mut grad[off_mu + c * d..off_mu + (c + 1) * d];
            for (gm, &v) in gmu.iter_mut().zip(&qty) {
                *gm += p * v;
            }
        }
    }
    // -n logsumexp(alpha)
    let lse_alphas = logsumexp(&g.alphas);
    for (ga, &a) in grad[..k].iter_mut().zip(&g.alphas) {
        *ga -= n as f64 * (a - lse_alphas).exp();
    }
    // Wishart prior: gamma^2/2 (||exp q||^2 + ||l||^2) - m sum(q)
    let g2 = g.gamma * g.gamma;
    let mf = g.m as f64;
    for c in 0..k {
        let icf = &g.icf[c * tri..(c + 1) * tri];
        let gi = &mut grad[off_icf + c * tri..off_icf + (c + 1) * tri];
        for r in 0..d {
            gi[r] += g2 * (2.0 * icf[r]).exp() - mf;
        }
        for t in d..tri {
            gi[t] += g2 * icf[t];
        }
    }
    (slse + data_free_terms(g), grad)
}

/// The hand-written gradient of [`gmm_objective`], flat layout
/// `[alpha (K) | mu (K*d) | icf (K*d(d+1)/2)]`.
///
/// ```
/// use nilang_adbench::{gmm::{gmm_gradient, GmmInput}, oracle::data_dir};
/// let g = GmmInput::from_file(data_dir().join("adbench/gmm/test.txt")).unwrap();
/// let grad = gmm_gradient(&g);
/// assert!((grad[0] - 0.10866285550865246).abs() < 1e-12);
/// ```
pub fn gmm_gradient(g: &GmmInput) -> Vec<f64> {
    gmm_objective_and_gradient(g).1
}

pub use crate::gmm_gen::gmm_generate;
