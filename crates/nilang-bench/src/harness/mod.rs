//! The harness: runs every [`Suite`] the same way, times cells, counts their heap use, runs
//! the correctness checks and drives the progress bar. It knows no suite: `crate::run` names
//! them.

pub mod enzyme;
pub mod gpu;
pub mod jax;
mod kernel;
pub mod peer;
mod pool;
pub mod timing;

pub use kernel::Kernel;
pub use pool::Pool;

pub use nilang_testkit::alloc;

use crate::cli::{Mode, Options};
use crate::report::{Cell, Measure};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::Instant;
use timing::Budget;

/// One benchmark suite (one of the paper's tables): its cases, its baselines, our cells. The
/// harness drives every suite the same way ([`Harness::run_suite`]): it asks for the run's
/// cases, keeps those `--case` selects, and runs each one isolated (a panic is a crash of
/// that case; the others still run).
pub trait Suite {
    /// The suite's name: `--suite NAME`, and the `suite` field of its cells.
    const NAME: &'static str;
    /// Whether the suite reads `adbench/` (missing: one data error, the suite does not run).
    const ADBENCH: bool = false;
    /// The work measure that orders the cases: the x axis of the `--plot` time chart (each
    /// cell's `size` is this measure of its case).
    const WORK: &'static str = "problem size";
    /// One case: an instance (or what loads it), named by [`Case::name`].
    type Case: Case;
    /// The problem sizes of a run in `mode`, for a suite with one case per size (its `cases`
    /// is then [`sized_cases`]); none for a suite that lists its cases otherwise.
    fn sizes(_mode: Mode) -> &'static [usize] {
        &[]
    }
    /// How many cases a run in `mode` has at most (the progress bar's steps): by default one
    /// per size.
    fn steps(mode: Mode) -> u64 {
        Self::sizes(mode).len() as u64
    }
    /// The cases of this run (the harness keeps those `--case` selects; a suite whose cases
    /// are costly to load may select first with [`Harness::wants_case`]); unreadable data is
    /// recorded with [`Harness::data_error`].
    fn cases(h: &mut Harness) -> Vec<Self::Case>;
    /// Checks run once before the cases (e.g. the definition against an oracle file).
    fn prepare(_h: &mut Harness) {}
    /// Check and time every tool on one case: the baselines, our cells, the JAX peer.
    fn run_case(h: &mut Harness, case: &Self::Case);
}

/// A case of a suite, by its name (`--case`, crash messages, the cells' `case` field).
pub trait Case {
    /// The case's name.
    fn name(&self) -> &str;
}

/// [`Case`] for case types whose name is their `name` field.
macro_rules! named_cases {
    ($($t:ty),* $(,)?) => {
        $(impl $crate::harness::Case for $t {
            fn name(&self) -> &str {
                &self.name
            }
        })*
    };
}
pub(crate) use named_cases;

/// The cases of a suite with one case per size: `make(n)` for each of [`Suite::sizes`] of the
/// run, in order.
///
/// ```
/// use nilang_bench::cli::Options;
/// use nilang_bench::harness::{sized_cases, Case, Harness};
/// use nilang_bench::suites::odefit::{OdefitCase, OdefitSuite};
/// let h = Harness::new_quiet(&Options::parse(["--threads", "1"]).unwrap());
/// let cases = sized_cases::<OdefitSuite>(&h, OdefitCase::new);
/// assert_eq!(cases.iter().map(|c| c.n).collect::<Vec<_>>(), [200, 2000]);
/// assert_eq!(cases[0].name(), cases[0].name);
/// ```
pub fn sized_cases<S: Suite>(h: &Harness, make: impl FnMut(usize) -> S::Case) -> Vec<S::Case> {
    S::sizes(h.mode).iter().copied().map(make).collect()
}

