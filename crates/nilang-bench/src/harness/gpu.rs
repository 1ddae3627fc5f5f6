//! The device cells: `gpu-O`, `gpu-G`, `gpu-J` (tool `"gpu"`), the `#[i(kernel)]` programs of
//! `nilang_gpu::kernels` on an OpenCL device, next to our CPU cells of the same case. Each
//! suite's `gpu.rs` builds them as ordinary [`Kernel`](super::Kernel)s, so they are checked
//! against the suite's reference before they are timed, like every other cell. A timed call
//! includes the launches, the seeds written to the device and the results read back to the
//! host (the inputs stay on the device, as a user's would between calls).
//!
//! Which device ([`crate::cli::GpuChoice`]): by default the cells run only where the first
//! OpenCL device is a GPU; `--gpu` also takes a CPU device (pocl), which checks the device path
//! but whose times say nothing about GPUs; `--no-gpu` never runs them. The run says in one line
//! which device it uses, or why there are no gpu cells.

use crate::cli::GpuChoice;
use nilang_gpu::{Buffer, Device, Elem, GpuError};

/// The tool name of the device cells.
pub const TOOL: &str = "gpu";

/// The suites with device cells.
pub const SUITES: [&str; 3] = ["bessel", "ba", "gmm"];

/// The device of the `gpu-*` cells, if any, and the line that says so.
///
/// ```
/// use nilang_bench::{cli::GpuChoice, harness::gpu::choose};
/// let (dev, line) = choose(GpuChoice::Off);
/// assert!(dev.is_none() && line.contains("--no-gpu"));
/// ```
pub fn choose(choice: GpuChoice) -> (Option<Device>, String) {
    if choice == GpuChoice::Off {
        return (None, "gpu cells: off (--no-gpu)".into());
    }
    match Device::first() {
        Err(e) => (None, format!("gpu cells: none ({e})")),
        Ok(d) if !d.supports_f64() => (
            None,
            format!("gpu cells: none ({} has no double precision)", d.name()),
        ),
        Ok(d) if d.is_gpu() || choice == GpuChoice::Any => {
            let line = format!(
                "gpu cells: {} ({}, {} compute units{})",
                d.name(),
                d.platform(),
                d.compute_units(),
                if d.is_gpu() {
                    ""
                } else {
                    "; not a GPU: these times say nothing about GPUs"
                }
            );
            (Some(d), line)
        }
        Ok(d) => (
            None,
            format!(
                "gpu cells: none (the OpenCL device {} is not a GPU; --gpu runs them on it anyway)",
                d.name()
            ),
        ),
    }
}

/// Bytes of device memory the cells of one case may allocate; larger cases get "-" cells.
pub const MAX_DEVICE_BYTES: usize = 1 << 30;

/// A device buffer holding `data` (a failure here is a crash of the case, with the device's
/// error).
pub fn upload<T: Elem>(dev: &Device, data: &[T]) -> Buffer<T> {
    dev.buffer(data).unwrap_or_else(|e| fail("upload", e))
}

/// A zeroed device buffer of `n` elements.
pub fn zeros<T: Elem>(dev: &Device, n: usize) -> Buffer<T> {
    dev.zeros(n).unwrap_or_else(|e| fail("allocate", e))
}

/// A device buffer that a cell sets back to zero before every call (outputs, and the adjoints
/// of inputs and workspaces, which a gradient launch accumulates into), by a copy on the
/// device from a zero twin. The adjoints of a workspace are zero after a gradient launch only
/// up to rounding, so they are reset too: every call then computes the same result.
pub struct Zeroed {
    /// The buffer the kernels read and write.
    pub buf: Buffer<f64>,
    zero: Buffer<f64>,
}

impl Zeroed {
    /// `n` zeros (and the twin).
    pub fn new(dev: &Device, n: usize) -> Zeroed {
        Zeroed {
            buf: zeros(dev, n),
            zero: zeros(dev, n),
        }
    }
    /// Set the buffer back to zero.
    pub fn reset(&self) {
        self.buf
            .copy_from(&self.zero)
            .unwrap_or_else(|e| fail("reset", e));
    }
}

/// Read `buf` into `out`.
pub fn read(buf: &Buffer<f64>, out: &mut [f64]) {
    buf.read_into(out).unwrap_or_else(|e| fail("read", e));
}

/// A device error inside a cell: the case crashes with this message (the harness records it
/// and goes on with the other cases).
pub fn fail(what: &str, e: GpuError) -> ! {
    panic!("gpu {what}: {e}")
}

/// The device of the unit tests: the first OpenCL device of any kind; `None` (the test is
/// skipped, with a line) where there is none, unless `NILANG_REQUIRE_OPENCL=1` (CI installs
/// pocl), where its absence fails the test.
#[cfg(test)]
pub(crate) fn test_device() -> Option<Device> {
    match Device::first() {
        Ok(d) => Some(d),
        Err(e) if std::env::var("NILANG_REQUIRE_OPENCL").as_deref() == Ok("1") => {
            panic!("NILANG_REQUIRE_OPENCL=1 but no OpenCL device: {e}")
        }
        Err(e) => {
            eprintln!(
                "skipped (no OpenCL device: {e}); set NILANG_REQUIRE_OPENCL=1 to fail instead"
            );
            None
        }
    }
}

/// Run `k` twice (a timed cell runs many times: its state must be ready again) and return both
/// results.
#[cfg(test)]
pub(crate) fn twice(k: &mut super::Kernel<'_>) -> (Vec<f64>, Vec<f64>) {
    k.run();
    let a = k.result();
    k.run();
    (a, k.result())
}

/// Whether every `got[i]` is within `tol` (relative, ADBench's metric) of `want[i]`.
#[cfg(test)]
pub(crate) fn close(got: &[f64], want: &[f64], tol: f64) -> bool {
    got.len() == want.len() && nilang_adbench::oracle::compare(got, want, tol).is_ok()
}
