//! Table 5: ADBench's Gaussian mixture model objective (negative log-posterior with a Wishart
//! prior; definition in `adbench/README.md`): objective (O) and gradient (G) with respect to the
//! flat parameter vector `[alpha (K) | mu (K·d) | icf (K·d(d+1)/2)]`.

use crate::ad::{self, Objective};
use crate::harness::Harness;
use crate::real::Real;
use crate::report::Measure;
use nilang_adbench::gmm::icf_len;
use rand::Rng;
use std::path::Path;

pub const SUITE: &str = "gmm";
/// ADBench's truncated π.
#[allow(clippy::approx_constant)] // deliberately truncated, as ADBench
pub const PI: f64 = 3.14159265359;

/// One GMM instance: the validated ADBench reader's type (an ADBench file, or generated like
/// `gmm-data-gen.py` by [`nilang_adbench::gmm_generate`]).
pub type GmmInstance = nilang_adbench::GmmInput;

/// What the generic objective needs beyond the instance data.
pub trait GmmConstant {
    /// The constant terms: −n·d/2·log(2π) − K·C (Wishart normaliser).
    fn constant(&self) -> f64;
}

impl GmmConstant for GmmInstance {
    fn constant(&self) -> f64 {
        let (d, k, n) = (self.d as f64, self.k as f64, self.n as f64);
        let nn = d + self.m as f64 + 1.0;
        let log_gamma_d = |a: f64| -> f64 {
            d * (d - 1.0) / 4.0 * PI.ln()
                + (1..=self.d)
                    .map(|j| lgamma(a + (1.0 - j as f64) / 2.0))
                    .sum::<f64>()
        };
        let c = nn * d * (self.gamma.ln() - 0.5 * 2f64.ln()) - log_gamma_d(0.5 * nn);
        -n * d / 2.0 * (2.0 * PI).ln() - k * c
    }
}

/// ln Γ(x) for x > 0: exact sums for integers and half-integers, Lanczos otherwise.
pub fn lgamma(x: f64) -> f64 {
    assert!(x > 0.0, "lgamma of a non-positive number");
    if (2.0 * x).fract() == 0.0 && x < 1e6 {
        // Γ(x) = (x−1)(x−2)…(base), base = 1 (Γ(1) = 1) or 1/2 (Γ(1/2) = √π).
        let mut s = 0.0;
        let mut y = x;
        while y > 1.0 {
            y -= 1.0;
            s += y.ln();
        }
        if y == 0.5 {
            s += 0.5 * std::f64::consts::PI.ln();
        }
        return s;
    }
    // Lanczos (g = 7, n = 9).
    const G: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        return (std::f64::consts::PI / (std::f64::consts::PI * x).sin()).ln() - lgamma(1.0 - x);
    }
    let x = x - 1.0;
    let mut a = G[0];
    let t = x + 7.5;
    for (i, g) in G.iter().enumerate().skip(1) {
        a += g / (x + i as f64);
    }
    0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + a.ln()
}

/// The objective, generic over the scalar (f64: the plain objective).
pub struct Gmm<'a> {
    pub inst: &'a GmmInstance,
    constant: f64,
}

impl<'a> Gmm<'a> {
    pub fn new(inst: &'a GmmInstance) -> Self {
        Gmm {
            inst,
            constant: inst.constant(),
        }
    }
}

/// Stable log-sum-exp (the maximum is a constant shift).
#[inline]
fn logsumexp<T: Real>(v: &[T]) -> T {
    let mx = v.iter().map(|a| a.val()).fold(f64::NEG_INFINITY, f64::max);
    let m = T::cst(mx);
    let mut s = T::zero();
    for &a in v {
        s = s + (a - m).exp();
    }
    s.ln() + m
}

