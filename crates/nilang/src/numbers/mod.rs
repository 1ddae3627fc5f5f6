//! Number types: [`Real`] scalars and the exact number systems of the language.
//!
//! | type | `+=` / `-=` | `*=` / `/=` | notes |
//! |---|---|---|---|
//! | `f32`, `f64` | ✓ (rounding, checked with tolerance) | – | |
//! | [`Dual`] | ✓ | – | forward-mode derivative; a [`Real`] |
//! | [`Duals`] | ✓ | – | several forward-mode derivatives in SIMD lanes; a [`Real`] |
//! | [`Fixed43`], [`Fixed32`] | ✓ bit-exact | – | elementary functions through `f64` |
//! | `Complex<f32/f64>` | ✓ | – | `exp`, `ln`, `sqrt`, `powf`, `inv`, `abs`, `abs2`, [`arg`], [`conj`], [`complex`] |
//! | [`ULog`] | compile error | ✓ (exact on fixed point content) | positive numbers as logs |
//! | [`Tropical`] | compile error | ✓ | max-plus algebra |
//! | [`F64x4`], [`F64x8`] | ✓ (lane by lane) | – | batches of independent values; no order |
mod batch;
mod convert;
mod cplx;
mod dual;
mod duals;
mod fixed;
mod forward;
pub(crate) mod isa;
#[allow(unsafe_code)] // bytemuck's Pod/Zeroable for plain lane arrays
pub(crate) mod lane_array;
#[allow(unsafe_code)] // run-time CPU dispatch: `#[target_feature]` copies of the functions
mod lane_math;
mod tropical;
mod ulog;
pub use crate::number::{Arithmetic, Real};
pub use batch::{Batch, F64x4, F64x8};
pub use convert::NumConvert;
pub use cplx::{arg, complex, conj};
pub use dual::Dual;
pub use duals::{Duals, Tangents};
pub use fixed::{Fixed32, Fixed43};
pub use tropical::Tropical;
pub use ulog::{LogOperand, ULog};
