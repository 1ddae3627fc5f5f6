//! `logistic` suite, NiLang.rs from the guide only: the negative log-likelihood as an `#[i]`
//! program over a block of samples, written as a JAX user writes it: the margins `z = X·w + b`
//! by the dense layer on read-only data (`nilang::stdlib::nnlib::i_dense_data`, one output: a
//! matrix-vector product), `softplus` (`ln(1 + eᶻ)`, `jax.nn.softplus`) over the vector by
//! `nilang::stdlib::elementwise::i_map` (SIMD lanes), the sum copied out, the rest undone. Its
//! gradient by `nilang::ad::Plan::gradient` over all samples (`nilang-G`: the gradient alone,
//! as `jax.grad`), and by the data-parallel
//! `nilang::ad::TermSum` (the samples are the terms, `w` and `b` the shared parameters, the
//! vectors `z`, `s` zero workspaces of each chunk) on a pool of 1 and of N threads
//! (`nilang-t1`, `nilang-tN`; the gradient alone, `TermArgs::gradient`, as `nilang-G`): the
//! same bits for any N.
use super::{LogisticCase, D};
use crate::harness::{Kernel, Pool};
use crate::report::Measure;
use nilang::ad::{Plan, Shared, Store, TermSum};
use nilang::instr::fns::{Mul, Softplus};
use nilang::instr::PlusEq2;
use nilang::prelude::*;
use nilang::stdlib::elementwise::{i_map, i_map_inv};
use nilang::stdlib::nnlib::{i_dense_data, i_dense_data_inv};

/// `out += Σ_s ln(1 + exp(z_s)) − y_s z_s`, `z = x·w + b` over the samples of `x` (row-major,
/// `w.len()` features each) and `y`; `z`, `s` are zero workspaces of one number per sample,
/// zero again afterwards.
#[i(zero(z, s))]
#[allow(clippy::too_many_arguments)]
pub fn logistic_nll<T: Scalar + PlusEq2<Mul, f64, T> + PlusEq2<Mul, T, f64>>(
    out: &mut T,
    w: &mut [T],
    b: &mut [T],
    z: &mut [T],
    s: &mut [T],
    x: &[f64],
    y: &[f64],
) {
    routine! {
        i_dense_data(z, x, w, b, y.len(), w.len(), 1);
        i_map(s, Softplus, z);
    }
    for k in 0..y.len() {
        out += s[k];
        out -= z[k] * y[k];
    }
    unroutine!();
}

/// The arguments of [`logistic_nll`] for a chunk of samples: the loss, the weights and the
/// bias shared by every chunk, the chunk's workspaces (zeros), its data.
type SampleArgs<'a> = (
    Shared<'a, f64>,
    Shared<'a, [f64]>,
    Shared<'a, [f64]>,
    Shared<'a, [f64]>,
    Shared<'a, [f64]>,
    &'a [f64],
    &'a [f64],
);

/// The arguments of [`logistic_nll`] for the samples `r` of case `c`.
fn sample_args(c: &LogisticCase, r: core::ops::Range<usize>) -> SampleArgs<'_> {
    let zeros = &c.zeros[..r.len()];
    (
        Shared(&0.0),
        Shared(&c.w[..D]),
        Shared(&c.w[D..]),
        Shared(zeros),
        Shared(zeros),
        &c.x[r.start * D..r.end * D],
        &c.y[r],
    )
}

/// The storage of a gradient of [`logistic_nll`] (serial or per chunk).
pub type NllStore<'a> = Store<(
    &'a mut f64,
    &'a mut [f64],
    &'a mut [f64],
    &'a mut [f64],
    &'a mut [f64],
    &'a [f64],
    &'a [f64],
)>;

/// The state of the serial kernels: the parameters `w`, `b`, the workspaces `z`, `s`.
type Serial = (Vec<f64>, Vec<f64>, [Vec<f64>; 2]);

fn serial(c: &LogisticCase) -> Serial {
    (
        c.w[..D].to_vec(),
        c.w[D..].to_vec(),
        std::array::from_fn(|_| vec![0.0; c.n]),
    )
}

