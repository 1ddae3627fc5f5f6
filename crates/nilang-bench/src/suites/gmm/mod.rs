//! Table 5: ADBench's Gaussian mixture model objective (negative log-posterior with a Wishart
//! prior; definition in `adbench/README.md`): objective (O) and gradient (G) with respect to the
//! flat parameter vector `[alpha (K) | mu (K·d) | icf (K·d(d+1)/2)]`.
//!
//! The instances are the data crate's ([`nilang_adbench::GmmInput`]: ADBench files, or
//! generated like `gmm-data-gen.py`); the baselines are in [`baselines`], our cells in
//! [`nilang`].

pub mod baselines;
pub mod gpu;
pub mod nilang;

use crate::ad::{self, Objective};
use crate::cli::Mode;
use crate::harness::gpu::{MAX_DEVICE_BYTES, TOOL};
use crate::harness::{named_cases, Harness, Suite};
use crate::report::Measure;
use baselines::{tape_ops, Gmm, ECHIDNA_MAX_OPS};
use nilang_adbench::gmm::GmmInput;
use nilang_adbench::oracle;
use rand::Rng;

/// The suite's name (`--suite gmm`, the `suite` of its cells).
pub const SUITE: &str = "gmm";

/// The GMM suite (Table 5).
pub struct GmmSuite;

