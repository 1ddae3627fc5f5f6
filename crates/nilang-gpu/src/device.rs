//! Device discovery: CUDA devices where the CUDA driver has one, else OpenCL devices (pocl
//! on a CPU included), else a typed error; a [`Device`] is the same to use on either.
use crate::buffer::{Buffer, Mem};
use crate::error::{GpuError, Result};
use crate::program::Program;
use crate::{cuda, opencl, Elem, Precision};
use nilang::kernel::{DeviceCode, Dialect};
use std::sync::Arc;

/// The runtime a [`Device`] runs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// CUDA: the driver API, programs compiled by NVRTC.
    Cuda,
    /// OpenCL (a GPU's driver, or pocl on the CPU).
    OpenCl,
}

impl Backend {
    /// The backend `NILANG_GPU_BACKEND` (`cuda` or `opencl`) asks for, if any.
    fn from_env() -> Option<Backend> {
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

/// A backend's context (device, queue or stream).
#[derive(Clone)]
pub(crate) enum Ctx {
    Cl(Arc<opencl::Ctx>),
    Cuda(Arc<cuda::Ctx>),
}

/// A device with its context and queue (OpenCL) or stream (CUDA).
#[derive(Clone)]
pub struct Device {
    pub(crate) ctx: Ctx,
    info: Info,
}

impl std::fmt::Debug for Device {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Device({} on {})", self.info.name, self.info.platform)
    }
}

fn wrap<C>(f: fn(Arc<C>) -> Ctx) -> impl Fn((Arc<C>, Info)) -> Device {
    move |(c, info)| Device { ctx: f(c), info }
}

impl Device {
    /// Every device: CUDA's, then OpenCL's (an error only where neither library loads).
    pub fn all() -> Result<Vec<Device>> {
        let cuda = cuda::all().map(|v| v.into_iter().map(wrap(Ctx::Cuda)).collect::<Vec<_>>());
        let cl = opencl::all().map(|v| v.into_iter().map(wrap(Ctx::Cl)).collect::<Vec<_>>());
        match (cuda, cl) {
            (Ok(mut a), Ok(b)) => {
                a.extend(b);
                Ok(a)
            }
            (Ok(a), Err(e)) if a.is_empty() => Err(e),
            (Ok(a), Err(_)) => Ok(a),
            (Err(_), cl) => cl,
        }
    }

    /// The device to run on: the first CUDA device, else the first OpenCL GPU, else the first
    /// OpenCL device of any kind; `NILANG_GPU_BACKEND=cuda|opencl` picks one backend.
    ///
    /// ```
    /// match nilang_gpu::Device::first() {
    ///     Ok(d) => println!("running on {} ({}, {:?})", d.name(), d.platform(), d.backend()),
    ///     Err(e) => println!("no device: {e}"),
    /// }
    /// ```
    pub fn first() -> Result<Device> {
        match Backend::from_env() {
            Some(b) => Device::first_of(b),
            None => Device::first_of(Backend::Cuda).or_else(|_| Device::first_of(Backend::OpenCl)),
        }
    }

    /// The first device of `backend` (`NoLibrary` where its library does not load,
    /// `NoDevice` where it has none).
    ///
    /// ```
    /// use nilang_gpu::{Backend, Device, GpuError};
    /// match Device::first_of(Backend::Cuda) {
    ///     Ok(d) => assert_eq!(d.backend(), Backend::Cuda),
    ///     Err(e) => assert!(matches!(e, GpuError::NoLibrary(_) | GpuError::NoDevice | GpuError::Cuda { .. })),
    /// }
    /// ```
    pub fn first_of(backend: Backend) -> Result<Device> {
        match backend {
            Backend::Cuda => cuda::first().map(wrap(Ctx::Cuda)),
            Backend::OpenCl => opencl::first().map(wrap(Ctx::Cl)),
        }
    }

    /// The runtime it runs on.
    pub fn backend(&self) -> Backend {
        match self.ctx {
            Ctx::Cl(_) => Backend::OpenCl,
            Ctx::Cuda(_) => Backend::Cuda,
        }
    }
    /// The device's name.
    pub fn name(&self) -> &str {
        &self.info.name
    }
    /// The platform's name (`Portable Computing Language` for pocl; `CUDA (compute
    /// capability X.Y)` for CUDA).
    pub fn platform(&self) -> &str {
        &self.info.platform
    }
    /// Whether it is a GPU.
    pub fn is_gpu(&self) -> bool {
        self.info.gpu
    }
    /// Whether it has `f64`.
    pub fn supports_f64(&self) -> bool {
        self.info.fp64
    }
    /// Its compute units (cores for pocl, multiprocessors for CUDA).
    pub fn compute_units(&self) -> u32 {
        self.info.units
    }

    /// A buffer holding a copy of `data`.
    pub fn buffer<T: Elem>(&self, data: &[T]) -> Result<Buffer<T>> {
        let b = self.zeros_uninit::<T>(data.len())?;
        b.write(data)?;
        Ok(b)
    }

    /// A buffer of `n` zeros.
    pub fn zeros<T: Elem>(&self, n: usize) -> Result<Buffer<T>> {
        self.buffer(&vec![T::default(); n])
    }

    /// A buffer of `n` elements, contents unspecified.
    pub(crate) fn zeros_uninit<T: Elem>(&self, n: usize) -> Result<Buffer<T>> {
        let bytes = n * std::mem::size_of::<T>();
        let mem = match &self.ctx {
            Ctx::Cl(c) => Mem::Cl(c.alloc(bytes)?),
            Ctx::Cuda(c) => Mem::Cuda(c.alloc(bytes)?),
        };
        Ok(Buffer::new(mem, n, self.ctx.clone()))
    }

    /// Builds kernel `K` (an `#[i(kernel)]` function) in `precision`: one emitted source, in
    /// the device's dialect (OpenCL C, or CUDA C++ for NVRTC).
    pub fn program<K: DeviceCode>(&self, precision: Precision) -> Result<Program<K>> {
        if K::PARAMS.is_empty() {
            return Err(GpuError::NotAKernel(K::NAME));
        }
        if precision == Precision::F64 && !self.info.fp64 {
            return Err(GpuError::NoF64);
        }
        Program::new(self.clone(), precision)
    }
}

/// The devices available, for a one-line report (`"none: <why>"` where there is none).
///
/// ```
/// println!("devices: {}", nilang_gpu::describe());
/// ```
pub fn describe() -> String {
    match Device::all() {
        Ok(ds) if ds.is_empty() => "none: no CUDA or OpenCL device".into(),
        Ok(ds) => ds
            .iter()
            .map(|d| format!("{} ({})", d.name(), d.platform()))
            .collect::<Vec<_>>()
            .join(", "),
        Err(e) => format!("none: {e}"),
    }
}
