//! The reversible standard library (NiLang's `stdlib`): every function is an `#[i]` function
//! (or a hand-written reversible pair for the few that take functions or matrices as a whole),
//! generic over [`Scalar`](crate::ad::Scalar) where it computes with numbers, so it runs
//! forward, backward, and on gradient numbers.
//!
//! | module | contents |
//! |---|---|
//! | [`blas`] | `i_sum`, `i_sum_map`, `i_dot`, `i_dot_complex`, `i_norm2`, `i_norm2_complex`, `i_axpy`, `i_gemv`, `i_gemm` (primitives on a GEMM), `i_umm` |
//! | [`elementwise`] | `i_map` (`y[i] += f(x[i])`; `tanh`, `exp`, `ln_1p`, .. in SIMD lanes on `f64` and `GVar<f64>`) |
//! | [`linalg`] | `i_affine`, the matrix primitives `i_inv`, `i_det`, `i_logdet` ([`linalg::MatrixPrimitive`]) |
//! | [`statistics`] | `i_mean_sum`, `i_var_mean_sum`, `i_cor_cov`, `i_normal_logpdf` |
//! | [`nnlib`] | `i_relu`, `i_softmax_crossentropy`, `i_ascending`, `i_logsumexp`, `i_filter`, `i_mapfoldl`, the dense layers `i_dense`, `i_dense_data` (on a GEMM) |
//! | [`sparse`] | [`sparse::SparseView`], `i_sparse_dot`, `i_sparse_mul` (real and complex) |
//! | [`base`] | `i_sqdistance`, `i_dirtymul`, `i_dirtymul_int`, `i_factorial` |
//! | [`bennett`] | Bennett's time–space trade-off for a reversible step function |
//! | [`ring`] | `next_index`, `prev_index`: periodic neighbours without integer division |
//! | [`treeverse`] | Treeverse (binomial checkpointing): optimal gradient schedules for long step chains |
pub mod base;
pub mod bennett;
pub mod blas;
#[allow(unsafe_code)]
// run-time CPU dispatch (#[target_feature] kernels) and a TypeId-checked slice cast
pub mod elementwise;
pub mod linalg;
#[allow(unsafe_code)] // strided matrices handed to matrixmultiply as raw pointers
mod matmul;
#[allow(unsafe_code)] // row-major matrices of `f64` and `GVar<f64>` read as raw pointers
mod narrow_dense;
pub mod nnlib;
#[cfg(target_arch = "x86_64")]
mod pair_index;
pub mod ring;
#[allow(unsafe_code)] // AVX-512 intrinsics on raw row pointers
mod short_rows;
pub mod sparse;
pub mod statistics;
pub mod treeverse;

pub use matmul::Planes;
