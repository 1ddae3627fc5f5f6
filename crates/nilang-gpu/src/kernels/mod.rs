//! The paper's kernels as `#[i(kernel)]` functions (also ordinary `#[i]` functions on the
//! CPU): the Bessel batch, the bundle-adjustment residual blocks, the GMM per-point terms.
pub mod ba;
pub mod bessel;
pub mod gmm;
