//! ADBench's GMM and bundle-adjustment problems as plain `f64` Rust: instance
//! loaders, objectives, hand-written derivatives (the "Manual" baseline), a GMM
//! generator and the reference data used to test everything.
//!
//! ```
//! use nilang_adbench::{gmm, oracle};
//! let g = gmm::GmmInput::from_file(oracle::data_dir().join("adbench/gmm/test.txt")).unwrap();
//! let expected = oracle::load_expected().unwrap();
//! assert!(oracle::adbench_close(gmm::gmm_objective(&g), expected.gmm_test.objective));
//! ```
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod ba;
pub mod error;
pub mod gmm;
mod gmm_gen;
pub mod oracle;
pub mod sparse;
pub mod special;
mod tokens;

/// Largest in-memory instance the readers accept by default (4 GiB; ADBench's largest BA
/// instance, ba20, takes well under 1 GiB). Checked from the header, before allocating.
pub const MAX_INSTANCE_BYTES: u64 = 4 << 30;

pub use ba::{ba_jacobian, ba_objective, ba_reproj, ba_reproj_jacobian, BaInput};
pub use error::AdbenchError;
pub use gmm::{gmm_generate, gmm_gradient, gmm_objective, gmm_objective_and_gradient, GmmInput};
pub use oracle::{adbench_close, data_dir};
pub use sparse::SparseJacobian;
