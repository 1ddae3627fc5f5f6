//! The NiLang.rs benchmark suite: the paper's Tables 2-6 (sparse, Bessel, graph embedding,
//! GMM, bundle adjustment), with plain Rust, hand-written, num-dual (forward mode) and echidna
//! (tape reverse mode) baselines measured in the same process on the same inputs.
//!
//! Each suite is one folder under [`suites`] (its cases, its baselines, our cells in
//! `nilang.rs`); the [`harness`] runs any [`harness::Suite`] and knows none of them.

// Index loops read like the formulas in numerical kernels.
#![allow(clippy::needless_range_loop)]
#![warn(missing_docs)]

pub mod ad;
pub mod cli;
pub mod harness;
pub mod output;
pub mod plot;
pub mod real;
pub mod report;
pub mod stability;
pub mod suites;

#[cfg(test)]
#[global_allocator]
static TEST_ALLOC: harness::alloc::CountingAlloc = harness::alloc::CountingAlloc;

use cli::Options;
use harness::Harness;
use report::Cell;

/// What a run produced.
pub struct RunResult {
    /// The measured (and skipped) cells, in the order they ran.
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

/// The checks made before anything runs (each failure: exit status [`EXIT_USAGE`]): the
/// `--json` and `--plot` paths can be written, an explicit `--gpu` has a device, and every
/// `--case` name matches a case of the selected suites (the message lists them).
pub fn preflight(opts: &Options) -> Result<(), String> {
    if let Some(p) = &opts.json {
        output::check_json_path(p)?;
    }
    if let Some(p) = &opts.plot {
        output::check_plot_dir(p)?;
    }
    let gpu_suites = opts
        .suites
        .iter()
        .any(|s| harness::gpu::SUITES.contains(&s.as_str()));
    if opts.gpu == cli::GpuChoice::Any && gpu_suites {
        if let (None, line) = harness::gpu::choose(opts.gpu) {
            return Err(format!("--gpu: no usable OpenCL device ({line})"));
        }
    }
    check_cases(opts)
}

/// Every `--case` name matches a case of the selected suites. Suites whose data cannot be
/// read are left out of the check (their data error is reported by the run, exit status 3).
///
/// ```
/// use nilang_bench::{check_cases, cli::Options};
/// let o = Options::parse(["--smoke", "--suite", "bessel", "--case", "J2(1.0)"]).unwrap();
/// assert!(check_cases(&o).is_ok());
/// let o = Options::parse(["--smoke", "--suite", "bessel", "--case", "nope"]).unwrap();
/// let e = check_cases(&o).unwrap_err();
/// assert!(e.contains("`nope`") && e.contains("J2(1.0)"), "{e}");
/// ```
pub fn check_cases(opts: &Options) -> Result<(), String> {
    if opts.cases.is_empty() {
        return Ok(());
    }
    // a harness that lists the cases: all of them, with no peers, no device, no output
    let lister = Options {
        cases: Vec::new(),
        threads: 1,
        ..opts.clone()
    };
    let mut h = Harness::new_quiet(&lister);
    let mut known = Vec::new();
    for s in &opts.suites {
        let names = suites::case_names(&mut h, s);
        if !h.data_errors.is_empty() {
            return Ok(());
        }
        known.push((s.as_str(), names));
    }
    let unknown: Vec<&String> = opts
        .cases
        .iter()
        .filter(|c| {
            !known
                .iter()
                .any(|(_, ns)| ns.iter().any(|n| harness::case_matches(c, n)))
        })
        .collect();
    if unknown.is_empty() {
        return Ok(());
    }
    let list: Vec<String> = known
        .iter()
        .map(|(s, ns)| format!("  {s}: {}", ns.join(", ")))
        .collect();
    Err(format!(
        "--case {} matches no case of the selected suites in this run ({:?} mode); the cases \
         (a name, or its first word):\n{}",
        unknown
            .iter()
            .map(|c| format!("`{c}`"))
            .collect::<Vec<_>>()
            .join(", "),
        opts.mode,
        list.join("\n")
    ))
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
