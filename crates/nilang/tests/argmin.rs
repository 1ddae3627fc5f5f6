//! argmin on our gradients (feature `argmin`): L-BFGS reaches its gradient-norm tolerance and
//! its optimum matches the normal equations' solution within 1e-8; trust-region Newton with
//! our Hessian reaches the same point.
//!
//! `cargo test -p nilang --features argmin --test argmin`
use argmin::core::{Executor, State, TerminationReason};
use argmin::solver::linesearch::MoreThuenteLineSearch;
use argmin::solver::quasinewton::LBFGS;
use argmin::solver::trustregion::{Steihaug, TrustRegion};
use nilang::ad::{interop_argmin::Minimise, Plan};
use nilang::prelude::*;

/// Ridge least squares: `out += Σᵢ (aᵢ·β − yᵢ)² + λ Σⱼ βⱼ²` (`a` row-major `m × p`; `r` a zero
/// workspace of length `m + p` holding the residuals and `√λ β`).
#[i]
fn ridge<T: Scalar>(
    out: &mut T,
    beta: &mut [T],
    a: &[f64],
    y: &[f64],
    sqrt_lambda: f64,
    r: &mut [T],
) {
    routine! {
        for i in 0..y.len() {
            for j in 0..beta.len() {
                r[i] += beta[j] * a[i * beta.len() + j];
            }
            r[i] -= y[i];
        }
        for j in 0..beta.len() {
            r[y.len() + j] += beta[j] * sqrt_lambda;
        }
    }
    for i in 0..r.len() {
        out += abs2(r[i]);
    }
    unroutine!();
}

const M: usize = 12;
const P: usize = 3;
/// The L-BFGS test fits consistent data (`y = A β*`, λ = 0): its loss is zero at the optimum,
/// so a line search can resolve the loss down to a gradient norm of 1e-10 (on data with a
/// residual, the loss's rounding, ~1e-14 of its value, stops every line search first).
const LAMBDA: f64 = 0.0;
const BETA_STAR: [f64; P] = [0.75, -1.25, 2.5];

fn data() -> (Vec<f64>, Vec<f64>) {
    let a: Vec<f64> = (0..M * P)
        .map(|k| ((k * 37 % 17) as f64 - 8.0) / 5.0)
        .collect();
    let y: Vec<f64> = (0..M)
        .map(|i| (0..P).map(|j| a[i * P + j] * BETA_STAR[j]).sum())
        .collect();
    (a, y)
}

/// The reference: `(AᵀA + λI) β = Aᵀy` by Gaussian elimination with partial pivoting.
fn normal_equations(a: &[f64], y: &[f64]) -> Vec<f64> {
    let mut m = [[0.0; P + 1]; P];
    for r in 0..P {
        for c in 0..P {
            m[r][c] = (0..M).map(|i| a[i * P + r] * a[i * P + c]).sum::<f64>();
        }
        m[r][r] += LAMBDA;
        m[r][P] = (0..M).map(|i| a[i * P + r] * y[i]).sum::<f64>();
    }
    for k in 0..P {
        let piv = (k..P)
            .max_by(|&i, &j| m[i][k].abs().total_cmp(&m[j][k].abs()))
            .unwrap();
        m.swap(k, piv);
        for i in k + 1..P {
            let f = m[i][k] / m[k][k];
            let pivot_row = m[k];
            for (x, p) in m[i].iter_mut().zip(pivot_row).skip(k) {
                *x -= f * p;
            }
        }
    }
    let mut beta = vec![0.0; P];
    for k in (0..P).rev() {
        beta[k] = (m[k][P] - (k + 1..P).map(|c| m[k][c] * beta[c]).sum::<f64>()) / m[k][k];
    }
    beta
}

