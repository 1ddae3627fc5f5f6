//! `odefit` suite, NiLang.rs from the guide only: the Lotka–Volterra right-hand side and the
//! whole RK4 trajectory as `#[i]` programs (every state kept in a zero workspace `u` of
//! `2 (n + 1)` numbers, the initial state in its first two), the loss copied out of the
//! trajectory and the trajectory uncomputed; its gradient by `nilang::ad::Plan` (`nilang-G`).
use super::OdefitCase;
use crate::harness::Kernel;
use crate::report::Measure;
use nilang::ad::{Plan, Store};
use nilang::instr::{
    fns::{Mul, Sub},
    PlusEq2,
};
use nilang::prelude::*;

/// `kx += a x − b x y`, `ky += c x y − d y` (`p = (a, b, c, d)`).
#[i]
pub fn lv_rhs<T: Scalar>(kx: &mut T, ky: &mut T, x: &mut T, y: &mut T, p: &mut [T]) {
    routine! {
        let xy = T::default();
        xy += x * y;
    }
    kx += x * p[0];
    kx -= xy * p[1];
    ky += xy * p[2];
    ky -= y * p[3];
    unroutine!();
}

/// `out += Σ_j |u(t_j) − o_j|²`: `u` holds the initial state in `u[0..2]` and zeros after it,
/// `u.len() / 2 − 1` RK4 steps of `dt` fill it (and are uncomputed at the end), the
/// observations `obs` (interleaved `x, y`) are compared with the state every `every` steps.
#[i]
pub fn lv_fit<T: Scalar + PlusEq2<Mul, T, f64> + PlusEq2<Sub, T, f64>>(
    out: &mut T,
    p: &mut [T],
    u: &mut [T],
    obs: &[f64],
    dt: f64,
    every: usize,
) {
    routine! {
        for s in 0..u.len() / 2 - 1 {
            routine! {
                let (x1, y1, k1x, k1y) = (T::default(), T::default(), T::default(), T::default());
                let (x2, y2, k2x, k2y) = (T::default(), T::default(), T::default(), T::default());
                let (x3, y3, k3x, k3y) = (T::default(), T::default(), T::default(), T::default());
                let (x4, y4, k4x, k4y) = (T::default(), T::default(), T::default(), T::default());
                x1 += u[2 * s];
                y1 += u[2 * s + 1];
                lv_rhs(&mut k1x, &mut k1y, &mut x1, &mut y1, p);
                x2 += x1;
                x2 += k1x * cst!(dt / 2.0);
                y2 += y1;
                y2 += k1y * cst!(dt / 2.0);
                lv_rhs(&mut k2x, &mut k2y, &mut x2, &mut y2, p);
                x3 += x1;
                x3 += k2x * cst!(dt / 2.0);
                y3 += y1;
                y3 += k2y * cst!(dt / 2.0);
                lv_rhs(&mut k3x, &mut k3y, &mut x3, &mut y3, p);
                x4 += x1;
                x4 += k3x * dt;
                y4 += y1;
                y4 += k3y * dt;
                lv_rhs(&mut k4x, &mut k4y, &mut x4, &mut y4, p);
            }
            u[2 * s + 2] += x1;
            u[2 * s + 2] += k1x * cst!(dt / 6.0);
            u[2 * s + 2] += k2x * cst!(dt / 3.0);
            u[2 * s + 2] += k3x * cst!(dt / 3.0);
            u[2 * s + 2] += k4x * cst!(dt / 6.0);
            u[2 * s + 3] += y1;
            u[2 * s + 3] += k1y * cst!(dt / 6.0);
            u[2 * s + 3] += k2y * cst!(dt / 3.0);
            u[2 * s + 3] += k3y * cst!(dt / 3.0);
            u[2 * s + 3] += k4y * cst!(dt / 6.0);
            unroutine!();
        }
    }
    for j in 0..obs.len() / 2 {
        routine! {
            let (dx, dy) = (T::default(), T::default());
            dx += u[2 * (j + 1) * every] - obs[2 * j];
            dy += u[2 * (j + 1) * every + 1] - obs[2 * j + 1];
        }
        out += abs2(dx);
        out += abs2(dy);
        unroutine!();
    }
    unroutine!();
}

/// The storage of a gradient of [`lv_fit`].
pub type FitStore<'a> = Store<(
    &'a mut f64,
    &'a mut [f64],
    &'a mut [f64],
    &'a [f64],
    f64,
    usize,
)>;

/// The trajectory workspace of case `c`: its initial state, then zeros.
fn trajectory(c: &OdefitCase) -> Vec<f64> {
    let mut u = vec![0.0; 2 * (c.n + 1)];
    u[..2].copy_from_slice(&c.theta[4..]);
    u
}

/// Our tool and its kernels for one case: `nilang` (O, G).
pub fn cells(c: &OdefitCase) -> Vec<(String, Vec<Kernel<'_>>)> {
    let (obs, dt, every) = (&c.obs[..], c.dt, c.every);
    vec![(
        "nilang".to_string(),
        vec![
            Kernel::with_state(
                Measure::O,
                (0.0, c.theta[..4].to_vec(), trajectory(c)),
                move |s: &mut (f64, Vec<f64>, Vec<f64>)| {
                    s.0 = 0.0;
                    s.2[2..].fill(0.0); // drop the round-off the uncomputation leaves
                    lv_fit(&mut s.0, &mut s.1, &mut s.2, obs, dt, every);
                },
                |s| vec![s.0],
            ),
            Kernel::with_state(
                Measure::G,
                (
                    Plan::<FitStore<'_>>::new(),
                    vec![0.0; 6],
                    c.theta[..4].to_vec(),
                    trajectory(c),
                ),
                move |s: &mut (Plan<FitStore<'_>>, Vec<f64>, Vec<f64>, Vec<f64>)| {
                    let args = (&mut 0.0, &mut s.2[..], &mut s.3[..], obs, dt, every);
                    let (_, st) = s.0.value_and_gradient(&LvFit, args, 0);
                    for (o, v) in s.1.iter_mut().zip(st.1.iter().chain(&st.2[..2])) {
                        *o = v.g;
                    }
                },
                |s| s.1.clone(),
            ),
        ],
    )]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reversible_gradient_matches_the_plain_one() {
        let c = OdefitCase::new(60);
        let mut want = vec![0.0; 6];
        let l = super::super::loss_gradient(
            &c.theta,
            &c.obs,
            c.dt,
            c.every,
            &mut Vec::new(),
            &mut want,
        );
        let (mut p, mut u) = (c.theta[..4].to_vec(), trajectory(&c));
        let (v, (_, gp, gu, ..)) = nilang::ad::value_and_gradient(
            &LvFit,
            (&mut 0.0, &mut p[..], &mut u[..], &c.obs[..], c.dt, c.every),
            0,
        );
        assert!((v - l).abs() <= 1e-12 * l.abs(), "{v} vs {l}");
        let got: Vec<f64> = gp.iter().chain(&gu[..2]).map(|x| x.g).collect();
        for (a, b) in got.iter().zip(&want) {
            assert!((a - b).abs() <= 1e-11 * (1.0 + b.abs()), "{a} vs {b}");
        }
        // uncomputed up to round-off (`(a + b) − b` need not be `a`)
        assert!(
            gu[2..].iter().all(|x| x.x.abs() < 1e-12),
            "the trajectory is uncomputed"
        );
    }
}
