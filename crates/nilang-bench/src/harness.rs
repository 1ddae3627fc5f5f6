//! The harness: times cells, counts their heap use, runs the correctness checks, drives the
//! progress bar, and asks the registered [`CellProvider`](crate::hook::CellProvider)s for their kernels.

use crate::alloc;
use crate::check;
use crate::cli::{Mode, Options};
use crate::hook::{Kernel, Registry};
use crate::report::{Cell, Measure};
use crate::timing::{self, Budget};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::Instant;

pub struct Harness<'r> {
    pub mode: Mode,
    pub budget: Budget,
    /// The data folder (`adbench/`, `oracle-reference/`).
    pub data: PathBuf,
    pub cells: Vec<Cell>,
    /// Failed correctness checks (the run exits non-zero if any).
    pub failures: Vec<String>,
    pub registry: &'r Registry,
    progress: ProgressBar,
}

/// The default data folder: `$NILANG_BENCH_DATA`, else `<workspace>/../shared/data`.
pub fn default_data_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("NILANG_BENCH_DATA") {
        return d.into();
    }
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data")
}

impl<'r> Harness<'r> {
    pub fn new(opts: &Options, registry: &'r Registry, total_steps: u64) -> Harness<'r> {
        let budget = match opts.mode {
            Mode::Quick => Budget::quick(),
            Mode::Full => Budget::full(),
            Mode::Smoke => Budget::smoke(),
        };
        let progress = if std::io::stderr().is_terminal() {
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
        Harness {
            mode: opts.mode,
            budget,
            data: opts.data.clone().unwrap_or_else(default_data_dir),
            cells: Vec::new(),
            failures: Vec::new(),
            registry,
            progress,
        }
    }

    /// A harness for unit tests: smoke budget, no providers, hidden progress.
    pub fn for_tests(registry: &'r Registry) -> Harness<'r> {
        let opts = Options::parse(["--smoke"]).expect("smoke");
        Harness::new(&opts, registry, 0)
    }

    pub fn status(&self, msg: impl Into<String>) {
        self.progress.set_message(msg.into());
    }
    pub fn step(&self) {
        self.progress.inc(1);
    }
    pub fn finish_progress(&self) {
        self.progress.finish_and_clear();
    }
    /// Print a line without breaking the progress bar.
    pub fn note(&self, msg: &str) {
        self.progress.suspend(|| eprintln!("{msg}"));
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
        mut f: impl FnMut() -> T,
    ) -> bool {
        self.status(format!("{suite} {case} {tool}-{}", measure.as_str()));
        let t0 = Instant::now();
        let (out, heap) = alloc::measure(&mut f);
        let first = t0.elapsed();
        drop(std::hint::black_box(out));
        if first > self.budget.time_limit {
            self.skip(suite, case, size, tool, measure);
            return false;
        }
        let s = timing::bench_after_probe(&self.budget, first, f).per(per);
        self.cells.push(Cell {
            median_s: Some(s.median),
            min_s: Some(s.min),
            max_s: Some(s.max),
            heap_allocs: Some(heap.allocs),
            peak_heap_bytes: Some(heap.peak_bytes),
            ..Cell::skipped(suite, case, size, tool, measure)
        });
        true
    }

    /// Record a "-" cell.
    pub fn skip(&mut self, suite: &str, case: &str, size: f64, tool: &str, measure: Measure) {
        self.cells
            .push(Cell::skipped(suite, case, size, tool, measure));
    }

    /// Check `got` against `want` (ADBench metric, `tol`); a mismatch is recorded as a failure
    /// and printed at once. Returns whether it passed.
    pub fn check(&mut self, what: &str, got: &[f64], want: &[f64], tol: f64) -> bool {
        match check::compare(got, want, tol) {
            Ok(()) => true,
            Err(e) => {
                let msg = format!("CHECK FAILED: {what}: {e}");
                self.note(&msg);
                self.failures.push(msg);
                false
            }
        }
    }

    /// Check and time the kernels of one external tool for one case. `reference(measure)` gives
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
        for mut k in kernels {
            let m = k.measure;
            // One untimed run for the check, then the timed cell.
            k.run();
            if let (Some(got), Some(want)) = (k.result(), reference(m)) {
                let what = format!("{suite}/{case}: {tool}-{} vs reference", m.as_str());
                if !self.check(&what, &got, &want, tol) {
                    self.skip(suite, case, size, tool, m);
                    continue;
                }
            }
            self.time(suite, case, size, tool, m, per, || k.run());
        }
    }
}
