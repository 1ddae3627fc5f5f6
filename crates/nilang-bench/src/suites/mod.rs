//! One folder per suite (the paper's Tables 2-6, then the reversal schedules): the cases, the
//! plain objective and the third-party baselines (`baselines.rs` where they are more than a
//! few functions), our cells (`nilang.rs`), and the checks. Each suite implements
//! [`Suite`]; [`run_named`] runs one by its `--suite` name.

pub mod ba;
pub mod bessel;
pub mod embedding;
pub mod gmm;
pub mod kalman;
pub mod logistic;
pub mod mlp;
pub mod odefit;
pub mod pairwise;
pub mod schedules;
pub mod sparse;

use crate::cli::Mode;
use crate::harness::{Case, Harness, Suite};
use rand::rngs::StdRng;
use rand::SeedableRng;

/// The fixed seed of every generated input.
pub const SEED: u64 = 0x5eed_2020;

/// A random-number generator seeded by [`SEED`] and `salt` (one stream per input).
pub fn rng(salt: u64) -> StdRng {
    StdRng::seed_from_u64(SEED ^ salt)
}

/// Apply `$f::<Suite>` to the suite called `$name` (one of [`crate::cli::SUITES`]).
macro_rules! dispatch {
    ($name:expr, $f:ident ( $($arg:expr),* )) => {
        match $name {
            sparse::SparseSuite::NAME => $f::<sparse::SparseSuite>($($arg),*),
            bessel::BesselSuite::NAME => $f::<bessel::BesselSuite>($($arg),*),
            embedding::EmbeddingSuite::NAME => $f::<embedding::EmbeddingSuite>($($arg),*),
            gmm::GmmSuite::NAME => $f::<gmm::GmmSuite>($($arg),*),
            ba::BaSuite::NAME => $f::<ba::BaSuite>($($arg),*),
            schedules::SchedulesSuite::NAME => $f::<schedules::SchedulesSuite>($($arg),*),
            mlp::MlpSuite::NAME => $f::<mlp::MlpSuite>($($arg),*),
            pairwise::PairwiseSuite::NAME => $f::<pairwise::PairwiseSuite>($($arg),*),
            logistic::LogisticSuite::NAME => $f::<logistic::LogisticSuite>($($arg),*),
            odefit::OdefitSuite::NAME => $f::<odefit::OdefitSuite>($($arg),*),
            kalman::KalmanSuite::NAME => $f::<kalman::KalmanSuite>($($arg),*),
            other => unreachable!("unknown suite {other}"),
        }
    };
}

/// The progress-bar steps of the suite called `name` in `mode`.
///
/// ```
/// use nilang_bench::{cli::Mode, suites::steps};
/// assert_eq!(steps("gmm", Mode::Quick), 3);
/// ```
pub fn steps(name: &str, mode: Mode) -> u64 {
    fn of<S: Suite>(mode: Mode) -> u64 {
        S::steps(mode)
    }
    dispatch!(name, of(mode))
}

/// The work measure that orders the cases of the suite called `name` ([`Suite::WORK`]: the x
/// axis of its `--plot` time chart); "problem size" for a name that is no suite.
///
/// ```
/// assert_eq!(nilang_bench::suites::work_measure("ba"), "observations p");
/// ```
pub fn work_measure(name: &str) -> &'static str {
    fn of<S: Suite>() -> &'static str {
        S::WORK
    }
    if !crate::cli::SUITES.contains(&name) {
        return "problem size";
    }
    dispatch!(name, of())
}

/// Run the suite called `name` (one of [`crate::cli::SUITES`]).
pub fn run_named(h: &mut Harness, name: &str) {
    fn run<S: Suite>(h: &mut Harness) {
        h.run_suite::<S>()
    }
    dispatch!(name, run(h))
}

/// The names of the cases the suite called `name` has in this run, before `--case` selects
/// among them (what `--case` is matched against; see [`Harness::wants_case`]).
pub fn case_names(h: &mut Harness, name: &str) -> Vec<String> {
    fn of<S: Suite>(h: &mut Harness) -> Vec<String> {
        S::cases(h).iter().map(|c| c.name().to_string()).collect()
    }
    dispatch!(name, of(h))
}
