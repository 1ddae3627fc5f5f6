//! The CUDA runtime, through `cudarc` with the driver and NVRTC loaded at run time (nothing is
//! linked at build time): devices, memory, NVRTC builds of the emitted source with the CUDA
//! dialect header ([`nilang::kernel::CUDA_HEADER`]), launches.
use crate::device::Info;
use crate::error::{GpuError, Result};
use crate::Precision;
use cudarc::driver::{result, sys, CudaContext, CudaFunction, CudaModule, CudaStream};
use cudarc::driver::{LaunchConfig, PushKernelArg};
use std::sync::Arc;

/// Threads per block of a launch.
const BLOCK: u32 = 256;

fn cuda_err(call: &'static str) -> impl Fn(result::DriverError) -> GpuError {
    move |e| GpuError::Cuda {
        call,
        message: e.to_string(),
    }
}

/// A device's context and the stream every launch and copy goes to.
pub(crate) struct Ctx {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    /// `compute_XY` of the device (NVRTC's target).
    arch: String,
}

/// Every CUDA device; `NoLibrary` where the driver (`libcuda`) or NVRTC (`libnvrtc`, without
/// which no program builds) cannot be loaded.
pub(crate) fn all() -> Result<Vec<(Arc<Ctx>, Info)>> {
    // SAFETY: only tries to load the libraries.
    if !unsafe { sys::is_culib_present() } {
        return Err(GpuError::NoLibrary(
            "no CUDA driver library (libcuda) found".into(),
        ));
    }
    if !unsafe { cudarc::nvrtc::sys::is_culib_present() } {
        return Err(GpuError::NoLibrary(
            "the CUDA driver is there but no NVRTC library (libnvrtc.so.12/.so.11/.so): \
             add its folder to LD_LIBRARY_PATH"
                .into(),
        ));
    }
    let n = CudaContext::device_count().map_err(cuda_err("cuDeviceGetCount"))?;
    (0..n.max(0) as usize).map(open).collect()
}

/// The first CUDA device.
pub(crate) fn first() -> Result<(Arc<Ctx>, Info)> {
    all()?.into_iter().next().ok_or(GpuError::NoDevice)
}

