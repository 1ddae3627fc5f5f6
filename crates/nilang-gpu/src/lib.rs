//! # nilang-gpu
//!
//! Runs `#[i(kernel)]` functions of NiLang.rs on OpenCL devices: the forward program, its
//! inverse and its gradient (the inverse on value/adjoint pairs), for every thread index in
//! `0..n`, in `f64` or `f32`. The OpenCL library is loaded at run time, so this crate builds
//! everywhere; where there is no OpenCL platform, [`Device::first`] returns
//! [`GpuError::NoDevice`] or [`GpuError::NoLibrary`] (nothing panics). On a machine without a
//! GPU, [pocl](https://portablecl.org) (Debian: `pocl-opencl-icd`) runs the same kernels on
//! the CPU.
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
//! ([`Shared::Atomic`], a compare-and-swap loop on 64-bit words) or into one private row per
//! thread summed afterwards in a fixed order ([`Shared::Rows`]: no atomics, deterministic,
//! memory `rows × len`).
mod ffi;
pub mod kernels;

use ffi::{api, cl_int, Handle, CL_SUCCESS};
use nilang::kernel::{DeviceCode, ParamKind};
use std::ffi::{c_void, CString};
use std::marker::PhantomData;
use std::sync::{Arc, Mutex, OnceLock};

/// What went wrong, as a value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GpuError {
    /// No OpenCL library could be loaded (the message lists what was tried).
    NoLibrary(String),
    /// OpenCL is there but has no device.
    NoDevice,
    /// An OpenCL call failed with this status.
    Cl { call: &'static str, code: i32 },
    /// The program did not build; the build log.
    Build(String),
    /// The device has no `f64` (`cl_khr_fp64`).
    NoF64,
    /// An argument does not match the kernel's parameter.
    Arg {
        index: usize,
        name: &'static str,
        message: String,
    },
    /// A kernel (not a `#[i(device)]` function) was expected.
    NotAKernel(&'static str),
}

impl std::fmt::Display for GpuError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            GpuError::NoLibrary(m) => write!(f, "OpenCL is not available: {m}"),
            GpuError::NoDevice => write!(f, "no OpenCL device found"),
            GpuError::Cl { call, code } => {
                write!(f, "OpenCL call {call} failed with status {code}")
            }
            GpuError::Build(log) => write!(f, "the OpenCL program did not build:\n{log}"),
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

fn check(call: &'static str, code: cl_int) -> Result<()> {
    if code == CL_SUCCESS {
        Ok(())
    } else {
        Err(GpuError::Cl { call, code })
    }
}

fn lib() -> Result<&'static ffi::Api> {
    api().map_err(GpuError::NoLibrary)
}

/// Serialises device discovery, context creation and program builds: the ICD loader's first
/// platform query (ocl-icd) and some drivers' compilers are not safe to enter from several
/// threads at once.
fn global_lock() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    LOCK.lock().unwrap_or_else(|e| e.into_inner())
}

struct Ctx {
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

/// An OpenCL device with its context and command queue.
#[derive(Clone)]
pub struct Device {
    ctx: Arc<Ctx>,
    name: String,
    platform: String,
    gpu: bool,
    fp64: bool,
    units: u32,
}

impl std::fmt::Debug for Device {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Device({} on {})", self.name, self.platform)
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

impl Device {
    fn open(platform: Handle, device: Handle) -> Result<Device> {
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
        Ok(Device {
            ctx: Arc::new(Ctx {
                context,
                queue,
                device,
            }),
            name: ffi::info_string(a.get_device_info, device, ffi::CL_DEVICE_NAME),
            platform: ffi::info_string(a.get_platform_info, platform, ffi::CL_PLATFORM_NAME),
            gpu: ty & ffi::CL_DEVICE_TYPE_GPU != 0,
            fp64: ext.contains("cl_khr_fp64"),
            units: ffi::info_value(a.get_device_info, device, ffi::CL_DEVICE_MAX_COMPUTE_UNITS),
        })
    }

