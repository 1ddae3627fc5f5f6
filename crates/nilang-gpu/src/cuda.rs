//! The CUDA runtime, through `cudarc` with the driver and NVRTC loaded at run time (nothing is
//! linked at build time): devices, memory, NVRTC builds of the emitted source with the CUDA
//! dialect header ([`nilang::kernel::CUDA_HEADER`]), launches: the [`Driver`] and [`Module`] of
//! CUDA.
use crate::driver::{Backend, Driver, Info, MemRef, Module, Raw};
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

/// The device pointer of a memory handle.
fn dev_ptr(m: MemRef) -> sys::CUdeviceptr {
    debug_assert_eq!(m.backend, Backend::Cuda);
    m.handle as sys::CUdeviceptr
}

impl Ctx {
    fn bind(&self) -> Result<()> {
        self.ctx
            .bind_to_thread()
            .map_err(cuda_err("cuCtxSetCurrent"))
    }
}

impl Driver for Ctx {
    fn backend(&self) -> Backend {
        Backend::Cuda
    }

    /// Zeroed device memory of `bytes` bytes (one at least).
    fn alloc(&self, bytes: usize) -> Result<MemRef> {
        self.bind()?;
        let bytes = bytes.max(1);
        // SAFETY: a fresh allocation, zeroed before use (freed on failure).
        unsafe {
            let ptr = result::malloc_sync(bytes).map_err(cuda_err("cuMemAlloc"))?;
            if let Err(e) = result::memset_d8_sync(ptr, 0, bytes) {
                let _ = result::free_sync(ptr);
                return Err(cuda_err("cuMemsetD8")(e));
            }
            Ok(MemRef {
                backend: Backend::Cuda,
                handle: ptr as u64,
            })
        }
    }

    unsafe fn free(&self, mem: MemRef) {
        if self.bind().is_ok() {
            // SAFETY: allocated by `alloc`, freed once (the caller's contract).
            let _ = unsafe { result::free_sync(dev_ptr(mem)) };
        }
    }

    unsafe fn write(&self, mem: MemRef, src: &[u8]) -> Result<()> {
        self.bind()?;
        // SAFETY: the memory holds at least `src.len()` bytes (the caller's contract).
        unsafe { result::memcpy_htod_sync(dev_ptr(mem), src) }.map_err(cuda_err("cuMemcpyHtoD"))
    }

    unsafe fn read(&self, mem: MemRef, dst: &mut [u8]) -> Result<()> {
        self.bind()?;
        // SAFETY: the memory holds at least `dst.len()` bytes (the caller's contract).
        unsafe { result::memcpy_dtoh_sync(dst, dev_ptr(mem)) }.map_err(cuda_err("cuMemcpyDtoH"))
    }

    unsafe fn copy(&self, dst: MemRef, src: MemRef, bytes: usize) -> Result<()> {
        self.bind()?;
        // SAFETY: both hold at least `bytes` bytes (the caller's contract).
        unsafe { result::memcpy_dtod_sync(dev_ptr(dst), dev_ptr(src), bytes) }
            .map_err(cuda_err("cuMemcpyDtoD"))
    }

    /// Compiles `source` (the CUDA dialect) with NVRTC for this device and loads it.
    fn build(
        self: Arc<Self>,
        source: &str,
        precision: Precision,
        rows: bool,
    ) -> Result<Box<dyn Module>> {
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
        Ok(Box::new(Built {
            module,
            kernels: vec![],
            ctx: self,
        }))
    }
}

/// A loaded module, the kernels taken from it so far, and its context (kept alive).
pub(crate) struct Built {
    module: Arc<CudaModule>,
    kernels: Vec<(String, CudaFunction)>,
    ctx: Arc<Ctx>,
}

impl Built {
    /// The kernel `name` (loaded once).
    fn kernel(&mut self, name: &str) -> Result<CudaFunction> {
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

impl Module for Built {
    /// Runs kernel `name` over `global` threads (blocks of [`BLOCK`]) with `args` (device
    /// pointers as `u64`), waited for.
    unsafe fn launch(&mut self, name: &str, args: &[Raw], global: usize) -> Result<()> {
        let kernel = self.kernel(name)?;
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
        let mems: Vec<u64> = args
            .iter()
            .map(|r| match r {
                Raw::Mem(m) => dev_ptr(*m),
                _ => 0,
            })
            .collect();
        let stream = &self.ctx.stream;
        let mut b = stream.launch_builder(&kernel);
        for (a, m) in args.iter().zip(&mems) {
            match a {
                Raw::U64(x) => b.arg(x),
                Raw::I64(x) => b.arg(x),
                Raw::F64(x) => b.arg(x),
                Raw::F32(x) => b.arg(x),
                Raw::Mem(_) => b.arg(m),
            };
        }
        // SAFETY: each argument matches the kernel's C parameter (the caller's contract).
        unsafe { b.launch(cfg) }.map_err(cuda_err("cuLaunchKernel"))?;
        stream
            .synchronize()
            .map_err(cuda_err("cuStreamSynchronize"))
    }
}
