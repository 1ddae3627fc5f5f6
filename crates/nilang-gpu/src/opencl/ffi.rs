//! The OpenCL C API, loaded at run time (`libOpenCL`): nothing is linked at build time, so the
//! crate builds and its tests run on machines without OpenCL.
#![allow(non_camel_case_types)]
use libloading::Library;
use std::ffi::c_void;
use std::sync::OnceLock;

pub type cl_int = i32;
pub type cl_uint = u32;
pub type Handle = *mut c_void;

pub const CL_SUCCESS: cl_int = 0;
pub const CL_DEVICE_TYPE_ALL: u64 = 0xFFFF_FFFF;
pub const CL_DEVICE_TYPE_GPU: u64 = 1 << 2;
pub const CL_PLATFORM_NAME: cl_uint = 0x0902;
pub const CL_DEVICE_TYPE: cl_uint = 0x1000;
pub const CL_DEVICE_NAME: cl_uint = 0x102B;
pub const CL_DEVICE_EXTENSIONS: cl_uint = 0x1030;
pub const CL_DEVICE_MAX_COMPUTE_UNITS: cl_uint = 0x1002;
pub const CL_MEM_READ_WRITE: u64 = 1;
pub const CL_PROGRAM_BUILD_LOG: cl_uint = 0x1183;

type InfoFn = unsafe extern "C" fn(Handle, cl_uint, usize, *mut c_void, *mut usize) -> cl_int;
type ReleaseFn = unsafe extern "C" fn(Handle) -> cl_int;
type Notify = *const c_void;
/// `clEnqueueWriteBuffer` (`P = *const c_void`) and `clEnqueueReadBuffer` (`*mut c_void`):
/// queue, buffer, blocking, offset, bytes, host pointer, wait list, event.
type EnqueueRw<P> = unsafe extern "C" fn(
    Handle,
    Handle,
    cl_uint,
    usize,
    usize,
    P,
    cl_uint,
    *const Handle,
    *mut Handle,
) -> cl_int;

/// The entry points used.
pub struct Api {
    _lib: Library,
    pub get_platform_ids: unsafe extern "C" fn(cl_uint, *mut Handle, *mut cl_uint) -> cl_int,
    pub get_platform_info: InfoFn,
    pub get_device_ids:
        unsafe extern "C" fn(Handle, u64, cl_uint, *mut Handle, *mut cl_uint) -> cl_int,
    pub get_device_info: InfoFn,
    pub create_context: unsafe extern "C" fn(
        *const isize,
        cl_uint,
        *const Handle,
        Notify,
        *mut c_void,
        *mut cl_int,
    ) -> Handle,
    pub create_command_queue: unsafe extern "C" fn(Handle, Handle, u64, *mut cl_int) -> Handle,
    pub create_buffer: unsafe extern "C" fn(Handle, u64, usize, *mut c_void, *mut cl_int) -> Handle,
    pub enqueue_write_buffer: EnqueueRw<*const c_void>,
    pub enqueue_read_buffer: EnqueueRw<*mut c_void>,
    pub enqueue_copy_buffer: unsafe extern "C" fn(
        Handle,
        Handle,
        Handle,
        usize,
        usize,
        usize,
        cl_uint,
        *const Handle,
        *mut Handle,
    ) -> cl_int,
    pub create_program_with_source: unsafe extern "C" fn(
        Handle,
        cl_uint,
        *const *const std::ffi::c_char,
        *const usize,
        *mut cl_int,
    ) -> Handle,
    pub build_program: unsafe extern "C" fn(
        Handle,
        cl_uint,
        *const Handle,
        *const std::ffi::c_char,
        Notify,
        *mut c_void,
    ) -> cl_int,
    pub get_program_build_info:
        unsafe extern "C" fn(Handle, Handle, cl_uint, usize, *mut c_void, *mut usize) -> cl_int,
    pub create_kernel: unsafe extern "C" fn(Handle, *const std::ffi::c_char, *mut cl_int) -> Handle,
    pub set_kernel_arg: unsafe extern "C" fn(Handle, cl_uint, usize, *const c_void) -> cl_int,
    pub enqueue_nd_range_kernel: unsafe extern "C" fn(
        Handle,
        Handle,
        cl_uint,
        *const usize,
        *const usize,
        *const usize,
        cl_uint,
        *const Handle,
        *mut Handle,
    ) -> cl_int,
    pub finish: unsafe extern "C" fn(Handle) -> cl_int,
    pub release_mem_object: ReleaseFn,
    pub release_kernel: ReleaseFn,
    pub release_program: ReleaseFn,
    pub release_command_queue: ReleaseFn,
    pub release_context: ReleaseFn,
}