    /// Every OpenCL device (empty where there is none; an error only where there is no
    /// OpenCL library).
    pub fn all() -> Result<Vec<Device>> {
        let _g = global_lock();
        device_handles()?
            .into_iter()
            .map(|(p, d)| Device::open(p, d))
            .collect()
    }

    /// The first GPU, else the first device of any kind.
    ///
    /// ```
    /// match nilang_gpu::Device::first() {
    ///     Ok(d) => println!("running on {} ({})", d.name(), d.platform()),
    ///     Err(e) => println!("no device: {e}"),
    /// }
    /// ```
    pub fn first() -> Result<Device> {
        let _g = global_lock();
        let hs = device_handles()?;
        let a = lib()?;
        let gpu = hs.iter().find(|(_, d)| {
            let ty: u64 = ffi::info_value(a.get_device_info, *d, ffi::CL_DEVICE_TYPE);
            ty & ffi::CL_DEVICE_TYPE_GPU != 0
        });
        match gpu.or(hs.first()) {
            Some((p, d)) => Device::open(*p, *d),
            None => Err(GpuError::NoDevice),
        }
    }

    /// The device's name.
    pub fn name(&self) -> &str {
        &self.name
    }
    /// The platform's name (`Portable Computing Language` for pocl).
    pub fn platform(&self) -> &str {
        &self.platform
    }
    /// Whether it is a GPU.
    pub fn is_gpu(&self) -> bool {
        self.gpu
    }
    /// Whether it has `f64`.
    pub fn supports_f64(&self) -> bool {
        self.fp64
    }
    /// Its compute units (cores for pocl).
    pub fn compute_units(&self) -> u32 {
        self.units
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

    fn zeros_uninit<T: Elem>(&self, n: usize) -> Result<Buffer<T>> {
        let a = lib()?;
        let mut code = 0;
        // a zero-sized buffer is invalid in OpenCL: one element at least
        let bytes = n.max(1) * std::mem::size_of::<T>();
        // SAFETY: a plain read-write buffer of `bytes` bytes.
        let mem = unsafe {
            (a.create_buffer)(
                self.ctx.context,
                ffi::CL_MEM_READ_WRITE,
                bytes,
                std::ptr::null_mut(),
                &mut code,
            )
        };
        check("clCreateBuffer", code)?;
        Ok(Buffer {
            mem,
            len: n,
            ctx: self.ctx.clone(),
            _t: PhantomData,
        })
    }

    /// Builds kernel `K` (an `#[i(kernel)]` function) in `precision`.
    pub fn program<K: DeviceCode>(&self, precision: Precision) -> Result<Program<K>> {
        if K::PARAMS.is_empty() {
            return Err(GpuError::NotAKernel(K::NAME));
        }
        if precision == Precision::F64 && !self.fp64 {
            return Err(GpuError::NoF64);
        }
        let source = nilang::kernel::program_source::<K>();
        let atomic = self.build(&source, precision, false)?;
        Ok(Program {
            dev: self.clone(),
            precision,
            source,
            atomic: Mutex::new(atomic),
            rows: OnceLock::new(),
            rows_budget: 256 << 20,
            _k: PhantomData,
        })
    }

    fn build(&self, source: &str, precision: Precision, rows: bool) -> Result<Built> {
        let _g = global_lock();
        let a = lib()?;
        let mut code = 0;
        let src = CString::new(source).map_err(|_| GpuError::Build("NUL in source".into()))?;
        let ptr = src.as_ptr();
        let opts = format!(
            "-D NL_REAL={} -D NL_REAL_BYTES={}{}",
            precision.c_type(),
            precision.bytes(),
            if rows { " -D NL_SHARED_ROWS" } else { "" }
        );
        let opts = CString::new(opts).map_err(|_| GpuError::Build("NUL in options".into()))?;
        // SAFETY: one NUL-terminated source string; the program is released on error.
        unsafe {
            let program = (a.create_program_with_source)(
                self.ctx.context,
                1,
                &ptr,
                std::ptr::null(),
                &mut code,
            );
            check("clCreateProgramWithSource", code)?;
            let built = Built {
                program,
                kernels: vec![],
            };
            let code = (a.build_program)(
                program,
                1,
                &self.ctx.device,
                opts.as_ptr(),
                std::ptr::null(),
                std::ptr::null_mut(),
            );
            if code != CL_SUCCESS {
                let mut size = 0usize;
                let dev = self.ctx.device;
                let log_id = ffi::CL_PROGRAM_BUILD_LOG;
                (a.get_program_build_info)(
                    program,
                    dev,
                    log_id,
                    0,
                    std::ptr::null_mut(),
                    &mut size,
                );
                let mut buf = vec![0u8; size.max(1)];
                (a.get_program_build_info)(
                    program,
                    dev,
                    log_id,
                    buf.len(),
                    buf.as_mut_ptr().cast(),
                    std::ptr::null_mut(),
                );
                let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
                return Err(GpuError::Build(format!(
                    "status {code}\n{}",
                    String::from_utf8_lossy(&buf[..end])
                )));
            }
            Ok(built)
        }
    }
}

/// The number type of a program.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Precision {
    /// `double` (needs `cl_khr_fp64`).
    F64,
    /// `float`.
    F32,
}
impl Precision {
    fn c_type(self) -> &'static str {
        match self {
            Precision::F64 => "double",
            Precision::F32 => "float",
        }
    }
    fn bytes(self) -> usize {
        match self {
            Precision::F64 => 8,
            Precision::F32 => 4,
        }
    }
}

/// An element type of a buffer.
pub trait Elem: Copy + Default + Send + 'static {
    /// Its kind (checked against the kernel's parameter).
    const KIND: ElemKind;
}
/// The element kinds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ElemKind {
    /// A real of this precision.
    Real(Precision),
    /// An integer: bytes, signed.
    Int(u8, bool),
}
impl Elem for f64 {
    const KIND: ElemKind = ElemKind::Real(Precision::F64);
}
impl Elem for f32 {
    const KIND: ElemKind = ElemKind::Real(Precision::F32);
}
macro_rules! int_elem {
    ($($t:ty: $b:literal, $s:literal);*) => {$(
        impl Elem for $t { const KIND: ElemKind = ElemKind::Int($b, $s); }
    )*};
}
int_elem!(u64: 8, false; i64: 8, true; u32: 4, false; i32: 4, true; u8: 1, false; i8: 1, true);
#[cfg(target_pointer_width = "64")]
int_elem!(usize: 8, false; isize: 8, true);

