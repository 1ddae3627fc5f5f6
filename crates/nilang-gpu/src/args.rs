//! Launch arguments: what a caller passes ([`Arg`]) and its check against the kernel's
//! parameters, down to the values each backend sets ([`Raw`]).
use crate::buffer::BufView;
use crate::driver::{MemRef, Raw};
use crate::error::{GpuError, Result};
use crate::{Buffer, Elem, ElemKind, Precision};
use nilang::kernel::{KernelParam, ParamKind};
use std::marker::PhantomData;

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
    /// Values and adjoints of a `&mut [T]` parameter (for [`crate::Program::gradient`]).
    pub fn grad<T: Elem>(value: &'a Buffer<T>, adjoint: &'a Buffer<T>) -> Arg<'a> {
        Arg::Grad(value.view(), adjoint.view(), PhantomData)
    }
}

/// The values after `offset, n` for `args` of a kernel with parameters `params` (thread index
/// first) in `precision`; `grad`: a gradient launch; `subst`: adjoint buffers replaced (the
/// per-thread rows of shared slices, by parameter index).
pub(crate) fn marshal(
    kernel: &'static str,
    params: &'static [KernelParam],
    args: &[Arg],
    precision: Precision,
    grad: bool,
    subst: &[(usize, MemRef)],
) -> Result<Vec<Raw>> {
    let params = &params[1..];
    if args.len() != params.len() {
        return Err(GpuError::Arg {
            index: args.len(),
            name: kernel,
            message: format!(
                "{} arguments given, the kernel takes {} after the thread index ({})",
                args.len(),
                params.len(),
                params.iter().map(|p| p.name).collect::<Vec<_>>().join(", ")
            ),
        });
    }
    let real = ElemKind::Real(precision);
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
            (ParamKind::Real, Arg::Real(x)) => out.push(match precision {
                Precision::F64 => Raw::F64(*x),
                Precision::F32 => Raw::F32(*x as f32),
            }),
            (ParamKind::IntSlice { bytes, signed }, Arg::Slice(v, _)) => {
                slice_of(v, ElemKind::Int(bytes, signed))?;
                out.extend([Raw::Mem(v.mem), Raw::U64(v.len as u64)]);
            }
            (ParamKind::RealSlice, Arg::Slice(v, _)) => {
                slice_of(v, real)?;
                out.extend([Raw::Mem(v.mem), Raw::U64(v.len as u64)]);
            }
            (ParamKind::RealSliceMut { .. }, Arg::Slice(v, _) | Arg::Grad(v, _, _)) if !grad => {
                slice_of(v, real)?;
                out.extend([Raw::Mem(v.mem), Raw::U64(v.len as u64)]);
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
                    .iter()
                    .find(|(i, _)| *i == k)
                    .map_or(g.mem, |(_, m)| *m);
                out.extend([Raw::Mem(v.mem), Raw::Mem(adj), Raw::U64(v.len as u64)]);
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
