//! Fitting through [argmin](https://argmin-rs.org): the GMM objective and the Petersen
//! embedding loss as argmin problems ([`Minimise`]), and two observers, [`LossCurve`] (records
//! the loss and the gradient norm per iteration and draws them as an SVG) and [`Progress`] (an
//! `indicatif` progress bar).
//!
//! ```
//! use argmin::core::{Executor, State};
//! use argmin::solver::{linesearch::MoreThuenteLineSearch, quasinewton::LBFGS};
//! use nilang_apps::{adbench::gmm::gmm_generate, fit::gmm_problem};
//! use argmin::core::CostFunction;
//! let g = gmm_generate(2, 3, 30, 1);
//! let start = gmm_problem(&g).cost(&g.params()).unwrap();
//! let solver = LBFGS::new(MoreThuenteLineSearch::new(), 7).with_tolerance_grad(1e-6).unwrap();
//! let res = Executor::new(gmm_problem(&g), solver)
//!     .configure(|s| s.param(g.params()).max_iters(500))
//!     .run()
//!     .unwrap();
//! assert!(res.state().get_best_cost() < start);
//! ```
use crate::adbench::gmm::GmmInput;
use crate::embedding::{free_coordinates, hessian, value_and_gradient_into, Workspace, NV};
use crate::gmm::{gmm_rest_value_grad, gmm_value_grad, GmmGradWork};
use argmin::core::observers::Observe;
use argmin::core::{Error, IterState, State, KV};
use indicatif::{ProgressBar, ProgressStyle};
pub use nilang::ad::interop_argmin::Minimise;
use std::sync::{Arc, Mutex};

/// The GMM fit's loss for `g`'s data as a function of the flat parameters `[α | μ | icf]`
/// (see [`GmmInput::params`]): the negative log-posterior, the Wishart prior minus the
/// log-likelihood. ADBench's objective `f` *adds* the prior `P` to the log-likelihood (it is a
/// benchmark function, unbounded below), so the loss is `2P − f`, with `P` and its gradient
/// from [`gmm_rest_value_grad`] on the instance without points and `f` from
/// [`gmm_value_grad`]. Adding a constant to all `α` does not change it.
pub fn gmm_problem(
    g: &GmmInput,
) -> Minimise<impl FnMut(&[f64], Option<&mut [f64]>) -> f64 + use<>> {
    let mut g = g.clone();
    let mut prior_only = g.clone();
    prior_only.n = 0;
    prior_only.x.clear();
    let (mut gf, mut gp) = (vec![0.0; g.n_params()], vec![0.0; g.n_params()]);
    Minimise::new(move |p: &[f64], grad: Option<&mut [f64]>| {
        g.set_params(p);
        prior_only.set_params(p);
        let f = gmm_value_grad(&g, &mut GmmGradWork::new(g.d, g.k), &mut gf);
        let prior = gmm_rest_value_grad(&prior_only, &mut GmmGradWork::new(g.d, g.k), &mut gp);
        if let Some(grad) = grad {
            for ((o, f), p) in grad.iter_mut().zip(&gf).zip(&gp) {
                *o = 2.0 * p - f;
            }
        }
        2.0 * prior - f
    })
}

/// The Petersen embedding loss ([`crate::embedding`]) in `k` dimensions as a function of the
/// free coordinates (all but those of the vertices `fixed`, which stay at their place in
/// `x0`), with its exact Hessian (forward-over-reverse) for Newton-type solvers. Returns the
/// problem and the free coordinates' starting values; [`embedding_positions`] puts a solution
/// back into all positions.
#[allow(clippy::type_complexity)]
pub fn embedding_problem(
    x0: &[f64],
    k: usize,
    fixed: &[usize],
) -> (
    Minimise<
        impl FnMut(&[f64], Option<&mut [f64]>) -> f64 + use<>,
        impl FnMut(&[f64]) -> Vec<Vec<f64>> + use<>,
    >,
    Vec<f64>,
) {
    assert_eq!(
        x0.len(),
        NV * k,
        "positions of {NV} vertices in {k} dimensions"
    );
    let free = free_coordinates(k, fixed);
    let start = free.iter().map(|&i| x0[i]).collect();
    let (mut x, mut ws, mut full) = (x0.to_vec(), Workspace::new(k), vec![0.0; x0.len()]);
    let (free2, mut x2) = (free.clone(), x0.to_vec());
    let problem = Minimise::new(move |p: &[f64], grad: Option<&mut [f64]>| {
        free.iter().zip(p).for_each(|(&i, &v)| x[i] = v);
        let v = value_and_gradient_into(&x, k, &mut ws, &mut full);
        if let Some(g) = grad {
            free.iter()
                .zip(g.iter_mut())
                .for_each(|(&i, g)| *g = full[i]);
        }
        v
    })
    .with_hessian(move |p: &[f64]| {
        free2.iter().zip(p).for_each(|(&i, &v)| x2[i] = v);
        let h = hessian(&x2, k);
        free2
            .iter()
            .map(|&i| free2.iter().map(|&j| 0.5 * (h[i][j] + h[j][i])).collect())
            .collect()
    });
    (problem, start)
}

