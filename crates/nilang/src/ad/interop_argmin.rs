//! Our gradients as an `argmin` problem (feature `argmin`): [`Minimise`] implements argmin's
//! `CostFunction` and `Gradient` (and `Hessian` where a Hessian is given) on `Vec<f64>`
//! parameters, so argmin's solvers (L-BFGS, trust region, ...) and observers run on a
//! reversible program.
//!
//! The loss is a closure `(x, grad) -> value`: it runs the program's gradient (typically with
//! a [`Plan`](crate::ad::Plan), which allocates nothing after its first call), writes the
//! gradient into `grad` when asked, and returns the loss's value. argmin's `cost` and
//! `gradient` take `&self`, so the closure (and its plan) live in a `RefCell`.
//!
//! ```
//! use argmin::core::{Executor, State};
//! use argmin::solver::linesearch::MoreThuenteLineSearch;
//! use argmin::solver::quasinewton::LBFGS;
//! use nilang::ad::{interop_argmin::Minimise, Plan};
//! use nilang::prelude::*;
//!
//! /// Rosenbrock's function `(1 − x₀)² + 100 (x₁ − x₀²)²`.
//! #[i]
//! fn rosenbrock<T: Scalar>(out: &mut T, x: &mut [T], t: &mut [T]) {
//!     routine! {
//!         t[0] += 1.0;
//!         t[0] -= x[0];
//!         t[1] += x[1];
//!         t[1] -= abs2(x[0]);
//!         t[2] += t[1] * 10.0;
//!     }
//!     out += abs2(t[0]);
//!     out += abs2(t[2]);
//!     unroutine!();
//! }
//! let mut plan = Plan::new();
//! let problem = Minimise::new(|x: &[f64], grad: Option<&mut [f64]>| {
//!     let mut x = x.to_vec();
//!     let (v, (_, gx, _)) = plan.value_and_gradient(&Rosenbrock, (&mut 0.0, &mut x[..], &mut [0.0; 3][..]), 0);
//!     if let Some(g) = grad {
//!         g.iter_mut().zip(gx.iter()).for_each(|(g, v)| *g = v.g);
//!     }
//!     v
//! });
//! let solver = LBFGS::new(MoreThuenteLineSearch::new(), 7).with_tolerance_grad(1e-10).unwrap();
//! let res = Executor::new(problem, solver)
//!     .configure(|s| s.param(vec![-1.2, 1.0]).max_iters(200))
//!     .run()
//!     .unwrap();
//! let best = res.state().get_best_param().unwrap();
//! assert!((best[0] - 1.0).abs() < 1e-8 && (best[1] - 1.0).abs() < 1e-8, "{best:?}");
//! ```
use argmin::core::{CostFunction, Error, Gradient, Hessian};
use core::cell::RefCell;

/// A loss with its gradient (and optionally its Hessian) as an argmin problem: see the
/// [module](self).
pub struct Minimise<L, H = ()> {
    loss: RefCell<L>,
    hessian: RefCell<H>,
}

impl<L> Minimise<L>
where
    L: FnMut(&[f64], Option<&mut [f64]>) -> f64,
{
    /// The problem of minimising `loss(x, grad)`: the value at `x`, the gradient written into
    /// `grad` when it is `Some` (of `x`'s length).
    pub fn new(loss: L) -> Self {
        Minimise {
            loss: RefCell::new(loss),
            hessian: RefCell::new(()),
        }
    }

    /// With the Hessian `hessian(x)` (rows; e.g. from
    /// [`hessian_fwd_rev`](crate::ad::hessian_fwd_rev)), for Newton-type solvers.
    pub fn with_hessian<H>(self, hessian: H) -> Minimise<L, H>
    where
        H: FnMut(&[f64]) -> Vec<Vec<f64>>,
    {
        Minimise {
            loss: self.loss,
            hessian: RefCell::new(hessian),
        }
    }
}

impl<L, H> Minimise<L, H> {
    fn call(&self, x: &[f64], mut grad: Option<&mut [f64]>) -> Result<f64, Error>
    where
        L: FnMut(&[f64], Option<&mut [f64]>) -> f64,
    {
        let mut loss = self
            .loss
            .try_borrow_mut()
            .map_err(|_| Error::msg("nilang: the loss was called from inside itself"))?;
        let v = loss(x, grad.as_deref_mut());
        finite("loss", x, std::slice::from_ref(&v))?;
        if let Some(g) = grad {
            finite("gradient", x, g)?;
        }
        Ok(v)
    }
}

/// A non-finite loss, gradient or Hessian is an error that stops the solver (a line search
/// that meets an infinite or NaN cost would otherwise probe forever).
fn finite(what: &str, x: &[f64], values: &[f64]) -> Result<(), Error> {
    match values.iter().position(|v| !v.is_finite()) {
        None => Ok(()),
        Some(i) => Err(Error::msg(format!(
            "nilang: the {what} is not finite ({} at entry {i}) at the parameters {x:?}; \
             the optimiser stops here",
            values[i]
        ))),
    }
}

impl<L, H> CostFunction for Minimise<L, H>
where
    L: FnMut(&[f64], Option<&mut [f64]>) -> f64,
{
    type Param = Vec<f64>;
    type Output = f64;
    fn cost(&self, x: &Vec<f64>) -> Result<f64, Error> {
        self.call(x, None)
    }
}

impl<L, H> Gradient for Minimise<L, H>
where
    L: FnMut(&[f64], Option<&mut [f64]>) -> f64,
{
    type Param = Vec<f64>;
    type Gradient = Vec<f64>;
    fn gradient(&self, x: &Vec<f64>) -> Result<Vec<f64>, Error> {
        let mut g = vec![0.0; x.len()];
        self.call(x, Some(&mut g))?;
        Ok(g)
    }
}

impl<L, H> Hessian for Minimise<L, H>
where
    H: FnMut(&[f64]) -> Vec<Vec<f64>>,
{
    type Param = Vec<f64>;
    type Hessian = Vec<Vec<f64>>;
    fn hessian(&self, x: &Vec<f64>) -> Result<Vec<Vec<f64>>, Error> {
        let mut h = self
            .hessian
            .try_borrow_mut()
            .map_err(|_| Error::msg("nilang: the Hessian was called from inside itself"))?;
        let h = h(x);
        for row in &h {
            finite("Hessian", x, row)?;
        }
        Ok(h)
    }
}
