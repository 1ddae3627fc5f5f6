//! Load and time: a soak test (many gradient calls through one `nilang::ad::Plan`: resident
//! memory flat, no allocation after the first call, every result bit-identical to the first)
//! and a concurrency test (8 threads computing gradients at once over shared read-only data:
//! the results equal the serial ones, bit for bit).
//!
//! CI runs them at a reduced size. The full sizes (docs/benchmarks.md, "Load and time"):
//!
//! ```text
//! NILANG_SOAK_CALLS=10000000 NILANG_LOAD_POINTS=100000 \
//!     cargo test --release -p nilang-apps --test apps load:: -- --nocapture
//! ```

use nilang_apps::adbench::gmm::gmm_generate;
use nilang_apps::bessel::Ibesselj;
use nilang_apps::gmm::{gmm_value_grad, GmmGradWork};
use nilang_testkit::alloc::allocs;

/// A count from the environment variable `var`, else `default`.
fn env_count(var: &str, default: usize) -> usize {
    match std::env::var(var) {
        Ok(v) => v
            .trim()
            .parse()
            .unwrap_or_else(|_| panic!("{var}={v}: not a count")),
        Err(_) => default,
    }
}

/// The resident set size of this process in bytes (`/proc/self/statm`), where readable.
fn rss_bytes() -> Option<u64> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages * 4096)
}

/// `NILANG_SOAK_CALLS` (default 100 000) gradient calls of the Bessel function J₂ through one
/// plan, at inputs cycling over 1000 values: each result is bit-identical to the first call at
/// the same input, the plan allocates nothing after its first call, and the resident memory
/// does not grow.
#[test]
fn soak_gradients_through_one_plan() {
    const INPUTS: usize = 1000;
    let calls = env_count("NILANG_SOAK_CALLS", 100_000);
    let zs: Vec<f64> = (0..INPUTS)
        .map(|i| 0.01 + 10.0 * i as f64 / INPUTS as f64)
        .collect();
    let mut plan = nilang::ad::Plan::new();
    // the first call at each input: the reference bits
    let first: Vec<(u64, u64)> = zs
        .iter()
        .map(|&z| {
            let (v, st) = plan.value_and_gradient(&Ibesselj, (&mut 0.0, 2usize, &mut z.clone()), 0);
            (v.to_bits(), st.2.g.to_bits())
        })
        .collect();
    // a real derivative: J₂'(z) = (J₁(z) − J₃(z)) / 2
    let z0 = zs[300];
    let want = 0.5
        * (nilang_apps::bessel::besselj_plain(1, z0) - nilang_apps::bessel::besselj_plain(3, z0));
    let got = f64::from_bits(first[300].1);
    assert!(
        (got - want).abs() < 1e-7,
        "gradient {got} vs (J1 - J3)/2 = {want} at {z0}"
    );
    let rss0 = rss_bytes();
    let allocs0 = allocs();
    let t0 = std::time::Instant::now();
    let mut mismatches = 0usize;
    for k in 0..calls {
        let i = k % INPUTS;
        let (v, st) = plan.value_and_gradient(&Ibesselj, (&mut 0.0, 2usize, &mut zs[i].clone()), 0);
        mismatches += usize::from((v.to_bits(), st.2.g.to_bits()) != first[i]);
    }
    let secs = t0.elapsed().as_secs_f64();
    let allocated = allocs() - allocs0;
    let rss1 = rss_bytes();
    eprintln!(
        "soak: {calls} gradient calls in {secs:.2} s ({:.0} ns per call); RSS {} -> {} KiB; \
         {allocated} allocations",
        1e9 * secs / calls as f64,
        rss0.map_or(-1, |b| (b / 1024) as i64),
        rss1.map_or(-1, |b| (b / 1024) as i64),
    );
    assert_eq!(mismatches, 0, "calls whose value or gradient changed bits");
    assert_eq!(allocated, 0, "allocations after the plan's first call");
    if let (Some(a), Some(b)) = (rss0, rss1) {
        // flat: the pages of a test harness may move a little, a leak of even 8 bytes per
        // call would be 0.8 MB at the reduced size, and the allocation count catches any heap leak
        assert!(b <= a + (1 << 20), "RSS grew from {a} to {b} bytes");
    }
}

/// 8 threads compute the GMM gradient at once, each with its own workspace and plan, over one
/// shared read-only instance (`NILANG_LOAD_POINTS` points, default 400): every thread's value
/// and gradient equal the serial ones, bit for bit, on every repetition.
#[test]
fn eight_threads_compute_gradients_over_shared_data() {
    const THREADS: usize = 8;
    let n = env_count("NILANG_LOAD_POINTS", 400);
    let reps = 3;
    let g = gmm_generate(3, 4, n, 11);
    let serial = {
        let mut work = GmmGradWork::new(3, 4);
        let mut grad = vec![0.0; g.n_params()];
        let f = gmm_value_grad(&g, &mut work, &mut grad);
        (f, grad)
    };
    assert!(serial.0.is_finite() && serial.1.iter().any(|&v| v != 0.0));
    let barrier = std::sync::Barrier::new(THREADS);
    let results: Vec<Vec<(f64, Vec<f64>)>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..THREADS)
            .map(|_| {
                let (g, barrier) = (&g, &barrier);
                s.spawn(move || {
                    let mut work = GmmGradWork::new(3, 4);
                    barrier.wait();
                    (0..reps)
                        .map(|_| {
                            let mut grad = vec![0.0; g.n_params()];
                            let f = gmm_value_grad(g, &mut work, &mut grad);
                            (f, grad)
                        })
                        .collect()
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for (t, runs) in results.iter().enumerate() {
        for (r, (f, grad)) in runs.iter().enumerate() {
            assert_eq!(f.to_bits(), serial.0.to_bits(), "thread {t} run {r}: value");
            assert!(
                grad.iter()
                    .zip(&serial.1)
                    .all(|(a, b)| a.to_bits() == b.to_bits()),
                "thread {t} run {r}: gradient differs from the serial one"
            );
        }
    }
}