/// All positions from `x0` with the free coordinates (of [`embedding_problem`]) set to `p`.
pub fn embedding_positions(x0: &[f64], k: usize, fixed: &[usize], p: &[f64]) -> Vec<f64> {
    let mut x = x0.to_vec();
    free_coordinates(k, fixed)
        .into_iter()
        .zip(p)
        .for_each(|(i, &v)| x[i] = v);
    x
}

/// An observer recording, per iteration, the loss and the gradient norm (when the solver keeps
/// a gradient) into a shared [`Curve`]: keep a clone, give one to the executor, read
/// [`LossCurve::curve`] afterwards; [`Curve::write_svg`] draws it.
///
/// ```
/// use argmin::core::{observers::ObserverMode, Executor};
/// use argmin::solver::{linesearch::MoreThuenteLineSearch, quasinewton::LBFGS};
/// use nilang_apps::{adbench::gmm::gmm_generate, fit::{gmm_problem, LossCurve}};
/// let g = gmm_generate(2, 3, 40, 1);
/// let curve = LossCurve::default();
/// let solver = LBFGS::new(MoreThuenteLineSearch::new(), 5);
/// Executor::new(gmm_problem(&g), solver)
///     .configure(|s| s.param(g.params()).max_iters(5))
///     .add_observer(curve.clone(), ObserverMode::Always)
///     .run()
///     .unwrap();
/// let curve = curve.curve();
/// assert_eq!(curve.losses.len(), 6); // the start and 5 iterations
/// assert!(curve.losses.last().unwrap().1 < curve.losses[0].1);
/// ```
#[derive(Clone, Debug, Default)]
pub struct LossCurve(Arc<Mutex<Curve>>);

impl LossCurve {
    /// What was recorded so far.
    pub fn curve(&self) -> Curve {
        self.0.lock().map(|c| c.clone()).unwrap_or_default()
    }

    fn record<G: AsRef<[f64]>>(
        &self,
        iter: u64,
        cost: f64,
        gradient: Option<&G>,
    ) -> Result<(), Error> {
        self.0
            .lock()
            .map_err(|_| Error::msg("nilang-apps: the loss curve's lock is poisoned"))?
            .record(iter, cost, gradient);
        Ok(())
    }
}

/// A loss curve: what [`LossCurve`] records.
#[derive(Clone, Debug, Default)]
pub struct Curve {
    /// `(iteration, loss)`.
    pub losses: Vec<(u64, f64)>,
    /// `(iteration, ‖gradient‖₂)`.
    pub gradient_norms: Vec<(u64, f64)>,
}

impl Curve {
    fn record<G: AsRef<[f64]>>(&mut self, iter: u64, cost: f64, gradient: Option<&G>) {
        self.losses.push((iter, cost));
        if let Some(g) = gradient {
            let norm = g.as_ref().iter().map(|v| v * v).sum::<f64>().sqrt();
            self.gradient_norms.push((iter, norm));
        }
    }