/// Runs the suites' cells: times them within the budget, checks them, records them, and
/// holds the peers (JAX, Enzyme) and the device of the run.
pub struct Harness {
    /// The sizes of the run (quick, full, smoke).
    pub mode: Mode,
    /// How long each cell is timed.
    pub budget: Budget,
    /// The data folder (`adbench/`, `oracle-reference/`).
    pub data: PathBuf,
    /// The cells recorded so far.
    pub cells: Vec<Cell>,
    /// Failed correctness checks (the run exits with status 1 if any).
    pub failures: Vec<String>,
    /// Missing or unreadable data (status 3 when no check failed).
    pub data_errors: Vec<String>,
    /// Suites or cases that crashed; the others still ran (status 4).
    pub crashes: Vec<String>,
    /// Which case names to run (`--case`; empty: all).
    pub only_cases: Vec<String>,
    /// The thread pools of the parallel cells (`--threads`).
    pub pools: std::sync::Arc<[Pool]>,
    /// The JAX peer processes (`--peers`).
    pub jax: jax::JaxPeers,
    /// The device of the `gpu-*` cells ([`gpu::choose`]).
    pub gpu: Option<nilang_gpu::Device>,
    progress: ProgressBar,
    /// Print nothing ([`Harness::new_quiet`]).
    quiet: bool,
}

/// The environment variable naming the data folder (also used by `nilang-adbench` and CI).
pub const DATA_ENV: &str = "NILANG_DATA";

/// The default data folder: `$NILANG_DATA` (the folder holding `adbench/`, or its parent),
/// else the first `shared/data` found walking up from the workspace or the working directory
/// (see [`nilang_adbench::oracle::try_data_dir`]); if none is found, `<workspace>/../shared/data`,
/// which then shows up, missing, in the data errors.
pub fn default_data_dir() -> PathBuf {
    nilang_adbench::oracle::try_data_dir().unwrap_or_else(|_| {
        match std::env::var_os(DATA_ENV).filter(|d| !d.is_empty()) {
            Some(d) => d.into(),
            None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data"),
        }
    })
}

/// `MemAvailable` of `/proc/meminfo` in bytes, if readable (the memory a case may still take).
pub fn available_memory_bytes() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// Whether the `--case` selector `c` names the case `name`: the whole name, or its first word
/// (`ba19` for `ba19 p=9125125`).
///
/// ```
/// use nilang_bench::harness::case_matches;
/// assert!(case_matches("ba19", "ba19 p=9125125") && case_matches("1k d=2 K=5", "1k d=2 K=5"));
/// assert!(!case_matches("ba1", "ba19 p=9125125"));
/// ```
pub fn case_matches(c: &str, name: &str) -> bool {
    c == name || name.split_whitespace().next() == Some(c)
}

/// How to point the benchmark at its data, for error messages.
pub fn data_hint(data: &std::path::Path) -> String {
    format!(
        "data folder searched: {} (it must hold adbench/ and oracle-reference/); point at it with \
         --data DIR or {DATA_ENV}=DIR",
        data.display()
    )
}

impl Harness {
    /// A harness for the options `opts`, with a progress bar of `total_steps` steps; starts the
    /// peers and the device that the options ask for.
    pub fn new(opts: &Options, total_steps: u64) -> Harness {
        Harness::build(opts, total_steps, false)
    }

    /// A harness that prints nothing and starts no peer and no device: for listing the cases
    /// of a run before it starts ([`crate::check_cases`]).
    pub fn new_quiet(opts: &Options) -> Harness {
        let opts = Options {
            peers: false,
            gpu: crate::cli::GpuChoice::Off,
            ..opts.clone()
        };
        Harness::build(&opts, 0, true)
    }

