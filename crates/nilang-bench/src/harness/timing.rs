//! Adaptive repetition: warm up, then repeat until a time target or a repetition cap is
//! reached; report the median, minimum and maximum time per call.
//!
//! Very fast calls (below [`Budget::min_sample`]) are batched: one sample then times
//! `inner` back-to-back calls and divides by `inner`.
//!
//! A sample's time is the smaller of its wall time and the CPU time the process spent in it
//! ([`Mark`]): a single-threaded call preempted by another process on a loaded machine is
//! charged for its own work only, while a call running on several threads (whose CPU time
//! adds up over the threads) is charged its wall time.
//!
//! Successive samples run at successive stack positions ([`on_shifted_stack`]), so a cell's
//! time does not depend on where its process's stack happens to start.

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
    /// Charge a sample the smaller of its wall time and the process's CPU time ([`Mark`]);
    /// `false`: wall time only (cells that wait on a device).
    pub cpu_clock: bool,
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
            cpu_clock: true,
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
            cpu_clock: true,
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
            cpu_clock: true,
        }
    }
}

/// A moment on the two clocks a sample reads: the wall clock and the CPU time of this process
/// (all its threads; user and system).
///
/// ```
/// use nilang_bench::harness::timing::Mark;
/// use std::time::Duration;
/// let m = Mark::now();
/// let x: f64 = (0..100_000).map(|i| std::hint::black_box(i as f64).sqrt()).sum();
/// let spent = m.elapsed();
/// assert!(x > 0.0 && spent <= m.wall_elapsed());
/// // time off the CPU (here: asleep, as when preempted) is not charged
/// let m = Mark::now();
/// std::thread::sleep(Duration::from_millis(30));
/// assert!(m.wall_elapsed() >= Duration::from_millis(30));
/// assert!(m.elapsed() < Duration::from_millis(30));
/// assert!(Mark::wall_only().elapsed() <= m.wall_elapsed());
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Mark {
    wall: Instant,
    cpu: Option<Duration>,
}

impl Mark {
    /// Now.
    #[inline]
    pub fn now() -> Mark {
        let cpu = process_cpu_time();
        Mark {
            wall: Instant::now(),
            cpu,
        }
    }
    /// Now, on the wall clock alone ([`Mark::elapsed`] is then the wall time).
    #[inline]
    pub fn wall_only() -> Mark {
        Mark {
            wall: Instant::now(),
            cpu: None,
        }
    }
    /// [`Mark::now`] when `cpu_clock`, else [`Mark::wall_only`].
    #[inline]
    fn start(cpu_clock: bool) -> Mark {
        if cpu_clock {
            Mark::now()
        } else {
            Mark::wall_only()
        }
    }
    /// The time since this mark that a sample is charged: the smaller of the wall time and
    /// the process's CPU time (the wall time where the CPU clock cannot be read).
    #[inline]
    pub fn elapsed(&self) -> Duration {
        let wall = self.wall.elapsed();
        match (self.cpu, process_cpu_time()) {
            (Some(a), Some(b)) => wall.min(b.saturating_sub(a)),
            _ => wall,
        }
    }
    /// The wall time since this mark.
    pub fn wall_elapsed(&self) -> Duration {
        self.wall.elapsed()
    }
}

/// The CPU time of this process so far (`CLOCK_PROCESS_CPUTIME_ID`), if the platform has it.
#[cfg(unix)]
fn process_cpu_time() -> Option<Duration> {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `t` is a valid, writable timespec; the call writes it and nothing else.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut t) };
    (rc == 0).then(|| Duration::new(t.tv_sec as u64, t.tv_nsec as u32))
}

#[cfg(not(unix))]
fn process_cpu_time() -> Option<Duration> {
    None
}

/// Summary of the samples, in seconds per call.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Stats {
    /// The median sample's time per call.
    pub median: f64,
    /// The fastest sample's time per call.
    pub min: f64,
    /// The slowest sample's time per call.
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

/// The ratio of a cell's time to its baseline's over samples taken in pairs (the cell's sample
/// `i` and the baseline's sample `i` adjacent, in turns: [`bench_in_turns`]): the median of
/// the per-pair ratios, with their quartiles as the spread.
///
/// Each pair saw the machine in the same state, so a burst of load or a clock change moves
/// both halves of a pair alike and cancels in its ratio; the median then ignores the pairs a
/// burst hit unevenly. A ratio of minimum times instead rests on the single luckiest sample
/// of each side, and moves with either.
///
/// ```
/// use nilang_bench::harness::timing::PairedRatio;
/// // the cell takes twice its baseline in every pair but one disturbed pair
/// let cell = [2.0, 4.0, 2.2, 9.0, 3.0];
/// let base = [1.0, 2.0, 1.1, 1.0, 1.5];
/// let r = PairedRatio::of(&cell, &base).unwrap();
/// assert_eq!((r.median, r.q1, r.q3, r.pairs), (2.0, 2.0, 2.0, 5));
/// assert_eq!(r.half_iqr(), 0.0);
/// assert!(PairedRatio::of(&cell, &base[..4]).is_none());
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PairedRatio {
    /// The median of the per-pair ratios.
    pub median: f64,
    /// Their first quartile.
    pub q1: f64,
    /// Their third quartile.
    pub q3: f64,
    /// The number of pairs.
    pub pairs: usize,
}

