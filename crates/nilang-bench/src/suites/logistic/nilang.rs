//! `logistic` suite, NiLang.rs from the guide only: the negative log-likelihood as an `#[i]`
//! program over the samples `lo..hi`, its gradient by `nilang::ad::Plan` over all samples
//! (`nilang-G`), and by the data-parallel `nilang::ad::TermSum` (the samples are the terms,
//! the weights the shared parameter) on a pool of 1 and of N threads (`nilang-t1`,
//! `nilang-tN`): the same bits for any N.
use super::{LogisticCase, D};
use crate::harness::{Kernel, Pool};
use crate::report::Measure;
use nilang::ad::{Plan, Shared, Store, TermSum};
use nilang::prelude::*;

/// `out += Σ_{lo ≤ s < hi} ln(1 + exp(z_s)) − y_s z_s`, `z_s = w[..d]·x_s + w[d]`,
/// `d = w.len() − 1` features per sample (`x` row-major).
#[i]
pub fn logistic_nll<T: Scalar>(
    out: &mut T,
    w: &mut [T],
    x: &[f64],
    y: &[f64],
    lo: usize,
    hi: usize,
) {
    for s in lo..hi {
        routine! {
            let (z, ez) = (T::default(), T::default());
            for k in 0..w.len() - 1 {
                z += w[k] * x[s * (w.len() - 1) + k];
            }
            z += w[w.len() - 1];
            ez += exp(z);
        }
        out += ln_1p(ez);
        out -= z * y[s];
        unroutine!();
    }
}

/// The arguments of [`logistic_nll`] for a chunk of samples: the loss and the weights shared
/// by every chunk, the data, the chunk's samples.
type SampleArgs<'a> = (
    Shared<'a, f64>,
    Shared<'a, [f64]>,
    &'a [f64],
    &'a [f64],
    usize,
    usize,
);

/// The arguments of [`logistic_nll`] for the samples `r` of case `c`.
fn sample_args(c: &LogisticCase, r: core::ops::Range<usize>) -> SampleArgs<'_> {
    (Shared(&0.0), Shared(&c.w), &c.x, &c.y, r.start, r.end)
}

/// The storage of a gradient of [`logistic_nll`] (serial or per chunk).
pub type NllStore<'a> = Store<(
    &'a mut f64,
    &'a mut [f64],
    &'a [f64],
    &'a [f64],
    usize,
    usize,
)>;

/// Our tools and their kernels for one case: `nilang` (O, G), then the data-parallel gradient
/// on each pool (`nilang-t1`, `nilang-tN`).
pub fn cells<'a>(c: &'a LogisticCase, pools: &'a [Pool]) -> Vec<(String, Vec<Kernel<'a>>)> {
    let (x, y, n) = (&c.x[..], &c.y[..], c.n);
    let mut out = vec![(
        "nilang".to_string(),
        vec![
            Kernel::with_state(
                Measure::O,
                (0.0, c.w.clone()),
                move |s: &mut (f64, Vec<f64>)| {
                    s.0 = 0.0;
                    logistic_nll(&mut s.0, &mut s.1, x, y, 0, n);
                },
                |s| vec![s.0],
            ),
            Kernel::with_state(
                Measure::G,
                (Plan::<NllStore<'a>>::new(), vec![0.0; D + 1], c.w.clone()),
                move |s: &mut (Plan<NllStore<'a>>, Vec<f64>, Vec<f64>)| {
                    let args = (&mut 0.0, &mut s.2[..], x, y, 0, n);
                    let (_, st) = s.0.value_and_gradient(&LogisticNll, args, 0);
                    for (o, v) in s.1.iter_mut().zip(&st.1) {
                        *o = v.g;
                    }
                },
                |s| s.1.clone(),
            ),
        ],
    )];
    out.extend(pools.iter().map(|p| (p.tool.clone(), vec![parallel(c, p)])));
    out
}

/// The data-parallel gradient on `pool`.
fn parallel<'a>(c: &'a LogisticCase, pool: &'a Pool) -> Kernel<'a> {
    Kernel::with_state(
        Measure::G,
        (TermSum::<NllStore<'a>>::new(c.n), vec![0.0; D + 1]),
        move |s: &mut (TermSum<NllStore<'a>>, Vec<f64>)| {
            pool.install(|| {
                s.0.args(|r| sample_args(c, r))
                    .value_and_gradient(&LogisticNll, 0, &[1], &mut s.1)
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
        let c = LogisticCase::random(300, &mut crate::suites::rng(2));
        let mut want = vec![0.0; D + 1];
        let l = super::super::nll_gradient(&c.w, &c.x, &c.y, &mut want);
        let mut sum = TermSum::new(c.n);
        let mut runs = vec![];
        for threads in [1, 2, 3] {
            let mut g = vec![0.0; D + 1];
            let v = Pool::new(threads).install(|| {
                sum.args(|r| sample_args(&c, r))
                    .value_and_gradient(&LogisticNll, 0, &[1], &mut g)
            });
            assert!((v - l).abs() <= 1e-12 * l.abs(), "{v} vs {l}");
            for (a, b) in g.iter().zip(&want) {
                assert!((a - b).abs() <= 1e-12 * (1.0 + b.abs()), "{a} vs {b}");
            }
            runs.push((
                v.to_bits(),
                g.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
            ));
        }
        assert!(
            runs.iter().all(|r| *r == runs[0]),
            "bits differ across thread counts"
        );
    }
}