    fn build(opts: &Options, total_steps: u64, quiet: bool) -> Harness {
        let budget = match opts.mode {
            Mode::Quick => Budget::quick(),
            Mode::Full => Budget::full(),
            Mode::Smoke => Budget::smoke(),
        };
        let progress = if !quiet && std::io::stderr().is_terminal() {
            let pb = ProgressBar::with_draw_target(Some(total_steps), ProgressDrawTarget::stderr());
            pb.set_style(
                ProgressStyle::with_template("{elapsed_precise} [{bar:30}] {pos}/{len} {msg}")
                    .expect("template")
                    .progress_chars("=> "),
            );
            pb
        } else {
            ProgressBar::hidden()
        };
        let (gpu, gpu_line) = if opts
            .suites
            .iter()
            .any(|s| gpu::SUITES.contains(&s.as_str()))
        {
            gpu::choose(opts.gpu)
        } else {
            (None, String::new())
        };
        let (jax, jax_crash) = if quiet {
            Default::default()
        } else {
            jax::JaxPeers::start(opts.peers)
        };
        let mut h = Harness {
            mode: opts.mode,
            budget,
            data: opts.data.clone().unwrap_or_else(default_data_dir),
            cells: Vec::new(),
            failures: Vec::new(),
            data_errors: Vec::new(),
            crashes: jax_crash.into_iter().collect(),
            only_cases: opts.cases.clone(),
            pools: Pool::for_threads(opts.threads).into(),
            jax,
            gpu,
            progress,
            quiet,
        };
        if !gpu_line.is_empty() {
            h.note(&gpu_line);
        }
        let named =
            opts.data.is_some() || std::env::var_os(DATA_ENV).is_some_and(|d| !d.is_empty());
        if named && !h.data.is_dir() {
            let why = if h.data.exists() {
                "is not a folder"
            } else {
                "does not exist"
            };
            let what = format!("the data folder {} {why}", h.data.display());
            h.data_error(&what);
        }
        h
    }

    /// A harness for unit tests: smoke budget, one thread, hidden progress.
    pub fn for_tests() -> Harness {
        let opts = Options::parse(["--smoke", "--threads", "1", "--no-gpu"]).expect("smoke");
        Harness::new(&opts, 0)
    }

    /// Run suite `S`: its cases, each isolated; the progress bar advances once per case.
    pub fn run_suite<S: Suite>(&mut self) {
        // the ADBench suites cannot run at all without their folder: say so once
        if S::ADBENCH && !self.data.join("adbench").is_dir() {
            let what = format!(
                "{}: no adbench/ folder under {}",
                S::NAME,
                self.data.display()
            );
            return self.data_error(&what);
        }
        S::prepare(self);
        let cases: Vec<S::Case> = S::cases(self)
            .into_iter()
            .filter(|c| self.wants_case(c.name()))
            .collect();
        for case in cases {
            let what = format!("{} {}", S::NAME, case.name());
            self.isolate(&what, |h| S::run_case(h, &case));
            self.step();
        }
    }

    /// Shows `msg` beside the progress bar.
    pub fn status(&self, msg: impl Into<String>) {
        self.progress.set_message(msg.into());
    }
    /// Advances the progress bar by one step.
    pub fn step(&self) {
        self.progress.inc(1);
    }
    /// Removes the progress bar (before the tables are printed).
    pub fn finish_progress(&self) {
        self.progress.finish_and_clear();
    }
    /// Record missing or unreadable data (`what`: the file and the error); the message says
    /// which folder was searched and how to point at another.
    pub fn data_error(&mut self, what: &str) {
        let msg = format!("DATA MISSING: {what}; {}", data_hint(&self.data));
        self.note(&msg);
        self.data_errors.push(msg);
    }

    /// Record a data file that exists but cannot be used (malformed, truncated, a header
    /// announcing an impossible size): `DATA ERROR: <file>: <reason>` (`what` names the file
    /// and the reason), exit status 3 like missing data.
    pub fn corrupt_data(&mut self, what: &str) {
        let msg = format!("DATA ERROR: {what}");
        self.note(&msg);
        self.data_errors.push(msg);
    }

    /// Record a loader's error: a file that is not there is missing data
    /// ([`Harness::data_error`]), anything else a corrupt file ([`Harness::corrupt_data`]).
    pub fn data_load_error(&mut self, suite: &str, e: &nilang_adbench::AdbenchError) {
        use nilang_adbench::AdbenchError as E;
        match e {
            E::Io { source, .. } if source.kind() == std::io::ErrorKind::NotFound => {
                self.data_error(&format!("{suite}: {e}"))
            }
            E::DataNotFound { .. } => self.data_error(&format!("{suite}: {e}")),
            _ => self.corrupt_data(&e.to_string()),
        }
    }

