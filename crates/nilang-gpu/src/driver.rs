//! The one interface a GPU runtime implements ([`Driver`] for a device's memory and builds,
//! [`Module`] for a built program's launches), and the values that cross it: memory handles
//! ([`MemRef`]), launch argument values ([`Raw`]), what a device says about itself ([`Info`]).
//! `opencl` and `cuda` implement it; [`crate::Device`], [`crate::Buffer`] and
//! [`crate::Program`] are written once against it.
use crate::error::Result;
use crate::Precision;
use nilang::kernel::Dialect;
use std::sync::Arc;

/// The runtime a [`crate::Device`] runs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// CUDA: the driver API, programs compiled by NVRTC.
    Cuda,
    /// OpenCL (a GPU's driver, or pocl on the CPU).
    OpenCl,
}

impl Backend {
    /// The backend `NILANG_GPU_BACKEND` (`cuda` or `opencl`) asks for, if any.
    pub(crate) fn from_env() -> Option<Backend> {
        match std::env::var("NILANG_GPU_BACKEND")
            .ok()?
            .to_ascii_lowercase()
            .as_str()
        {
            "cuda" => Some(Backend::Cuda),
            "opencl" => Some(Backend::OpenCl),
            _ => None,
        }
    }
    /// The source dialect of its programs.
    pub(crate) fn dialect(self) -> Dialect {
        match self {
            Backend::Cuda => Dialect::Cuda,
            Backend::OpenCl => Dialect::OpenCl,
        }
    }
}

/// What a device says about itself.
#[derive(Clone, Debug)]
pub(crate) struct Info {
    pub(crate) name: String,
    pub(crate) platform: String,
    pub(crate) gpu: bool,
    pub(crate) fp64: bool,
    pub(crate) units: u32,
}

/// Device memory as its backend names it (an OpenCL `cl_mem` or a CUDA device pointer, both
/// held as 64 bits), tagged with the backend so a buffer of another backend is caught.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct MemRef {
    pub(crate) backend: Backend,
    pub(crate) handle: u64,
}

/// One kernel argument's value.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Raw {
    U64(u64),
    I64(i64),
    F64(f64),
    F32(f32),
    Mem(MemRef),
}

/// A device's context and queue (OpenCL) or stream (CUDA): memory, copies, builds. Every copy
/// is waited for.
pub(crate) trait Driver: Send + Sync {
    /// Which runtime it is.
    fn backend(&self) -> Backend;
    /// Device memory of `bytes` bytes (one at least; contents unspecified).
    fn alloc(&self, bytes: usize) -> Result<MemRef>;
    /// Releases memory of [`Driver::alloc`].
    ///
    /// # Safety
    /// `mem` came from this driver's `alloc` and is released once, after its last use.
    unsafe fn free(&self, mem: MemRef);
    /// Copies `src` to the start of `mem`.
    ///
    /// # Safety
    /// `mem` is this driver's and holds at least `src.len()` bytes.
    unsafe fn write(&self, mem: MemRef, src: &[u8]) -> Result<()>;
    /// Copies the start of `mem` into `dst`.
    ///
    /// # Safety
    /// `mem` is this driver's and holds at least `dst.len()` bytes.
    unsafe fn read(&self, mem: MemRef, dst: &mut [u8]) -> Result<()>;
    /// A device-side copy of `bytes` bytes.
    ///
    /// # Safety
    /// Both are this driver's and hold at least `bytes` bytes.
    unsafe fn copy(&self, dst: MemRef, src: MemRef, bytes: usize) -> Result<()>;
    /// Builds `source` (in [`Backend::dialect`]) with the definitions of `precision` (and
    /// `rows`: the per-thread rows of shared adjoints).
    fn build(
        self: Arc<Self>,
        source: &str,
        precision: Precision,
        rows: bool,
    ) -> Result<Box<dyn Module>>;
}

/// A built program: its kernels, looked up by name once, and their launches.
pub(crate) trait Module: Send {
    /// Runs kernel `name` over `global` work items (threads) with the arguments `args`,
    /// waited for.
    ///
    /// # Safety
    /// Each argument matches the kernel's C parameter (device memory of this module's driver).
    unsafe fn launch(&mut self, name: &str, args: &[Raw], global: usize) -> Result<()>;
}
