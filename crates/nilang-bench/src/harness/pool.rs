//! The thread pools of the parallel cells (tools `nilang-t1`, `nilang-tN`): one rayon pool per
//! thread count of the run (`--threads N`: 1 and, for N > 1, N). Each suite's `nilang.rs` runs
//! its parallel gradient inside [`Pool::install`]; the result is the same, bit for bit, for any N.
//!
//! The pool of one thread is the calling thread itself (rayon's `use_current_thread`): its
//! cells run where they are timed, with no hand-off to a sleeping worker and back, whose
//! wake-up latency on a loaded machine is what moved the `nilang-t1` cells between runs.
use std::cell::OnceCell;
use std::sync::{Arc, OnceLock};
use std::thread::ThreadId;

/// A rayon pool of a fixed number of threads, named after it.
pub struct Pool {
    /// The tool column: `nilang-t{threads}`.
    pub tool: String,
    /// The number of threads.
    pub threads: usize,
    pool: Arc<rayon::ThreadPool>,
    /// For a pool that is its creating thread: that thread (from any other thread
    /// [`Pool::install`] uses `elsewhere`, an ordinary pool of one thread made on first use).
    owner: Option<ThreadId>,
    elsewhere: OnceLock<rayon::ThreadPool>,
}

thread_local! {
    /// The pool of one thread that is this thread (made at the first [`Pool::new`]`(1)` on
    /// it and kept: rayon keeps a thread in the first pool it joins). `None` when this
    /// thread is already a worker of another pool.
    static OWN: OnceCell<Option<Arc<rayon::ThreadPool>>> = const { OnceCell::new() };
}

fn ordinary(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("a rayon pool")
}

impl Pool {
    /// A pool of `threads` threads (tool `nilang-t{threads}`); of one thread: the calling
    /// thread, which runs what [`Pool::install`] gets itself.
    ///
    /// ```
    /// let p = nilang_bench::harness::Pool::new(2);
    /// assert_eq!((p.tool.as_str(), p.install(rayon::current_num_threads)), ("nilang-t2", 2));
    /// let one = nilang_bench::harness::Pool::new(1);
    /// let me = std::thread::current().id();
    /// assert_eq!(one.install(|| (rayon::current_num_threads(), std::thread::current().id())), (1, me));
    /// ```
    pub fn new(threads: usize) -> Self {
        let own = if threads == 1 {
            OWN.with(|own| {
                own.get_or_init(|| {
                    rayon::ThreadPoolBuilder::new()
                        .num_threads(1)
                        .use_current_thread()
                        .build()
                        .ok()
                        .map(Arc::new)
                })
                .clone()
            })
        } else {
            None
        };
        let owner = own.as_ref().map(|_| std::thread::current().id());
        Pool {
            tool: format!("nilang-t{threads}"),
            threads,
            pool: own.unwrap_or_else(|| Arc::new(ordinary(threads))),
            owner,
            elsewhere: OnceLock::new(),
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

    /// Whether [`Pool::install`] runs its work on the calling thread (a pool of one thread,
    /// called from the thread that made it), so that the process's CPU clock times it.
    ///
    /// ```
    /// use nilang_bench::harness::Pool;
    /// assert!(Pool::new(1).runs_here() && !Pool::new(2).runs_here());
    /// ```
    pub fn runs_here(&self) -> bool {
        self.owner == Some(std::thread::current().id())
    }

    /// Run `f` on this pool.
    pub fn install<R: Send>(&self, f: impl FnOnce() -> R + Send) -> R {
        match self.owner {
            Some(owner) if owner != std::thread::current().id() => {
                self.elsewhere.get_or_init(|| ordinary(1)).install(f)
            }
            _ => self.pool.install(f),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Pool;

    #[test]
    fn the_pool_of_one_thread_runs_on_its_caller_and_elsewhere_on_a_worker() {
        let one = Pool::new(1);
        let me = std::thread::current().id();
        let here = one.install(|| (rayon::current_num_threads(), std::thread::current().id()));
        assert_eq!(here, (1, me));
        assert!(one.runs_here());
        // a second pool of one thread on this thread is the same thread
        assert_eq!(Pool::new(1).install(|| std::thread::current().id()), me);
        // used from another thread, it still runs on one thread, not on that thread's
        std::thread::scope(|s| {
            s.spawn(|| {
                let (n, id) =
                    one.install(|| (rayon::current_num_threads(), std::thread::current().id()));
                assert_eq!(n, 1);
                assert_ne!(id, me);
                assert!(!one.runs_here());
            });
        });
        // a pool of two from the owner thread still runs on its two workers
        let two = Pool::new(2);
        assert_eq!(two.install(rayon::current_num_threads), 2);
        assert_ne!(two.install(|| std::thread::current().id()), me);
    }
}
