//! Built kernels and their launches: the forward, inverse and gradient programs over thread
//! indices, and the two ways of accumulating the adjoints of shared slices.
use crate::args::{marshal, Arg};
use crate::buffer::BufView;
use crate::driver::{MemRef, Module, Raw};
use crate::error::{GpuError, Result};
use crate::{Buffer, Device, Precision};
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

/// A kernel built for one device and precision.
pub struct Program<K> {
    dev: Device,
    precision: Precision,
    source: String,
    atomic: Mutex<Box<dyn Module>>,
    rows: OnceLock<std::result::Result<Mutex<Box<dyn Module>>, GpuError>>,
    rows_budget: usize,
    _k: PhantomData<K>,
}

fn lock(m: &Mutex<Box<dyn Module>>) -> std::sync::MutexGuard<'_, Box<dyn Module>> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Device {
    /// Builds kernel `K` (an `#[i(kernel)]` function) in `precision`: one emitted source, in
    /// the device's dialect (OpenCL C, or CUDA C++ for NVRTC).
    pub fn program<K: DeviceCode>(&self, precision: Precision) -> Result<Program<K>> {
        if K::PARAMS.is_empty() {
            return Err(GpuError::NotAKernel(K::NAME));
        }
        if precision == Precision::F64 && !self.info.fp64 {
            return Err(GpuError::NoF64);
        }
        Program::new(self.clone(), precision)
    }
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
        let backend = self.dev.backend();
        let foreign = raw
            .iter()
            .any(|r| matches!(r, Raw::Mem(m) if m.backend != backend));
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
        launch(&self.atomic, &format!("{}_{suffix}", K::NAME), 0, n, &raw)
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
        let entry = format!("{}_grad_rows", K::NAME);
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
                let zero = [Raw::Mem(s.mem_ref()), Raw::U64(used as u64)];
                run(built, "nl_zero", &zero, used)?;
            }
            launch(built, &entry, start, end, &raw)?;
            for ((_, g), (s, _)) in shared.iter().zip(&scratch) {
                let raw = [
                    Raw::Mem(g.mem),
                    Raw::Mem(s.mem_ref()),
                    Raw::U64((end - start) as u64),
                    Raw::U64(g.len as u64),
                ];
                run(built, "nl_reduce_rows", &raw, g.len)?;
            }
            start = end;
        }
        Ok(())
    }
}

/// Runs entry point `name` of `module` over the thread indices `start..end` (arguments after
/// `offset, n`: `raw`).
fn launch(
    module: &Mutex<Box<dyn Module>>,
    name: &str,
    start: usize,
    end: usize,
    raw: &[Raw],
) -> Result<()> {
    if end <= start {
        return Ok(());
    }
    let mut all = vec![Raw::U64(start as u64), Raw::U64(end as u64)];
    all.extend_from_slice(raw);
    run(module, name, &all, end - start)
}

/// Runs kernel `name` of `module` over `global` work items.
fn run(module: &Mutex<Box<dyn Module>>, name: &str, raw: &[Raw], global: usize) -> Result<()> {
    // SAFETY: each argument matches the kernel's C parameter (checked by `marshal` against the
    // generated parameter list; buffers of the module's backend); the launch is waited for.
    unsafe { lock(module).launch(name, raw, global) }
}

fn build(dev: &Device, source: &str, precision: Precision, rows: bool) -> Result<Box<dyn Module>> {
    dev.driver.clone().build(source, precision, rows)
}
