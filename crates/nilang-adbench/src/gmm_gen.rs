//! A GMM instance generator in the style of ADBench's `data/gmm/gmm-data-gen.py`.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rand_distr::StandardNormal;

use crate::gmm::{icf_len, GmmInput};

/// Rounds to 6 decimals the way a `%.6f` print followed by a re-read does, so the
/// in-memory instance equals what [`GmmInput::write`] prints and reads back.
fn round6(v: f64) -> f64 {
    format!("{v:.6}").parse().unwrap_or(v)
}

fn normal(rng: &mut StdRng, len: usize) -> Vec<f64> {
    (0..len)
        .map(|_| round6(rng.sample::<f64, _>(StandardNormal)))
        .collect()
}

/// Generates an instance as ADBench's generator does: `alpha`, `icf` and `x` drawn
/// from N(0, 1), `mu` from U(0, 1), every value rounded to 6 decimals, `gamma = 1`,
/// `m = 0`. Deterministic in `seed` (the random stream is `rand`'s `StdRng`, not
/// numpy's, so the numbers differ from ADBench's files; the distributions agree).
///
/// ```
/// use nilang_adbench::gmm::gmm_generate;
/// let g = gmm_generate(2, 5, 100, 42);
/// assert_eq!((g.icf.len(), g.x.len()), (15, 200));
/// assert_eq!(g, gmm_generate(2, 5, 100, 42));
/// ```
pub fn gmm_generate(d: usize, k: usize, n: usize, seed: u64) -> GmmInput {
    let mut rng = StdRng::seed_from_u64(seed);
    let alphas = normal(&mut rng, k);
    let means = (0..k * d).map(|_| round6(rng.gen::<f64>())).collect();
    let icf = normal(&mut rng, k * icf_len(d));
    let x = normal(&mut rng, n * d);
    GmmInput {
        d,
        k,
        n,
        alphas,
        means,
        icf,
        x,
        gamma: 1.0,
        m: 0,
    }
}
