//! Device buffers: typed, with host↔device and device↔device copies, on either backend.
use crate::device::Ctx;
use crate::error::{length_mismatch, Result};
use crate::{cuda, opencl, Elem, ElemKind};
use std::marker::PhantomData;

/// A backend's device memory (released when dropped).
pub(crate) enum Mem {
    Cl(opencl::Mem),
    Cuda(cuda::Mem),
}

/// A reference to device memory, as passed to a kernel.
#[derive(Clone, Copy, Debug)]
pub(crate) enum MemRef {
    Cl(opencl::ClHandle),
    Cuda(u64),
}

/// A device buffer of `T`.
pub struct Buffer<T> {
    mem: Mem,
    len: usize,
    ctx: Ctx,
    _t: PhantomData<T>,
}
// SAFETY: OpenCL memory objects and CUDA device pointers may be used from any thread (copies
// and launches wait for completion).
unsafe impl<T: Send> Send for Buffer<T> {}
unsafe impl<T: Sync> Sync for Buffer<T> {}

impl<T: Elem> Buffer<T> {
    pub(crate) fn new(mem: Mem, len: usize, ctx: Ctx) -> Buffer<T> {
        Buffer {
            mem,
            len,
            ctx,
            _t: PhantomData,
        }
    }
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
            return Err(length_mismatch("data", data.len(), self.len));
        }
        if self.len == 0 {
            return Ok(());
        }
        match (&self.ctx, &self.mem) {
            (Ctx::Cl(c), Mem::Cl(m)) => {
                c.write(m, data.as_ptr().cast(), std::mem::size_of_val(data))
            }
            (Ctx::Cuda(c), Mem::Cuda(m)) => c.write(m, data),
            _ => unreachable!("a buffer's memory is of its context's backend"),
        }
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
            return Err(length_mismatch("out", out.len(), self.len));
        }
        if self.len == 0 {
            return Ok(());
        }
        match (&self.ctx, &self.mem) {
            (Ctx::Cl(c), Mem::Cl(m)) => {
                let bytes = std::mem::size_of_val(out);
                c.read(m, out.as_mut_ptr().cast(), bytes)
            }
            (Ctx::Cuda(c), Mem::Cuda(m)) => c.read(m, out),
            _ => unreachable!("a buffer's memory is of its context's backend"),
        }
    }
    /// Copies `src` (of the same length, on the same device) into this buffer on the device.
    pub fn copy_from(&self, src: &Buffer<T>) -> Result<()> {
        if src.len != self.len {
            return Err(length_mismatch("src", src.len, self.len));
        }
        if self.len == 0 {
            return Ok(());
        }
        let bytes = self.len * std::mem::size_of::<T>();
        match (&self.ctx, &self.mem, &src.mem) {
            (Ctx::Cl(c), Mem::Cl(d), Mem::Cl(s)) => c.copy(d, s, bytes),
            (Ctx::Cuda(c), Mem::Cuda(d), Mem::Cuda(s)) => c.copy(d, s, bytes),
            _ => Err(crate::GpuError::Arg {
                index: 0,
                name: "src",
                message: "a buffer of another backend".into(),
            }),
        }
    }
    /// The buffer as a launch argument.
    pub(crate) fn view(&self) -> BufView {
        BufView {
            mem: self.mem_ref(),
            len: self.len,
            kind: T::KIND,
        }
    }
    pub(crate) fn mem_ref(&self) -> MemRef {
        match &self.mem {
            Mem::Cl(m) => MemRef::Cl(m.mem),
            Mem::Cuda(m) => MemRef::Cuda(m.ptr),
        }
    }
}

/// A buffer as a launch argument (made by `Arg::from(&buffer)` and [`crate::Arg::grad`]).
#[derive(Clone, Copy, Debug)]
pub struct BufView {
    pub(crate) mem: MemRef,
    pub(crate) len: usize,
    pub(crate) kind: ElemKind,
}