impl Suite for GmmSuite {
    const NAME: &'static str = SUITE;
    const ADBENCH: bool = true;
    const WORK: &'static str = "n·K·d² (points × components × dimension²)";
    type Case = GmmCase;
    fn steps(mode: Mode) -> u64 {
        match mode {
            Mode::Full => 8,
            Mode::Quick => 3,
            Mode::Smoke => 2,
        }
    }
    fn cases(h: &mut Harness) -> Vec<GmmCase> {
        cases(h)
    }
    fn run_case(h: &mut Harness, c: &GmmCase) {
        let obj = Gmm::new(&c.inst);
        let p = c.inst.params();
        let np = p.len();
        let name = c.name.as_str();
        let size = work(&c.inst);
        let f = obj.eval(&p);
        // rust-O is the fastest plain objective we have: `nilang_adbench::gmm::gmm_objective`
        // (row-packed L, one dot product per row, no AD types); the generic `Gmm::eval` above is
        // what num-dual and echidna differentiate
        let f_plain = nilang_adbench::gmm::gmm_objective(&c.inst);
        h.check(
            &format!("gmm {name}: rust-O vs the generic objective"),
            &[f_plain],
            &[f],
            1e-10,
        );
        let limit = h.budget.time_limit;
        // Reference gradient: echidna (if the tape fits), checked against the oracle or finite
        // differences on a few coordinates; num-dual checked against it.
        let ge = (tape_ops(&c.inst) <= ECHIDNA_MAX_OPS).then(|| ad::echidna_gradient(&obj, &p));
        let mut ok_e = ge.is_some();
        if let (Some((fo, go)), Some(ge)) = (&c.oracle, &ge) {
            h.check(&format!("gmm {name}: rust-O vs oracle"), &[f], &[*fo], 1e-8);
            ok_e &= h.check(&format!("gmm {name}: echidna-G vs oracle"), ge, go, 1e-8);
        }
        let mut rng = crate::suites::rng(0x66);
        let probe: Vec<usize> = (0..6.min(np)).map(|_| rng.gen_range(0..np)).collect();
        // Exact partials on the sampled coordinates (num-dual scalar duals), themselves
        // sanity-checked against central differences (loosely: the objective is large).
        let fd_at = |i: usize| {
            let mut q = p.clone();
            let step = 1e-5 * p[i].abs().max(1.0);
            q[i] = p[i] + step;
            let fp = obj.eval(&q);
            q[i] = p[i] - step;
            let fm = obj.eval(&q);
            (fp - fm) / (2.0 * step)
        };
        let partials: Vec<f64> = probe.iter().map(|&i| ad::nd_partial(&obj, &p, i)).collect();
        let fd: Vec<f64> = probe.iter().map(|&i| fd_at(i)).collect();
        let fd_tol = 1e-4 + 1e-15 * f.abs() / 1e-5;
        h.check(
            &format!("gmm {name}: sampled dual partials vs finite differences"),
            &partials,
            &fd,
            fd_tol,
        );
        if let Some(ge) = &ge {
            let sel: Vec<f64> = probe.iter().map(|&i| ge[i]).collect();
            ok_e &= h.check(
                &format!("gmm {name}: echidna-G vs dual partials (sampled)"),
                &sel,
                &partials,
                1e-8,
            );
        }
        let mut gn = vec![0.0; np];
        let nd_limit = (h.mode != Mode::Smoke).then_some(limit);
        let ok_n = match ad::nd_gradient::<16, _>(&obj, &p, &mut gn, nd_limit) {
            None => false,
            Some(fnd) => {
                let mut ok = h.check(
                    &format!("gmm {name}: num-dual O vs rust-O"),
                    &[fnd],
                    &[f],
                    1e-10,
                );
                ok &= match &ge {
                    Some(ge) => h.check(
                        &format!("gmm {name}: num-dual-G vs echidna-G"),
                        &gn,
                        ge,
                        1e-8,
                    ),
                    None => {
                        let sel: Vec<f64> = probe.iter().map(|&i| gn[i]).collect();
                        h.check(
                            &format!("gmm {name}: num-dual-G vs dual partials (sampled)"),
                            &sel,
                            &partials,
                            1e-8,
                        )
                    }
                };
                ok
            }
        };
        // rust-O, then timed in turns with every later cell of the case
        let h = &mut h.in_turns(SUITE, name, size, 1.0, || {
            nilang_adbench::gmm::gmm_objective(std::hint::black_box(&c.inst))
        });
        if ok_n {
            h.time(SUITE, name, size, "num-dual", Measure::G, 1.0, || {
                ad::nd_gradient::<16, _>(&obj, &p, &mut gn, None)
            });
        } else {
            h.skip(SUITE, name, size, "num-dual", Measure::G);
        }
        if ok_e {
            h.time(SUITE, name, size, "echidna", Measure::G, 1.0, || {
                ad::echidna_gradient(&obj, &p)
            });
        } else {
            h.skip(SUITE, name, size, "echidna", Measure::G);
        }
        let gref = ge.clone().or_else(|| ok_n.then(|| gn.clone()));
        let reference = |m: Measure| match m {
            Measure::O => Some(std::borrow::Cow::Owned(vec![f])),
            Measure::G => gref.as_deref().map(std::borrow::Cow::Borrowed),
            Measure::U => Some(std::borrow::Cow::Borrowed(&p[..])),
            _ => None,
        };
        let pools = h.pools.clone();
        for (tool, ks) in nilang::cells(c, &pools) {
            h.external(SUITE, name, size, 1.0, &tool, ks, &reference, 1e-8);
        }
        if let Some(dev) = h.gpu.clone() {
            if gpu::device_bytes(&c.inst) <= MAX_DEVICE_BYTES {
                let ks = gpu::kernels(&dev, c);
                h.external(SUITE, name, size, 1.0, TOOL, ks, &reference, 1e-8);
                let ks = vec![gpu::gradient(&dev, c, nilang_gpu::Shared::Rows)];
                h.external(SUITE, name, size, 1.0, "gpu-rows", ks, &reference, 1e-8);
            } else {
                h.skip(SUITE, name, size, TOOL, Measure::O);
                h.skip(SUITE, name, size, TOOL, Measure::G);
            }
        }
        baselines::jax(h, c, &reference);
    }
}
named_cases!(GmmCase);

/// The work measure of a GMM instance, `n·K·d²`: the objective's inner loop applies a
/// d×d triangular factor to every point for every component.
///
/// ```
/// use nilang_adbench::gmm::GmmInput;
/// let (d, k, n) = (2, 3, 10);
/// let g = GmmInput {
///     d, k, n,
///     alphas: vec![0.0; k],
///     means: vec![0.0; k * d],
///     icf: vec![0.0; k * d * (d + 1) / 2],
///     x: vec![0.0; n * d],
///     gamma: 1.0,
///     m: 0,
/// };
/// assert_eq!(nilang_bench::suites::gmm::work(&g), 120.0);
/// ```
pub fn work(g: &GmmInput) -> f64 {
    (g.n * g.k * g.d * g.d) as f64
}