    /// Draws the loss (left; log scale of `loss − min + 1e-16·|min|` when `gap` is set, else
    /// linear) and the gradient norm (right, log scale) against the iteration, as an SVG.
    pub fn write_svg(&self, path: &std::path::Path, title: &str, gap: bool) -> Result<(), String> {
        use plotters::prelude::*;
        let err = |e: &dyn std::fmt::Display| format!("{}: {e}", path.display());
        if self.losses.is_empty() {
            return Err(err(&"no iterations recorded"));
        }
        let root = SVGBackend::new(path, (1100, 420)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| err(&e))?;
        let root = root
            .titled(title, ("sans-serif", 22))
            .map_err(|e| err(&e))?;
        let (left, right) = root.split_horizontally(550);
        let last = self.losses.iter().map(|l| l.0).max().unwrap_or(0).max(1);
        let finite = |v: &&(u64, f64)| v.1.is_finite();
        let min = self
            .losses
            .iter()
            .filter(finite)
            .map(|l| l.1)
            .fold(f64::INFINITY, f64::min);
        let max = self
            .losses
            .iter()
            .filter(finite)
            .map(|l| l.1)
            .fold(f64::NEG_INFINITY, f64::max);
        let blue = RGBColor(31, 119, 180);
        let red = RGBColor(214, 39, 40);
        if gap {
            let floor = (1e-16 * min.abs()).max(1e-300);
            let pts: Vec<(u64, f64)> = self
                .losses
                .iter()
                .filter(finite)
                .map(|&(i, l)| (i, l - min + floor))
                .collect();
            let top = pts.iter().map(|p| p.1).fold(floor, f64::max) * 2.0;
            let mut chart = ChartBuilder::on(&left)
                .margin(12)
                .x_label_area_size(35)
                .y_label_area_size(65)
                .build_cartesian_2d(0..last, (floor..top).log_scale())
                .map_err(|e| err(&e))?;
            chart
                .configure_mesh()
                .x_desc("iteration")
                .y_desc("loss − final loss")
                .y_label_formatter(&|v| format!("{v:.0e}"))
                .draw()
                .map_err(|e| err(&e))?;
            chart
                .draw_series(LineSeries::new(pts, blue.stroke_width(2)))
                .map_err(|e| err(&e))?;
        } else {
            let pad = ((max - min) * 0.05).max(1e-12);
            let mut chart = ChartBuilder::on(&left)
                .margin(12)
                .x_label_area_size(35)
                .y_label_area_size(65)
                .build_cartesian_2d(0..last, (min - pad)..(max + pad))
                .map_err(|e| err(&e))?;
            chart
                .configure_mesh()
                .x_desc("iteration")
                .y_desc("loss")
                .draw()
                .map_err(|e| err(&e))?;
            chart
                .draw_series(LineSeries::new(
                    self.losses.iter().filter(finite).copied(),
                    blue.stroke_width(2),
                ))
                .map_err(|e| err(&e))?;
        }
        if !self.gradient_norms.is_empty() {
            let pts: Vec<(u64, f64)> = self
                .gradient_norms
                .iter()
                .filter(|g| g.1.is_finite())
                .map(|&(i, g)| (i, g.max(1e-300)))
                .collect();
            let lo = pts.iter().map(|p| p.1).fold(f64::INFINITY, f64::min) / 2.0;
            let hi = pts.iter().map(|p| p.1).fold(lo * 4.0, f64::max) * 2.0;
            let mut chart = ChartBuilder::on(&right)
                .margin(12)
                .x_label_area_size(35)
                .y_label_area_size(65)
                .build_cartesian_2d(0..last, (lo..hi).log_scale())
                .map_err(|e| err(&e))?;
            chart
                .configure_mesh()
                .x_desc("iteration")
                .y_desc("gradient norm")
                .y_label_formatter(&|v| format!("{v:.0e}"))
                .draw()
                .map_err(|e| err(&e))?;
            chart
                .draw_series(LineSeries::new(pts, red.stroke_width(2)))
                .map_err(|e| err(&e))?;
        }
        root.present().map_err(|e| err(&e))?;
        Ok(())
    }
}

impl<J, H, R> Observe<IterState<Vec<f64>, Vec<f64>, J, H, R, f64>> for LossCurve {
    fn observe_init(
        &mut self,
        _name: &str,
        state: &IterState<Vec<f64>, Vec<f64>, J, H, R, f64>,
        _kv: &KV,
    ) -> Result<(), Error> {
        self.record(state.get_iter(), state.get_cost(), state.get_gradient())
    }

    fn observe_iter(
        &mut self,
        state: &IterState<Vec<f64>, Vec<f64>, J, H, R, f64>,
        _kv: &KV,
    ) -> Result<(), Error> {
        self.record(state.get_iter() + 1, state.get_cost(), state.get_gradient())
    }
}

/// An observer showing an `indicatif` progress bar over `max_iters` iterations with the
/// current loss; finished when the solver stops.
pub struct Progress(ProgressBar);

impl Progress {
    /// A bar for at most `max_iters` iterations, labelled `label`.
    pub fn new(label: &str, max_iters: u64) -> Self {
        let bar = ProgressBar::new(max_iters);
        bar.set_style(
            ProgressStyle::with_template("{prefix:>10} [{bar:40}] {pos}/{len} {msg}")
                .expect("a valid template")
                .progress_chars("=> "),
        );
        bar.set_prefix(label.to_string());
        Progress(bar)
    }
}

impl<I: State<Float = f64>> Observe<I> for Progress {
    fn observe_iter(&mut self, state: &I, _kv: &KV) -> Result<(), Error> {
        self.0.set_position(state.get_iter() + 1);
        self.0.set_message(format!("loss {:.6e}", state.get_cost()));
        Ok(())
    }

    fn observe_final(&mut self, state: &I) -> Result<(), Error> {
        self.0.finish_with_message(format!(
            "loss {:.6e} after {} iterations",
            state.get_best_cost(),
            state.get_iter()
        ));
        Ok(())
    }
}
