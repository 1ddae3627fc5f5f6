//! The Kalman filter's negative log-likelihood in NiLang.rs, written from the README and the
//! guide only: one `#[i]` step from `(m_t, P_t)` to `(m_{t+1}, P_{t+1})` and the step's loss
//! term (its intermediates in a routine, uncomputed after the copy), and the whole filter as
//! compute–copy–uncompute in the loss (the states of every step, the loss terms and the noise
//! variances in `zero(..)` workspaces), so the gradient is one reverse pass.

use super::{KalmanCase, NP, NX, NY};
use crate::harness::Kernel;
use crate::report::Measure;
use nilang::ad::Plan;
use nilang::prelude::*;

/// One filter step `t`: reads `m_t = ms[4t..4t+4]`, `P_t = ps[16t..16t+16]`, adds `m_{t+1}`,
/// `P_{t+1}` to the next slots and the step's loss term to `ll[t]`.
#[i]
#[allow(clippy::too_many_arguments)]
pub fn kalman_step<T: Scalar>(
    ms: &mut [T],
    ps: &mut [T],
    ll: &mut [T],
    a: &mut [T],
    qd: &mut [T],
    rd: &mut [T],
    h: &[f64],
    y: &[f64],
    t: usize,
) {
    routine! {
        let mp = [T::default(); 4];
        let ap = [T::default(); 16];
        let pp = [T::default(); 16];
        let hp = [T::default(); 8];
        let pht = [T::default(); 8];
        let s = [T::default(); 4];
        let v = [T::default(); 2];
        let si = [T::default(); 4];
        let w = [T::default(); 2];
        let k = [T::default(); 8];
        let (det, idet, ld, quad) = (T::default(), T::default(), T::default(), T::default());
        // predict: m⁻ = A m, P⁻ = A P Aᵀ + Q
        for i in 0..4 {
            for j in 0..4 {
                mp[i] += a[4 * i + j] * ms[4 * t + j];
            }
        }
        for i in 0..4 {
            for j in 0..4 {
                for l in 0..4 {
                    ap[4 * i + j] += a[4 * i + l] * ps[16 * t + 4 * l + j];
                }
            }
        }
        for i in 0..4 {
            for j in 0..4 {
                for l in 0..4 {
                    pp[4 * i + j] += ap[4 * i + l] * a[4 * j + l];
                }
            }
        }
        for i in 0..4 {
            pp[5 * i] += qd[i];
        }
        // innovation: v = y − H m⁻, S = H (P⁻ Hᵀ) + R, and H P⁻ for the update
        for r in 0..2 {
            for j in 0..4 {
                for l in 0..4 {
                    hp[4 * r + j] += h[4 * r + l] * pp[4 * l + j];
                }
            }
        }
        for i in 0..4 {
            for r in 0..2 {
                for l in 0..4 {
                    pht[2 * i + r] += pp[4 * i + l] * h[4 * r + l];
                }
            }
        }
        for r in 0..2 {
            for c in 0..2 {
                for l in 0..4 {
                    s[2 * r + c] += h[4 * r + l] * pht[2 * l + c];
                }
            }
        }
        for r in 0..2 {
            s[3 * r] += rd[r];
        }
        for r in 0..2 {
            v[r] += y[2 * t + r];
            for l in 0..4 {
                v[r] -= h[4 * r + l] * mp[l];
            }
        }
        // S⁻¹ of the 2 × 2 matrix, ln det S, vᵀ S⁻¹ v
        det += s[0] * s[3];
        det -= s[1] * s[2];
        idet += 1.0 / det;
        si[0] += s[3] * idet;
        si[1] -= s[1] * idet;
        si[2] -= s[2] * idet;
        si[3] += s[0] * idet;
        for r in 0..2 {
            for c in 0..2 {
                w[r] += si[2 * r + c] * v[c];
            }
        }
        for r in 0..2 {
            quad += v[r] * w[r];
        }
        ld += ln(det);
        // gain K = P⁻ Hᵀ S⁻¹
        for i in 0..4 {
            for c in 0..2 {
                for r in 0..2 {
                    k[2 * i + c] += pht[2 * i + r] * si[2 * r + c];
                }
            }
        }
    }
    // update: m = m⁻ + K v, P = P⁻ − K H P⁻; the loss term ½(ln det S + vᵀS⁻¹v) + ln 2π
    for i in 0..4 {
        ms[4 * (t + 1) + i] += mp[i];
        for c in 0..2 {
            ms[4 * (t + 1) + i] += k[2 * i + c] * v[c];
        }
    }
    for i in 0..4 {
        for j in 0..4 {
            ps[16 * (t + 1) + 4 * i + j] += pp[4 * i + j];
            for r in 0..2 {
                ps[16 * (t + 1) + 4 * i + j] -= k[2 * i + r] * hp[4 * r + j];
            }
        }
    }
    ll[t] += 0.5 * ld;
    ll[t] += 0.5 * quad;
    ll[t] += 1.8378770664093453; // ln 2π (a `const` item here needs an instruction bound)
    unroutine!();
}

/// The negative log-likelihood `nll += Σ_t ll[t]` over the observations `y` (`2T` numbers) at
/// the parameters `(a, lq, lr)`. `ms` (`4(T+1)`), `ps` (`16(T+1)`), `ll` (`T`), `qd` (4) and
/// `rd` (2) are zero workspaces.
#[i(zero(ms, ps, ll, qd, rd))]
#[allow(clippy::too_many_arguments)]
pub fn kalman_nll<T: Scalar>(
    nll: &mut T,
    a: &mut [T],
    lq: &mut [T],
    lr: &mut [T],
    ms: &mut [T],
    ps: &mut [T],
    ll: &mut [T],
    qd: &mut [T],
    rd: &mut [T],
    h: &[f64],
    y: &[f64],
    m0: &[f64],
    p0: &[f64],
) {
    routine! {
        for i in 0..4 {
            qd[i] += exp(lq[i]);
        }
        for r in 0..2 {
            rd[r] += exp(lr[r]);
        }
        for i in 0..4 {
            ms[i] += m0[i];
        }
        for i in 0..16 {
            ps[i] += p0[i];
        }
        for t in 0..ll.len() {
            kalman_step(ms, ps, ll, a, qd, rd, h, y, t);
        }
    }
    for t in 0..ll.len() {
        nll += ll[t];
    }
    unroutine!();
    fresh!(ms, ps, ll, qd, rd);
}