/// One GMM case. Result layouts for the checks: O: `[f]`; G: the gradient in ADBench's layout
/// `[alpha | mu | icf]`; U: the parameters restored.
pub struct GmmCase {
    /// The case's name (`1k d=2 K=5`, ...).
    pub name: String,
    /// The instance.
    pub inst: GmmInput,
    /// Reference objective and gradient (oracle or ADBench golden values), if any.
    pub oracle: Option<(f64, Vec<f64>)>,
}

/// The JAX oracle's objective and gradient `oracle-reference/{name}.json`, if readable.
fn oracle(h: &Harness, name: &str) -> Option<(f64, Vec<f64>)> {
    let o = oracle::load_gmm_oracle_in(&h.data, name).ok()?;
    Some((o.objective, o.gradient))
}

/// The paper's (d, K) list for 10k points (Table 5).
pub const PAPER_DK: [(usize, usize); 8] = [
    (2, 5),
    (10, 5),
    (2, 200),
    (10, 50),
    (64, 5),
    (64, 10),
    (64, 25),
    (64, 200),
];

fn cases(h: &mut Harness) -> Vec<GmmCase> {
    let dir = h.data.join("adbench/gmm");
    let mut out = Vec::new();
    let mut generated = Vec::new();
    let mut file = |h: &mut Harness, rel: &str, name: &str, oracle: Option<(f64, Vec<f64>)>| {
        if !h.wants_case(name) {
            return;
        }
        match GmmInput::from_file(dir.join(rel)) {
            Ok(inst) => out.push(GmmCase {
                name: name.into(),
                inst,
                oracle,
            }),
            Err(e) => h.data_load_error(SUITE, &e),
        }
    };
    match h.mode {
        Mode::Smoke => {
            file(
                h,
                "test.txt",
                "test d=2 K=3 n=1",
                oracle::load_expected_in(&h.data)
                    .ok()
                    .map(|e| (e.gmm_test.objective, e.gmm_test.gradient)),
            );
            file(
                h,
                "1k/gmm_d2_K5.txt",
                "1k d=2 K=5",
                oracle(h, "gmm_1k_d2_K5"),
            );
        }
        Mode::Quick => {
            file(
                h,
                "1k/gmm_d2_K5.txt",
                "1k d=2 K=5",
                oracle(h, "gmm_1k_d2_K5"),
            );
            file(
                h,
                "1k/gmm_d10_K25.txt",
                "1k d=10 K=25",
                oracle(h, "gmm_1k_d10_K25"),
            );
            file(
                h,
                "10k/gmm_d2_K5.txt",
                "10k d=2 K=5",
                oracle(h, "gmm_10k_d2_K5"),
            );
        }
        Mode::Full => {
            for (d, k) in PAPER_DK {
                let rel = format!("10k/gmm_d{d}_K{k}.txt");
                let name = format!("10k d={d} K={k}");
                if dir.join(&rel).exists() {
                    let oracle = (d == 2 && k == 5)
                        .then(|| oracle(h, "gmm_10k_d2_K5"))
                        .flatten();
                    file(h, &rel, &name, oracle);
                } else {
                    generated.push((d, k, name));
                }
            }
        }
    }
    for (d, k, name) in generated.into_iter().filter(|(_, _, n)| h.wants_case(n)) {
        out.push(GmmCase {
            name: format!("{name} (generated)"),
            inst: nilang_adbench::gmm_generate(
                d,
                k,
                10_000,
                crate::suites::SEED ^ (0x6000 + (d * 1000 + k) as u64),
            ),
            oracle: None,
        });
    }
    out.sort_by_key(|c| c.inst.n_params());
    out
}