/// A device buffer of `T`.
pub struct Buffer<T> {
    mem: Handle,
    len: usize,
    ctx: Arc<Ctx>,
    _t: PhantomData<T>,
}
// SAFETY: an OpenCL memory object handle is thread-safe.
unsafe impl<T: Send> Send for Buffer<T> {}
unsafe impl<T: Sync> Sync for Buffer<T> {}
impl<T> Drop for Buffer<T> {
    fn drop(&mut self) {
        if let Ok(a) = lib() {
            // SAFETY: released once.
            unsafe {
                (a.release_mem_object)(self.mem);
            }
        }
    }
}

impl<T: Elem> Buffer<T> {
    /// The number of elements.
    pub fn len(&self) -> usize {
        self.len
    }
    /// Whether it has no element.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// Copies `data` (of the buffer's length) to the device.
    pub fn write(&self, data: &[T]) -> Result<()> {
        if data.len() != self.len {
            return Err(GpuError::Arg {
                index: 0,
                name: "data",
                message: format!("{} elements for a buffer of {}", data.len(), self.len),
            });
        }
        if self.len == 0 {
            return Ok(());
        }
        let a = lib()?;
        // SAFETY: a blocking write of exactly the buffer's bytes from `data`.
        let code = unsafe {
            (a.enqueue_write_buffer)(
                self.ctx.queue,
                self.mem,
                1,
                0,
                std::mem::size_of_val(data),
                data.as_ptr().cast(),
                0,
                std::ptr::null(),
                std::ptr::null_mut(),
            )
        };
        check("clEnqueueWriteBuffer", code)
    }
    /// Copies the buffer to the host.
    pub fn read(&self) -> Result<Vec<T>> {
        let mut v = vec![T::default(); self.len];
        self.read_into(&mut v)?;
        Ok(v)
    }
    /// Copies the buffer into `out` (of the buffer's length).
    pub fn read_into(&self, out: &mut [T]) -> Result<()> {
        if out.len() != self.len {
            return Err(GpuError::Arg {
                index: 0,
                name: "out",
                message: format!("{} elements for a buffer of {}", out.len(), self.len),
            });
        }
        if self.len == 0 {
            return Ok(());
        }
        let a = lib()?;
        // SAFETY: a blocking read of exactly the buffer's bytes into `out`.
        let code = unsafe {
            (a.enqueue_read_buffer)(
                self.ctx.queue,
                self.mem,
                1,
                0,
                std::mem::size_of_val(out),
                out.as_mut_ptr().cast::<c_void>(),
                0,
                std::ptr::null(),
                std::ptr::null_mut(),
            )
        };
        check("clEnqueueReadBuffer", code)
    }
    /// Copies `src` (of the same length) into this buffer on the device.
    pub fn copy_from(&self, src: &Buffer<T>) -> Result<()> {
        if src.len != self.len {
            return Err(GpuError::Arg {
                index: 0,
                name: "src",
                message: format!("{} elements for a buffer of {}", src.len, self.len),
            });
        }
        if self.len == 0 {
            return Ok(());
        }
        let a = lib()?;
        // SAFETY: a copy of the whole buffer between two buffers of one context.
        unsafe {
            check(
                "clEnqueueCopyBuffer",
                (a.enqueue_copy_buffer)(
                    self.ctx.queue,
                    src.mem,
                    self.mem,
                    0,
                    0,
                    self.len * std::mem::size_of::<T>(),
                    0,
                    std::ptr::null(),
                    std::ptr::null_mut(),
                ),
            )?;
            check("clFinish", (a.finish)(self.ctx.queue))
        }
    }
    fn view(&self) -> BufView {
        BufView {
            mem: self.mem,
            len: self.len,
            kind: T::KIND,
        }
    }
}