/// The parameters `(a, lq, lr)` of [`kalman_nll`].
type Theta = (Vec<f64>, Vec<f64>, Vec<f64>);
/// The zero workspaces `ms`, `ps`, `ll`, `qd`, `rd` of [`kalman_nll`].
type Workspaces = [Vec<f64>; 5];

/// The zero workspaces of [`kalman_nll`] for `t` observations: `ms`, `ps`, `ll`, `qd`, `rd`.
fn workspaces(t: usize) -> Workspaces {
    [
        vec![0.0; NX * (t + 1)],
        vec![0.0; NX * NX * (t + 1)],
        vec![0.0; t],
        vec![0.0; NX],
        vec![0.0; NY],
    ]
}

/// The suite's NiLang.rs cells: `nilang-O` (the forward program on `f64`) and `nilang-G` (the
/// gradient alone, `Plan::gradient`), results in the reference layout (`θ = (A, lq, lr)`).
pub fn cells(c: &KalmanCase) -> Vec<(String, Vec<Kernel<'_>>)> {
    let (y, m0, p0, h) = (&c.y[..], &c.m0[..], &c.p0[..], &super::H[..]);
    let split = |th: &[f64]| (th[..16].to_vec(), th[16..20].to_vec(), th[20..].to_vec());
    vec![(
        "nilang".to_string(),
        vec![
            Kernel::with_state(
                Measure::O,
                (0.0, split(&c.theta), workspaces(c.t)),
                move |s: &mut (f64, Theta, Workspaces)| {
                    s.0 = 0.0;
                    let (a, lq, lr) = &mut s.1;
                    let [ms, ps, ll, qd, rd] = &mut s.2;
                    kalman_nll(&mut s.0, a, lq, lr, ms, ps, ll, qd, rd, h, y, m0, p0);
                },
                |s| vec![s.0],
            ),
            Kernel::with_state(
                Measure::G,
                (Plan::new(), vec![0.0; NP], split(&c.theta), workspaces(c.t)),
                move |s| {
                    let (a, lq, lr) = &mut s.2;
                    let [ms, ps, ll, qd, rd] = &mut s.3;
                    let args = (
                        &mut 0.0,
                        &mut a[..],
                        &mut lq[..],
                        &mut lr[..],
                        &mut ms[..],
                        &mut ps[..],
                        &mut ll[..],
                        &mut qd[..],
                        &mut rd[..],
                        h,
                        y,
                        m0,
                        p0,
                    );
                    let st = s.0.gradient(&KalmanNll, args, 0);
                    for (o, v) in
                        s.1.iter_mut()
                            .zip(st.1.iter().chain(st.2.iter()).chain(st.3.iter()))
                    {
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
    use nilang::instr::{fns::Identity, PlusEq1};

    #[test]
    fn the_filter_is_one_reverse_pass_and_its_gradient_is_forward_modes() {
        assert_eq!(kalman_nll::ADDITIVE & 1, 1, "additive in the loss");
        let c = KalmanCase::new(30);
        let (l, g) = super::super::reference_gradient(&c);
        let mut cells = cells(&c);
        for k in cells[0].1.iter_mut() {
            k.run();
            let (got, want) = match k.measure {
                Measure::O => (k.result(), vec![l]),
                _ => (k.result(), g.clone()),
            };
            nilang_adbench::oracle::compare(&got, &want, 1e-10).unwrap();
        }
    }

    #[test]
    fn the_forward_run_hands_its_workspaces_back_exactly_zero() {
        let c = KalmanCase::new(20);
        let [mut ms, mut ps, mut ll, mut qd, mut rd] = workspaces(c.t);
        let (mut a, mut lq, mut lr) = (
            c.theta[..16].to_vec(),
            c.theta[16..20].to_vec(),
            c.theta[20..].to_vec(),
        );
        let mut l = 0.0;
        kalman_nll(
            &mut l,
            &mut a,
            &mut lq,
            &mut lr,
            &mut ms,
            &mut ps,
            &mut ll,
            &mut qd,
            &mut rd,
            &super::super::H,
            &c.y,
            &c.m0,
            &c.p0,
        );
        let want = super::super::nll(&c.theta, &c.y, &c.m0, &c.p0);
        assert!((l - want).abs() <= 1e-14 * want.abs(), "{l} vs {want}");
        for w in [&ms, &ps, &ll, &qd, &rd] {
            assert!(w.iter().all(|v| v.to_bits() == 0), "{w:?}");
        }
        assert_eq!(&a[..], &c.theta[..16]);
    }

    /// A `const` item on a right-hand side is an `f64` operand (not a literal): it needs its
    /// instruction as a bound (guide, *Operands*).
    #[i]
    fn add_ln_2pi<T: Scalar + PlusEq1<Identity, f64>>(y: &mut T) {
        y += cst!(super::super::LN_2PI);
    }

    #[test]
    fn a_const_item_is_an_f64_operand() {
        let mut y = 1.0;
        add_ln_2pi(&mut y);
        assert_eq!(y, 1.0 + super::super::LN_2PI);
    }
}
