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
pub mod output;
pub mod peers;
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
    registry_with_threads(1)
}

/// [`default_registry`] plus the parallel cells (`nilang-t1` and, for `threads > 1`,
/// `nilang-t{threads}`).
pub fn registry_with_threads(threads: usize) -> Registry {
    let mut reg = Registry::default();
    reg.add(Box::new(nilang_cells::Nilang));
    reg.add(Box::new(nilang_cells::Parallel::new(1)));
    reg.add(Box::new(nilang_cells::Batched::new(4)));
    reg.add(Box::new(nilang_cells::Batched::new(8)));
    if threads > 1 {
        reg.add(Box::new(nilang_cells::Parallel::new(threads)));
    }
    reg
}

/// What a run produced.
pub struct RunResult {
    pub cells: Vec<Cell>,
    /// Failed correctness checks (non-empty: exit status 1).
    pub failures: Vec<String>,
    /// Missing or unreadable data (exit status 3 when no check failed).
    pub data_errors: Vec<String>,
    /// Suites or cases that crashed while the others ran (exit status 4 when no check failed).
    pub crashes: Vec<String>,
}

/// Exit status: a numeric mismatch.
pub const EXIT_CHECK_FAILED: i32 = 1;
/// Exit status: bad arguments or an output path that cannot be written (before the run).
pub const EXIT_USAGE: i32 = 2;
/// Exit status: data missing or unreadable (and no check failed).
pub const EXIT_DATA_MISSING: i32 = 3;
/// Exit status: a suite or case crashed (and no check failed).
pub const EXIT_CRASHED: i32 = 4;

impl RunResult {
    /// The process exit status: a failed check first, then a crash, then missing data.
    ///
    /// ```
    /// let r = nilang_bench::RunResult {
    ///     cells: vec![],
    ///     failures: vec![],
    ///     data_errors: vec!["gmm: test.txt".into()],
    ///     crashes: vec![],
    /// };
    /// assert_eq!(r.exit_status(), nilang_bench::EXIT_DATA_MISSING);
    /// ```
    pub fn exit_status(&self) -> i32 {
        if !self.failures.is_empty() {
            EXIT_CHECK_FAILED
        } else if !self.crashes.is_empty() {
            EXIT_CRASHED
        } else if !self.data_errors.is_empty() {
            EXIT_DATA_MISSING
        } else {
            0
        }
    }
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
        // the ADBench suites cannot run at all without their folder: say so once
        if matches!(s.as_str(), "gmm" | "ba") && !h.data.join("adbench").is_dir() {
            let what = format!("{s}: no adbench/ folder under {}", h.data.display());
            h.data_error(&what);
            continue;
        }
        h.isolate(&format!("suite {s}"), |h| match s.as_str() {
            "sparse" => suites::sparse::run(h),
            "bessel" => suites::bessel::run(h),
            "embedding" => suites::embedding::run(h),
            "gmm" => suites::gmm::run(h),
            "ba" => suites::ba::run(h),
            "schedules" => suites::schedules::run(h),
            other => unreachable!("unknown suite {other}"),
        });
    }
    h.finish_progress();
    let mut cells = std::mem::take(&mut h.cells);
    report::fill_ratios(&mut cells);
    RunResult {
        cells,
        failures: std::mem::take(&mut h.failures),
        data_errors: std::mem::take(&mut h.data_errors),
        crashes: std::mem::take(&mut h.crashes),
    }
}
