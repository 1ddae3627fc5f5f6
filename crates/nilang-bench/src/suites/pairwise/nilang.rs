//! `pairwise` suite, NiLang.rs from the guide only: the energy as an `#[i]` program over the
//! rows `lo..hi` (each row `i` adds its pairs `i < j`), its gradient by `nilang::ad::Plan`
//! over all rows (`nilang-G`), and by the data-parallel `nilang::ad::TermSum` (the rows are
//! the terms, the positions the shared parameter) on a pool of 1 and of N threads (`nilang-t1`,
//! `nilang-tN`): the same bits for any N.
use super::PairwiseCase;
use crate::harness::{Kernel, Pool};
use crate::report::Measure;
use nilang::ad::{Plan, Shared, Store, TermSum};
use nilang::prelude::*;

/// `e += Σ_{lo ≤ i < hi} Σ_{j > i} u⁶ − u³`, `u = 1 / (1 + |x_i − x_j|²)`, points in 3-D.
#[i]
pub fn pair_energy<T: Scalar>(e: &mut T, x: &mut [T], lo: usize, hi: usize) {
    for i in lo..hi {
        for j in i + 1..x.len() / 3 {
            routine! {
                let (dx, dy, dz, r2) = (T::default(), T::default(), T::default(), T::default());
                let (u, u3) = (T::default(), T::default());
                dx += x[3 * i] - x[3 * j];
                dy += x[3 * i + 1] - x[3 * j + 1];
                dz += x[3 * i + 2] - x[3 * j + 2];
                r2 += abs2(dx);
                r2 += abs2(dy);
                r2 += abs2(dz);
                r2 += 1.0;
                u += 1.0 / r2;
                u3 += u.powi(3);
            }
            e += abs2(u3);
            e -= u3;
            unroutine!();
        }
    }
}

/// The arguments of [`pair_energy`] for the rows `rows` of positions `x`, the energy and the
/// positions shared by every chunk of rows.
fn rows_args(
    x: &[f64],
    rows: core::ops::Range<usize>,
) -> (Shared<'_, f64>, Shared<'_, [f64]>, usize, usize) {
    (Shared(&0.0), Shared(x), rows.start, rows.end)
}

/// The storage of a gradient of [`pair_energy`] (serial or per chunk).
pub type PairStore<'a> = Store<(Shared<'a, f64>, Shared<'a, [f64]>, usize, usize)>;

/// Our tools and their kernels for one case: `nilang` (O, G), then the data-parallel gradient
/// on each pool (`nilang-t1`, `nilang-tN`).
pub fn cells<'a>(case: &'a PairwiseCase, pools: &'a [Pool]) -> Vec<(String, Vec<Kernel<'a>>)> {
    let x = &case.x[..];
    let n = case.n;
    let mut out = vec![(
        "nilang".to_string(),
        vec![
            Kernel::with_state(
                Measure::O,
                (0.0, x.to_vec()),
                move |s: &mut (f64, Vec<f64>)| {
                    s.0 = 0.0;
                    pair_energy(&mut s.0, &mut s.1, 0, n);
                },
                |s| vec![s.0],
            ),
            Kernel::with_state(
                Measure::G,
                (Plan::<PairStore<'a>>::new(), vec![0.0; x.len()], x.to_vec()),
                move |s: &mut (Plan<PairStore<'a>>, Vec<f64>, Vec<f64>)| {
                    let args = (&mut 0.0, &mut s.2[..], 0, n);
                    let (_, st) = s.0.value_and_gradient(&PairEnergy, args, 0);
                    for (o, v) in s.1.iter_mut().zip(&st.1) {
                        *o = v.g;
                    }
                },
                |s| s.1.clone(),
            ),
        ],
    )];
    out.extend(
        pools
            .iter()
            .map(|p| (p.tool.clone(), vec![parallel(case, p)])),
    );
    out
}

/// The data-parallel gradient on `pool`.
fn parallel<'a>(case: &'a PairwiseCase, pool: &'a Pool) -> Kernel<'a> {
    let x = &case.x[..];
    Kernel::with_state(
        Measure::G,
        (TermSum::<PairStore<'a>>::new(case.n), vec![0.0; x.len()]),
        move |s: &mut (TermSum<PairStore<'a>>, Vec<f64>)| {
            pool.install(|| {
                s.0.args(|r| rows_args(x, r))
                    .value_and_gradient(&PairEnergy, 0, &[1], &mut s.1)
            });
        },
        |s| s.1.clone(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_parallel_gradient_is_bit_identical_for_any_thread_count_and_right() {
        let c = PairwiseCase::random(70, &mut crate::suites::rng(2));
        let mut want = vec![0.0; c.x.len()];
        let e = super::super::energy_gradient(&c.x, &mut want);
        let mut sum = TermSum::new(c.n);
        let mut runs = vec![];
        for threads in [1, 2, 3, 4] {
            let pool = Pool::new(threads);
            let mut g = vec![0.0; c.x.len()];
            let v = pool.install(|| {
                sum.args(|r| rows_args(&c.x, r))
                    .value_and_gradient(&PairEnergy, 0, &[1], &mut g)
            });
            runs.push((
                v.to_bits(),
                g.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
            ));
            assert!((v - e).abs() <= 1e-12 * e.abs(), "{v} vs {e}");
            for (a, b) in g.iter().zip(&want) {
                assert!((a - b).abs() <= 1e-12 * (1.0 + b.abs()), "{a} vs {b}");
            }
        }
        assert!(
            runs.iter().all(|r| *r == runs[0]),
            "bits differ across thread counts"
        );
        // and against finite differences of the program itself
        let f = |x: &[f64]| {
            let mut e = 0.0;
            pair_energy(&mut e, &mut x.to_vec(), 0, c.n);
            e
        };
        let g = f64::from_bits;
        for k in [0, 1, 2, 100, 209] {
            let (mut xp, mut xm, h) = (c.x.clone(), c.x.clone(), 1e-6);
            xp[k] += h;
            xm[k] -= h;
            let fd = (f(&xp) - f(&xm)) / (2.0 * h);
            let got = g(runs[0].1[k]);
            assert!(
                (fd - got).abs() < 1e-7 * (1.0 + got.abs()),
                "{k}: {fd} vs {got}"
            );
        }
    }
}
