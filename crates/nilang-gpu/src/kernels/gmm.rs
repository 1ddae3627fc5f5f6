//! The GMM objective's per-point terms: thread `i` computes point `i`'s
//! `logsumexp_k(α_k + Σq_k − ½‖Q_k (x_i − μ_k)‖²)` into `out[i]`, compute–copy–uncompute, by
//! the CPU program's own device functions: `nilang_apps::gmm::gmm_prepare` (`exp q`,
//! `α + Σq`) and `nilang_apps::gmm::gmm_block` on a block of one point (per component
//! `gmm_comp_pts` → `gmm_comp` → `gmm_lcol2`, then `gmm_lse`, the logsumexp shifted by the
//! largest term). The parameters `alpha`, `mu`, `icf` are read by every thread and never
//! written: their adjoints are *shared* (accumulated across threads). Each thread has its own
//! segment of every workspace (zero on entry and on exit): `xc`, `y`, `qd`: `n·K·d`; `sq`,
//! `main`, `tt`, `base`: `n·K`; `mx`, `s`, `ls`: `n` ([`gmm_workspace_sizes`]).
use nilang::prelude::*;

/// `out[i] += logsumexp_c(main_ic)` for point `i` (see the module docs).
#[i(kernel)]
#[allow(clippy::too_many_arguments)]
pub fn gmm_point<T: Ordered>(
    i: usize,
    out: &mut [T],
    xc: &mut [T],
    y: &mut [T],
    sq: &mut [T],
    main: &mut [T],
    tt: &mut [T],
    mx: &mut [T],
    s: &mut [T],
    ls: &mut [T],
    qd: &mut [T],
    base: &mut [T],
    alpha: &mut [T],
    mu: &mut [T],
    icf: &mut [T],
    x: &[T],
    d: usize,
    k: usize,
) {
    routine! {
        nilang_apps::gmm::gmm_prepare(
            &mut qd[i * k * d..(i + 1) * k * d],
            &mut base[i * k..(i + 1) * k],
            alpha,
            icf,
            d,
            k,
        );
        nilang_apps::gmm::gmm_block(
            &mut ls[i..i + 1],
            &mut xc[i * k * d..(i + 1) * k * d],
            &mut y[i * k * d..(i + 1) * k * d],
            &mut sq[i * k..(i + 1) * k],
            &mut main[i * k..(i + 1) * k],
            &mut tt[i * k..(i + 1) * k],
            &mut s[i..i + 1],
            &mut mx[i..i + 1],
            &mut qd[i * k * d..(i + 1) * k * d],
            &mut base[i * k..(i + 1) * k],
            mu,
            icf,
            x,
            i,
            d,
            k,
            1usize,
        );
    }
    out[i] += ls[i];
    unroutine!();
}

/// The workspace lengths of [`gmm_point`] over `n` points, in its parameter order: `xc`, `y`
/// (`n·K·d`), `sq`, `main`, `tt` (`n·K`), `mx`, `s`, `ls` (`n`), `qd` (`n·K·d`), `base`
/// (`n·K`).
pub fn gmm_workspace_sizes(n: usize, d: usize, k: usize) -> [usize; 10] {
    [
        n * k * d,
        n * k * d,
        n * k,
        n * k,
        n * k,
        n,
        n,
        n,
        n * k * d,
        n * k,
    ]
}

/// Zeroed workspaces of [`gmm_point`] over `n` points (see [`gmm_workspace_sizes`]).
fn workspaces<T: Clone>(n: usize, d: usize, k: usize, zero: T) -> Vec<Vec<T>> {
    let sizes = gmm_workspace_sizes(n, d, k);
    sizes.iter().map(|&s| vec![zero.clone(); s]).collect()
}

/// A GMM problem for [`gmm_point`] on one core (the reference of the device's launches): the
/// parameters `alpha` (`K`), `mu` (`K·d`), `icf` (`K·d(d+1)/2`) and the points `x` (`n·d`).
pub struct GmmCpu<'a, T> {
    /// The mixture weights' logits (`K`).
    pub alpha: &'a [T],
    /// The means (`K·d`).
    pub mu: &'a [T],
    /// The inverse covariance factors (`K·d(d+1)/2`).
    pub icf: &'a [T],
    /// The points (`n·d`).
    pub x: &'a [T],
    /// The dimension.
    pub d: usize,
    /// The number of components.
    pub k: usize,
}

impl<T: Ordered> GmmCpu<'_, T> {
    /// The number of points.
    pub fn n(&self) -> usize {
        self.x.len() / self.d
    }

    /// The kernel's terms: [`gmm_point`] for `i = 0..n`, in order (the reference of the
    /// device's forward launch), in `f64` or `f32`.
    ///
    /// ```
    /// use nilang_gpu::kernels::gmm::GmmCpu;
    /// let (alpha, mu, icf, x) = ([0.5], [0.0], [0.0], [1.0, -1.0]);
    /// let p = GmmCpu { alpha: &alpha, mu: &mu, icf: &icf, x: &x, d: 1, k: 1 };
    /// let out = p.terms();
    /// // one component: logsumexp = α + q − ½ (x − μ)²
    /// assert!((out[0] - 0.0f64).abs() < 1e-15 && (out[1] - 0.0f64).abs() < 1e-15);
    /// ```
    pub fn terms(&self) -> Vec<T> {
        let (n, d, k) = (self.n(), self.d, self.k);
        let mut out = vec![T::default(); n];
        let mut w = workspaces(n, d, k, T::default());
        let (mut al, mut m, mut q) = (self.alpha.to_vec(), self.mu.to_vec(), self.icf.to_vec());
        for i in 0..n {
            let [xc, y, sq, main, tt, mx, s, ls, qd, base] = &mut w[..] else {
                unreachable!("ten workspaces")
            };
            gmm_point(
                i, &mut out, xc, y, sq, main, tt, mx, s, ls, qd, base, &mut al, &mut m, &mut q,
                self.x, d, k,
            );
        }
        out
    }

    /// The gradient of `Σ_i out_i` with respect to `alpha`, `mu`, `icf` (the reference of the
    /// device's gradient launch): from the terms `out` (of [`GmmCpu::terms`]) with adjoint
    /// one, [`gmm_point_inv`] on gradient numbers for `i = n−1..0`.
    pub fn shared_gradient(&self, out: &[T]) -> [Vec<T>; 3]
    where
        GVar<T>: Ordered,
    {
        let (n, d, k) = (self.n(), self.d, self.k);
        let gv = |v: &[T], s: f64| {
            v.iter()
                .map(|&x| GVar::new(x, T::lit(s)))
                .collect::<Vec<_>>()
        };
        let mut go = gv(out, 1.0);
        let mut gw = workspaces(n, d, k, GVar::new(T::default(), T::default()));
        let (mut ga, mut gm, mut gq) = (gv(self.alpha, 0.0), gv(self.mu, 0.0), gv(self.icf, 0.0));
        let gx = gv(self.x, 0.0);
        for i in (0..n).rev() {
            let [xc, y, sq, main, tt, mx, s, ls, qd, base] = &mut gw[..] else {
                unreachable!("ten workspaces")
            };
            gmm_point_inv(
                i, &mut go, xc, y, sq, main, tt, mx, s, ls, qd, base, &mut ga, &mut gm, &mut gq,
                &gx, d, k,
            );
        }
        let adj = |v: &[GVar<T>]| v.iter().map(|g| g.g).collect::<Vec<_>>();
        [adj(&ga), adj(&gm), adj(&gq)]
    }
}