impl PairedRatio {
    /// The per-pair ratios `cell[i] / base[i]` summarised; `None` unless both slices have the
    /// same, non-zero length and every time is positive and finite.
    pub fn of(cell: &[f64], base: &[f64]) -> Option<PairedRatio> {
        let ok = |t: &f64| t.is_finite() && *t > 0.0;
        if cell.len() != base.len() || cell.is_empty() || !cell.iter().chain(base).all(ok) {
            return None;
        }
        let mut r: Vec<f64> = cell.iter().zip(base).map(|(c, b)| c / b).collect();
        r.sort_by(|a, b| a.total_cmp(b));
        Some(PairedRatio {
            median: quantile(&r, 0.5),
            q1: quantile(&r, 0.25),
            q3: quantile(&r, 0.75),
            pairs: r.len(),
        })
    }

    /// Half the interquartile range relative to the median, `(q3 − q1) / 2 / median`: the
    /// table's `±` (0.02: the middle half of the pairs lies within about ±2 % of the median).
    pub fn half_iqr(&self) -> f64 {
        0.5 * (self.q3 - self.q1) / self.median
    }

    /// Every ratio multiplied by `k` (the cell and its baseline divided by different `per`).
    pub fn scaled(self, k: f64) -> PairedRatio {
        PairedRatio {
            median: self.median * k,
            q1: self.q1 * k,
            q3: self.q3 * k,
            ..self
        }
    }
}

/// The `p`-quantile of sorted, non-empty `s`, linear between order statistics (the median of
/// an even count is the mean of the middle two).
fn quantile(s: &[f64], p: f64) -> f64 {
    let x = p * (s.len() - 1) as f64;
    let (i, f) = (x.floor() as usize, x.fract());
    match s.get(i + 1) {
        Some(next) if f > 0.0 => s[i] + f * (next - s[i]),
        _ => s[i],
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
pub fn bench_after_probe<T>(budget: &Budget, first: Duration, f: impl FnMut() -> T) -> Stats {
    sample(budget, first, f, None).0
}

/// A closure timed in turns with other cells (a case's baseline, see
/// [`bench_in_turns`]): `inner` calls per sample, found when it was timed on its own
/// ([`Stats::inner`]).
pub struct Turn<'f> {
    /// One call of the baseline.
    pub run: Box<dyn FnMut() + 'f>,
    /// Calls per sample.
    pub inner: usize,
}

/// [`bench_after_probe`] with `base` timed in turns: after the warm-up, each sample of `f` is
/// paired with one sample of `base` (which of the two runs first alternates), so load on the
/// machine hits both alike. Returns the statistics of `f` and of `base` over the same
/// rounds, and the ratio of the pairs ([`PairedRatio`], per call of each; `None` where a
/// sample read zero time). `budget.target` counts `f`'s own time, so `f` gets as many samples
/// as alone.
///
/// ```
/// use nilang_bench::harness::timing::{bench_in_turns, Budget, Turn};
/// use std::time::Duration;
/// let (mut a, mut b) = (0u64, 0u64);
/// let mut base = Turn { run: Box::new(|| b += 1), inner: 1 };
/// let smoke = Budget::smoke();
/// let (sa, sb, r) = bench_in_turns(&smoke, Duration::ZERO, || a += 1, &mut base);
/// drop(base);
/// assert_eq!((sa.samples, sb.samples, a, b), (1, 1, 1, 1));
/// assert!(r.is_none_or(|r| r.pairs == 1));
/// ```
pub fn bench_in_turns<T>(
    budget: &Budget,
    first: Duration,
    f: impl FnMut() -> T,
    base: &mut Turn<'_>,
) -> (Stats, Stats, Option<PairedRatio>) {
    let (s, b) = sample(budget, first, f, Some(base));
    let (b, r) = b.expect("a baseline was timed in turns");
    (s, b, r)
}

/// The sampling loop of [`bench_after_probe`] and [`bench_in_turns`].
fn sample<T>(
    budget: &Budget,
    first: Duration,
    mut f: impl FnMut() -> T,
    mut base: Option<&mut Turn<'_>>,
) -> (Stats, Option<(Stats, Option<PairedRatio>)>) {
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
    let mut base_samples = Vec::with_capacity(budget.max_samples.min(1024));
    // `f`'s own time (the wall time when there is no baseline).
    let mut spent = Duration::ZERO;
    // Slow calls: the minimum sample count yields to the per-call time limit.
    let slow_cap = budget.time_limit.saturating_mul(2);
    // (On a loaded machine the charged time grows slower than the wall time: such a run
    // takes longer, up to `max_samples` samples per cell.)
    // Sample `i` runs at stack shift `i` (both halves of a pair at the same one).
    let mut time_base = |base: &mut Option<&mut Turn<'_>>, i: usize| {
        if let Some(b) = base {
            let t = Mark::start(budget.cpu_clock);
            on_shifted_stack(i, &mut || {
                for _ in 0..b.inner {
                    (b.run)();
                }
            });
            base_samples.push(t.elapsed().as_secs_f64() / b.inner as f64);
        }
    };
    while samples.len() < budget.max_samples
        && (spent < budget.target || (samples.len() < budget.min_samples && spent < slow_cap))
    {
        let i = samples.len();
        let base_first = i % 2 == 1;
        if base_first {
            time_base(&mut base, i);
        }
        let t = Mark::start(budget.cpu_clock);
        on_shifted_stack(i, &mut || {
            for _ in 0..inner {
                black_box(f());
            }
        });
        let e = t.elapsed();
        spent += e;
        samples.push(e.as_secs_f64() / inner as f64);
        if !base_first {
            time_base(&mut base, i);
        }
    }
    if samples.is_empty() {
        samples.push(first.as_secs_f64());
        time_base(&mut base, 0);
    }
    let base_inner = base.as_ref().map_or(1, |b| b.inner);
    // (no paired ratio where a sample read zero: a clock too coarse for the call)
    let paired = (!base_samples.is_empty()).then(|| {
        (
            Stats::from_samples(&base_samples, base_inner),
            PairedRatio::of(&samples, &base_samples),
        )
    });
    (Stats::from_samples(&samples, inner), paired)
}

