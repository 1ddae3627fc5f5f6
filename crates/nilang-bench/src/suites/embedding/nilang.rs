//! `embedding` suite: `nilang_apps::embedding::embedding_loss` (the reversible Petersen loss):
//! objective (O), uncall (U), gradient (G) and Hessian (H, forward-over-reverse). The tools
//! `nilang-x4`, `nilang-x8`: the Hessian with 4 or 8 columns per reverse pass (tangents in SIMD
//! lanes, `nilang_apps::embedding::hessian_lanes`).
use super::EmbeddingCase;
use crate::harness::Kernel;
use crate::report::Measure;
use nilang::numbers::{F64x4, F64x8, Tangents};
use nilang_apps::embedding::{
    embedding_loss, embedding_loss_inv, hessian, hessian_lanes, value_and_gradient_into, Workspace,
};

/// The kernels of one case.
pub fn kernels(case: &EmbeddingCase) -> Vec<Kernel<'_>> {
    let k = case.k;
    let x0 = case.x.clone();
    let n = x0.len();
    let mut out0 = 0.0;
    embedding_loss(&mut out0, &mut x0.clone(), k);
    let x1 = x0.clone();
    vec![
        Kernel::with_state(
            Measure::O,
            (0.0, x0.clone()),
            move |s: &mut (f64, Vec<f64>)| {
                s.0 = 0.0;
                embedding_loss(&mut s.0, &mut s.1, k);
            },
            |s| vec![s.0],
        ),
        Kernel::with_state(
            Measure::U,
            (out0, x0.clone()),
            move |s: &mut (f64, Vec<f64>)| {
                s.0 = out0;
                embedding_loss_inv(&mut s.0, &mut s.1, k);
            },
            |s| s.1.clone(),
        ),
        Kernel::with_state(
            Measure::G,
            (Workspace::new(k), vec![0.0; n]),
            move |s: &mut (Workspace, Vec<f64>)| {
                // one reverse pass: the routine is recomputed on f64, only its inverse runs on
                // gradient numbers
                value_and_gradient_into(&x1, k, &mut s.0, &mut s.1);
            },
            |s| s.1.clone(),
        ),
        Kernel::with_state(
            Measure::H,
            Vec::new(),
            move |h: &mut Vec<f64>| {
                *h = hessian(&x0, k).concat();
            },
            |h| h.clone(),
        ),
    ]
}

/// The Hessian with tangents in lanes (tools `nilang-x4`, `nilang-x8`).
pub fn lanes(case: &EmbeddingCase) -> Vec<(String, Vec<Kernel<'_>>)> {
    vec![
        ("nilang-x4".to_string(), lanes_kernel::<F64x4>(case)),
        ("nilang-x8".to_string(), lanes_kernel::<F64x8>(case)),
    ]
}

fn lanes_kernel<B: Tangents>(case: &EmbeddingCase) -> Vec<Kernel<'_>> {
    let (k, x) = (case.k, case.x.clone());
    vec![Kernel::with_state(
        Measure::H,
        Vec::new(),
        move |h: &mut Vec<f64>| {
            *h = hessian_lanes::<B>(&x, k).concat();
        },
        |h| h.clone(),
    )]
}
