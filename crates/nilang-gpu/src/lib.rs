//! # nilang-gpu
//!
//! Runs `#[i(kernel)]` functions of NiLang.rs on CUDA or OpenCL devices: the forward
//! program, its inverse and its gradient (the inverse on value/adjoint pairs), for every thread
//! index in `0..n`, in `f64` or `f32`. One emitted source serves both runtimes: OpenCL C, and
//! the same text after a CUDA dialect header for NVRTC ([`nilang::kernel::Dialect`]). The
//! libraries (OpenCL's ICD loader; CUDA's driver and NVRTC, through `cudarc`) are loaded at
//! run time, so this crate builds everywhere; [`Device::first`] picks a CUDA device where
//! there is one, else an OpenCL device, else returns [`GpuError::NoDevice`] or
//! [`GpuError::NoLibrary`] (nothing panics). On a machine without a GPU,
//! [pocl](https://portablecl.org) (Debian: `pocl-opencl-icd`) runs the same kernels on the CPU.
//!
//! ```
//! use nilang::prelude::*;
//! use nilang_gpu::{Arg, Device, Precision, Shared};
//!
//! /// `y[t] += x[t]² + a · x[t]` for every thread `t`.
//! #[i(kernel)]
//! fn sq<T: Scalar>(t: usize, y: &mut [T], x: &mut [T], a: T) {
//!     y[t] += x[t].powi(2);
//!     y[t] += a * x[t];
//! }
//!
//! let Ok(dev) = Device::first() else { return }; // no OpenCL here: nothing to run
//! let prog = dev.program::<sq>(Precision::F64).unwrap();
//! let (y, x) = (dev.buffer(&[0.0; 4]).unwrap(), dev.buffer(&[1.0, 2.0, 3.0, 4.0]).unwrap());
//! prog.forward(4, &[Arg::from(&y), Arg::from(&x), Arg::Real(0.5)]).unwrap();
//! assert_eq!(y.read().unwrap(), vec![1.5, 5.0, 10.5, 18.0]);
//! // the gradient: seed the adjoint of y, run the gradient program (it also restores y)
//! let (gy, gx) = (dev.buffer(&[1.0; 4]).unwrap(), dev.zeros::<f64>(4).unwrap());
//! prog.gradient(4, &[Arg::grad(&y, &gy), Arg::grad(&x, &gx), Arg::Real(0.5)], Shared::Atomic)
//!     .unwrap();
//! assert_eq!(gx.read().unwrap(), vec![2.5, 4.5, 6.5, 8.5]); // 2x + a
//! assert_eq!(y.read().unwrap(), vec![0.0; 4]);
//! ```
//!
//! **Shared reads.** A `&mut [T]` parameter that the kernel never writes is marked *shared*
//! (`ParamKind::RealSliceMut { shared: true }`): many threads may read one element, so its
//! adjoints are accumulated across threads, either by atomic adds
//! ([`Shared::Atomic`]: a compare-and-swap loop on OpenCL, `atomicAdd` on CUDA) or into one private row per
//! thread summed afterwards in a fixed order ([`Shared::Rows`]: no atomics, deterministic,
//! memory `rows × len`).
//!
//! Modules: [`device`](Device) discovery, buffers, launch arguments, programs, written once
//! against one interface (`driver`: the `Driver` and `Module` traits) that each backend
//! implements (`opencl`, `cuda`).
#![warn(missing_docs)]
mod args;
mod buffer;
mod cuda;
mod device;
mod driver;
mod elem;
mod error;
pub mod kernels;
mod opencl;
mod program;

pub use args::Arg;
pub use buffer::{BufView, Buffer};
pub use device::{describe, Device};
pub use driver::Backend;
pub use elem::{Elem, ElemKind, Precision};
pub use error::{GpuError, Result};
pub use program::{Program, Shared};