/// Our tools and their kernels for one case: `nilang` (O, G), then the data-parallel gradient
/// on each pool (`nilang-t1`, `nilang-tN`).
pub fn cells<'a>(c: &'a LogisticCase, pools: &'a [Pool]) -> Vec<(String, Vec<Kernel<'a>>)> {
    let (x, y) = (&c.x[..], &c.y[..]);
    let mut out = vec![(
        "nilang".to_string(),
        vec![
            Kernel::with_state(
                Measure::O,
                (0.0, serial(c)),
                move |(l, (w, b, [z, s])): &mut (f64, Serial)| {
                    *l = 0.0;
                    logistic_nll(l, w, b, z, s, x, y);
                },
                |s| vec![s.0],
            ),
            Kernel::with_state(
                Measure::G,
                (Plan::<NllStore<'a>>::new(), vec![0.0; D + 1], serial(c)),
                move |(plan, g, (w, b, [z, s])): &mut (Plan<NllStore<'a>>, Vec<f64>, Serial)| {
                    let args = (
                        &mut 0.0,
                        &mut w[..],
                        &mut b[..],
                        &mut z[..],
                        &mut s[..],
                        x,
                        y,
                    );
                    let st = plan.gradient(&LogisticNll, args, 0);
                    for (o, v) in g.iter_mut().zip(st.1.iter().chain(st.2.iter())) {
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
                    .gradient(&LogisticNll, 0, &[1, 2], &mut s.1)
            });
        },
        |s| s.1.clone(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use nilang::GVar;

    #[test]
    fn the_plan_gradient_is_the_plain_one_and_leaves_the_workspaces_zero() {
        // 203 samples: the lane kernels' blocks of eight and a padded tail
        let c = LogisticCase::random(203, &mut crate::suites::rng(4));
        let mut want = vec![0.0; D + 1];
        let l = super::super::nll_gradient(&c.w, &c.x, &c.y, &mut want);
        let (mut w, mut b, [mut z, mut s]) = serial(&c);
        let (mut plan, mut alone) = (Plan::<NllStore<'_>>::new(), Plan::<NllStore<'_>>::new());
        // the zero(..) workspaces come back zero: reset (release builds) or uncomputed to
        // rounding (checks on)
        let zero =
            |ws: &[&mut [GVar<f64>]; 2]| ws.iter().all(|w| w.iter().all(|v| v.x.abs() <= 1e-12));
        for _ in 0..2 {
            let args = (
                &mut 0.0,
                &mut w[..],
                &mut b[..],
                &mut z[..],
                &mut s[..],
                &c.x[..],
                &c.y[..],
            );
            let (v, st) = plan.value_and_gradient(&LogisticNll, args, 0);
            assert!((v - l).abs() <= 1e-13 * l.abs(), "{v} vs {l}");
            let g: Vec<f64> = st.1.iter().chain(st.2.iter()).map(|v| v.g).collect();
            for (a, b) in g.iter().zip(&want) {
                assert!((a - b).abs() <= 1e-13 * (1.0 + b.abs()), "{a} vs {b}");
            }
            assert!(zero(&[&mut *st.3, &mut *st.4]));
            // the gradient alone (`nilang-G`, the loss dead): the same bits
            let args = (
                &mut 0.0,
                &mut w[..],
                &mut b[..],
                &mut z[..],
                &mut s[..],
                &c.x[..],
                &c.y[..],
            );
            let st = alone.gradient(&LogisticNll, args, 0);
            let g_alone: Vec<f64> = st.1.iter().chain(st.2.iter()).map(|v| v.g).collect();
            let bits = |v: &[f64]| v.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&g), bits(&g_alone));
            assert!(zero(&[&mut *st.3, &mut *st.4]));
        }
        assert!(want.iter().any(|&v| v.abs() > 1e-3));
    }

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
                sum.args(|r| sample_args(&c, r)).value_and_gradient(
                    &LogisticNll,
                    0,
                    &[1, 2],
                    &mut g,
                )
            });
            assert!((v - l).abs() <= 1e-12 * l.abs(), "{v} vs {l}");
            for (a, b) in g.iter().zip(&want) {
                assert!((a - b).abs() <= 1e-12 * (1.0 + b.abs()), "{a} vs {b}");
            }
            // the gradient alone (the `nilang-tN-G` cells): the same bits
            let mut g_only = vec![0.0; D + 1];
            Pool::new(threads).install(|| {
                sum.args(|r| sample_args(&c, r))
                    .gradient(&LogisticNll, 0, &[1, 2], &mut g_only)
            });
            assert_eq!(
                g_only.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
                g.iter().map(|v| v.to_bits()).collect::<Vec<_>>()
            );
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
