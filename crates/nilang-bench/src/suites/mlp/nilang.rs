//! `mlp` suite: the network as a user writes it from the guide, an `#[i]` program generic
//! over its numbers with the dense layers of `nilang::stdlib::nnlib` (`i_dense_data` for the
//! data layer, `i_dense` for the hidden one) and `tanh` by `nilang::stdlib::elementwise::i_map` (SIMD lanes)
//! inside a routine, the squared
//! error copied out, and the routine undone. Its gradient is `nilang::ad::Plan`'s (one reverse
//! pass: the program is compute–copy–uncompute in the loss); the objective runs it on `f64`.
//!
//! `nilang-t1-G`, `nilang-tN-G`: the same program's gradient by the data-parallel
//! `nilang::ad::TermSum` (the samples are the terms, the weights and biases the shared
//! parameters, the work buffers zero workspaces of each chunk) on a pool of 1 and of N threads:
//! the same bits for any N.
//!
//! `nilang-x4-G`: the same program on batches (`GVar<F64x4>`: four samples in the lanes of each
//! number, the parameters splatted, their gradient the sum of the lanes, as the guide's
//! "Batches" section says). The dense layers then run their instruction loop (no GEMM for
//! batches) and `tanh` whatever the lanes implement.
use super::{split, MlpCase, N_HIDDEN, N_IN};
use crate::harness::{Kernel, Pool};
use crate::report::Measure;
use nilang::ad::{Plan, Shared, Store, TermSum};
use nilang::instr::fns::{Mul, SqDiff, Tanh};
use nilang::instr::PlusEq2;
use nilang::numbers::F64x4;
use nilang::prelude::*;
use nilang::stdlib::elementwise::{i_map, i_map_inv};
use nilang::stdlib::nnlib::{i_dense, i_dense_data, i_dense_data_inv, i_dense_inv};

/// `loss += Σ_b (tanh(x_b W₁ + b₁) W₂ + b₂ − t_b)²`; `z1`, `h` (B×32) and `z2` (B) are
/// zero workspaces, zero again afterwards.
#[i(zero(z1, h, z2))]
#[allow(clippy::too_many_arguments)]
pub fn mlp_loss<T: Scalar + PlusEq2<Mul, X, T> + PlusEq2<SqDiff, T, X>, X: Copy + 'static>(
    loss: &mut T,
    w1: &mut [T],
    b1: &mut [T],
    w2: &mut [T],
    b2: &mut [T],
    z1: &mut [T],
    h: &mut [T],
    z2: &mut [T],
    x: &[X],
    t: &[X],
) {
    routine! {
        i_dense_data(z1, x, w1, b1, t.len(), 16, 32);
        i_map(h, Tanh, z1);
        i_dense(z2, h, w2, b2, t.len(), 32, 1);
    }
    for b in 0..t.len() {
        loss += sqdiff(z2[b], t[b]);
    }
    unroutine!();
}

/// The parameters and workspaces of one call.
struct State {
    w1: Vec<f64>,
    b1: Vec<f64>,
    w2: Vec<f64>,
    b2: Vec<f64>,
    z1: Vec<f64>,
    h: Vec<f64>,
    z2: Vec<f64>,
    g: Vec<f64>,
}

/// The kernels of one case: O (the program on `f64`) and G (its gradient through a `Plan`).
pub fn kernels(case: &MlpCase) -> Vec<Kernel<'_>> {
    let b = case.batch;
    let state = || {
        let (w1, b1, w2, b2) = split(&case.p);
        State {
            w1: w1.to_vec(),
            b1: b1.to_vec(),
            w2: w2.to_vec(),
            b2: b2.to_vec(),
            z1: vec![0.0; b * N_HIDDEN],
            h: vec![0.0; b * N_HIDDEN],
            z2: vec![0.0; b],
            g: vec![0.0; case.p.len()],
        }
    };
    let (x, t) = (&case.x[..], &case.t[..]);
    assert_eq!(x.len(), b * N_IN);
    let mut plan = Plan::new();
    vec![
        Kernel::with_state(
            Measure::O,
            (0.0, state()),
            move |(l, s): &mut (f64, State)| {
                *l = 0.0;
                let ws = (&mut s.z1[..], &mut s.h[..], &mut s.z2[..]);
                mlp_loss(
                    l, &mut s.w1, &mut s.b1, &mut s.w2, &mut s.b2, ws.0, ws.1, ws.2, x, t,
                );
            },
            |s| vec![s.0],
        ),
        Kernel::with_state(
            Measure::G,
            state(),
            move |s: &mut State| {
                let args = (
                    &mut 0.0,
                    &mut s.w1[..],
                    &mut s.b1[..],
                    &mut s.w2[..],
                    &mut s.b2[..],
                    &mut s.z1[..],
                    &mut s.h[..],
                    &mut s.z2[..],
                    x,
                    t,
                );
                let (_, (_, g1, gb1, g2, gb2, ..)) = plan.value_and_gradient(&MlpLoss, args, 0);
                let grads = g1
                    .iter()
                    .chain(gb1.iter())
                    .chain(g2.iter())
                    .chain(gb2.iter());
                for (o, v) in s.g.iter_mut().zip(grads) {
                    *o = v.g;
                }
            },
            |s| s.g.clone(),
        ),
    ]
}