/// How many stack positions the samples rotate through ([`on_shifted_stack`]).
pub const STACK_SHIFTS: usize = 8;

/// The distance between two stack positions ([`on_shifted_stack`]) in bytes: 528 = 512 + 16,
/// so the eight positions fall every 16 bytes within a cache line and spread over a 4 KiB
/// page.
pub const STACK_STEP: usize = 528;

/// Run `run` with the stack pointer moved down by `STACK_STEP · (k mod STACK_SHIFTS)` bytes:
/// the samples of a cell take turns at each 16-byte position within a 64-byte cache line,
/// and at eight places on a 4 KiB page.
///
/// Where a call's stack frame starts is fixed per process (the kernel places the stack at a
/// random 16-byte boundary), and a kernel with arrays on the stack can run 15–40 % faster at
/// one position than at another: by the cache lines an array straddles, and by whether an
/// array lies at the same place within its 4 KiB page as data the kernel reads on the heap
/// (the processor then takes the load as depending on a store). Measured: the Bessel J₂(1)
/// gradient read 1.94× or 2.22× `rust-O` by the stack position alone. Timed at one
/// position, such a cell reads differently in every run; rotated through them all, every run
/// sees the same mixture, and the fastest sample comes from a good position.
///
/// ```
/// use nilang_bench::harness::timing::{on_shifted_stack, STACK_SHIFTS, STACK_STEP};
/// let mut at = Vec::new();
/// for k in 0..STACK_SHIFTS {
///     on_shifted_stack(k, &mut || {
///         let local = 0u8;
///         at.push(std::hint::black_box(&local) as *const u8 as usize);
///     });
/// }
/// // each position lower than the last, by about STACK_STEP bytes: over most of a page
/// for w in at.windows(2) {
///     assert!(w[0] > w[1] && (w[0] - w[1]).abs_diff(STACK_STEP) < 64, "{at:?}");
/// }
/// assert!(at[0] - at[STACK_SHIFTS - 1] >= 7 * 512);
/// // and at four places within a cache line
/// let mut line: Vec<usize> = at.iter().map(|a| a % 64).collect();
/// line.sort();
/// line.dedup();
/// assert_eq!(line.len(), 4);
/// ```
#[inline(never)]
pub fn on_shifted_stack(k: usize, run: &mut dyn FnMut()) {
    // every frame has some padding (one of none is laid out differently)
    const U: usize = STACK_STEP / 16;
    match k % STACK_SHIFTS {
        0 => shifted::<1>(run),
        1 => shifted::<{ 1 + U }>(run),
        2 => shifted::<{ 1 + 2 * U }>(run),
        3 => shifted::<{ 1 + 3 * U }>(run),
        4 => shifted::<{ 1 + 4 * U }>(run),
        5 => shifted::<{ 1 + 5 * U }>(run),
        6 => shifted::<{ 1 + 6 * U }>(run),
        _ => shifted::<{ 1 + 7 * U }>(run),
    }
}

