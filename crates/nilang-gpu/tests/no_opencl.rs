//! Without an OpenCL library nothing panics: discovery returns a typed error (and where a
//! CUDA device is present, it is still found: CUDA needs no OpenCL).
use nilang_gpu::{Backend, Device, GpuError};

#[test]
fn missing_library_is_an_error_value() {
    // the only test of this binary: the library is loaded once per process
    std::env::set_var("NILANG_OPENCL_LIB", "/nonexistent/libOpenCL.so.1");
    let e = Device::first_of(Backend::OpenCl).unwrap_err();
    assert!(matches!(e, GpuError::NoLibrary(_)), "{e:?}");
    assert!(e.to_string().contains("/nonexistent/libOpenCL.so.1"), "{e}");
    match Device::first() {
        Ok(d) => {
            assert_eq!(d.backend(), Backend::Cuda, "{}", d.name());
            assert!(Device::all()
                .unwrap()
                .iter()
                .all(|d| d.backend() == Backend::Cuda));
        }
        Err(e) => {
            assert!(matches!(e, GpuError::NoLibrary(_)), "{e:?}");
            assert!(e.to_string().contains("/nonexistent/libOpenCL.so.1"), "{e}");
            assert!(matches!(Device::all(), Err(GpuError::NoLibrary(_))));
            assert!(nilang_gpu::describe().starts_with("none: "));
        }
    }
}