#[test]
fn lbfgs_reaches_the_gradient_tolerance_at_the_normal_equations_solution() {
    let (a, y) = data();
    let reference = normal_equations(&a, &y);
    let mut plan = Plan::new();
    let mut r = [0.0; M + P];
    let mut calls = 0;
    let problem = Minimise::new(|beta: &[f64], grad: Option<&mut [f64]>| {
        calls += 1;
        assert!(calls < 10_000, "the line search loops: {beta:?}");
        let mut beta = beta.to_vec();
        let args = (
            &mut 0.0,
            &mut beta[..],
            &a[..],
            &y[..],
            LAMBDA.sqrt(),
            &mut r[..],
        );
        let (v, (_, gb, _, _, _, _)) = plan.value_and_gradient(&Ridge, args, 0);
        if let Some(g) = grad {
            for (g, v) in g.iter_mut().zip(gb.iter()) {
                *g = v.g;
            }
        }
        v
    });
    let tol = 1e-10;
    let solver = LBFGS::new(MoreThuenteLineSearch::new(), 5)
        .with_tolerance_grad(tol)
        .unwrap()
        .with_tolerance_cost(0.0)
        .unwrap();
    let res = Executor::new(problem, solver)
        .configure(|s| s.param(vec![0.0; P]).max_iters(30))
        .run()
        .unwrap();
    let state = res.state();
    assert_eq!(
        state.get_termination_reason(),
        Some(&TerminationReason::SolverConverged),
        "{:?}",
        state.get_termination_status()
    );
    let best = state.get_best_param().unwrap();
    let grad = state.get_gradient().unwrap();
    let norm = grad.iter().map(|g| g * g).sum::<f64>().sqrt();
    assert!(norm < tol, "gradient norm {norm}");
    for (b, r) in best.iter().zip(&reference) {
        assert!((b - r).abs() < 1e-8, "{best:?} vs {reference:?}");
    }
    for (r, b) in reference.iter().zip(BETA_STAR) {
        assert!(
            (r - b).abs() < 1e-12,
            "the normal equations give β*: {reference:?}"
        );
    }
}

#[test]
fn trust_region_newton_with_our_hessian_reaches_the_same_point() {
    let (a, y) = data();
    let reference = normal_equations(&a, &y);
    let (a2, y2) = (a.clone(), y.clone());
    let mut plan = Plan::new();
    let mut r = [0.0; M + P];
    let problem = Minimise::new(|beta: &[f64], grad: Option<&mut [f64]>| {
        let mut beta = beta.to_vec();
        let args = (
            &mut 0.0,
            &mut beta[..],
            &a[..],
            &y[..],
            LAMBDA.sqrt(),
            &mut r[..],
        );
        let (v, (_, gb, _, _, _, _)) = plan.value_and_gradient(&Ridge, args, 0);
        if let Some(g) = grad {
            for (g, v) in g.iter_mut().zip(gb.iter()) {
                *g = v.g;
            }
        }
        v
    })
    .with_hessian(move |beta: &[f64]| {
        let (mut beta, mut r) = (beta.to_vec(), vec![0.0; M + P]);
        let args = (
            &mut 0.0,
            &mut beta[..],
            &a2[..],
            &y2[..],
            LAMBDA.sqrt(),
            &mut r[..],
        );
        nilang::ad::hessian_fwd_rev(&Ridge, args, 0, 1)
    });
    let solver = TrustRegion::new(Steihaug::new().with_max_iters(10));
    let res = Executor::new(problem, solver)
        .configure(|s| s.param(vec![0.0; P]).max_iters(20))
        .run()
        .unwrap();
    let best = res.state().get_best_param().unwrap();
    for (b, r) in best.iter().zip(&reference) {
        assert!((b - r).abs() < 1e-8, "{best:?} vs {reference:?}");
    }
}

/// A loss that overflows stops the solver with an error naming the point, instead of a line
/// search probing an infinite cost forever.
#[test]
fn a_non_finite_loss_stops_the_solver_with_an_error() {
    let problem = Minimise::new(|x: &[f64], grad: Option<&mut [f64]>| {
        // finite at the start, infinite wherever the line search steps (an overflow)
        let v = if x[0] == 0.0 { 0.0 } else { f64::INFINITY };
        if let Some(g) = grad {
            g[0] = -1.0;
        }
        v
    });
    let solver = LBFGS::new(MoreThuenteLineSearch::new(), 5);
    // argmin reports an error inside the line search as the solver's exit, others as `Err`
    let stop = match Executor::new(problem, solver)
        .configure(|s| s.param(vec![0.0]).max_iters(1000))
        .run()
    {
        Err(e) => e.to_string(),
        Ok(r) => format!("{:?}", r.state().get_termination_status()),
    };
    assert!(
        stop.contains("the loss is not finite (inf at entry 0) at the parameters [1.0]"),
        "{stop}"
    );
}
