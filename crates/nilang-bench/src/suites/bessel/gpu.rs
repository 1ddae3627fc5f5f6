//! `bessel` suite, device cells (see [`crate::harness::gpu`]): the batch case by
//! `nilang_gpu::kernels::bessel::besselj_n_batch` (the instructions of
//! `nilang_apps::bessel::ibesselj_n`, one thread per input): its forward launch (O), and the
//! gradient (G): the forward launch, then the gradient program seeded with `∂out = 1`, which
//! restores the inputs and leaves `dJ/dz` in their adjoints. Times per evaluation.
use super::BesselCase;
use crate::harness::gpu::{read, upload, zeros, Zeroed};
use crate::harness::Kernel;
use crate::report::Measure;
use nilang_apps::bessel::{factorial, series_ratios};
use nilang_gpu::kernels::bessel::{besselj_n_batch, MAX_TERMS};
use nilang_gpu::{Arg, Buffer, Device, Precision, Program, Shared};

/// The program and its buffers, on the device.
struct State {
    prog: Program<besselj_n_batch>,
    out: Zeroed,
    z: Buffer<f64>,
    terms: Buffer<f64>,
    ratios: Buffer<f64>,
    gout: Buffer<f64>,
    gz: Zeroed,
    gterms: Zeroed,
    nu: i64,
    inv_fact: f64,
    result: Vec<f64>,
}

impl State {
    fn new(dev: &Device, case: &BesselCase, zs: &[f64]) -> State {
        let n = zs.len();
        let prog = dev
            .program::<besselj_n_batch>(Precision::F64)
            .unwrap_or_else(|e| crate::harness::gpu::fail("build besselj_n_batch", e));
        let gout = upload(dev, &vec![1.0; n]);
        State {
            prog,
            out: Zeroed::new(dev, n),
            z: upload(dev, zs),
            terms: zeros(dev, n * MAX_TERMS),
            ratios: upload(dev, &series_ratios(case.nu as usize)),
            gout,
            gz: Zeroed::new(dev, n),
            gterms: Zeroed::new(dev, n * MAX_TERMS),
            nu: case.nu as i64,
            inv_fact: 1.0 / factorial(case.nu as usize),
            result: vec![0.0; n],
        }
    }

    fn forward(&self) {
        let args = [
            Arg::from(&self.out.buf),
            Arg::from(&self.z),
            Arg::from(&self.terms),
            Arg::from(&self.ratios),
            Arg::Int(self.nu),
            Arg::Real(self.inv_fact),
        ];
        let n = self.z.len();
        self.prog
            .forward(n, &args)
            .unwrap_or_else(|e| crate::harness::gpu::fail("forward", e));
    }

    /// `out = J(z)` on the host.
    fn value(&mut self) {
        self.out.reset();
        self.forward();
        read(&self.out.buf, &mut self.result);
    }

    /// `dJ/dz` on the host; `out` and `z` are restored on the device.
    fn gradient(&mut self) {
        self.gz.reset();
        self.gterms.reset();
        self.forward();
        let args = [
            Arg::grad(&self.out.buf, &self.gout),
            Arg::grad(&self.z, &self.gz.buf),
            Arg::grad(&self.terms, &self.gterms.buf),
            Arg::from(&self.ratios),
            Arg::Int(self.nu),
            Arg::Real(self.inv_fact),
        ];
        let n = self.z.len();
        self.prog
            .gradient(n, &args, Shared::Atomic)
            .unwrap_or_else(|e| crate::harness::gpu::fail("gradient", e));
        read(&self.gz.buf, &mut self.result);
    }
}

/// O and G of the batch case on `dev` (none for the single-point case: one thread is not a
/// device workload).
pub fn kernels<'a>(dev: &Device, case: &'a BesselCase) -> Vec<Kernel<'a>> {
    let Some(zs) = &case.batch else {
        return Vec::new();
    };
    vec![
        Kernel::with_state(Measure::O, State::new(dev, case, zs), State::value, |s| {
            s.result.clone()
        }),
        Kernel::with_state(
            Measure::G,
            State::new(dev, case, zs),
            State::gradient,
            |s| s.result.clone(),
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::gpu::{close, test_device, twice};
    use crate::suites::bessel::{besselj, grad_num_dual};

    #[test]
    fn device_cells_match_the_series_and_repeat() {
        let Some(dev) = test_device() else { return };
        let zs: Vec<f64> = (0..300).map(|i| 0.03 * i as f64 + 0.01).collect();
        let case = BesselCase {
            name: "t".into(),
            nu: 2,
            z: 1.0,
            batch: Some(zs.clone()),
        };
        let mut ks = kernels(&dev, &case);
        assert_eq!(ks.len(), 2);
        let f: Vec<f64> = zs.iter().map(|&z| besselj(2, z)).collect();
        let g: Vec<f64> = zs.iter().map(|&z| grad_num_dual(2, z)).collect();
        for (k, want) in ks.iter_mut().zip([f, g]) {
            let (a, b) = twice(k);
            assert!(close(&a, &want, 1e-10), "{:?}: {a:?}", k.measure);
            assert_eq!(a, b, "{:?}: a second run gives the same result", k.measure);
        }
        drop(ks);
        let single = BesselCase {
            batch: None,
            ..case
        };
        assert!(kernels(&dev, &single).is_empty());
    }
}