    /// Whether the case `name` of `suite` was selected (`--case`, matched against the case
    /// name's first word, e.g. `ba19` for `ba19 p=9125125`, or the whole name).
    pub fn wants_case(&self, name: &str) -> bool {
        self.only_cases.is_empty() || self.only_cases.iter().any(|c| case_matches(c, name))
    }

    /// Run `f` (one suite or one case); a panic is recorded as a crash under `what` and the
    /// run goes on. Cells recorded before the panic are kept.
    pub fn isolate(&mut self, what: &str, f: impl FnOnce(&mut Self)) {
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(self)));
        if let Err(payload) = r {
            let why = payload
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "panic".into());
            let msg = format!("CRASHED: {what}: {why}");
            self.note(&msg);
            self.crashes.push(msg);
        }
    }

    /// Print a line without breaking the progress bar.
    pub fn note(&self, msg: &str) {
        if !self.quiet {
            self.progress.suspend(|| eprintln!("{msg}"));
        }
    }

    /// Time one cell. One call runs under the allocation counter (it also probes the time
    /// limit), then [`timing::bench_after_probe`] samples it. `per` divides the times (batch
    /// throughput). Returns whether the cell finished within the budget.
    #[allow(clippy::too_many_arguments)]
    pub fn time<T>(
        &mut self,
        suite: &str,
        case: &str,
        size: f64,
        tool: &str,
        measure: Measure,
        per: f64,
        f: impl FnMut() -> T,
    ) -> bool {
        self.time_cell(suite, case, size, tool, measure, per, f, None)
            .is_some()
    }

    /// [`Harness::time`], with `base` (the case's baseline) timed in turns with the cell
    /// when given ([`timing::bench_in_turns`]): the cell's `paired` ratio is then that of
    /// its samples to the baseline's (on the CPU clock only), and `baseline_min_s` the
    /// baseline's minimum over those turns. Returns the cell's statistics per call of the
    /// closure (before `per`), or `None` when it went over the time limit.
    #[allow(clippy::too_many_arguments)]
    fn time_cell<T>(
        &mut self,
        suite: &str,
        case: &str,
        size: f64,
        tool: &str,
        measure: Measure,
        per: f64,
        mut f: impl FnMut() -> T,
        base: Option<&mut Baseline<'_>>,
    ) -> Option<timing::Stats> {
        self.status(format!("{suite} {case} {tool}-{}", measure.as_str()));
        let t0 = Instant::now();
        let (out, heap) = alloc::measure(&mut f);
        let first = t0.elapsed();
        drop(std::hint::black_box(out));
        if first > self.budget.time_limit {
            self.skip(suite, case, size, tool, measure);
            return None;
        }
        // a device cell's host thread waits for the device, and a pool cell's work runs on
        // other threads whose CPU time Linux adds to the process clock only at a tick or a
        // context switch (a 50 µs sample on a pool thread read as ~0): wall time only. The
        // pool of one thread that is this thread (`nilang-t1`) is timed like any cell.
        let elsewhere =
            on_pool(tool) && !self.pools.iter().any(|p| p.tool == tool && p.runs_here());
        let budget = Budget {
            cpu_clock: self.budget.cpu_clock && !tool.starts_with("gpu") && !elsewhere,
            ..self.budget
        };
        let (raw, base_min, paired) = match base {
            Some(b) => {
                let (s, sb, r) = timing::bench_in_turns(&budget, first, f, &mut b.turn);
                // both per call of their closures: per evaluation of each. On the wall clock
                // (which charges a preempted sample the time it waited) the pairs scatter with
                // the load, not with the code: no paired ratio.
                let r = r.filter(|_| budget.cpu_clock);
                (s, Some(sb.per(b.per).min), r.map(|r| r.scaled(b.per / per)))
            }
            None => (timing::bench_after_probe(&budget, first, f), None, None),
        };
        let s = raw.per(per);
        self.cells.push(Cell {
            median_s: Some(s.median),
            min_s: Some(s.min),
            max_s: Some(s.max),
            baseline_min_s: base_min,
            paired,
            heap_allocs: Some(heap.allocs),
            peak_heap_bytes: Some(heap.peak_bytes),
            ..Cell::skipped(suite, case, size, tool, measure)
        });
        Some(raw)
    }

    /// Time `base` as the case's `rust-O` cell ([`Harness::time`]) and keep it: every cell
    /// timed through the returned [`InTurns`] (which derefs to this harness) is sampled in
    /// turns with it, and its ratio divides by the baseline's minimum over those same turns,
    /// so a burst of load on the machine moves both times alike; the ratios of its samples
    /// to the baseline's adjacent ones ([`timing::PairedRatio`]) give the ratio's spread. A
    /// baseline over the time limit is kept out (the later cells are timed alone).
    ///
    /// ```
    /// use nilang_bench::harness::Harness;
    /// use nilang_bench::report::Measure;
    /// let mut h = Harness::for_tests();
    /// let x = std::hint::black_box(2.0f64);
    /// let h = &mut h.in_turns("demo", "x=2", 1.0, 1.0, || x.sqrt());
    /// h.time("demo", "x=2", 1.0, "other", Measure::O, 1.0, || x.cbrt());
    /// let c = h.cells.iter().find(|c| c.tool == "other").unwrap();
    /// assert!(c.baseline_min_s.is_some() && c.paired.is_some());
    /// ```
    pub fn in_turns<'h, 'f, T>(
        &'h mut self,
        suite: &str,
        case: &str,
        size: f64,
        per: f64,
        mut base: impl FnMut() -> T + 'f,
    ) -> InTurns<'h, 'f> {
        let stats = self.time_cell(suite, case, size, "rust", Measure::O, per, &mut base, None);
        let base = stats.map(|s| Baseline {
            turn: timing::Turn {
                run: Box::new(move || drop(std::hint::black_box(base()))),
                inner: s.inner,
            },
            per,
        });
        InTurns { h: self, base }
    }

    /// Record a "-" cell.
    pub fn skip(&mut self, suite: &str, case: &str, size: f64, tool: &str, measure: Measure) {
        self.cells
            .push(Cell::skipped(suite, case, size, tool, measure));
    }

    /// Check `got` against `want` (ADBench metric, `tol`); a mismatch is recorded as a failure
    /// and printed at once. Returns whether it passed.
    pub fn check(&mut self, what: &str, got: &[f64], want: &[f64], tol: f64) -> bool {
        match nilang_adbench::oracle::compare(got, want, tol) {
            Ok(()) => true,
            Err(e) => {
                let msg = format!("CHECK FAILED: {what}: {e}");
                self.note(&msg);
                self.failures.push(msg);
                false
            }
        }
    }

    /// Check and time the kernels of one of our tools for one case. `reference(measure)` gives
    /// the reference result of that measure (None: nothing to check against); `per` divides the
    /// times (batch throughput).
    #[allow(clippy::too_many_arguments)]
    pub fn external<'d>(
        &mut self,
        suite: &str,
        case: &str,
        size: f64,
        per: f64,
        tool: &str,
        kernels: Vec<Kernel<'_>>,
        reference: &dyn Fn(Measure) -> Option<std::borrow::Cow<'d, [f64]>>,
        tol: f64,
    ) {
        self.external_cells(suite, case, size, per, tool, kernels, reference, tol, None)
    }

    /// [`Harness::external`], each kernel timed in turns with `base` when given.
    #[allow(clippy::too_many_arguments)]
    fn external_cells<'d>(
        &mut self,
        suite: &str,
        case: &str,
        size: f64,
        per: f64,
        tool: &str,
        kernels: Vec<Kernel<'_>>,
        reference: &dyn Fn(Measure) -> Option<std::borrow::Cow<'d, [f64]>>,
        tol: f64,
        mut base: Option<&mut Baseline<'_>>,
    ) {
        for mut k in kernels {
            let m = k.measure;
            // One untimed run for the check, then the timed cell.
            k.run();
            if let Some(want) = reference(m) {
                let got = k.result();
                let what = format!("{suite}/{case}: {tool}-{} vs reference", m.as_str());
                if !self.check(&what, &got, &want, tol) {
                    self.skip(suite, case, size, tool, m);
                    continue;
                }
            }
            let b = base.as_deref_mut();
            self.time_cell(suite, case, size, tool, m, per, || k.run(), b);
        }
    }
}

