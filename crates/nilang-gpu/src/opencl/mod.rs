//! The OpenCL runtime: platforms and devices, contexts and queues, memory objects, program
//! builds and launches, through the C API loaded at run time ([`ffi`]): the [`Driver`] and
//! [`Module`] of OpenCL.
mod ffi;

use crate::driver::{Backend, Driver, Info, MemRef, Module, Raw};
use crate::error::{GpuError, Result};
use crate::Precision;
use ffi::{cl_int, Handle, CL_SUCCESS};
use std::ffi::{c_void, CString};
use std::sync::{Arc, Mutex};

fn check(call: &'static str, code: cl_int) -> Result<()> {
    if code == CL_SUCCESS {
        Ok(())
    } else {
        Err(GpuError::Cl { call, code })
    }
}

fn lib() -> Result<&'static ffi::Api> {
    ffi::api().map_err(GpuError::NoLibrary)
}

/// Serialises device discovery, context creation and program builds: the ICD loader's first
/// platform query (ocl-icd) and some drivers' compilers are not safe to enter from several
/// threads at once.
fn global_lock() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    LOCK.lock().unwrap_or_else(|e| e.into_inner())
}

/// A device with its context and command queue.
pub(crate) struct Ctx {
    context: Handle,
    queue: Handle,
    device: Handle,
}
// SAFETY: OpenCL contexts, queues and devices are thread-safe handles (OpenCL 1.2 §A.2).
unsafe impl Send for Ctx {}
unsafe impl Sync for Ctx {}
impl Drop for Ctx {
    fn drop(&mut self) {
        if let Ok(a) = lib() {
            // SAFETY: handles created by this `Ctx`, released once.
            unsafe {
                (a.release_command_queue)(self.queue);
                (a.release_context)(self.context);
            }
        }
    }
}

/// Every `(platform, device)` handle pair.
fn device_handles() -> Result<Vec<(Handle, Handle)>> {
    let a = lib()?;
    let mut n = 0u32;
    // SAFETY: count query, then a buffer of that size (the same for devices).
    unsafe {
        let code = (a.get_platform_ids)(0, std::ptr::null_mut(), &mut n);
        if code != CL_SUCCESS || n == 0 {
            return Ok(vec![]);
        }
        let mut ps = vec![std::ptr::null_mut(); n as usize];
        check(
            "clGetPlatformIDs",
            (a.get_platform_ids)(n, ps.as_mut_ptr(), std::ptr::null_mut()),
        )?;
        let mut out = vec![];
        for p in ps {
            let mut m = 0u32;
            let all = ffi::CL_DEVICE_TYPE_ALL;
            if (a.get_device_ids)(p, all, 0, std::ptr::null_mut(), &mut m) != CL_SUCCESS {
                continue;
            }
            let mut ds = vec![std::ptr::null_mut(); m as usize];
            if (a.get_device_ids)(p, all, m, ds.as_mut_ptr(), std::ptr::null_mut()) != CL_SUCCESS {
                continue;
            }
            out.extend(ds.into_iter().map(|d| (p, d)));
        }
        Ok(out)
    }
}

fn open(platform: Handle, device: Handle) -> Result<(Arc<Ctx>, Info)> {
    let a = lib()?;
    let mut code = 0;
    // SAFETY: valid handles from `device_handles`; errors are returned as values.
    let (context, queue) = unsafe {
        let context = (a.create_context)(
            std::ptr::null(),
            1,
            &device,
            std::ptr::null(),
            std::ptr::null_mut(),
            &mut code,
        );
        check("clCreateContext", code)?;
        let queue = (a.create_command_queue)(context, device, 0, &mut code);
        if code != CL_SUCCESS {
            (a.release_context)(context);
            return Err(GpuError::Cl {
                call: "clCreateCommandQueue",
                code,
            });
        }
        (context, queue)
    };
    let ext = ffi::info_string(a.get_device_info, device, ffi::CL_DEVICE_EXTENSIONS);
    let ty: u64 = ffi::info_value(a.get_device_info, device, ffi::CL_DEVICE_TYPE);
    let info = Info {
        name: ffi::info_string(a.get_device_info, device, ffi::CL_DEVICE_NAME),
        platform: ffi::info_string(a.get_platform_info, platform, ffi::CL_PLATFORM_NAME),
        gpu: ty & ffi::CL_DEVICE_TYPE_GPU != 0,
        fp64: ext.contains("cl_khr_fp64"),
        units: ffi::info_value(a.get_device_info, device, ffi::CL_DEVICE_MAX_COMPUTE_UNITS),
    };
    let ctx = Ctx {
        context,
        queue,
        device,
    };
    Ok((Arc::new(ctx), info))
}

