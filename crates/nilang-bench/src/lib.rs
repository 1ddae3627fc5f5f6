//! The NiLang.rs benchmark suite: the paper's Tables 2-6 (sparse, Bessel, graph embedding,
//! GMM, bundle adjustment), with plain Rust, hand-written, num-dual (forward mode) and echidna
//! (tape reverse mode) baselines measured in the same process on the same inputs.
//!
//! Each suite is one folder under [`suites`] (its cases, its baselines, our cells in
//! `nilang.rs`); the [`harness`] runs any [`harness::Suite`] and knows none of them.

// Index loops read like the formulas in numerical kernels.
#![allow(clippy::needless_range_loop)]

pub mod ad;
pub mod cli;
pub mod harness;
pub mod output;
pub mod real;
pub mod report;
pub mod suites;

#[cfg(test)]
#[global_allocator]
static TEST_ALLOC: harness::alloc::CountingAlloc = harness::alloc::CountingAlloc;

use cli::Options;
use harness::Harness;
use report::Cell;

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
pub fn run(opts: &Options) -> RunResult {
    let steps: u64 = opts
        .suites
        .iter()
        .map(|s| suites::steps(s, opts.mode))
        .sum();
    let mut h = Harness::new(opts, steps);
    for s in &opts.suites {
        h.isolate(&format!("suite {s}"), |h| suites::run_named(h, s));
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
