//! The time-loop steppers of the schedules suite (issue 22), differentiated through
//! [`TimeLoop`] and `value_and_gradient`:
//!
//! - a PDE stepper: `u_t = ν u_xx − u³ + f` on a ring of [`CELLS`] cells (neighbours by
//!   [`next_index`]/[`prev_index`], no integer division), explicit Euler,
//!   [`STEPS`] steps, loss `Σ u²` of the final state, parameters `p = [ν dt/h², f dt]` outside
//!   the state (their adjoints accumulated over all steps); the per-cell routine in joint
//!   ([`Heat`]), with `#[store]` ([`HeatSplit`]: recomputed all the same, the routine being
//!   cheap) or in split mode ([`HeatStored`], `#[store(always)]`);
//! - an expensive variant: the reaction solved implicitly per cell by
//!   [`NEWTON`] Newton iterations (an inner loop inside the cell's routine), joint
//!   ([`Implicit`]) or split ([`ImplicitSplit`]);
//! - Lorenz RK4 ([`LorenzStep`], the step of `nilang_apps::lorenz`), loss the final `z`.
use nilang::ad::time_loop::{Schedule, TimeLoop};
use nilang::ad::value_and_gradient;
use nilang::prelude::*;
use nilang::stdlib::ring::{next_index, prev_index};
use nilang_apps::lorenz::State;

/// Cells of the PDE stepper.
pub const CELLS: usize = 128;
/// Steps of the PDE stepper.
pub const STEPS: usize = 1000;
/// Newton iterations per cell and step of the expensive stepper.
pub const NEWTON: usize = 20;
/// The parameters `[ν dt/h², f dt]`.
pub const PARAMS: [f64; 2] = [0.2, 0.001];

/// The PDE stepper's initial state: one period of a sine, shifted.
pub fn u0() -> Vec<f64> {
    (0..CELLS)
        .map(|i| (2.0 * core::f64::consts::PI * i as f64 / CELLS as f64).sin() * 0.5 + 0.5)
        .collect()
}