/// A buffer as a launch argument (made by `Arg::from(&buffer)` and [`Arg::grad`]).
#[derive(Clone, Copy, Debug)]
pub struct BufView {
    mem: Handle,
    len: usize,
    kind: ElemKind,
}

/// An argument of a launch (one per kernel parameter after the thread index).
#[derive(Clone, Copy, Debug)]
pub enum Arg<'a> {
    /// An integer parameter.
    Int(i64),
    /// A real parameter (converted to the program's precision).
    Real(f64),
    /// A slice parameter: its buffer.
    #[doc(hidden)]
    Slice(BufView, PhantomData<&'a ()>),
    /// A `&mut [T]` parameter in a gradient launch: its values and its adjoints.
    #[doc(hidden)]
    Grad(BufView, BufView, PhantomData<&'a ()>),
}
impl<'a, T: Elem> From<&'a Buffer<T>> for Arg<'a> {
    fn from(b: &'a Buffer<T>) -> Self {
        Arg::Slice(b.view(), PhantomData)
    }
}
impl<'a> Arg<'a> {
    /// Values and adjoints of a `&mut [T]` parameter (for [`Program::gradient`]).
    pub fn grad<T: Elem>(value: &'a Buffer<T>, adjoint: &'a Buffer<T>) -> Arg<'a> {
        Arg::Grad(value.view(), adjoint.view(), PhantomData)
    }
}

