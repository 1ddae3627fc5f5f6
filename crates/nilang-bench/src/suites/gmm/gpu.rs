//! `gmm` suite, device cells (see [`crate::harness::gpu`]):
//! `nilang_gpu::kernels::gmm::gmm_point`, one thread per point, computes the points' terms
//! `logsumexp_k(α_k + Σq_k − ½‖Q_k(x_i − μ_k)‖²)`; the data-free terms (`−n·logsumexp(α)`, the
//! prior, the constant: `O(K·d²)` work) run on the host by the same reversible program over no
//! points (`nilang_apps::gmm::gmm_objective_i`, and its gradient by `gmm_rest_value_grad`).
//! - O: the forward launch, the terms read back and summed, plus the data-free terms.
//! - G: the forward launch, then the gradient program seeded with `∂out = 1`: the adjoints of
//!   `α`, `μ`, `icf`, read by every thread, are accumulated by atomic adds (`Shared::Atomic`);
//!   read back and added to the data-free terms' gradient.
use super::GmmCase;
use crate::harness::gpu::{fail, read, upload, zeros, Zeroed};
use crate::harness::Kernel;
use crate::report::Measure;
use nilang_apps::adbench::gmm::GmmInput;
use nilang_apps::gmm::{gmm_objective_i, gmm_rest_value_grad, GmmGradWork, GmmWork};
use nilang_gpu::kernels::gmm::{gmm_point, gmm_workspace_sizes};
use nilang_gpu::{Arg, Buffer, Device, Precision, Program, Shared};

/// The program, the parameters, the data and the workspaces on the device.
struct Terms<'a> {
    g: &'a GmmInput,
    prog: Program<gmm_point>,
    out: Zeroed,
    ws: Vec<Buffer<f64>>,
    /// `α`, `μ`, `icf`.
    params: [Buffer<f64>; 3],
    x: Buffer<f64>,
    host: Vec<f64>,
    terms: Vec<f64>,
}

impl<'a> Terms<'a> {
    fn new(dev: &Device, g: &'a GmmInput) -> Self {
        Terms {
            g,
            prog: dev
                .program::<gmm_point>(Precision::F64)
                .unwrap_or_else(|e| fail("build gmm_point", e)),
            out: Zeroed::new(dev, g.n),
            ws: gmm_workspace_sizes(g.n, g.d, g.k)
                .iter()
                .map(|&s| zeros(dev, s))
                .collect(),
            params: [
                upload(dev, &g.alphas),
                upload(dev, &g.means),
                upload(dev, &g.icf),
            ],
            x: upload(dev, &g.x),
            host: Vec::new(),
            terms: vec![0.0; g.n],
        }
    }

    /// The launch arguments: the values, or (`adj`) values with the adjoints `adj` of `out`,
    /// the workspaces and the parameters.
    fn args<'b>(&'b self, adj: Option<&'b Adjoints>) -> Vec<Arg<'b>> {
        let arg = |v: &'b Buffer<f64>, a: Option<&'b Buffer<f64>>| match a {
            Some(a) => Arg::grad(v, a),
            None => Arg::from(v),
        };
        let mut args = vec![arg(&self.out.buf, adj.map(|a| &a.out))];
        for (i, w) in self.ws.iter().enumerate() {
            args.push(arg(w, adj.map(|a| &a.ws[i].buf)));
        }
        for (i, p) in self.params.iter().enumerate() {
            args.push(arg(p, adj.map(|a| &a.params[i].buf)));
        }
        args.extend([
            Arg::from(&self.x),
            Arg::Int(self.g.d as i64),
            Arg::Int(self.g.k as i64),
        ]);
        args
    }

    /// `out = terms` on the device.
    fn forward(&mut self) {
        self.out.reset();
        let args = self.args(None);
        self.prog
            .forward(self.g.n, &args)
            .unwrap_or_else(|e| fail("forward", e));
    }
}

/// The adjoint buffers of the gradient launch (`∂out = 1`; the others reset every call).
struct Adjoints {
    out: Buffer<f64>,
    ws: Vec<Zeroed>,
    params: [Zeroed; 3],
}

/// The O cell's state: the terms and the host's data-free program.
struct Objective<'a> {
    t: Terms<'a>,
    work: GmmWork<f64>,
    p: Vec<f64>,
    value: f64,
}