/// Every OpenCL device (empty where there is none; an error only where there is no library).
pub(crate) fn all() -> Result<Vec<(Arc<Ctx>, Info)>> {
    let _g = global_lock();
    device_handles()?
        .into_iter()
        .map(|(p, d)| open(p, d))
        .collect()
}

/// The first GPU, else the first device of any kind.
pub(crate) fn first() -> Result<(Arc<Ctx>, Info)> {
    let _g = global_lock();
    let hs = device_handles()?;
    let a = lib()?;
    let gpu = hs.iter().find(|(_, d)| {
        let ty: u64 = ffi::info_value(a.get_device_info, *d, ffi::CL_DEVICE_TYPE);
        ty & ffi::CL_DEVICE_TYPE_GPU != 0
    });
    match gpu.or(hs.first()) {
        Some((p, d)) => open(*p, *d),
        None => Err(GpuError::NoDevice),
    }
}

/// The `cl_mem` of a memory handle.
fn cl_mem(m: MemRef) -> Handle {
    debug_assert_eq!(m.backend, Backend::OpenCl);
    m.handle as usize as Handle
}

impl Driver for Ctx {
    fn backend(&self) -> Backend {
        Backend::OpenCl
    }

    /// A read-write buffer of `bytes` bytes (one at least: zero-sized buffers are invalid).
    fn alloc(&self, bytes: usize) -> Result<MemRef> {
        let a = lib()?;
        let mut code = 0;
        // SAFETY: a plain read-write buffer.
        let mem = unsafe {
            (a.create_buffer)(
                self.context,
                ffi::CL_MEM_READ_WRITE,
                bytes.max(1),
                std::ptr::null_mut(),
                &mut code,
            )
        };
        check("clCreateBuffer", code)?;
        Ok(MemRef {
            backend: Backend::OpenCl,
            handle: mem as usize as u64,
        })
    }

    unsafe fn free(&self, mem: MemRef) {
        if let Ok(a) = lib() {
            // SAFETY: released once (the caller's contract).
            unsafe {
                (a.release_mem_object)(cl_mem(mem));
            }
        }
    }

    unsafe fn write(&self, mem: MemRef, src: &[u8]) -> Result<()> {
        let a = lib()?;
        // SAFETY: `src` holds `src.len()` bytes, the buffer at least as many (the caller's
        // contract).
        let code = unsafe {
            (a.enqueue_write_buffer)(
                self.queue,
                cl_mem(mem),
                1,
                0,
                src.len(),
                src.as_ptr().cast(),
                0,
                std::ptr::null(),
                std::ptr::null_mut(),
            )
        };
        check("clEnqueueWriteBuffer", code)
    }

    unsafe fn read(&self, mem: MemRef, dst: &mut [u8]) -> Result<()> {
        let a = lib()?;
        // SAFETY: `dst` has room for `dst.len()` bytes, the buffer holds as many (the caller's
        // contract).
        let code = unsafe {
            (a.enqueue_read_buffer)(
                self.queue,
                cl_mem(mem),
                1,
                0,
                dst.len(),
                dst.as_mut_ptr().cast(),
                0,
                std::ptr::null(),
                std::ptr::null_mut(),
            )
        };
        check("clEnqueueReadBuffer", code)
    }

    unsafe fn copy(&self, dst: MemRef, src: MemRef, bytes: usize) -> Result<()> {
        let a = lib()?;
        // SAFETY: both buffers of this context hold at least `bytes` bytes (the caller's
        // contract).
        unsafe {
            let code = (a.enqueue_copy_buffer)(
                self.queue,
                cl_mem(src),
                cl_mem(dst),
                0,
                0,
                bytes,
                0,
                std::ptr::null(),
                std::ptr::null_mut(),
            );
            check("clEnqueueCopyBuffer", code)?;
            check("clFinish", (a.finish)(self.queue))
        }
    }