/// How adjoints of shared slices (read by many threads) are accumulated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shared {
    /// Atomic adds (compare-and-swap loops) straight into the adjoint buffer.
    Atomic,
    /// One private row of partial adjoints per thread, summed afterwards in thread order
    /// (deterministic; threads are launched in chunks that fit the program's row budget).
    Rows,
}

struct Built {
    program: Handle,
    kernels: Vec<(String, Handle)>,
}
// SAFETY: handles; kernels are used under the program's mutex.
unsafe impl Send for Built {}
impl Built {
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

/// A kernel built for one device and precision.
pub struct Program<K> {
    dev: Device,
    precision: Precision,
    source: String,
    atomic: Mutex<Built>,
    rows: OnceLock<std::result::Result<Mutex<Built>, GpuError>>,
    rows_budget: usize,
    _k: PhantomData<K>,
}

/// One kernel argument's bytes.
enum Raw {
    U64(u64),
    I64(i64),
    F64(f64),
    F32(f32),
    Mem(Handle),
}

impl<K: DeviceCode> Program<K> {
    /// The OpenCL C source.
    pub fn source(&self) -> &str {
        &self.source
    }
    /// The device.
    pub fn device(&self) -> &Device {
        &self.dev
    }
    /// The byte budget of the per-thread rows of [`Shared::Rows`] (default 256 MiB).
    pub fn set_rows_budget(&mut self, bytes: usize) {
        self.rows_budget = bytes.max(1);
    }

    /// Runs the forward program for every thread index in `0..n`.
    pub fn forward(&self, n: usize, args: &[Arg]) -> Result<()> {
        let raw = self.raw(args, false, None)?;
        let mut b = self.atomic.lock().unwrap_or_else(|e| e.into_inner());
        let k = b.kernel(&format!("{}_fwd", K::NAME))?;
        self.launch(k, 0, n, &raw)
    }

    /// Runs the inverse program for every thread index in `0..n`.
    pub fn inverse(&self, n: usize, args: &[Arg]) -> Result<()> {
        let raw = self.raw(args, false, None)?;
        let mut b = self.atomic.lock().unwrap_or_else(|e| e.into_inner());
        let k = b.kernel(&format!("{}_inv", K::NAME))?;
        self.launch(k, 0, n, &raw)
    }

    /// Runs the gradient program (the inverse on value/adjoint pairs) for every thread index in
    /// `0..n`: `&mut [T]` parameters are passed with [`Arg::grad`]; their values go back to the
    /// inputs and their adjoints are accumulated. Shared slices' adjoints by `shared`.
    pub fn gradient(&self, n: usize, args: &[Arg], shared: Shared) -> Result<()> {
        match shared {
            Shared::Atomic => {
                let raw = self.raw(args, true, None)?;
                let mut b = self.atomic.lock().unwrap_or_else(|e| e.into_inner());
                let k = b.kernel(&format!("{}_grad", K::NAME))?;
                self.launch(k, 0, n, &raw)
            }
            Shared::Rows => self.gradient_rows(n, args),
        }
    }