impl Objective for Gmm<'_> {
    fn dim(&self) -> usize {
        self.inst.n_params()
    }
    fn eval<T: Real>(&self, p: &[T]) -> T {
        let g = self.inst;
        let (d, k, n) = (g.d, g.k, g.n);
        let il = icf_len(d);
        let alpha = &p[..k];
        let mu = &p[k..k + k * d];
        let icf = &p[k + k * d..];
        // Per component: exp(q) and sum(q).
        let mut qdiag = vec![T::zero(); k * d];
        let mut sum_q = vec![T::zero(); k];
        for c in 0..k {
            let mut s = T::zero();
            for r in 0..d {
                let q = icf[c * il + r];
                qdiag[c * d + r] = q.exp();
                s = s + q;
            }
            sum_q[c] = s;
        }
        let mut xc = vec![T::zero(); d];
        let mut qx = vec![T::zero(); d];
        let mut main = vec![T::zero(); k];
        let mut slse = T::zero();
        let half = T::cst(0.5);
        for i in 0..n {
            let xi = &g.x[i * d..(i + 1) * d];
            for c in 0..k {
                let muc = &mu[c * d..(c + 1) * d];
                for r in 0..d {
                    xc[r] = T::cst(xi[r]) - muc[r];
                }
                // Q x: diag(exp(q)) x + L x, L filled column by column.
                for r in 0..d {
                    qx[r] = qdiag[c * d + r] * xc[r];
                }
                let l = &icf[c * il + d..(c + 1) * il];
                let mut li = 0;
                for col in 0..d {
                    for row in col + 1..d {
                        qx[row] = qx[row] + l[li] * xc[col];
                        li += 1;
                    }
                }
                let mut sq = T::zero();
                for &v in qx.iter() {
                    sq = sq + v * v;
                }
                main[c] = alpha[c] + sum_q[c] - half * sq;
            }
            slse = slse + logsumexp(&main);
        }
        let lse_alpha = logsumexp(alpha);
        // Wishart prior.
        let half_g2 = T::cst(0.5 * g.gamma * g.gamma);
        let mut prior = T::zero();
        for c in 0..k {
            let mut fro = T::zero();
            for r in 0..d {
                fro = fro + qdiag[c * d + r].sq();
            }
            for &v in &icf[c * il + d..(c + 1) * il] {
                fro = fro + v.sq();
            }
            prior = prior + half_g2 * fro - T::cst(g.m as f64) * sum_q[c];
        }
        T::cst(self.constant) + slse - T::cst(n as f64) * lse_alpha + prior
    }
}

/// One GMM case. Result layouts for the hook: O: `[f]`; G: the gradient in ADBench's layout
/// `[alpha | mu | icf]`; U: the parameters restored.
pub struct GmmCase {
    pub name: String,
    pub inst: GmmInstance,
    /// Reference objective and gradient (oracle or ADBench golden values), if any.
    pub oracle: Option<(f64, Vec<f64>)>,
}

fn load_oracle(path: &Path, key: Option<&str>) -> Option<(f64, Vec<f64>)> {
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path).ok()?).ok()?;
    let v = match key {
        Some(k) => &v[k],
        None => &v,
    };
    let g = v["gradient"]
        .as_array()?
        .iter()
        .map(|e| e.as_f64())
        .collect::<Option<Vec<_>>>()?;
    Some((v["objective"].as_f64()?, g))
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