macro_rules! heat_step {
    ($(#[$doc:meta])* $name:ident $(, #[$($store:tt)*])?) => {
        $(#[$doc])*
        #[i(nocheck)]
        pub fn $name<T: Scalar>(next: &mut Vec<T>, prev: &mut Vec<T>, p: &mut [T; 2]) {
            for i in 0..prev.len() {
                $(#[$($store)*])?
                routine! {
                    let (lap, cube) = (T::default(), T::default());
                    lap += prev[next_index(i, prev.len())] + prev[prev_index(i, prev.len())];
                    lap -= prev[i] * 2.0;
                    cube += prev[i].powi(3);
                }
                next[i] += prev[i];
                next[i] += lap * p[0];
                next[i] -= cube * 0.01;
                next[i] += p[1];
                unroutine!();
            }
        }
    };
}
heat_step!(
    /// One explicit step of the PDE: `next += prev + p₀ Δprev − 0.01 prev³ + p₁` (joint).
    heat
);
heat_step!(
    /// [`heat`] with `#[store]`: its routine (three instructions of additions, multiplications
    /// and a cube for two ancillas) is cheap to recompute, so it stays in joint mode.
    heat_split,
    #[store]
);
heat_step!(
    /// [`heat`] in split mode (`#[store(always)]`: the Laplacian and the cube stored, not
    /// recomputed).
    heat_stored,
    #[store(always)]
);

macro_rules! implicit_step {
    ($(#[$doc:meta])* $name:ident $(, #[$store:ident])?) => {
        $(#[$doc])*
        #[i(nocheck)]
        pub fn $name<T: Scalar>(next: &mut Vec<T>, prev: &mut Vec<T>, p: &mut [T; 2]) {
            for i in 0..prev.len() {
                $(#[$store])?
                routine! {
                    let (lap, c) = (T::default(), T::default());
                    lap += prev[next_index(i, prev.len())] + prev[prev_index(i, prev.len())];
                    lap -= prev[i] * 2.0;
                    // c solves c + 0.01 c³ = prev (implicit reaction) by Newton's method
                    routine! {
                        let it = [T::default(); NEWTON + 1];
                        let (cube, sq) = ([T::default(); NEWTON], [T::default(); NEWTON]);
                        let (num, den) = ([T::default(); NEWTON], [T::default(); NEWTON]);
                        it[0] += prev[i];
                        for k in 0..NEWTON {
                            cube[k] += it[k].powi(3);
                            sq[k] += it[k].powi(2);
                            num[k] += it[k] - prev[i];
                            num[k] += cube[k] * 0.01;
                            den[k] += sq[k] * 0.03;
                            den[k] += 1.0;
                            it[k + 1] += it[k];
                            it[k + 1] -= num[k] / den[k];
                        }
                    }
                    c += it[NEWTON];
                    unroutine!();
                }
                next[i] += c;
                next[i] += lap * p[0];
                next[i] += p[1];
                unroutine!();
            }
        }
    };
}
implicit_step!(
    /// One step with an implicit reaction: `next += c + p₀ Δprev + p₁` where `c + 0.01 c³ =
    /// prev` is solved by [`NEWTON`] Newton iterations per cell (joint: the solve is
    /// uncomputed and recomputed).
    implicit
);
implicit_step!(
    /// [`implicit`] in split mode: the Laplacian and the solution `c` stored (one number
    /// each per cell and step), the Newton iterates uncomputed inside the routine.
    implicit_split,
    #[store]
);

/// `out += Σ u²`.
#[i(nocheck)]
pub fn sumsq<T: Scalar>(out: &mut T, u: &mut Vec<T>) {
    for i in 0..u.len() {
        out += u[i].powi(2);
    }
}

/// One Lorenz RK4 step as a time-loop step (ρ is the state's fourth number, `_p` unused).
#[i]
pub fn lorenz_step<T: Scalar>(next: &mut [T; 4], prev: &mut [T; 4], _p: &mut T) {
    nilang_apps::lorenz::lorenz_rk4(next, prev);
}

/// `out += z`.
#[i]
pub fn final_z<T: Scalar>(out: &mut T, x: &mut [T; 4]) {
    out += x[2];
}

/// A PDE step on plain and on gradient numbers (every `#[i]` step of this module).
pub trait PdeStep:
    for<'a, 'b, 'c> Reversible<(&'a mut Vec<f64>, &'b mut Vec<f64>, &'c mut [f64; 2])>
    + for<'a, 'b, 'c> Reversible<(
        &'a mut Vec<GVar<f64>>,
        &'b mut Vec<GVar<f64>>,
        &'c mut [GVar<f64>; 2],
    )>
{
}
impl<F> PdeStep for F where
    F: for<'a, 'b, 'c> Reversible<(&'a mut Vec<f64>, &'b mut Vec<f64>, &'c mut [f64; 2])>
        + for<'a, 'b, 'c> Reversible<(
            &'a mut Vec<GVar<f64>>,
            &'b mut Vec<GVar<f64>>,
            &'c mut [GVar<f64>; 2],
        )>
{
}

/// The PDE loss, its gradient with respect to `u0` and the parameters: `(value, ∂u0, ∂p)`.
pub fn pde_gradient<F: PdeStep>(tl: &TimeLoop<F, Sumsq>) -> (f64, Vec<f64>, [f64; 2]) {
    let (mut out, mut u, mut p) = (0.0, u0(), PARAMS);
    let (v, (_, gu, gp)) = value_and_gradient(tl, (&mut out, &mut u, &mut p), 0);
    (v, gu.iter().map(|x| x.g).collect(), [gp[0].g, gp[1].g])
}

/// The PDE loss by a plain forward run (no gradient).
pub fn pde_forward<F: PdeStep>(tl: &TimeLoop<F, Sumsq>) -> f64 {
    let (mut out, mut u, mut p) = (0.0, u0(), PARAMS);
    tl.call((&mut out, &mut u, &mut p));
    out
}

/// `∂z_n/∂(x₀, y₀, z₀, ρ)` of `n` Lorenz steps from `x0` through a [`TimeLoop`].
pub fn lorenz_gradient(
    x0: &State,
    n: usize,
    schedule: Schedule,
) -> (State, TimeLoop<LorenzStep, FinalZ>) {
    let tl = TimeLoop::new(LorenzStep, FinalZ, n, schedule);
    let (mut out, mut x, mut p) = (0.0, *x0, 0.0);
    let (_, (_, gx, _)) = value_and_gradient(&tl, (&mut out, &mut x, &mut p), 0);
    (core::array::from_fn(|i| gx[i].g), tl)
}

/// The schedules the suite runs on the steppers: (label, schedule).
pub fn schedules(quadratic: bool) -> Vec<(&'static str, Schedule)> {
    let mut v = vec![
        ("store-all", Schedule::StoreAll),
        ("treeverse-10", Schedule::Treeverse { delta: 10 }),
        ("bennett-16", Schedule::Bennett { k: 16 }),
    ];
    if quadratic {
        v.push(("recompute-all", Schedule::RecomputeAll));
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_and_joint_steppers_agree_bit_for_bit_on_every_schedule() {
        let n = 30;
        let reference = pde_gradient(&TimeLoop::new(Heat, Sumsq, n, Schedule::StoreAll));
        let implicit = pde_gradient(&TimeLoop::new(Implicit, Sumsq, n, Schedule::StoreAll));
        assert!(reference.2[0].abs() > 0.0 && implicit.2[1].abs() > 0.0);
        for (_, s) in schedules(true) {
            assert_eq!(
                pde_gradient(&TimeLoop::new(Heat, Sumsq, n, s)),
                reference,
                "{s:?}"
            );
            assert_eq!(
                pde_gradient(&TimeLoop::new(HeatSplit, Sumsq, n, s)),
                reference
            );
            let stored = TimeLoop::new(HeatStored, Sumsq, n, s);
            assert_eq!(pde_gradient(&stored), reference);
            assert!(stored.log().tape_pushes >= 2 * CELLS * n, "{s:?}");
            assert_eq!(
                pde_gradient(&TimeLoop::new(Implicit, Sumsq, n, s)),
                implicit
            );
            assert_eq!(
                pde_gradient(&TimeLoop::new(ImplicitSplit, Sumsq, n, s)),
                implicit
            );
        }
        // the Newton solve converged: the implicit reaction's fixed point
        let c = |b: f64| {
            let mut c = b;
            for _ in 0..NEWTON {
                c -= (c + 0.01 * c.powi(3) - b) / (1.0 + 0.03 * c * c);
            }
            c
        };
        assert!((c(0.9) + 0.01 * c(0.9).powi(3) - 0.9).abs() < 1e-15);
        // Lorenz through the time loop: the store-all gradient of nilang_apps
        let (g, _) = lorenz_gradient(
            &nilang_apps::lorenz::START,
            500,
            Schedule::Treeverse { delta: 10 },
        );
        assert_eq!(
            g,
            nilang_apps::lorenz::gradient_store_all(&nilang_apps::lorenz::START, 500)
        );
    }

    /// Lorenz at 10⁶ steps through `value_and_gradient`: every schedule gives the store-all
    /// gradient bit for bit. About 6 s in release:
    /// `cargo test --release -p nilang-bench --lib -- --ignored lorenz_at_a_million_steps`
    #[test]
    #[ignore = "10⁶ steps: run in release (see the doc comment)"]
    fn lorenz_at_a_million_steps_every_schedule_agrees_bit_for_bit() {
        let n = 1_000_000;
        let x0 = nilang_apps::lorenz::START;
        let (reference, _) = lorenz_gradient(&x0, n, Schedule::StoreAll);
        assert!(reference.iter().all(|g| g.is_finite() && *g != 0.0));
        for s in [
            Schedule::Treeverse { delta: 10 },
            Schedule::Bennett { k: 16 },
        ] {
            let (g, tl) = lorenz_gradient(&x0, n, s);
            assert_eq!(g, reference, "{s:?}");
            assert!(tl.log().peak_states <= 77, "{s:?}: {:?}", tl.log());
        }
    }
}