    fn build(
        self: Arc<Self>,
        source: &str,
        precision: Precision,
        rows: bool,
    ) -> Result<Box<dyn Module>> {
        let _g = global_lock();
        let a = lib()?;
        let mut code = 0;
        let src = CString::new(source).map_err(|_| GpuError::Build("NUL in source".into()))?;
        let ptr = src.as_ptr();
        // `float` division and square root correctly rounded, as on the CPU (OpenCL allows
        // 2.5 and 3 ulps by default; `double`'s are always correctly rounded)
        let mut options = precision.defines(rows);
        if precision == Precision::F32 {
            options.push("-cl-fp32-correctly-rounded-divide-sqrt".into());
        }
        let opts = CString::new(options.join(" "))
            .map_err(|_| GpuError::Build("NUL in options".into()))?;
        // SAFETY: one NUL-terminated source string; the program is released on error (by
        // `Built`'s drop).
        unsafe {
            let program =
                (a.create_program_with_source)(self.context, 1, &ptr, std::ptr::null(), &mut code);
            check("clCreateProgramWithSource", code)?;
            let built = Built {
                program,
                kernels: vec![],
                ctx: self.clone(),
            };
            let code = (a.build_program)(
                program,
                1,
                &self.device,
                opts.as_ptr(),
                std::ptr::null(),
                std::ptr::null_mut(),
            );
            if code != CL_SUCCESS {
                return Err(GpuError::Build(format!(
                    "status {code}\n{}",
                    self.build_log(program)
                )));
            }
            Ok(Box::new(built))
        }
    }
}

impl Ctx {
    fn build_log(&self, program: Handle) -> String {
        let Ok(a) = lib() else {
            return String::new();
        };
        let (dev, log_id) = (self.device, ffi::CL_PROGRAM_BUILD_LOG);
        let mut size = 0usize;
        let mut buf;
        // SAFETY: size query, then a buffer of that size.
        unsafe {
            (a.get_program_build_info)(program, dev, log_id, 0, std::ptr::null_mut(), &mut size);
            buf = vec![0u8; size.max(1)];
            let out = buf.as_mut_ptr().cast();
            (a.get_program_build_info)(program, dev, log_id, buf.len(), out, std::ptr::null_mut());
        }
        let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
        String::from_utf8_lossy(&buf[..end]).into_owned()
    }
}

/// A built program, the kernels taken from it so far, and its context (kept alive).
pub(crate) struct Built {
    program: Handle,
    kernels: Vec<(String, Handle)>,
    ctx: Arc<Ctx>,
}
// SAFETY: handles; kernels are used under the program's mutex (`&mut self`).
unsafe impl Send for Built {}
impl Built {
    /// The kernel `name` (created once).
    fn kernel(&mut self, name: &str) -> Result<Handle> {
        if let Some((_, k)) = self.kernels.iter().find(|(n, _)| n == name) {
            return Ok(*k);
        }
        let a = lib()?;
        let c = CString::new(name).map_err(|_| GpuError::Build("NUL in a kernel name".into()))?;
        let mut code = 0;
        // SAFETY: a kernel of the built program.
        let k = unsafe { (a.create_kernel)(self.program, c.as_ptr(), &mut code) };
        check("clCreateKernel", code)?;
        self.kernels.push((name.to_string(), k));
        Ok(k)
    }
}

impl Module for Built {
    unsafe fn launch(&mut self, name: &str, args: &[Raw], global: usize) -> Result<()> {
        let kernel = self.kernel(name)?;
        let a = lib()?;
        // each argument's bytes: scalars as they are, memory as its `cl_mem`
        let mems: Vec<Handle> = args
            .iter()
            .map(|r| match r {
                Raw::Mem(m) => cl_mem(*m),
                _ => std::ptr::null_mut(),
            })
            .collect();
        for (i, (r, m)) in args.iter().zip(&mems).enumerate() {
            let (size, ptr): (usize, *const c_void) = match r {
                Raw::U64(x) => (8, (x as *const u64).cast()),
                Raw::I64(x) => (8, (x as *const i64).cast()),
                Raw::F64(x) => (8, (x as *const f64).cast()),
                Raw::F32(x) => (4, (x as *const f32).cast()),
                Raw::Mem(_) => (std::mem::size_of::<Handle>(), (m as *const Handle).cast()),
            };
            // SAFETY: the bytes match the kernel's C parameter (the caller's contract).
            check("clSetKernelArg", unsafe {
                (a.set_kernel_arg)(kernel, i as u32, size, ptr)
            })?;
        }
        let g = global;
        // SAFETY: every argument set; waited for.
        unsafe {
            let code = (a.enqueue_nd_range_kernel)(
                self.ctx.queue,
                kernel,
                1,
                std::ptr::null(),
                &g,
                std::ptr::null(),
                0,
                std::ptr::null(),
                std::ptr::null_mut(),
            );
            check("clEnqueueNDRangeKernel", code)?;
            check("clFinish", (a.finish)(self.ctx.queue))
        }
    }
}

impl Drop for Built {
    fn drop(&mut self) {
        if let Ok(a) = lib() {
            // SAFETY: released once.
            unsafe {
                for (_, k) in &self.kernels {
                    (a.release_kernel)(*k);
                }
                (a.release_program)(self.program);
            }
        }
    }
}