pub fn cases(h: &mut Harness) -> Vec<GmmCase> {
    let dir = h.data.join("adbench/gmm");
    let oracle_dir = h.data.join("oracle-reference");
    let mut out = Vec::new();
    let mut generated = Vec::new();
    let mut file = |h: &mut Harness, rel: &str, name: &str, oracle: Option<(f64, Vec<f64>)>| {
        if !h.wants_case(name) {
            return;
        }
        match GmmInstance::from_file(dir.join(rel)) {
            Ok(inst) => out.push(GmmCase {
                name: name.into(),
                inst,
                oracle,
            }),
            Err(e) => h.data_error(&format!("gmm: cannot load {rel}: {e}")),
        }
    };
    let expected = h.data.join("adbench/expected/adbench_test_expected.json");
    match h.mode {
        crate::cli::Mode::Smoke => {
            file(
                h,
                "test.txt",
                "test d=2 K=3 n=1",
                load_oracle(&expected, Some("gmm_test")),
            );
            file(
                h,
                "1k/gmm_d2_K5.txt",
                "1k d=2 K=5",
                load_oracle(&oracle_dir.join("gmm_1k_d2_K5.json"), None),
            );
        }
        crate::cli::Mode::Quick => {
            file(
                h,
                "1k/gmm_d2_K5.txt",
                "1k d=2 K=5",
                load_oracle(&oracle_dir.join("gmm_1k_d2_K5.json"), None),
            );
            file(
                h,
                "1k/gmm_d10_K25.txt",
                "1k d=10 K=25",
                load_oracle(&oracle_dir.join("gmm_1k_d10_K25.json"), None),
            );
            file(
                h,
                "10k/gmm_d2_K5.txt",
                "10k d=2 K=5",
                load_oracle(&oracle_dir.join("gmm_10k_d2_K5.json"), None),
            );
        }
        crate::cli::Mode::Full => {
            for (d, k) in PAPER_DK {
                let rel = format!("10k/gmm_d{d}_K{k}.txt");
                let name = format!("10k d={d} K={k}");
                if dir.join(&rel).exists() {
                    let oracle = (d == 2 && k == 5)
                        .then(|| load_oracle(&oracle_dir.join("gmm_10k_d2_K5.json"), None))
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
                super::SEED ^ (0x6000 + (d * 1000 + k) as u64),
            ),
            oracle: None,
        });
    }
    out.sort_by_key(|c| c.inst.n_params());
    out
}

/// echidna's tape needs ~32 bytes per recorded operation; give up above this many.
pub const ECHIDNA_MAX_OPS: f64 = 6e7;

fn tape_ops(g: &GmmInstance) -> f64 {
    let (d, k, n) = (g.d as f64, g.k as f64, g.n as f64);
    n * k * (d * (d - 1.0) + 5.0 * d + 6.0)
}

pub fn run(h: &mut Harness) {
    for case in cases(h) {
        h.isolate(&format!("gmm {}", case.name), |h| run_case(h, &case));
        h.step();
    }
}

fn run_case(h: &mut Harness, c: &GmmCase) {
    let obj = Gmm::new(&c.inst);
    let p = c.inst.params();
    let np = p.len();
    let name = c.name.as_str();
    let size = np as f64;
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
    let mut rng = super::rng(0x66);
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
    let nd_limit = (h.mode != crate::cli::Mode::Smoke).then_some(limit);
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
    h.time(SUITE, name, size, "rust", Measure::O, 1.0, || {
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
    for prov in &h.registry.providers {
        let ks = prov.gmm(c);
        h.external(SUITE, name, size, 1.0, prov.tool(), ks, &reference, 1e-8);
    }
    crate::peers::jax::gmm(h, c, &reference);
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn lgamma_values() {
        assert!((lgamma(1.0)).abs() < 1e-15);
        assert!((lgamma(0.5) - 0.5 * std::f64::consts::PI.ln()).abs() < 1e-15);
        assert!((lgamma(5.0) - 24f64.ln()).abs() < 1e-14);
        assert!((lgamma(3.7) - 1.428_072_326_665_388_3).abs() < 1e-12);
    }

    #[test]
    fn parse_and_layout() {
        let txt = "2 1 2\n0.5\n0.1 0.2\n0.3 0.4 0.5\n1 2\n3 4\n1.0 0\n";
        let g = GmmInstance::parse(txt).unwrap();
        assert_eq!((g.d, g.k, g.n, g.n_params()), (2, 1, 2, 6));
        assert_eq!(g.params(), vec![0.5, 0.1, 0.2, 0.3, 0.4, 0.5]);
        assert_eq!(g.x, vec![1.0, 2.0, 3.0, 4.0]);
        let r = GmmInstance::parse_replicated("2 1 3\n0.5\n0.1 0.2\n0.3 0.4 0.5\n1 2\n1.0 0\n")
            .unwrap();
        assert_eq!(r.x, vec![1.0, 2.0, 1.0, 2.0, 1.0, 2.0]);
    }
}
