//! Built kernels and their launches: the forward, inverse and gradient programs over thread
//! indices, and the two ways of accumulating the adjoints of shared slices.
use crate::args::{marshal, Arg, Raw};
use crate::buffer::{BufView, MemRef};
use crate::device::Ctx;
use crate::error::{GpuError, Result};
use crate::{cuda, opencl, Buffer, Device, Precision};
use nilang::kernel::{DeviceCode, ParamKind};
use std::marker::PhantomData;
use std::sync::{Mutex, OnceLock};

/// How adjoints of shared slices (read by many threads) are accumulated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shared {
    /// Atomic adds straight into the adjoint buffer (OpenCL: compare-and-swap loops; CUDA:
    /// `atomicAdd`).
    Atomic,
    /// One private row of partial adjoints per thread, summed afterwards in thread order
    /// (deterministic; threads are launched in chunks that fit the program's row budget).
    Rows,
}

/// A built program of either backend.
enum Built {
    Cl(opencl::Built),
    Cuda(cuda::Built),
}

/// A kernel of a built program.
enum Kernel {
    Cl(opencl::ClHandle),
    Cuda(cudarc::driver::CudaFunction),
}

impl Built {
    fn kernel(&mut self, name: &str) -> Result<Kernel> {
        match self {
            Built::Cl(b) => b.kernel(name).map(Kernel::Cl),
            Built::Cuda(b) => b.kernel(name).map(Kernel::Cuda),
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

fn lock(m: &Mutex<Built>) -> std::sync::MutexGuard<'_, Built> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl<K: DeviceCode> Program<K> {
    pub(crate) fn new(dev: Device, precision: Precision) -> Result<Program<K>> {
        let source = nilang::kernel::program_source_in::<K>(dev.backend().dialect());
        let atomic = build(&dev, &source, precision, false)?;
        Ok(Program {
            dev,
            precision,
            source,
            atomic: Mutex::new(atomic),
            rows: OnceLock::new(),
            rows_budget: 256 << 20,
            _k: PhantomData,
        })
    }
    /// The source (OpenCL C, or CUDA C++: the same text after its dialect header).
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

    fn marshal(&self, args: &[Arg], grad: bool, subst: &[(usize, MemRef)]) -> Result<Vec<Raw>> {
        let raw = marshal(K::NAME, K::PARAMS, args, self.precision, grad, subst)?;
        let cuda = matches!(self.dev.ctx, Ctx::Cuda(_));
        let foreign = raw
            .iter()
            .any(|r| matches!(r, Raw::Mem(MemRef::Cuda(_))) != cuda && matches!(r, Raw::Mem(_)));
        if foreign {
            return Err(GpuError::Arg {
                index: 0,
                name: K::NAME,
                message: "a buffer of another backend than the program's".into(),
            });
        }
        Ok(raw)
    }

    /// Runs entry point `K::NAME + suffix` of the atomic build over `0..n`.
    fn entry(&self, suffix: &str, n: usize, args: &[Arg], grad: bool) -> Result<()> {
        let raw = self.marshal(args, grad, &[])?;
        let k = lock(&self.atomic).kernel(&format!("{}_{suffix}", K::NAME))?;
        self.launch(&k, 0, n, &raw)
    }

    /// Runs the forward program for every thread index in `0..n`.
    pub fn forward(&self, n: usize, args: &[Arg]) -> Result<()> {
        self.entry("fwd", n, args, false)
    }

    /// Runs the inverse program for every thread index in `0..n`.
    pub fn inverse(&self, n: usize, args: &[Arg]) -> Result<()> {
        self.entry("inv", n, args, false)
    }

    /// Runs the gradient program (the inverse on value/adjoint pairs) for every thread index in
    /// `0..n`: `&mut [T]` parameters are passed with [`Arg::grad`]; their values go back to the
    /// inputs and their adjoints are accumulated. Shared slices' adjoints by `shared`.
    pub fn gradient(&self, n: usize, args: &[Arg], shared: Shared) -> Result<()> {
        match shared {
            Shared::Atomic => self.entry("grad", n, args, true),
            Shared::Rows => self.gradient_rows(n, args),
        }
    }

    fn gradient_rows(&self, n: usize, args: &[Arg]) -> Result<()> {
        self.marshal(args, true, &[])?; // validate first
        let built = self
            .rows
            .get_or_init(|| build(&self.dev, &self.source, self.precision, true).map(Mutex::new))
            .as_ref()
            .map_err(|e| e.clone())?;
        // the shared slices and their adjoint buffers
        let mut shared: Vec<(usize, BufView)> = vec![];
        for (k, (p, a)) in K::PARAMS[1..].iter().zip(args).enumerate() {
            if let (ParamKind::RealSliceMut { shared: true }, Arg::Grad(_, g, _)) = (p.kind, a) {
                shared.push((k, *g));
            }
        }
        let real = self.precision.bytes();
        let row_bytes: usize = shared.iter().map(|(_, g)| g.len.max(1) * real).sum();
        let rows = (self.rows_budget / row_bytes.max(1)).clamp(1, n.max(1));
        let scratch: Vec<(Buffer<u8>, usize)> = shared
            .iter()
            .map(|(_, g)| {
                let reals = rows * g.len.max(1);
                Ok((self.dev.zeros_uninit::<u8>(reals * real)?, reals))
            })
            .collect::<Result<_>>()?;
        let (k, reduce, zero) = {
            let mut b = lock(built);
            let k = b.kernel(&format!("{}_grad_rows", K::NAME))?;
            (k, b.kernel("nl_reduce_rows")?, b.kernel("nl_zero")?)
        };
        let subst: Vec<(usize, MemRef)> = shared
            .iter()
            .zip(&scratch)
            .map(|((k, _), (s, _))| (*k, s.mem_ref()))
            .collect();
        let raw = self.marshal(args, true, &subst)?;
        let mut start = 0;
        while start < n {
            let end = (start + rows).min(n);
            for (s, reals) in &scratch {
                // only the rows this chunk uses
                let used = (*reals / rows) * (end - start);
                self.run(&zero, &[Raw::Mem(s.mem_ref()), Raw::U64(used as u64)], used)?;
            }
            self.launch(&k, start, end, &raw)?;
            for ((_, g), (s, _)) in shared.iter().zip(&scratch) {
                let raw = [
                    Raw::Mem(g.mem),
                    Raw::Mem(s.mem_ref()),
                    Raw::U64((end - start) as u64),
                    Raw::U64(g.len as u64),
                ];
                self.run(&reduce, &raw, g.len)?;
            }
            start = end;
        }
        Ok(())
    }

    /// Runs an entry point over the thread indices `start..end`.
    fn launch(&self, kernel: &Kernel, start: usize, end: usize, raw: &[Raw]) -> Result<()> {
        if end <= start {
            return Ok(());
        }
        let mut all = vec![Raw::U64(start as u64), Raw::U64(end as u64)];
        all.extend_from_slice(raw);
        self.run(kernel, &all, end - start)
    }

    fn run(&self, kernel: &Kernel, raw: &[Raw], global: usize) -> Result<()> {
        // SAFETY (both arms): each argument matches the kernel's C parameter (checked by
        // `marshal` against the generated parameter list); the launch is waited for.
        match (&self.dev.ctx, kernel) {
            (Ctx::Cl(c), Kernel::Cl(k)) => {
                let args: Vec<(usize, *const std::ffi::c_void)> = raw
                    .iter()
                    .map(|r| match r {
                        Raw::U64(x) => (8, (x as *const u64).cast()),
                        Raw::I64(x) => (8, (x as *const i64).cast()),
                        Raw::F64(x) => (8, (x as *const f64).cast()),
                        Raw::F32(x) => (4, (x as *const f32).cast()),
                        Raw::Mem(MemRef::Cl(h)) => (
                            std::mem::size_of_val(h),
                            (h as *const opencl::ClHandle).cast(),
                        ),
                        Raw::Mem(MemRef::Cuda(_)) => (0, std::ptr::null()),
                    })
                    .collect();
                unsafe { c.run(*k, &args, global) }
            }
            (Ctx::Cuda(c), Kernel::Cuda(k)) => {
                let args: Vec<cuda::Scalar> = raw
                    .iter()
                    .map(|r| match *r {
                        Raw::U64(x) => cuda::Scalar::U64(x),
                        Raw::I64(x) => cuda::Scalar::I64(x),
                        Raw::F64(x) => cuda::Scalar::F64(x),
                        Raw::F32(x) => cuda::Scalar::F32(x),
                        Raw::Mem(MemRef::Cuda(p)) => cuda::Scalar::U64(p),
                        Raw::Mem(MemRef::Cl(_)) => cuda::Scalar::U64(0),
                    })
                    .collect();
                unsafe { c.run(k, &args, global) }
            }
            _ => unreachable!("a program's kernels are of its device's backend"),
        }
    }
}

fn build(dev: &Device, source: &str, precision: Precision, rows: bool) -> Result<Built> {
    match &dev.ctx {
        Ctx::Cl(c) => c.build(source, precision, rows).map(Built::Cl),
        Ctx::Cuda(c) => c.build(source, precision, rows).map(Built::Cuda),
    }
}
