//! Errors as values: what a missing library, a missing device, a failed call, a failed build
//! or a wrong argument is reported as.

/// What went wrong, as a value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GpuError {
    /// No OpenCL (or CUDA/NVRTC) library could be loaded (the message lists what was tried).
    NoLibrary(String),
    /// The library is there but has no device.
    NoDevice,
    /// An OpenCL call failed with this status.
    Cl {
        /// The OpenCL function that failed.
        call: &'static str,
        /// Its status code.
        code: i32,
    },
    /// A CUDA driver call failed (its message).
    Cuda {
        /// The CUDA driver or NVRTC function that failed.
        call: &'static str,
        /// The driver's message.
        message: String,
    },
    /// The program did not build; the build log.
    Build(String),
    /// The device has no `f64` (`cl_khr_fp64`).
    NoF64,
    /// An argument does not match the kernel's parameter.
    Arg {
        /// The parameter's position in the kernel's signature.
        index: usize,
        /// The parameter's name.
        name: &'static str,
        /// What does not match.
        message: String,
    },
    /// A kernel (not a `#[i(device)]` function) was expected.
    NotAKernel(&'static str),
}

impl std::fmt::Display for GpuError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            GpuError::NoLibrary(m) => write!(f, "no GPU library: {m}"),
            GpuError::NoDevice => write!(f, "no device found"),
            GpuError::Cl { call, code } => {
                write!(f, "OpenCL call {call} failed with status {code}")
            }
            GpuError::Cuda { call, message } => write!(f, "CUDA call {call} failed: {message}"),
            GpuError::Build(log) => write!(f, "the device program did not build:\n{log}"),
            GpuError::NoF64 => write!(f, "the device does not support f64 (cl_khr_fp64)"),
            GpuError::Arg {
                index,
                name,
                message,
            } => write!(f, "argument {index} (`{name}`): {message}"),
            GpuError::NotAKernel(n) => write!(
                f,
                "`{n}` is a device function (`#[i(device)]`), not a kernel (`#[i(kernel)]`)"
            ),
        }
    }
}
impl std::error::Error for GpuError {}

/// A result of this crate.
pub type Result<T> = std::result::Result<T, GpuError>;

/// The error of a buffer copy whose lengths differ (`what`: the other side's name).
pub(crate) fn length_mismatch(what: &'static str, got: usize, len: usize) -> GpuError {
    GpuError::Arg {
        index: 0,
        name: what,
        message: format!("{got} elements for a buffer of {len}"),
    }
}
