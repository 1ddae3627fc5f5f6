//! The hook by which other implementations add cells without touching the harness: the
//! reversible implementation (tool `"nilang"`, measures O, U, G, H, J, B) and the hand-written
//! BA Jacobian from nilang-apps (tool `"manual"`).
//!
//! Implement [`CellProvider`] (every method has an empty default), hand it to
//! [`crate::Registry::add`], and run the harness with that registry. For every case of every
//! suite, the harness asks each provider for [`Kernel`]s; each kernel is run once while its heap
//! use is counted, its result is checked against the suite's reference for that measure
//! (see the `*Case` types for the layouts), and then timed like every other cell. The ratio
//! column divides by the plain-Rust objective of the same case.
//!
//! ```
//! use nilang_bench::hook::{CellProvider, Kernel};
//! use nilang_bench::report::Measure;
//! use nilang_bench::suites::bessel::{besselj, BesselCase};
//!
//! struct Nilang;
//! impl CellProvider for Nilang {
//!     fn tool(&self) -> &str { "nilang" }
//!     fn bessel<'a>(&'a self, case: &'a BesselCase) -> Vec<Kernel<'a>> {
//!         if case.batch.is_some() { return vec![]; }      // only the single-point case
//!         // state: (output, input); `run` is what gets timed, `result` is checked
//!         vec![Kernel::with_state(
//!             Measure::O,
//!             (0.0f64, case.z),
//!             move |s: &mut (f64, f64)| s.0 = besselj(case.nu, s.1), // a stand-in for ibesselj
//!             |s: &(f64, f64)| vec![s.0],
//!         )]
//!     }
//! }
//! let mut reg = nilang_bench::Registry::default();
//! reg.add(Box::new(Nilang));
//! ```

use crate::report::Measure;
use crate::suites::{
    ba::BaCase, bessel::BesselCase, embedding::EmbeddingCase, gmm::GmmCase, sparse::SparseCase,
};

/// One timed operation of an external tool.
pub struct Kernel<'a> {
    pub measure: Measure,
    inner: Box<dyn Run + 'a>,
}

trait Run {
    fn run(&mut self);
    fn result(&mut self) -> Option<Vec<f64>>;
}

struct Stateful<S, R, O> {
    state: S,
    run: R,
    out: O,
}

impl<S, R: FnMut(&mut S), O: FnMut(&S) -> Vec<f64>> Run for Stateful<S, R, O> {
    fn run(&mut self) {
        (self.run)(&mut self.state)
    }
    fn result(&mut self) -> Option<Vec<f64>> {
        Some((self.out)(&self.state))
    }
}

struct Unchecked<R>(R);

impl<R: FnMut()> Run for Unchecked<R> {
    fn run(&mut self) {
        (self.0)()
    }
    fn result(&mut self) -> Option<Vec<f64>> {
        None
    }
}

impl<'a> Kernel<'a> {
    /// A kernel that owns its working state `state` (inputs, outputs, buffers). `run` is the
    /// timed operation (it may be called many times, so it must leave `state` ready for the next
    /// call, e.g. by resetting its outputs); `result` extracts the result of the last run in the
    /// suite's reference layout, for the correctness check (called once, never timed).
    pub fn with_state<S: 'a>(
        measure: Measure,
        state: S,
        run: impl FnMut(&mut S) + 'a,
        result: impl FnMut(&S) -> Vec<f64> + 'a,
    ) -> Kernel<'a> {
        Kernel {
            measure,
            inner: Box::new(Stateful {
                state,
                run,
                out: result,
            }),
        }
    }

    /// A kernel whose result is not checked (the report marks nothing; prefer [`Kernel::with_state`]).
    pub fn unchecked(measure: Measure, run: impl FnMut() + 'a) -> Kernel<'a> {
        Kernel {
            measure,
            inner: Box::new(Unchecked(run)),
        }
    }

    pub(crate) fn run(&mut self) {
        self.inner.run()
    }

    pub(crate) fn result(&mut self) -> Option<Vec<f64>> {
        self.inner.result()
    }
}

/// A source of extra cells (one tool). Every suite method defaults to "no cells".
pub trait CellProvider {
    /// The tool column name: `"nilang"` for the reversible implementation, `"manual"` for
    /// hand-written derivatives.
    fn tool(&self) -> &str;
    fn bessel<'a>(&'a self, _case: &'a BesselCase) -> Vec<Kernel<'a>> {
        Vec::new()
    }
    fn sparse<'a>(&'a self, _case: &'a SparseCase) -> Vec<Kernel<'a>> {
        Vec::new()
    }
    fn embedding<'a>(&'a self, _case: &'a EmbeddingCase) -> Vec<Kernel<'a>> {
        Vec::new()
    }
    fn gmm<'a>(&'a self, _case: &'a GmmCase) -> Vec<Kernel<'a>> {
        Vec::new()
    }
    fn ba<'a>(&'a self, _case: &'a BaCase) -> Vec<Kernel<'a>> {
        Vec::new()
    }
}

/// The providers a run uses.
#[derive(Default)]
pub struct Registry {
    pub(crate) providers: Vec<Box<dyn CellProvider>>,
}

impl Registry {
    pub fn add(&mut self, p: Box<dyn CellProvider>) -> &mut Self {
        self.providers.push(p);
        self
    }
    pub fn tools(&self) -> Vec<&str> {
        self.providers.iter().map(|p| p.tool()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::Options;
    use crate::suites::bessel::{besselj, grad_num_dual};

    /// A stand-in "nilang" with a correct objective and a deliberately wrong gradient.
    struct Fake;
    impl CellProvider for Fake {
        fn tool(&self) -> &str {
            "nilang"
        }
        fn bessel<'a>(&'a self, case: &'a BesselCase) -> Vec<Kernel<'a>> {
            if case.batch.is_some() {
                return Vec::new();
            }
            vec![
                Kernel::with_state(
                    Measure::O,
                    0.0,
                    move |out: &mut f64| *out = besselj(case.nu, case.z),
                    |out: &f64| vec![*out],
                ),
                Kernel::with_state(
                    Measure::G,
                    0.0,
                    move |g: &mut f64| *g = 2.0 * grad_num_dual(case.nu, case.z),
                    |g: &f64| vec![*g],
                ),
            ]
        }
    }

    #[test]
    fn provider_cells_are_checked_and_timed() {
        let mut reg = Registry::default();
        reg.add(Box::new(Fake));
        assert_eq!(reg.tools(), ["nilang"]);
        let opts = Options::parse(["--smoke", "--suite", "bessel"]).unwrap();
        let res = crate::run(&opts, &reg);
        let o = res
            .cells
            .iter()
            .find(|c| c.tool == "nilang" && c.measure == Measure::O)
            .expect("nilang-O cell");
        assert!(o.median_s.is_some() && o.ratio.is_some());
        let g = res
            .cells
            .iter()
            .find(|c| c.tool == "nilang" && c.measure == Measure::G)
            .expect("nilang-G cell");
        assert!(g.median_s.is_none(), "a wrong gradient must not be timed");
        assert_eq!(res.failures.len(), 1, "{:?}", res.failures);
        assert!(res.failures[0].contains("nilang-G"));
    }
}
