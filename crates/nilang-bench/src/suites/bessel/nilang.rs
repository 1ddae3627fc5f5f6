//! `bessel` suite: `nilang_apps::bessel::ibesselj_n` (series terms accumulated into fresh
//! ancillas, exact inverse, checks compiled out): call (O), uncall (U) and gradient (G) by one
//! reverse pass (see `besselj_n_value_grad`).
use super::BesselCase;
use crate::harness::Kernel;
use crate::report::Measure;
use nilang_apps::bessel::{besselj_n_value_grad, ibesselj_n, ibesselj_n_inv};

/// Call, uncall and gradient over the case's inputs (order 2 only; other orders get no cells).
pub fn kernels(case: &BesselCase) -> Vec<Kernel<'_>> {
    if case.nu != 2 {
        return Vec::new();
    }
    let zs = case.inputs();
    let n = zs.len();
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
            (zs.clone(), vec![0.0; n]),
            |s: &mut (Vec<f64>, Vec<f64>)| {
                for (o, z) in s.1.iter_mut().zip(s.0.iter_mut()) {
                    *o = 0.0;
                    ibesselj_n::<f64, 2>(o, z);
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
