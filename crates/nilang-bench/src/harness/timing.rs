//! Adaptive repetition: warm up, then repeat until a time target or a repetition cap is
//! reached; report the median, minimum and maximum time per call.
//!
//! Very fast calls (below [`Budget::min_sample`]) are batched: one sample then times
//! `inner` back-to-back calls and divides by `inner`.

use std::hint::black_box;
use std::time::{Duration, Instant};

/// How long to spend on one cell.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Budget {
    /// Untimed calls before sampling.
    pub warmup: usize,
    /// Stop sampling once the samples add up to this much time...
    pub target: Duration,
    /// ... or once this many samples were taken.
    pub max_samples: usize,
    /// Always take at least this many samples.
    pub min_samples: usize,
    /// A sample shorter than this batches several calls.
    pub min_sample: Duration,
    /// A single call slower than this gives up (the cell prints "-").
    pub time_limit: Duration,
}

impl Budget {
    /// The default run: every suite in under 3 minutes on 2 cores.
    pub fn quick() -> Self {
        Budget {
            warmup: 1,
            target: Duration::from_millis(250),
            max_samples: 51,
            min_samples: 3,
            min_sample: Duration::from_micros(50),
            time_limit: Duration::from_secs(8),
        }
    }
    /// `--full`: the paper's sizes, more repetitions, a longer per-call limit.
    pub fn full() -> Self {
        Budget {
            warmup: 2,
            target: Duration::from_secs(2),
            max_samples: 201,
            min_samples: 5,
            min_sample: Duration::from_micros(200),
            time_limit: Duration::from_secs(120),
        }
    }
    /// `--smoke`: one call per cell, no batching, no time limit (results must not depend on timing).
    pub fn smoke() -> Self {
        Budget {
            warmup: 0,
            target: Duration::ZERO,
            max_samples: 1,
            min_samples: 1,
            min_sample: Duration::ZERO,
            time_limit: Duration::MAX,
        }
    }
}

/// Summary of the samples, in seconds per call.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Stats {
    pub median: f64,
    pub min: f64,
    pub max: f64,
    /// Number of samples.
    pub samples: usize,
    /// Calls per sample.
    pub inner: usize,
}

impl Stats {
    /// Summarise per-call times (seconds). Panics on an empty slice.
    pub fn from_samples(samples: &[f64], inner: usize) -> Stats {
        assert!(!samples.is_empty(), "no samples");
        let mut s = samples.to_vec();
        s.sort_by(|a, b| a.total_cmp(b));
        let n = s.len();
        let median = if n % 2 == 1 {
            s[n / 2]
        } else {
            0.5 * (s[n / 2 - 1] + s[n / 2])
        };
        Stats {
            median,
            min: s[0],
            max: s[n - 1],
            samples: n,
            inner,
        }
    }

    /// Divide every time by `per` (e.g. per evaluation of a batch).
    pub fn per(self, per: f64) -> Stats {
        Stats {
            median: self.median / per,
            min: self.min / per,
            max: self.max / per,
            ..self
        }
    }
}

/// Same-run A/B timing: the minimum seconds of one call of each closure over `rounds`
/// rounds, the closures run in turn within a round and the first of them rotating from round
/// to round (none always runs first).
///
/// ```
/// use nilang_bench::harness::timing::interleaved_min;
/// let (mut a, mut b) = (0u64, 0u64);
/// let t = interleaved_min(3, &mut [&mut || a += 1, &mut || b += 1]);
/// assert_eq!((t.len(), a, b), (2, 3, 3));
/// assert!(t.iter().all(|&s| s >= 0.0 && s.is_finite()));
/// ```
pub fn interleaved_min(rounds: usize, fs: &mut [&mut dyn FnMut()]) -> Vec<f64> {
    let n = fs.len();
    let mut best = vec![f64::INFINITY; n];
    for r in 0..rounds {
        for j in 0..n {
            let k = (r + j) % n;
            let t = Instant::now();
            (fs[k])();
            best[k] = best[k].min(t.elapsed().as_secs_f64());
        }
    }
    best
}

/// Time `f` under `budget`. Returns `None` ("-") when the first call exceeds
/// `budget.time_limit`.
pub fn bench<T>(budget: &Budget, mut f: impl FnMut() -> T) -> Option<Stats> {
    // The first call: also the time-limit probe.
    let t0 = Instant::now();
    black_box(f());
    let first = t0.elapsed();
    if first > budget.time_limit {
        return None;
    }
    Some(bench_after_probe(budget, first, f))
}

/// Like [`bench`](fn@bench), for a caller that already ran (and timed) one call: `first`.
pub fn bench_after_probe<T>(budget: &Budget, first: Duration, mut f: impl FnMut() -> T) -> Stats {
    // Warm up (the first call counts as one warm-up call).
    for _ in 1..budget.warmup {
        black_box(f());
    }
    // Batch calls that are too short to time one by one.
    let mut inner = 1usize;
    if first < budget.min_sample && budget.min_sample > Duration::ZERO {
        loop {
            let t = Instant::now();
            for _ in 0..inner {
                black_box(f());
            }
            let e = t.elapsed();
            if e >= budget.min_sample || inner >= 1 << 24 {
                break;
            }
            inner *= 2;
        }
    }
    let mut samples = Vec::with_capacity(budget.max_samples.min(1024));
    let start = Instant::now();
    // Slow calls: the minimum sample count yields to the per-call time limit.
    let slow_cap = budget.time_limit.saturating_mul(2);
    while samples.len() < budget.max_samples
        && (start.elapsed() < budget.target
            || (samples.len() < budget.min_samples && start.elapsed() < slow_cap))
    {
        let t = Instant::now();
        for _ in 0..inner {
            black_box(f());
        }
        samples.push(t.elapsed().as_secs_f64() / inner as f64);
    }
    if samples.is_empty() {
        samples.push(first.as_secs_f64());
    }
    Stats::from_samples(&samples, inner)
}

/// Run `f` once and report whether it finished within `limit`, with its result.
pub fn within<T>(limit: Duration, f: impl FnOnce() -> T) -> (T, Duration, bool) {
    let t = Instant::now();
    let out = f();
    let e = t.elapsed();
    (out, e, e <= limit)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_min_max() {
        let s = Stats::from_samples(&[3.0, 1.0, 2.0], 1);
        assert_eq!((s.median, s.min, s.max, s.samples), (2.0, 1.0, 3.0, 3));
        let s = Stats::from_samples(&[4.0, 1.0, 2.0, 3.0], 1);
        assert_eq!(s.median, 2.5);
        let s = s.per(2.0);
        assert_eq!((s.median, s.min, s.max), (1.25, 0.5, 2.0));
    }

    #[test]
    fn smoke_budget_runs_once() {
        let mut n = 0;
        let s = bench(&Budget::smoke(), || n += 1).unwrap();
        assert_eq!(n, 2); // the probe call and one sample
        assert_eq!(s.samples, 1);
    }

    #[test]
    fn over_time_limit_gives_none() {
        let b = Budget {
            time_limit: Duration::from_millis(1),
            ..Budget::quick()
        };
        assert!(bench(&b, || std::thread::sleep(Duration::from_millis(5))).is_none());
    }

    #[test]
    fn fast_calls_are_batched() {
        let b = Budget {
            target: Duration::from_millis(5),
            ..Budget::quick()
        };
        let s = bench(&b, || black_box(1.0f64).sqrt()).unwrap();
        assert!(s.inner > 1);
        assert!(s.min <= s.median && s.median <= s.max);
    }
}