    fn gradient_rows(&self, n: usize, args: &[Arg]) -> Result<()> {
        self.raw(args, true, None)?; // validate first
        let built = self
            .rows
            .get_or_init(|| {
                self.dev
                    .build(&self.source, self.precision, true)
                    .map(Mutex::new)
            })
            .as_ref()
            .map_err(|e| e.clone())?;
        // the shared slices and their adjoint buffers
        let mut shared: Vec<(usize, BufView)> = vec![];
        for (k, (p, a)) in K::PARAMS[1..].iter().zip(args).enumerate() {
            if let (ParamKind::RealSliceMut { shared: true }, Arg::Grad(_, g, _)) = (p.kind, a) {
                shared.push((k, *g));
            }
        }
        let row_bytes: usize = shared
            .iter()
            .map(|(_, g)| g.len.max(1) * self.precision.bytes())
            .sum::<usize>()
            .max(1);
        let rows = (self.rows_budget / row_bytes).clamp(1, n.max(1));
        let scratch: Vec<(Buffer<u8>, usize)> = shared
            .iter()
            .map(|(_, g)| {
                let reals = rows * g.len.max(1);
                let b = self
                    .dev
                    .zeros_uninit::<u8>(reals * self.precision.bytes())?;
                Ok((b, reals))
            })
            .collect::<Result<_>>()?;
        let mut b = built.lock().unwrap_or_else(|e| e.into_inner());
        let k = b.kernel(&format!("{}_grad_rows", K::NAME))?;
        let reduce = b.kernel("nl_reduce_rows")?;
        let zero = b.kernel("nl_zero")?;
        let mut start = 0;
        while start < n {
            let end = (start + rows).min(n);
            for (s, reals) in &scratch {
                // only the rows this chunk uses
                let used = (*reals / rows) * (end - start);
                self.run(zero, &[Raw::Mem(s.mem), Raw::U64(used as u64)], used)?;
            }
            let subst: Vec<(usize, Handle)> = shared
                .iter()
                .zip(&scratch)
                .map(|((k, _), (s, _))| (*k, s.mem))
                .collect();
            let raw = self.raw(args, true, Some(&subst))?;
            self.launch(k, start, end, &raw)?;
            for ((_, g), (s, _)) in shared.iter().zip(&scratch) {
                let raw = [
                    Raw::Mem(g.mem),
                    Raw::Mem(s.mem),
                    Raw::U64((end - start) as u64),
                    Raw::U64(g.len as u64),
                ];
                self.run(reduce, &raw, g.len)?;
            }
            start = end;
        }
        Ok(())
    }

    /// The raw arguments after `offset, n`; `subst`: adjoint buffers replaced (rows).
    fn raw(&self, args: &[Arg], grad: bool, subst: Option<&[(usize, Handle)]>) -> Result<Vec<Raw>> {
        let params = &K::PARAMS[1..];
        if args.len() != params.len() {
            return Err(GpuError::Arg {
                index: args.len(),
                name: K::NAME,
                message: format!(
                    "{} arguments given, the kernel takes {} after the thread index ({})",
                    args.len(),
                    params.len(),
                    params.iter().map(|p| p.name).collect::<Vec<_>>().join(", ")
                ),
            });
        }
        let real = ElemKind::Real(self.precision);
        let mut out = vec![];
        for (k, (p, a)) in params.iter().zip(args).enumerate() {
            let bad = |m: String| GpuError::Arg {
                index: k,
                name: p.name,
                message: m,
            };
            let slice_of = |v: &BufView, want: ElemKind| -> Result<()> {
                if v.kind == want {
                    Ok(())
                } else {
                    Err(bad(format!(
                        "a buffer of {want:?} expected, got {:?}",
                        v.kind
                    )))
                }
            };
            match (p.kind, a) {
                (ParamKind::Int { signed: true }, Arg::Int(i)) => out.push(Raw::I64(*i)),
                (ParamKind::Int { signed: false }, Arg::Int(i)) => {
                    let v = u64::try_from(*i).map_err(|_| bad(format!("{i} is negative")))?;
                    out.push(Raw::U64(v))
                }
                (ParamKind::Real, Arg::Real(x)) => out.push(match self.precision {
                    Precision::F64 => Raw::F64(*x),
                    Precision::F32 => Raw::F32(*x as f32),
                }),
                (ParamKind::IntSlice { bytes, signed }, Arg::Slice(v, _)) => {
                    slice_of(v, ElemKind::Int(bytes, signed))?;
                    out.push(Raw::Mem(v.mem));
                    out.push(Raw::U64(v.len as u64));
                }
                (ParamKind::RealSlice, Arg::Slice(v, _)) => {
                    slice_of(v, real)?;
                    out.push(Raw::Mem(v.mem));
                    out.push(Raw::U64(v.len as u64));
                }
                (ParamKind::RealSliceMut { .. }, Arg::Slice(v, _) | Arg::Grad(v, _, _))
                    if !grad =>
                {
                    slice_of(v, real)?;
                    out.push(Raw::Mem(v.mem));
                    out.push(Raw::U64(v.len as u64));
                }
                (ParamKind::RealSliceMut { .. }, Arg::Grad(v, g, _)) => {
                    slice_of(v, real)?;
                    slice_of(g, real)?;
                    if g.len != v.len {
                        return Err(bad(format!(
                            "adjoint buffer of {} elements for values of {}",
                            g.len, v.len
                        )));
                    }
                    let adj = subst
                        .and_then(|s| s.iter().find(|(i, _)| *i == k))
                        .map(|(_, h)| *h)
                        .unwrap_or(g.mem);
                    out.push(Raw::Mem(v.mem));
                    out.push(Raw::Mem(adj));
                    out.push(Raw::U64(v.len as u64));
                }
                (ParamKind::RealSliceMut { .. }, Arg::Slice(..)) => {
                    return Err(bad(
                        "an in-out slice in a gradient launch takes `Arg::grad(values, adjoints)`"
                            .into(),
                    ))
                }
                (kind, a) => return Err(bad(format!("{kind:?} expected, got {a:?}"))),
            }
        }
        Ok(out)
    }

