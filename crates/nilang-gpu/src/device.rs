//! Device discovery: CUDA devices where the CUDA driver has one, else OpenCL devices (pocl
//! on a CPU included), else a typed error; a [`Device`] is the same to use on either.
use crate::buffer::Buffer;
use crate::driver::{Backend, Driver, Info};
use crate::error::Result;
use crate::{cuda, opencl, Elem};
use std::sync::Arc;

/// The devices of `backend` with their drivers (the one place that names the backends).
fn open_all(backend: Backend) -> Result<Vec<Device>> {
    Ok(match backend {
        Backend::Cuda => cuda::all()?.into_iter().map(device).collect(),
        Backend::OpenCl => opencl::all()?.into_iter().map(device).collect(),
    })
}

/// The first device of `backend` (OpenCL: the first GPU, else the first device).
fn open_first(backend: Backend) -> Result<Device> {
    match backend {
        Backend::Cuda => cuda::first().map(device),
        Backend::OpenCl => opencl::first().map(device),
    }
}

fn device<D: Driver + 'static>((driver, info): (Arc<D>, Info)) -> Device {
    Device { driver, info }
}

/// A device with its context and queue (OpenCL) or stream (CUDA).
#[derive(Clone)]
pub struct Device {
    pub(crate) driver: Arc<dyn Driver>,
    pub(crate) info: Info,
}

impl std::fmt::Debug for Device {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Device({} on {})", self.info.name, self.info.platform)
    }
}

impl Device {
    /// Every device: CUDA's, then OpenCL's (an error only where neither library loads).
    pub fn all() -> Result<Vec<Device>> {
        match (open_all(Backend::Cuda), open_all(Backend::OpenCl)) {
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
        open_first(backend)
    }

    /// The runtime it runs on.
    pub fn backend(&self) -> Backend {
        self.driver.backend()
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
        let mem = self.driver.alloc(bytes)?;
        Ok(Buffer::new(mem, n, self.driver.clone()))
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
