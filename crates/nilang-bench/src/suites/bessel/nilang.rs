//! `bessel` suite: `nilang_apps::bessel::ibesselj_n` (series terms accumulated into fresh
//! ancillas, exact inverse, checks compiled out): call (O), uncall (U) and gradient (G) by one
//! reverse pass (see `besselj_n_value_grad`).
//!
//! The batched cells (tools `nilang-x4`, `nilang-x8`, batch case only): value and gradient
//! with 4 or 8 points per instruction (`nilang_apps::bessel::besselj_batch_value_grad`: the
//! program `ibesselj_terms` with the term count of each group of lanes fixed by its largest
//! `|z|`, exact to double precision, gradient through the gradient API on `GVar<F64xN>`).
use super::BesselCase;
use crate::harness::Kernel;
use crate::report::Measure;
use nilang::numbers::{Batch, F64x4, F64x8};
use nilang::GVar;
use nilang_apps::bessel::{
    besselj_batch_value_grad, besselj_n_value_grad, ibesselj_n, ibesselj_n_inv,
};

/// Call, uncall and gradient over the case's inputs (order 2 only; other orders get no cells).
pub fn kernels(case: &BesselCase) -> Vec<Kernel<'_>> {
    if case.nu != 2 {
        return Vec::new();
    }
    let zs = case.inputs();
    let n = zs.len();
    // the output state of the uncall cell: J₂(z) beside each z
    let outs: Vec<f64> = zs
        .iter()
        .map(|&z| {
            let (mut o, mut z) = (0.0, z);
            ibesselj_n::<f64, 2>(&mut o, &mut z);
            o
        })
        .collect();
    vec![
        Kernel::with_state(
            Measure::O,
            (zs.clone(), vec![0.0; n]),
            |s: &mut (Vec<f64>, Vec<f64>)| {
                for (o, z) in s.1.iter_mut().zip(s.0.iter_mut()) {
                    *o = 0.0;
                    ibesselj_n::<f64, 2>(o, z);
                }
            },
            |s| s.1.clone(),
        ),
        Kernel::with_state(
            Measure::U,
            (zs.clone(), outs.clone()),
            move |s: &mut (Vec<f64>, Vec<f64>)| {
                for ((o, z), &o0) in s.1.iter_mut().zip(s.0.iter_mut()).zip(&outs) {
                    *o = o0;
                    ibesselj_n_inv::<f64, 2>(o, z);
                }
            },
            |s| s.0.clone(),
        ),
        Kernel::with_state(
            Measure::G,
            (zs, vec![0.0; n]),
            |s: &mut (Vec<f64>, Vec<f64>)| {
                for (g, z) in s.1.iter_mut().zip(s.0.iter()) {
                    *g = besselj_n_value_grad::<2>(*z).1;
                }
            },
            |s| s.1.clone(),
        ),
    ]
}

/// The batched gradient (tools `nilang-x4`, `nilang-x8`) on the batch case (order 2 only):
/// G, `[dJ/dz]` per input (the values come out of the same call).
pub fn batched(case: &BesselCase) -> Vec<(String, Vec<Kernel<'_>>)> {
    if case.nu != 2 || case.batch.is_none() {
        return Vec::new();
    }
    vec![
        ("nilang-x4".to_string(), batched_kernel::<F64x4>(case)),
        ("nilang-x8".to_string(), batched_kernel::<F64x8>(case)),
    ]
}

fn batched_kernel<B>(case: &BesselCase) -> Vec<Kernel<'_>>
where
    B: Batch + nilang::instr::PlusEq1<nilang::instr::fns::PowiN<2>, B>,
    GVar<B>: nilang::ad::AbsAbove + nilang::instr::PlusEq1<nilang::instr::fns::PowiN<2>, GVar<B>>,
{
    let zs = case.inputs();
    let n = zs.len();
    vec![Kernel::with_state(
        Measure::G,
        (zs, vec![0.0; n], vec![0.0; n]),
        |s: &mut (Vec<f64>, Vec<f64>, Vec<f64>)| {
            besselj_batch_value_grad::<B, 2>(&s.0, &mut s.1, &mut s.2)
                .expect("the benchmark's inputs are in the series' range");
        },
        |s| s.2.clone(),
    )]
}