fn open(ordinal: usize) -> Result<(Arc<Ctx>, Info)> {
    let ctx = CudaContext::new(ordinal).map_err(cuda_err("cuDevicePrimaryCtxRetain"))?;
    // SAFETY: one stream, waited for after every launch and copy: no cross-stream hazards.
    unsafe { ctx.disable_event_tracking() };
    let (major, minor) = ctx
        .compute_capability()
        .map_err(cuda_err("cuDeviceGetAttribute"))?;
    let units = ctx
        .attribute(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
        .map_err(cuda_err("cuDeviceGetAttribute"))?;
    let info = Info {
        name: ctx.name().map_err(cuda_err("cuDeviceGetName"))?,
        platform: format!("CUDA (compute capability {major}.{minor})"),
        gpu: true,
        fp64: true,
        units: units.max(0) as u32,
    };
    let stream = ctx.default_stream();
    let arch = format!("compute_{major}{minor}");
    Ok((Arc::new(Ctx { ctx, stream, arch }), info))
}

/// Device memory of `bytes` bytes.
pub(crate) struct Mem {
    pub(crate) ptr: sys::CUdeviceptr,
    ctx: Arc<Ctx>,
}
impl Drop for Mem {
    fn drop(&mut self) {
        if self.ctx.ctx.bind_to_thread().is_ok() {
            // SAFETY: allocated by `Ctx::alloc`, freed once.
            let _ = unsafe { result::free_sync(self.ptr) };
        }
    }
}

impl Ctx {
    fn bind(&self) -> Result<()> {
        self.ctx
            .bind_to_thread()
            .map_err(cuda_err("cuCtxSetCurrent"))
    }

    /// Zeroed device memory of `bytes` bytes (one at least).
    pub(crate) fn alloc(self: &Arc<Self>, bytes: usize) -> Result<Mem> {
        self.bind()?;
        let bytes = bytes.max(1);
        // SAFETY: a fresh allocation, zeroed before use.
        unsafe {
            let ptr = result::malloc_sync(bytes).map_err(cuda_err("cuMemAlloc"))?;
            let mem = Mem {
                ptr,
                ctx: self.clone(),
            };
            result::memset_d8_sync(ptr, 0, bytes).map_err(cuda_err("cuMemsetD8"))?;
            Ok(mem)
        }
    }

    /// Copies `data` to the start of `mem` (which holds at least as many bytes).
    pub(crate) fn write<T: Copy>(&self, mem: &Mem, data: &[T]) -> Result<()> {
        self.bind()?;
        // SAFETY: the caller checked the lengths.
        unsafe { result::memcpy_htod_sync(mem.ptr, data) }.map_err(cuda_err("cuMemcpyHtoD"))
    }

    /// Copies the start of `mem` into `out`.
    pub(crate) fn read<T: Copy>(&self, mem: &Mem, out: &mut [T]) -> Result<()> {
        self.bind()?;
        // SAFETY: the caller checked the lengths.
        unsafe { result::memcpy_dtoh_sync(out, mem.ptr) }.map_err(cuda_err("cuMemcpyDtoH"))
    }

    /// A device-side copy of `bytes` bytes.
    pub(crate) fn copy(&self, dst: &Mem, src: &Mem, bytes: usize) -> Result<()> {
        self.bind()?;
        // SAFETY: both hold at least `bytes` bytes (checked by the caller).
        unsafe { result::memcpy_dtod_sync(dst.ptr, src.ptr, bytes) }
            .map_err(cuda_err("cuMemcpyDtoD"))
    }

    /// Compiles `source` (the CUDA dialect) with NVRTC for this device and loads it.
    pub(crate) fn build(&self, source: &str, precision: Precision, rows: bool) -> Result<Built> {
        use cudarc::nvrtc;
        // SAFETY: only tries to load the library.
        if !unsafe { nvrtc::sys::is_culib_present() } {
            return Err(GpuError::NoLibrary(
                "no NVRTC library (libnvrtc) found".into(),
            ));
        }
        let mut options: Vec<String> = precision
            .defines(rows)
            .into_iter()
            .map(|d| d.replace("-D ", "-D"))
            .collect();
        options.push(format!("--gpu-architecture={}", self.arch));
        let opts = nvrtc::CompileOptions {
            // no fused multiply-adds: every operation rounds as on the CPU
            fmad: Some(false),
            prec_div: Some(true),
            prec_sqrt: Some(true),
            ftz: Some(false),
            options,
            ..Default::default()
        };
        let ptx = nvrtc::compile_ptx_with_opts(source, opts).map_err(|e| match e {
            nvrtc::CompileError::CompileError { log, .. } => {
                GpuError::Build(log.to_string_lossy().into_owned())
            }
            e => GpuError::Build(e.to_string()),
        })?;
        let module = self
            .ctx
            .load_module(ptx)
            .map_err(cuda_err("cuModuleLoadData"))?;
        Ok(Built {
            module,
            kernels: vec![],
        })
    }

    /// Runs `kernel` over `global` threads with `args`, waited for.
    ///
    /// # Safety
    /// Each argument matches the kernel's C parameter (device pointers as `u64`).
    pub(crate) unsafe fn run(
        &self,
        kernel: &CudaFunction,
        args: &[Scalar],
        global: usize,
    ) -> Result<()> {
        if global == 0 {
            return Ok(());
        }
        let blocks = global.div_ceil(BLOCK as usize);
        let grid = u32::try_from(blocks).map_err(|_| GpuError::Arg {
            index: 0,
            name: "n",
            message: format!("{global} threads are more than one launch can have"),
        })?;
        let cfg = LaunchConfig {
            grid_dim: (grid, 1, 1),
            block_dim: (BLOCK, 1, 1),
            shared_mem_bytes: 0,
        };
        let mut b = self.stream.launch_builder(kernel);
        for a in args {
            match a {
                Scalar::U64(x) => b.arg(x),
                Scalar::I64(x) => b.arg(x),
                Scalar::F64(x) => b.arg(x),
                Scalar::F32(x) => b.arg(x),
            };
        }
        b.launch(cfg).map_err(cuda_err("cuLaunchKernel"))?;
        self.stream
            .synchronize()
            .map_err(cuda_err("cuStreamSynchronize"))
    }
}

/// One kernel argument as CUDA takes it (device pointers are `U64`).
pub(crate) enum Scalar {
    U64(u64),
    I64(i64),
    F64(f64),
    F32(f32),
}

/// A loaded module and the kernels taken from it so far.
pub(crate) struct Built {
    module: Arc<CudaModule>,
    kernels: Vec<(String, CudaFunction)>,
}
impl Built {
    /// The kernel `name` (loaded once).
    pub(crate) fn kernel(&mut self, name: &str) -> Result<CudaFunction> {
        if let Some((_, k)) = self.kernels.iter().find(|(n, _)| n == name) {
            return Ok(k.clone());
        }
        let k = self
            .module
            .load_function(name)
            .map_err(cuda_err("cuModuleGetFunction"))?;
        self.kernels.push((name.to_string(), k.clone()));
        Ok(k)
    }
}