/// The batched gradient `nilang-x4-G` on [`MlpCase::x4`], [`MlpCase::t4`].
pub fn lanes(case: &MlpCase) -> Vec<Kernel<'_>> {
    let rows = case.batch / 4;
    let (x4, t4) = (&case.x4[..], &case.t4[..]);
    let splat = |v: &[f64]| v.iter().map(|&v| F64x4::splat(v)).collect::<Vec<_>>();
    let (w1, b1, w2, b2) = split(&case.p);
    let state = (
        [splat(w1), splat(b1), splat(w2), splat(b2)],
        [
            vec![F64x4::splat(0.0); rows * N_HIDDEN],
            vec![F64x4::splat(0.0); rows * N_HIDDEN],
        ],
        vec![F64x4::splat(0.0); rows],
        vec![0.0; case.p.len()],
    );
    type St = ([Vec<F64x4>; 4], [Vec<F64x4>; 2], Vec<F64x4>, Vec<f64>);
    let mut plan = Plan::new();
    vec![Kernel::with_state(
        Measure::G,
        state,
        move |(p, zh, z2, g): &mut St| {
            let [w1, b1, w2, b2] = p;
            let [z1, h] = zh;
            let args = (
                &mut F64x4::splat(0.0),
                &mut w1[..],
                &mut b1[..],
                &mut w2[..],
                &mut b2[..],
                &mut z1[..],
                &mut h[..],
                &mut z2[..],
                x4,
                t4,
            );
            let (_, (_, g1, gb1, g2, gb2, ..)) = plan.value_and_gradient(&MlpLoss, args, 0);
            let grads = g1
                .iter()
                .chain(gb1.iter())
                .chain(g2.iter())
                .chain(gb2.iter());
            for (o, v) in g.iter_mut().zip(grads) {
                *o = v.g.sum();
            }
        },
        |s| s.3.clone(),
    )]
}

/// The arguments of [`mlp_loss`] for a chunk of samples: the loss, the parameters shared by
/// every chunk, the chunk's work buffers (zeros), its samples and targets.
type ChunkArgs<'a> = (
    Shared<'a, f64>,
    Shared<'a, [f64]>,
    Shared<'a, [f64]>,
    Shared<'a, [f64]>,
    Shared<'a, [f64]>,
    Shared<'a, [f64]>,
    Shared<'a, [f64]>,
    Shared<'a, [f64]>,
    &'a [f64],
    &'a [f64],
);

/// The arguments of [`mlp_loss`] for the samples `r` of case `c`.
fn chunk_args(c: &MlpCase, r: core::ops::Range<usize>) -> ChunkArgs<'_> {
    let (w1, b1, w2, b2) = split(&c.p);
    let zeros = &c.zeros[..r.len() * N_HIDDEN];
    (
        Shared(&0.0),
        Shared(w1),
        Shared(b1),
        Shared(w2),
        Shared(b2),
        Shared(zeros),
        Shared(zeros),
        Shared(&c.zeros[..r.len()]),
        &c.x[r.start * N_IN..r.end * N_IN],
        &c.t[r],
    )
}

/// The storage of a chunk's gradient of [`mlp_loss`].
pub type LossStore<'a> = Store<(
    &'a mut f64,
    &'a mut [f64],
    &'a mut [f64],
    &'a mut [f64],
    &'a mut [f64],
    &'a mut [f64],
    &'a mut [f64],
    &'a mut [f64],
    &'a [f64],
    &'a [f64],
)>;

/// The data-parallel gradient on `pool` (`nilang-t1`, `nilang-tN`).
pub fn parallel<'a>(c: &'a MlpCase, pool: &'a Pool) -> Kernel<'a> {
    Kernel::with_state(
        Measure::G,
        (TermSum::<LossStore<'a>>::new(c.batch), vec![0.0; c.p.len()]),
        move |s: &mut (TermSum<LossStore<'a>>, Vec<f64>)| {
            pool.install(|| {
                s.0.args(|r| chunk_args(c, r)).value_and_gradient(
                    &MlpLoss,
                    0,
                    &[1, 2, 3, 4],
                    &mut s.1,
                )
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
        let c = MlpCase::new(96);
        let mut want = vec![0.0; c.p.len()];
        let mut ws = super::super::PlainWs::new(c.batch);
        let l = super::super::value_grad(
            &c.p,
            &c.x,
            &c.t,
            &mut ws,
            &mut want,
            super::super::Tanh::Scalar,
        );
        let mut sum = TermSum::new(c.batch);
        let mut runs = vec![];
        for threads in [1, 2, 3] {
            let mut g = vec![0.0; c.p.len()];
            let v = Pool::new(threads).install(|| {
                sum.args(|r| chunk_args(&c, r)).value_and_gradient(
                    &MlpLoss,
                    0,
                    &[1, 2, 3, 4],
                    &mut g,
                )
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
