//! Device buffers: typed, with host↔device and device↔device copies, on either backend
//! (through its [`Driver`]).
use crate::driver::{Driver, MemRef};
use crate::error::{length_mismatch, Result};
use crate::{Elem, ElemKind};
use std::marker::PhantomData;
use std::sync::Arc;

/// A device buffer of `T`.
pub struct Buffer<T> {
    mem: MemRef,
    len: usize,
    /// The device's driver (kept alive while the buffer is; frees `mem` on drop).
    driver: Arc<dyn Driver>,
    _t: PhantomData<T>,
}

impl<T> Drop for Buffer<T> {
    fn drop(&mut self) {
        // SAFETY: `mem` came from this driver's `alloc` (`Buffer::new`) and is freed once.
        unsafe { self.driver.free(self.mem) }
    }
}

/// The bytes of a slice of numbers.
fn bytes_of<T: Elem>(data: &[T]) -> &[u8] {
    // SAFETY: `Elem` types are plain numbers (no padding); any `T` is readable as bytes.
    unsafe { std::slice::from_raw_parts(data.as_ptr().cast(), std::mem::size_of_val(data)) }
}

/// The bytes of a mutable slice of numbers.
fn bytes_of_mut<T: Elem>(data: &mut [T]) -> &mut [u8] {
    let n = std::mem::size_of_val(data);
    // SAFETY: `Elem` types are plain numbers for which every bit pattern is a value.
    unsafe { std::slice::from_raw_parts_mut(data.as_mut_ptr().cast(), n) }
}

impl<T: Elem> Buffer<T> {
    /// A buffer of `len` elements in `mem` (memory of `driver`'s `alloc`, freed on drop).
    pub(crate) fn new(mem: MemRef, len: usize, driver: Arc<dyn Driver>) -> Buffer<T> {
        Buffer {
            mem,
            len,
            driver,
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
        // SAFETY: the buffer's memory holds `len` elements, as many as `data`.
        unsafe { self.driver.write(self.mem, bytes_of(data)) }
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
        // SAFETY: the buffer's memory holds `len` elements, as many as `out`.
        unsafe { self.driver.read(self.mem, bytes_of_mut(out)) }
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
        if src.mem.backend != self.mem.backend {
            return Err(crate::GpuError::Arg {
                index: 0,
                name: "src",
                message: "a buffer of another backend".into(),
            });
        }
        // SAFETY: both hold `len` elements, of this backend.
        unsafe { self.driver.copy(self.mem, src.mem, bytes) }
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
        self.mem
    }
}

/// A buffer as a launch argument (made by `Arg::from(&buffer)` and [`crate::Arg::grad`]).
#[derive(Clone, Copy, Debug)]
pub struct BufView {
    pub(crate) mem: MemRef,
    pub(crate) len: usize,
    pub(crate) kind: ElemKind,
}