/// The library names tried, in order (only `NILANG_OPENCL_LIB` when set).
fn candidates() -> Vec<String> {
    let mut v = vec![];
    if let Ok(p) = std::env::var("NILANG_OPENCL_LIB") {
        return vec![p];
    }
    for n in [
        "libOpenCL.so.1",
        "libOpenCL.so",
        "/System/Library/Frameworks/OpenCL.framework/OpenCL",
        "OpenCL.dll",
    ] {
        v.push(n.to_string());
    }
    v
}

fn load() -> Result<Api, String> {
    let mut tried = vec![];
    for name in candidates() {
        // SAFETY: loading the system's OpenCL ICD loader runs its initialisers only.
        match unsafe { Library::new(&name) } {
            Ok(lib) => return resolve(lib).map_err(|e| format!("{name}: {e}")),
            Err(e) => tried.push(format!("{name} ({e})")),
        }
    }
    Err(format!(
        "no OpenCL library found; tried {}",
        tried.join(", ")
    ))
}

fn resolve(lib: Library) -> Result<Api, libloading::Error> {
    // SAFETY: the symbols have the OpenCL 1.2 C signatures declared above.
    unsafe {
        macro_rules! sym {
            ($n:literal) => {
                *lib.get($n)?
            };
        }
        Ok(Api {
            get_platform_ids: sym!(b"clGetPlatformIDs\0"),
            get_platform_info: sym!(b"clGetPlatformInfo\0"),
            get_device_ids: sym!(b"clGetDeviceIDs\0"),
            get_device_info: sym!(b"clGetDeviceInfo\0"),
            create_context: sym!(b"clCreateContext\0"),
            create_command_queue: sym!(b"clCreateCommandQueue\0"),
            create_buffer: sym!(b"clCreateBuffer\0"),
            enqueue_write_buffer: sym!(b"clEnqueueWriteBuffer\0"),
            enqueue_read_buffer: sym!(b"clEnqueueReadBuffer\0"),
            enqueue_copy_buffer: sym!(b"clEnqueueCopyBuffer\0"),
            create_program_with_source: sym!(b"clCreateProgramWithSource\0"),
            build_program: sym!(b"clBuildProgram\0"),
            get_program_build_info: sym!(b"clGetProgramBuildInfo\0"),
            create_kernel: sym!(b"clCreateKernel\0"),
            set_kernel_arg: sym!(b"clSetKernelArg\0"),
            enqueue_nd_range_kernel: sym!(b"clEnqueueNDRangeKernel\0"),
            finish: sym!(b"clFinish\0"),
            release_mem_object: sym!(b"clReleaseMemObject\0"),
            release_kernel: sym!(b"clReleaseKernel\0"),
            release_program: sym!(b"clReleaseProgram\0"),
            release_command_queue: sym!(b"clReleaseCommandQueue\0"),
            release_context: sym!(b"clReleaseContext\0"),
            _lib: lib,
        })
    }
}

/// The API, loaded once (an error message where there is no OpenCL library).
pub fn api() -> Result<&'static Api, String> {
    static API: OnceLock<Result<Api, String>> = OnceLock::new();
    API.get_or_init(load).as_ref().map_err(|e| e.clone())
}

/// A string-valued info query.
pub fn info_string(f: InfoFn, h: Handle, param: cl_uint) -> String {
    let mut size = 0usize;
    // SAFETY: size query, then a buffer of that size.
    unsafe {
        if f(h, param, 0, std::ptr::null_mut(), &mut size) != CL_SUCCESS || size == 0 {
            return String::new();
        }
        let mut buf = vec![0u8; size];
        if f(
            h,
            param,
            size,
            buf.as_mut_ptr().cast(),
            std::ptr::null_mut(),
        ) != CL_SUCCESS
        {
            return String::new();
        }
        let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
        String::from_utf8_lossy(&buf[..end]).into_owned()
    }
}

/// A fixed-size info query.
pub fn info_value<T: Copy + Default>(f: InfoFn, h: Handle, param: cl_uint) -> T {
    let mut v = T::default();
    // SAFETY: `T` is the info's C type (a `cl_ulong`/`cl_uint`).
    unsafe {
        f(
            h,
            param,
            std::mem::size_of::<T>(),
            (&mut v as *mut T).cast(),
            std::ptr::null_mut(),
        );
    }
    v
}