/// `run` below a frame with `16 · N` bytes of padding.
#[inline(never)]
fn shifted<const N: usize>(run: &mut dyn FnMut()) {
    let pad = [std::mem::MaybeUninit::<[u8; 16]>::uninit(); N];
    black_box(&pad);
    run();
    black_box(&pad);
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
    fn quartiles_interpolate_between_order_statistics() {
        let s = [1.0, 2.0, 4.0, 8.0];
        assert_eq!(quantile(&s, 0.5), 3.0);
        assert_eq!(quantile(&s, 0.25), 1.75);
        assert_eq!(quantile(&s, 0.75), 5.0);
        assert_eq!((quantile(&s, 0.0), quantile(&s, 1.0)), (1.0, 8.0));
        assert_eq!(quantile(&[7.0], 0.25), 7.0);
    }

    #[test]
    fn paired_ratio_is_the_median_of_the_pairs() {
        // per-pair ratios 3, 1.5, 2, 2.5, 2 (sorted: 1.5 2 2 2.5 3)
        let cell = [3.0, 3.0, 4.0, 5.0, 2.0];
        let base = [1.0, 2.0, 2.0, 2.0, 1.0];
        let r = PairedRatio::of(&cell, &base).unwrap();
        assert_eq!((r.median, r.q1, r.q3, r.pairs), (2.0, 2.0, 2.5, 5));
        assert_eq!(r.half_iqr(), 0.125);
        // the ratio of the minima would read 2 / 1 = 2 here, but 1.5 once the baseline's one
        // fast sample is slower: the paired median holds
        let r2 = PairedRatio::of(&cell, &[1.0, 2.0, 2.0, 2.0, 4.0 / 3.0]).unwrap();
        assert_eq!(r2.median, 2.0);
        let s = r.scaled(0.5);
        assert_eq!((s.median, s.q1, s.q3, s.pairs), (1.0, 1.0, 1.25, 5));
    }

    #[test]
    fn paired_ratio_needs_matching_positive_samples() {
        assert!(PairedRatio::of(&[], &[]).is_none());
        assert!(PairedRatio::of(&[1.0, 2.0], &[1.0]).is_none());
        assert!(PairedRatio::of(&[1.0, 2.0], &[1.0, 0.0]).is_none());
        assert!(PairedRatio::of(&[1.0, f64::NAN], &[1.0, 1.0]).is_none());
        // an even count: the mean of the middle two
        let r = PairedRatio::of(&[2.0, 6.0], &[1.0, 2.0]).unwrap();
        assert_eq!((r.median, r.q1, r.q3), (2.5, 2.25, 2.75));
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
    fn a_baseline_in_turns_gets_one_sample_per_sample() {
        // sleeping calls: on the wall clock (the CPU clock would charge them next to nothing)
        let b = Budget {
            target: Duration::from_millis(2),
            cpu_clock: false,
            ..Budget::quick()
        };
        let (mut na, mut nb) = (0usize, 0usize);
        let mut base = Turn {
            run: Box::new(|| {
                nb += 1;
                std::thread::sleep(Duration::from_micros(100));
            }),
            inner: 2,
        };
        let slow = || {
            na += 1;
            std::thread::sleep(Duration::from_micros(200))
        };
        let (sa, sb, r) = bench_in_turns(&b, Duration::from_micros(200), slow, &mut base);
        drop(base);
        // one ratio per pair of samples
        let r = r.expect("sleeps are timed");
        assert_eq!(r.pairs, sa.samples);
        assert!(0.0 < r.q1 && r.q1 <= r.median && r.median <= r.q3, "{r:?}");
        // each sample of the cell has one of the baseline (2 calls each)
        assert_eq!(sa.samples, sb.samples);
        assert_eq!((sa.inner, sb.inner), (1, 2));
        assert_eq!(nb, 2 * sb.samples);
        // warm-up: none beyond the probe (quick budget: 1); the cell ran once per sample
        assert_eq!(na, sa.samples);
        assert!(sa.min >= 2e-4 && sb.min >= 1e-4, "{sa:?} {sb:?}");
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