/// A case's baseline kept for timing in turns: its closure, calls per sample, and the
/// divisor of its times (`per`).
pub struct Baseline<'f> {
    turn: timing::Turn<'f>,
    per: f64,
}

/// The harness while a case's baseline is kept ([`Harness::in_turns`]): [`InTurns::time`] and
/// [`InTurns::external`] time each cell in turns with the baseline; everything else is the
/// harness itself (it derefs to [`Harness`]).
pub struct InTurns<'h, 'f> {
    h: &'h mut Harness,
    base: Option<Baseline<'f>>,
}

impl InTurns<'_, '_> {
    /// [`Harness::time`] in turns with the baseline.
    #[allow(clippy::too_many_arguments)]
    pub fn time<T>(
        &mut self,
        suite: &str,
        case: &str,
        size: f64,
        tool: &str,
        measure: Measure,
        per: f64,
        f: impl FnMut() -> T,
    ) -> bool {
        let b = self.base.as_mut();
        self.h
            .time_cell(suite, case, size, tool, measure, per, f, b)
            .is_some()
    }

    /// [`Harness::external`] in turns with the baseline.
    #[allow(clippy::too_many_arguments)]
    pub fn external<'d>(
        &mut self,
        suite: &str,
        case: &str,
        size: f64,
        per: f64,
        tool: &str,
        kernels: Vec<Kernel<'_>>,
        reference: &dyn Fn(Measure) -> Option<std::borrow::Cow<'d, [f64]>>,
        tol: f64,
    ) {
        let b = self.base.as_mut();
        self.h
            .external_cells(suite, case, size, per, tool, kernels, reference, tol, b)
    }
}

