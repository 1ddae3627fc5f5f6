//! One module per suite (the paper's Tables 2-6): the case data, the plain objective, the
//! third-party baselines, and the checks.

pub mod ba;
pub mod bessel;
pub mod embedding;
pub mod gmm;
pub mod schedules;
pub mod sparse;

use rand::rngs::StdRng;
use rand::SeedableRng;

/// The fixed seed of every generated input.
pub const SEED: u64 = 0x5eed_2020;

pub fn rng(salt: u64) -> StdRng {
    StdRng::seed_from_u64(SEED ^ salt)
}