    fn launch(&self, kernel: Handle, start: usize, end: usize, raw: &[Raw]) -> Result<()> {
        if end <= start {
            return Ok(());
        }
        let mut all = vec![Raw::U64(start as u64), Raw::U64(end as u64)];
        all.extend(raw.iter().map(|r| match r {
            Raw::U64(x) => Raw::U64(*x),
            Raw::I64(x) => Raw::I64(*x),
            Raw::F64(x) => Raw::F64(*x),
            Raw::F32(x) => Raw::F32(*x),
            Raw::Mem(h) => Raw::Mem(*h),
        }));
        self.run(kernel, &all, end - start)
    }

    fn run(&self, kernel: Handle, raw: &[Raw], global: usize) -> Result<()> {
        let a = lib()?;
        // SAFETY: each argument's bytes match the kernel's C parameter (checked in `raw`
        // against the generated parameter list); the launch is waited for.
        unsafe {
            for (i, r) in raw.iter().enumerate() {
                let (size, ptr): (usize, *const c_void) = match r {
                    Raw::U64(x) => (8, (x as *const u64).cast()),
                    Raw::I64(x) => (8, (x as *const i64).cast()),
                    Raw::F64(x) => (8, (x as *const f64).cast()),
                    Raw::F32(x) => (4, (x as *const f32).cast()),
                    Raw::Mem(h) => (std::mem::size_of::<Handle>(), (h as *const Handle).cast()),
                };
                check(
                    "clSetKernelArg",
                    (a.set_kernel_arg)(kernel, i as u32, size, ptr),
                )?;
            }
            let g = global;
            check(
                "clEnqueueNDRangeKernel",
                (a.enqueue_nd_range_kernel)(
                    self.dev.ctx.queue,
                    kernel,
                    1,
                    std::ptr::null(),
                    &g,
                    std::ptr::null(),
                    0,
                    std::ptr::null(),
                    std::ptr::null_mut(),
                ),
            )?;
            check("clFinish", (a.finish)(self.dev.ctx.queue))
        }
    }
}

/// The devices available, for a one-line report (`"none: <why>"` where there is none).
///
/// ```
/// println!("OpenCL: {}", nilang_gpu::describe());
/// ```
pub fn describe() -> String {
    match Device::all() {
        Ok(ds) if ds.is_empty() => "none: no OpenCL device".into(),
        Ok(ds) => ds
            .iter()
            .map(|d| format!("{} ({})", d.name(), d.platform()))
            .collect::<Vec<_>>()
            .join(", "),
        Err(e) => format!("none: {e}"),
    }
}