impl Objective<'_> {
    fn run(&mut self) {
        self.t.forward();
        read(&self.t.out.buf, &mut self.t.terms);
        let g = self.t.g;
        let mut out: f64 = self.t.terms.iter().sum();
        let (alpha, rest) = self.p.split_at_mut(g.k);
        let (mu, icf) = rest.split_at_mut(g.k * g.d);
        gmm_objective_i::<f64, f64>(
            &mut out,
            alpha,
            mu,
            icf,
            &[],
            g.d,
            g.k,
            g.n,
            g.gamma,
            g.m,
            true,
            &mut self.work,
        );
        self.value = out;
    }
}

/// The G cell's state.
struct Gradient<'a> {
    t: Terms<'a>,
    adj: Adjoints,
    shared: Shared,
    work: GmmGradWork<'a>,
    grad: Vec<f64>,
}

impl Gradient<'_> {
    fn run(&mut self) {
        let g = self.t.g;
        self.t.forward();
        for z in self.adj.ws.iter().chain(&self.adj.params) {
            z.reset();
        }
        let args = self.t.args(Some(&self.adj));
        self.t
            .prog
            .gradient(g.n, &args, self.shared)
            .unwrap_or_else(|e| fail("gradient", e));
        gmm_rest_value_grad(g, &mut self.work, &mut self.grad);
        // add the points' part, read back in pieces through the host buffer
        let mut at = 0;
        for Zeroed { buf: b, .. } in &self.adj.params {
            self.t.host.resize(b.len(), 0.0);
            read(b, &mut self.t.host);
            for (o, v) in self.grad[at..at + b.len()].iter_mut().zip(&self.t.host) {
                *o += v;
            }
            at += b.len();
        }
    }
}

/// Bytes the cells of `g` allocate on the device (the workspaces dominate: values in both
/// cells, adjoints and their zero twins in the gradient cell).
pub fn device_bytes(g: &GmmInput) -> usize {
    let ws: usize = gmm_workspace_sizes(g.n, g.d, g.k).iter().sum();
    8 * (4 * (ws + g.n) + 2 * g.x.len() + 4 * g.n_params())
}

/// O and G of the case on `dev`, the shared parameters' adjoints accumulated by atomic adds.
pub fn kernels<'a>(dev: &Device, case: &'a GmmCase) -> Vec<Kernel<'a>> {
    let mut ks = vec![Kernel::with_state(
        Measure::O,
        Objective {
            t: Terms::new(dev, &case.inst),
            work: GmmWork::new(case.inst.d, case.inst.k),
            p: case.inst.params(),
            value: 0.0,
        },
        Objective::run,
        |s| vec![s.value],
    )];
    ks.push(gradient(dev, case, Shared::Atomic));
    ks
}

/// The G cell with the shared parameters' adjoints accumulated by `shared` (tool `gpu-rows`
/// for `Shared::Rows`: one private row per thread, summed in thread order).
pub fn gradient<'a>(dev: &Device, case: &'a GmmCase, shared: Shared) -> Kernel<'a> {
    let g = &case.inst;
    let gout = upload(dev, &vec![1.0; g.n]);
    let adj = Adjoints {
        out: gout,
        ws: gmm_workspace_sizes(g.n, g.d, g.k)
            .iter()
            .map(|&s| Zeroed::new(dev, s))
            .collect(),
        params: [
            Zeroed::new(dev, g.alphas.len()),
            Zeroed::new(dev, g.means.len()),
            Zeroed::new(dev, g.icf.len()),
        ],
    };
    Kernel::with_state(
        Measure::G,
        Gradient {
            t: Terms::new(dev, g),
            adj,
            shared,
            work: GmmGradWork::new(g.d, g.k),
            grad: vec![0.0; g.n_params()],
        },
        Gradient::run,
        |s| s.grad.clone(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::gpu::{close, test_device, twice};
    use nilang_apps::adbench::gmm::{gmm_generate, gmm_objective_and_gradient};

    #[test]
    fn device_cells_match_the_plain_gradient_and_repeat() {
        let Some(dev) = test_device() else { return };
        let case = GmmCase {
            name: "t".into(),
            inst: gmm_generate(3, 4, 200, 11),
            oracle: None,
        };
        let (f, g) = gmm_objective_and_gradient(&case.inst);
        let mut ks = kernels(&dev, &case);
        ks.push(gradient(&dev, &case, Shared::Rows));
        for (k, want) in ks.iter_mut().zip([vec![f], g.clone(), g]) {
            let (a, b) = twice(k);
            assert!(
                close(&a, &want, 1e-10),
                "{:?}: {a:?} vs {want:?}",
                k.measure
            );
            // atomic adds of many threads into one adjoint: the order, and so the rounding,
            // may differ between runs
            assert!(close(&b, &a, 1e-13), "{:?}: a second run agrees", k.measure);
        }
    }
}
