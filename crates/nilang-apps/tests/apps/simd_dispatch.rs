//! Run-time CPU dispatch (`nilang::simd`): the gradients on batch numbers give the same bits
//! on every path (AVX-512, AVX2, the default build's), compared with `simd::limit`. The
//! limit is process-wide: while it is lowered, other tests of this binary run the baseline
//! path, which gives the same bits (what this test checks).
use nilang::numbers::{Batch, F64x4, F64x8};
use nilang::prelude::*;
use nilang::simd::{self, Isa};
use nilang_apps::adbench::gmm::gmm_generate;
use nilang_apps::bessel::besselj_batch_value_grad;
use nilang_apps::gmm::{gmm_value_grad_batched, GmmBatchWork};

/// The GMM gradient (value and gradient) on lanes of `B`, as bits.
fn gmm<B>() -> Vec<u64>
where
    B: Batch + nilang::instr::PlusEq2<nilang::instr::fns::Sub, B, B>,
    GVar<B>: nilang::instr::PlusEq2<nilang::instr::fns::Sub, B, GVar<B>>,
{
    let g = gmm_generate(2, 5, 1003, 3);
    let mut work = GmmBatchWork::<B>::new(g.d, g.k);
    let mut grad = vec![0.0; g.n_params()];
    let f = gmm_value_grad_batched(&g, &mut work, &mut grad);
    std::iter::once(f).chain(grad).map(f64::to_bits).collect()
}

/// Bessel J₂ and its derivative on lanes of `B`, as bits.
fn bessel<B>() -> Vec<u64>
where
    B: Batch + nilang::instr::PlusEq1<nilang::instr::fns::PowiN<2>, B>,
    GVar<B>: nilang::ad::AbsAbove + nilang::instr::PlusEq1<nilang::instr::fns::PowiN<2>, GVar<B>>,
{
    let z: Vec<f64> = (0..203).map(|k| -9.0 + 0.0891 * k as f64).collect();
    let (mut v, mut g) = (vec![0.0; z.len()], vec![0.0; z.len()]);
    besselj_batch_value_grad::<B, 2>(&z, &mut v, &mut g).unwrap();
    v.iter().chain(&g).map(|x| x.to_bits()).collect()
}

#[i]
fn lane_fns<T: Scalar>(out: &mut T, x: &mut [T]) {
    for i in 0..x.len() {
        out += exp(x[i]);
        out += tanh(x[i]);
        out += sin(x[i]);
        out += cos(x[i]);
        out += exp_m1(x[i]);
        out += abs2(x[i]);
    }
}

/// A program of the lane functions through `nilang::gradient` and a `Plan`, as bits.
fn user<B: Batch>() -> Vec<u64>
where
    LaneFns: for<'a> nilang::ad::Differentiable<(&'a mut B, &'a mut [B]), B>,
{
    let mut x: Vec<B> = (0..7)
        .map(|j| B::from_fn(|l| -3.0 + 0.37 * (j * B::LANES + l) as f64))
        .collect();
    let (_, gx) = nilang::gradient(&LaneFns, (&mut B::default(), &mut x[..]), 0);
    let mut plan = nilang::ad::Plan::new();
    let (v, (_, px)) = plan.value_and_gradient(&LaneFns, (&mut B::default(), &mut x[..]), 0);
    let mut bits: Vec<u64> = (0..B::LANES).map(|l| v.lane(l).to_bits()).collect();
    for s in gx.iter().chain(px.iter()) {
        bits.extend((0..B::LANES).map(|l| s.g.lane(l).to_bits()));
    }
    bits
}

fn all() -> Vec<Vec<u64>> {
    vec![
        gmm::<F64x8>(),
        gmm::<F64x4>(),
        bessel::<F64x8>(),
        bessel::<F64x4>(),
        user::<F64x8>(),
        user::<F64x4>(),
    ]
}

#[test]
fn batch_gradients_are_bit_identical_on_every_dispatch_path() {
    let widest = simd::active();
    let runs: Vec<(Isa, Vec<Vec<u64>>)> = [Isa::Avx512, Isa::Avx2, Isa::Baseline]
        .into_iter()
        .filter(|&isa| isa <= widest)
        .map(|isa| {
            let before = simd::limit(isa);
            assert_eq!(simd::active(), isa);
            let r = all();
            simd::limit(before);
            (isa, r)
        })
        .collect();
    assert_eq!(simd::active(), widest);
    let (_, base) = runs.last().expect("the baseline runs everywhere");
    assert_eq!(runs.last().unwrap().0, Isa::Baseline);
    for (isa, r) in &runs {
        for (k, (a, b)) in r.iter().zip(base).enumerate() {
            assert!(!a.is_empty());
            assert!(
                a == b,
                "{}: result {k} differs from the baseline path",
                isa.name()
            );
        }
    }
}
