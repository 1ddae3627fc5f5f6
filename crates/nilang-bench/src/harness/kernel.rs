//! A [`Kernel`]: one timed operation of a tool whose result the harness checks before it times
//! it (our cells, in each suite's `nilang.rs`). The harness runs it once while its heap use is
//! counted, checks its result against the suite's reference for that measure (see the `*Case`
//! types for the layouts), and then times it like every other cell
//! ([`Harness::external`](crate::harness::Harness::external)). The ratio column divides by the
//! plain-Rust objective of the same case.
//!
//! ```
//! use nilang_bench::harness::Kernel;
//! use nilang_bench::report::Measure;
//! use nilang_bench::suites::bessel::besselj;
//!
//! // state: (output, input); `run` is what gets timed, `result` is checked
//! let mut k = Kernel::with_state(
//!     Measure::O,
//!     (0.0f64, 1.0f64),
//!     |s: &mut (f64, f64)| s.0 = besselj(2, s.1),
//!     |s: &(f64, f64)| vec![s.0],
//! );
//! assert_eq!(k.measure, Measure::O);
//! ```

use crate::report::Measure;

/// One timed operation of one of our cells.
pub struct Kernel<'a> {
    /// What the operation measures (O, U, G, J, H or B).
    pub measure: Measure,
    inner: Box<dyn Run + 'a>,
}

trait Run {
    fn run(&mut self);
    fn result(&mut self) -> Vec<f64>;
}

struct Stateful<S, R, O> {
    state: S,
    run: R,
    out: O,
}

impl<S, R: FnMut(&mut S), O: FnMut(&S) -> Vec<f64>> Run for Stateful<S, R, O> {
    fn run(&mut self) {
        (self.run)(&mut self.state)
    }
    fn result(&mut self) -> Vec<f64> {
        (self.out)(&self.state)
    }
}

impl<'a> Kernel<'a> {
    /// A kernel that owns its working state `state` (inputs, outputs, buffers). `run` is the
    /// timed operation (it may be called many times, so it must leave `state` ready for the next
    /// call, e.g. by resetting its outputs); `result` extracts the result of the last run in the
    /// suite's reference layout, for the correctness check (called once, never timed).
    pub fn with_state<S: 'a>(
        measure: Measure,
        state: S,
        run: impl FnMut(&mut S) + 'a,
        result: impl FnMut(&S) -> Vec<f64> + 'a,
    ) -> Kernel<'a> {
        Kernel {
            measure,
            inner: Box::new(Stateful {
                state,
                run,
                out: result,
            }),
        }
    }

    /// Runs the kernel's operation once (what the harness times; the instruction counter
    /// `examples/instructions.rs` calls it too, so it counts exactly the bench's cells).
    pub fn run(&mut self) {
        self.inner.run()
    }

    /// The result of the last run (what the harness checks against the reference; the
    /// profiling examples check it too).
    pub fn result(&mut self) -> Vec<f64> {
        self.inner.result()
    }
}