impl std::ops::Deref for InTurns<'_, '_> {
    type Target = Harness;
    fn deref(&self) -> &Harness {
        self.h
    }
}

impl std::ops::DerefMut for InTurns<'_, '_> {
    fn deref_mut(&mut self) -> &mut Harness {
        self.h
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_crash_is_recorded_and_earlier_cells_are_kept() {
        let mut h = Harness::for_tests();
        h.isolate("suite demo", |h| {
            h.skip("demo", "a", 1.0, "rust", Measure::O);
            panic!("boom {}", 7);
        });
        h.isolate("suite fine", |h| {
            h.skip("demo", "b", 2.0, "rust", Measure::O)
        });
        assert_eq!(h.crashes, ["CRASHED: suite demo: boom 7"]);
        assert_eq!(h.cells.len(), 2);
        assert!(h.failures.is_empty() && h.data_errors.is_empty());
    }

    #[test]
    fn data_errors_say_where_and_how() {
        let mut h = Harness::for_tests();
        h.data = PathBuf::from("/nowhere/data");
        h.data_error("gmm: cannot load test.txt");
        assert_eq!(h.data_errors.len(), 1);
        let e = &h.data_errors[0];
        assert!(
            e.contains("/nowhere/data") && e.contains("--data DIR"),
            "{e}"
        );
        assert!(e.contains("NILANG_DATA=DIR"), "{e}");
    }

    #[test]
    fn case_selection() {
        let mut h = Harness::for_tests();
        assert!(h.wants_case("ba19 p=9125125"));
        h.only_cases = vec!["ba19".into(), "1k d=2 K=5".into()];
        assert!(h.wants_case("ba19"));
        assert!(h.wants_case("1k d=2 K=5"));
        assert!(!h.wants_case("ba1"));
        assert!(!h.wants_case("1k d=10 K=25"));
    }

    #[test]
    fn cells_in_turns_divide_by_the_baseline_of_their_turns() {
        let mut h = Harness::for_tests();
        let x = std::hint::black_box(3.0f64);
        let mut ran = 0;
        {
            let h = &mut h.in_turns("demo", "x=3", 1.0, 1.0, || {
                ran += 1;
                x * x
            });
            h.time("demo", "x=3", 1.0, "manual", Measure::G, 1.0, || 2.0 * x);
            let k = vec![Kernel::with_state(
                Measure::O,
                0.0,
                move |o: &mut f64| *o = x * x,
                |o| vec![*o],
            )];
            let reference = |_| Some(std::borrow::Cow::Owned(vec![9.0]));
            h.external("demo", "x=3", 1.0, 1.0, "nilang", k, &reference, 1e-12);
        }
        // rust-O: the probe and one sample (smoke budget); then one turn per later cell
        assert_eq!(ran, 4);
        assert_eq!(h.cells.len(), 3);
        assert_eq!(h.cells[0].baseline_min_s, None);
        assert!(h.cells[1..].iter().all(|c| c.baseline_min_s.is_some()));
        crate::report::fill_ratios(&mut h.cells);
        let c = &h.cells[2];
        assert_eq!(c.ratio, Some(c.min_s.unwrap() / c.baseline_min_s.unwrap()));
        // one pair per cell (smoke budget): the paired ratio is that pair's, the same
        // (unless a clock read zero: then there is none)
        for c in &h.cells[1..] {
            assert_eq!(c.paired.map(|p| p.pairs), c.ratio_paired.map(|_| 1));
            if let Some(p) = c.ratio_paired {
                assert!((p - c.ratio.unwrap()).abs() <= 1e-12 * p, "{c:?}");
                assert_eq!(c.ratio_spread, Some(0.0));
            }
        }
        assert_eq!(
            (h.cells[0].ratio, h.cells[0].ratio_spread),
            (Some(1.0), None)
        );
    }

    #[test]
    fn kernels_are_checked_before_they_are_timed() {
        let mut h = Harness::for_tests();
        let x = 3.0f64;
        // a correct objective and a deliberately wrong gradient of x²
        let kernels = vec![
            Kernel::with_state(Measure::O, 0.0, move |o: &mut f64| *o = x * x, |o| vec![*o]),
            Kernel::with_state(
                Measure::G,
                0.0,
                move |g: &mut f64| *g = 4.0 * x,
                |g| vec![*g],
            ),
        ];
        let reference = |m: Measure| match m {
            Measure::O => Some(std::borrow::Cow::Owned(vec![9.0])),
            Measure::G => Some(std::borrow::Cow::Owned(vec![6.0])),
            _ => None,
        };
        h.external(
            "demo", "x=3", 1.0, 1.0, "nilang", kernels, &reference, 1e-12,
        );
        let cell = |m| h.cells.iter().find(|c| c.measure == m).expect("a cell");
        assert!(cell(Measure::O).median_s.is_some());
        assert!(
            cell(Measure::G).median_s.is_none(),
            "a wrong gradient must not be timed"
        );
        assert_eq!(h.failures.len(), 1, "{:?}", h.failures);
        assert!(h.failures[0].contains("nilang-G"), "{:?}", h.failures);
    }
}

/// Whether the cells of `tool` run their work on a thread pool (`nilang-t1`, `nilang-t2`, ..).
fn on_pool(tool: &str) -> bool {
    tool.rsplit('-')
        .next()
        .and_then(|t| t.strip_prefix('t'))
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

#[cfg(test)]
mod pool_cells {
    #[test]
    fn pool_tools_are_recognised() {
        assert!(super::on_pool("nilang-t1"));
        assert!(super::on_pool("nilang-t16"));
        assert!(!super::on_pool("nilang"));
        assert!(!super::on_pool("nilang-x8"));
        assert!(!super::on_pool("rust"));
        assert!(!super::on_pool("nilang-t"));
    }
}
