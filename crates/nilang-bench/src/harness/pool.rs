//! The thread pools of the parallel cells (tools `nilang-t1`, `nilang-tN`): one rayon pool per
//! thread count of the run (`--threads N`: 1 and, for N > 1, N). Each suite's `nilang.rs` runs
//! its parallel gradient inside [`Pool::install`]; the result is the same, bit for bit, for any N.

/// A rayon pool of a fixed number of threads, named after it.
pub struct Pool {
    /// The tool column: `nilang-t{threads}`.
    pub tool: String,
    /// The number of threads.
    pub threads: usize,
    pool: rayon::ThreadPool,
}

impl Pool {
    /// A pool of `threads` threads (tool `nilang-t{threads}`).
    ///
    /// ```
    /// let p = nilang_bench::harness::Pool::new(2);
    /// assert_eq!((p.tool.as_str(), p.install(rayon::current_num_threads)), ("nilang-t2", 2));
    /// ```
    pub fn new(threads: usize) -> Self {
        Pool {
            tool: format!("nilang-t{threads}"),
            threads,
            pool: rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .expect("a rayon pool"),
        }
    }

    /// The pools of a run with `threads` threads: 1 and, when `threads > 1`, `threads`.
    ///
    /// ```
    /// let tools: Vec<String> = nilang_bench::harness::Pool::for_threads(4)
    ///     .into_iter()
    ///     .map(|p| p.tool)
    ///     .collect();
    /// assert_eq!(tools, ["nilang-t1", "nilang-t4"]);
    /// ```
    pub fn for_threads(threads: usize) -> Vec<Pool> {
        let mut out = vec![Pool::new(1)];
        if threads > 1 {
            out.push(Pool::new(threads));
        }
        out
    }

    /// Run `f` on this pool.
    pub fn install<R: Send>(&self, f: impl FnOnce() -> R + Send) -> R {
        self.pool.install(f)
    }
}
