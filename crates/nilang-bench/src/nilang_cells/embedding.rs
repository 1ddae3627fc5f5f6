//! `embedding` suite: `nilang_apps::embedding::embedding_loss` (the reversible Petersen loss):
//! objective (O), uncall (U), gradient (G) and Hessian (H, forward-over-reverse).
use crate::hook::Kernel;
use crate::report::Measure;
use crate::suites::embedding::EmbeddingCase;
use nilang::GVar;
use nilang_apps::embedding::{embedding_loss, embedding_loss_inv, hessian};

/// The kernels of one case.
pub fn kernels(case: &EmbeddingCase) -> Vec<Kernel<'_>> {
    let k = case.k;
    let x0 = case.x.clone();
    let n = x0.len();
    let mut out0 = 0.0;
    embedding_loss(&mut out0, &mut x0.clone(), k);
    struct G {
        x: Vec<GVar<f64>>,
    }
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
            G {
                x: vec![GVar::default(); n],
            },
            move |s: &mut G| {
                // compute–copy–uncompute: the backward pass needs no forward run (the loss
                // value comes out as −out.x)
                for (g, &v) in s.x.iter_mut().zip(&x1) {
                    *g = GVar::from(v);
                }
                let mut go = GVar::new(0.0, 1.0);
                embedding_loss_inv(&mut go, &mut s.x, k);
            },
            |s| s.x.iter().map(|v| v.g).collect(),
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
