//! The NiLang.rs benchmark suite: the paper's Tables 2-6 (sparse, Bessel, graph embedding,
//! GMM, bundle adjustment), with plain Rust, hand-written, num-dual (forward mode) and echidna
//! (tape reverse mode) baselines measured in the same process on the same inputs.
//!
//! The reversible implementation's cells (tool `"nilang"`) plug in through [`hook`].

// Index loops read like the formulas in numerical kernels.
#![allow(clippy::needless_range_loop)]

pub mod ad;
pub mod alloc;
pub mod check;
pub mod cli;
pub mod harness;
pub mod hook;
pub mod nilang_cells;
pub mod real;
pub mod report;
pub mod suites;
pub mod timing;

pub use hook::{CellProvider, Kernel, Registry};

#[cfg(test)]
#[global_allocator]
static TEST_ALLOC: alloc::CountingAlloc = alloc::CountingAlloc;

use cli::Options;
use harness::Harness;
use report::Cell;

/// The providers of the default binary. The lead adds the reversible implementation here:
/// `reg.add(Box::new(MyNilangCells));` (see [`hook`]).
pub fn default_registry() -> Registry {
    let mut reg = Registry::default();
    reg.add(Box::new(nilang_cells::Nilang));
    reg
}

/// What a run produced.
pub struct RunResult {
    pub cells: Vec<Cell>,
    /// Failed correctness checks (non-empty: exit status 1).
    pub failures: Vec<String>,
}

/// Run the selected suites and return the cells (ratios filled in).
pub fn run(opts: &Options, registry: &Registry) -> RunResult {
    let steps: u64 = opts
        .suites
        .iter()
        .map(|s| match (s.as_str(), opts.mode) {
            ("ba", cli::Mode::Quick) => 5,
            ("ba", cli::Mode::Full) => 20,
            ("ba", cli::Mode::Smoke) => 2,
            ("embedding", cli::Mode::Smoke) => 2,
            ("embedding", _) => 5,
            ("gmm", cli::Mode::Full) => 8,
            ("gmm", cli::Mode::Quick) => 3,
            ("schedules", m) => suites::schedules::sizes(m).len() as u64,
            _ => 2,
        })
        .sum();
    let mut h = Harness::new(opts, registry, steps);
    for s in &opts.suites {
        match s.as_str() {
            "sparse" => suites::sparse::run(&mut h),
            "bessel" => suites::bessel::run(&mut h),
            "embedding" => suites::embedding::run(&mut h),
            "gmm" => suites::gmm::run(&mut h),
            "ba" => suites::ba::run(&mut h),
            "schedules" => suites::schedules::run(&mut h),
            other => unreachable!("unknown suite {other}"),
        }
    }
    h.finish_progress();
    let mut cells = std::mem::take(&mut h.cells);
    report::fill_ratios(&mut cells);
    RunResult {
        cells,
        failures: std::mem::take(&mut h.failures),
    }
}
