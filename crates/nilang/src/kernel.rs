//! Device code of `#[i(kernel)]` and `#[i(device)]` functions (the OpenCL C text the compiler
//! emits, and what a runtime such as `nilang-gpu` needs to launch it).
//!
//! `#[i(kernel)]` on `fn f(tid: usize, ...)` generates, next to `f` and `f_inv`, an impl of
//! [`DeviceCode`] for the type-namespace item `f`: OpenCL C for the forward, the inverse and
//! the gradient (the inverse on value/adjoint pairs) of `f`, and the `__kernel` entry points
//! that run it for every thread index in `0..n`. `#[i(device)]` generates the device functions
//! only (callable from kernels).
//!
//! ```
//! use nilang::prelude::*;
//! use nilang::kernel::DeviceCode;
//!
//! #[i(kernel)]
//! fn axpy<T: Scalar>(tid: usize, y: &mut [T], x: &mut [T], a: T) {
//!     y[tid] += a * x[tid];
//! }
//! let src = nilang::kernel::program_source::<axpy>();
//! assert!(src.contains("__kernel void axpy_fwd"));
//! assert!(src.contains("__kernel void axpy_grad"));
//! assert_eq!(axpy::PARAMS.len(), 4);
//! ```

/// The kind of a kernel parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamKind {
    /// The thread index (the first parameter, `usize`).
    Thread,
    /// An integer passed by value (`usize`, `i64`, ...; 8 bytes on the device).
    Int {
        /// Whether it is signed.
        signed: bool,
    },
    /// A real number (`T`, `f64`, `f32`) passed by value or by `&T` (read-only).
    Real,
    /// A slice of integers, read-only (`&[usize]`); `bytes` per element, `signed`.
    IntSlice {
        /// Bytes per element.
        bytes: u8,
        /// Whether the elements are signed.
        signed: bool,
    },
    /// A read-only slice of reals (`&[T]`): no adjoint buffer.
    RealSlice,
    /// An in-out slice of reals (`&mut [T]`): a value buffer and, for the gradient, an
    /// adjoint buffer. `shared` when the kernel never writes it: many threads may read one
    /// element, so its adjoints are accumulated (atomic adds or per-thread rows reduced).
    RealSliceMut {
        /// Never written by the kernel (adjoints accumulated across threads).
        shared: bool,
    },
}

/// A parameter of a kernel: its name and kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KernelParam {
    /// The parameter's name in the Rust source.
    pub name: &'static str,
    /// What is passed for it.
    pub kind: ParamKind,
}

/// OpenCL C source of a `#[i(kernel)]`/`#[i(device)]` function (generated; see the module
/// docs).
pub trait DeviceCode {
    /// The function's name (the entry points are `NAME_fwd`, `NAME_inv`, `NAME_grad` and
    /// `NAME_grad_rows`).
    const NAME: &'static str;
    /// The parameters (empty for `#[i(device)]` functions, which have no entry points).
    const PARAMS: &'static [KernelParam];
    /// Appends `(name, source)` of this function's callees and then of itself to `out`
    /// (each name once).
    fn device_code(out: &mut Vec<(&'static str, String)>);
}

/// The OpenCL C dialect header: `REAL` (from `-D NL_REAL=double|float`), no contraction, the
/// atomic add on reals (a compare-and-swap loop), and the spellings [`PRELUDE`] and the
/// emitted code use for function qualifiers (`NL_FN`, `NL_INLINE`: nothing and `inline`).
pub const OPENCL_HEADER: &str = r#"
#ifndef NL_REAL
#define NL_REAL double
#endif
#if defined(cl_khr_fp64)
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
/* no fused multiply-adds: every operation rounds as on the CPU */
#pragma OPENCL FP_CONTRACT OFF
#define NL_FN
#define NL_FN_PRIVATE __attribute__((always_inline))
#define NL_INLINE inline
typedef NL_REAL REAL;
/* the atomic add on reals: a compare-and-swap loop on the real's bits */
#if NL_REAL_BYTES == 8
#define NL_REAL_BITS ulong
#define NL_CMPXCHG atom_cmpxchg
#else
#define NL_REAL_BITS uint
#define NL_CMPXCHG atomic_cmpxchg
#endif
inline void nl_atomic_add(volatile __global REAL* p, REAL v) {
    union { NL_REAL_BITS u; REAL f; } old, new_;
    do {
        old.f = *p;
        new_.f = old.f + v;
    } while (NL_CMPXCHG((volatile __global NL_REAL_BITS*)p, old.u, new_.u) != old.u);
}
"#;

/// The CUDA C++ dialect header (for NVRTC): the OpenCL C spellings of the emitted source
/// mapped onto CUDA (`__kernel` → `extern "C" __global__`, `__global` and `__private` → nothing, `NL_FN` →
/// `__device__`, `get_global_id(0)` → `blockIdx.x·blockDim.x + threadIdx.x`, `ulong` & co. as
/// typedefs), and the atomic add on reals as `atomicAdd` (`double`: compute capability 6.0 and
/// up). Contraction is turned off by compiling with `--fmad=false`.
pub const CUDA_HEADER: &str = r#"
#ifndef NL_REAL
#define NL_REAL double
#endif
#define __kernel extern "C" __global__
#define __global
#define __private
#define NL_FN __device__
#define NL_FN_PRIVATE __device__ inline __attribute__((always_inline))
#define NL_INLINE __device__ inline
typedef unsigned char uchar;
typedef unsigned short ushort;
typedef unsigned int uint;
typedef unsigned long long ulong;
#define get_global_id(d) ((ulong)blockIdx.x * (ulong)blockDim.x + (ulong)threadIdx.x)
#ifndef INFINITY
#define INFINITY __int_as_float(0x7f800000)
#endif
#ifndef NAN
#define NAN __int_as_float(0x7fffffff)
#endif
typedef NL_REAL REAL;
__device__ inline void nl_atomic_add(REAL* p, REAL v) { atomicAdd(p, v); }
"#;

/// The helpers every program has after its dialect header ([`OPENCL_HEADER`] or
/// [`CUDA_HEADER`]): `NL_SHARED_ADD` (atomic unless `NL_SHARED_ROWS` is defined), `powi` as
/// Rust computes it, the largest of a slice (`max_of`), and the kernels that zero and reduce the per-thread rows.
pub const PRELUDE: &str = r#"
#ifdef NL_SHARED_ROWS
#define NL_SHARED_ADD(p, v) (*(p) += (v))
#else
#define NL_SHARED_ADD(p, v) nl_atomic_add((p), (v))
#endif
/* the add on a "shared" adjoint that is a private array's (the thread's own) */
#define NL_OWN_ADD(p, v) (*(p) += (v))
/* x^n by repeated squaring, as Rust's `powi` (LLVM's powi / compiler-rt's __powidf2) */
NL_INLINE REAL nl_powi(REAL a, int n) {
    int recip = n < 0;
    REAL r = 1;
    while (1) {
        if (n & 1) r *= a;
        n /= 2;
        if (n == 0) break;
        a *= a;
    }
    return recip ? 1 / r : r;
}
NL_INLINE REAL nl_sqdiff(REAL a, REAL b) { REAL d = a - b; return d * d; }
/* softplus, ln(1 + e^x), as `Real::softplus`: max(x, 0) + log1p(e^-|x|) */
NL_INLINE REAL nl_softplus(REAL x) { return fmax(x, (REAL)0) + log1p(exp(-fabs(x))); }
/* the largest of n values, -inf for none: `nilang::ad::max_of` */
NL_INLINE REAL nl_max_of(__global const REAL* p, ulong n) {
    REAL m = -INFINITY;
    for (ulong k = 0; k < n; k++) m = (p[k] > m || m != m) ? p[k] : m;
    return m;
}
__kernel void nl_zero(__global REAL* p, ulong n) {
    ulong k = get_global_id(0);
    if (k < n) p[k] = 0;
}
/* out[k] += sum over rows r < nrows of rows[r * len + k] (a fixed order: deterministic) */
__kernel void nl_reduce_rows(__global REAL* out, __global const REAL* rows, ulong nrows, ulong len) {
    ulong k = get_global_id(0);
    if (k >= len) return;
    REAL s = 0;
    for (ulong r = 0; r < nrows; r++) s += rows[r * len + k];
    out[k] += s;
}
"#;

/// The language a program's source is written for: one emitted text, two dialect headers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dialect {
    /// OpenCL C ([`OPENCL_HEADER`]).
    OpenCl,
    /// CUDA C++ for NVRTC ([`CUDA_HEADER`]).
    Cuda,
}

/// The whole program of kernel `K` in `dialect`: its header, [`PRELUDE`], then every device
/// function it needs (the same text for both dialects).
///
/// ```
/// use nilang::prelude::*;
/// use nilang::kernel::{program_source_in, Dialect};
/// #[i(kernel)]
/// fn twice<T: Scalar>(tid: usize, y: &mut [T], x: &[T]) {
///     y[tid] += x[tid] * 2.0;
/// }
/// let cuda = program_source_in::<twice>(Dialect::Cuda);
/// assert!(cuda.contains("#define __kernel extern \"C\" __global__"));
/// assert!(cuda.ends_with(&nilang::kernel::program_source::<twice>()[nilang::kernel::OPENCL_HEADER.len()..]));
/// ```
pub fn program_source_in<K: DeviceCode>(dialect: Dialect) -> String {
    let mut parts = vec![];
    K::device_code(&mut parts);
    let mut s = String::from(match dialect {
        Dialect::OpenCl => OPENCL_HEADER,
        Dialect::Cuda => CUDA_HEADER,
    });
    s.push_str(PRELUDE);
    s.push_str(&versions(&parts));
    s
}

/// The suffix of a device function's version whose slice parameters in `mask` (bit `j`:
/// parameter `j`) are private arrays: none for the all-global one.
fn version_suffix(mask: u64) -> String {
    if mask == 0 {
        String::new()
    } else {
        format!("_p{mask}")
    }
}

/// `code` (a function's emitted text) as its version `mask`: the address-space holes of its
/// slice parameters (`\u{2}A<j>\u{2}`), of its name (`\u{2}S\u{2}`) and qualifier
/// (`\u{2}F\u{2}`: `NL_FN`, or `NL_FN_PRIVATE`, inlined, where it takes private arrays), of
/// its shared adds
/// (`\u{2}X<space>\u{2}`) and of its calls (`\u{2}C<callee>:<space>,..\u{2}`, a space being
/// `g`, `p` or a parameter's index) filled in; the versions of callees it calls are pushed to
/// `calls`.
fn version(code: &str, mask: u64, calls: &mut Vec<(String, u64)>) -> String {
    let private = |t: &str| match t {
        "p" => true,
        "g" => false,
        j => j
            .parse::<u32>()
            .is_ok_and(|j| j < 64 && (mask >> j) & 1 == 1),
    };
    let mut out = String::with_capacity(code.len());
    for (k, piece) in code.split('\u{2}').enumerate() {
        if k % 2 == 0 {
            out.push_str(piece);
            continue;
        }
        let (tag, rest) = piece.split_at(piece.len().min(1));
        match tag {
            "A" => out.push_str(if private(rest) {
                "__private"
            } else {
                "__global"
            }),
            "X" => out.push_str(if private(rest) {
                "NL_OWN_ADD"
            } else {
                "NL_SHARED_ADD"
            }),
            "S" => out.push_str(&version_suffix(mask)),
            // a version taking private arrays is inlined, so that they can stay in registers
            "F" => out.push_str(if mask == 0 { "NL_FN" } else { "NL_FN_PRIVATE" }),
            _ => {
                let (callee, spaces) = rest.split_once(':').unwrap_or((rest, ""));
                let m = (spaces.split(',').enumerate())
                    .filter(|(i, t)| *i < 64 && private(t))
                    .fold(0u64, |m, (i, _)| m | 1 << i);
                out.push_str(&version_suffix(m));
                calls.push((callee.to_string(), m));
            }
        }
    }
    out
}

/// The program text of `parts` (callees first): every function in its all-global version,
/// and each device function also in the versions its callers need (those passing private
/// arrays), a function's versions next to one another.
fn versions(parts: &[(&'static str, String)]) -> String {
    let mut wanted: Vec<Vec<u64>> = vec![vec![0]; parts.len()];
    let mut todo: Vec<(usize, u64)> = (0..parts.len()).map(|i| (i, 0)).collect();
    let mut text: Vec<Vec<(u64, String)>> = vec![vec![]; parts.len()];
    while let Some((i, mask)) = todo.pop() {
        let mut calls = vec![];
        let v = version(&parts[i].1, mask, &mut calls);
        text[i].push((mask, v));
        for (callee, m) in calls {
            let Some(c) = parts.iter().position(|(n, _)| *n == callee) else {
                continue;
            };
            if !wanted[c].contains(&m) {
                wanted[c].push(m);
                todo.push((c, m));
            }
        }
    }
    let mut s = String::new();
    for t in &mut text {
        t.sort_by_key(|(m, _)| *m);
        for (_, v) in t.iter() {
            s.push_str(v);
        }
    }
    s
}

/// The whole OpenCL C program of kernel `K`: [`program_source_in`] for [`Dialect::OpenCl`].
///
/// ```
/// use nilang::prelude::*;
/// #[i(kernel)]
/// fn twice<T: Scalar>(tid: usize, y: &mut [T], x: &[T]) {
///     y[tid] += x[tid] * 2.0;
/// }
/// assert!(nilang::kernel::program_source::<twice>().contains("nl_twice_fwd"));
/// ```
pub fn program_source<K: DeviceCode>() -> String {
    program_source_in::<K>(Dialect::OpenCl)
}

/// Pushes `(name, code)` unless `name` is already in `out` (for generated code).
#[doc(hidden)]
pub fn push_unique(out: &mut Vec<(&'static str, String)>, name: &'static str, code: String) {
    if !out.iter().any(|(n, _)| *n == name) {
        out.push((name, code));
    }
}

/// A host constant written as an OpenCL C literal (for constants of the Rust program that a
/// kernel mentions, such as `ATOL`).
///
/// ```
/// use nilang::kernel::CLit;
/// assert_eq!(1e-8f64.c_lit(), "((REAL)1e-8)");
/// assert_eq!(3usize.c_lit(), "((long)3)");
/// ```
pub trait CLit {
    /// The literal.
    fn c_lit(&self) -> String;
}
impl CLit for f64 {
    fn c_lit(&self) -> String {
        if self.is_finite() {
            format!("((REAL){self:e})")
        } else if self.is_nan() {
            "((REAL)NAN)".into()
        } else if *self > 0.0 {
            "((REAL)INFINITY)".into()
        } else {
            "(-(REAL)INFINITY)".into()
        }
    }
}
impl CLit for f32 {
    fn c_lit(&self) -> String {
        (*self as f64).c_lit()
    }
}
macro_rules! int_lit {
    ($($t:ty),*) => {$(
        impl CLit for $t {
            fn c_lit(&self) -> String {
                format!("((long){self})")
            }
        }
    )*};
}
int_lit!(i8, i16, i32, i64, isize, u8, u16, u32, u64, usize);
impl CLit for bool {
    fn c_lit(&self) -> String {
        (if *self { "1" } else { "0" }).into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_follow_the_private_arguments_through_calls() {
        // k passes a private array to g's parameter 0; g passes its parameter 0 on to h's
        // parameter 1 and its global parameter 1 to h's parameter 0
        let h = "\u{2}F\u{2} void nl_h\u{2}S\u{2}_fwd(\u{2}A0\u{2} REAL* y, \u{2}A1\u{2} REAL* a) \
                 { \u{2}X1\u{2}(&a[0], y[0]); }\n";
        let g = "\u{2}F\u{2} void nl_g\u{2}S\u{2}_fwd(\u{2}A0\u{2} REAL* a, \u{2}A1\u{2} REAL* y) \
                 { nl_h\u{2}Ch:1,0\u{2}_fwd(y, a); }\n";
        let k = "void nl_k_fwd(__global REAL* y) { REAL a[2]; nl_g\u{2}Cg:p,g\u{2}_fwd(a, y); }\n";
        let parts = vec![
            ("h", h.to_string()),
            ("g", g.to_string()),
            ("k", k.to_string()),
        ];
        let s = versions(&parts);
        assert!(!s.contains('\u{2}'), "{s}");
        assert!(s.contains("nl_k_fwd(__global REAL* y) { REAL a[2]; nl_g_p1_fwd(a, y); }"));
        assert!(s.contains("nl_g_fwd(__global REAL* a, __global REAL* y) { nl_h_fwd(y, a); }"));
        assert!(
            s.contains("nl_g_p1_fwd(__private REAL* a, __global REAL* y) { nl_h_p2_fwd(y, a); }")
        );
        assert!(s.contains("nl_h_p2_fwd(__global REAL* y, __private REAL* a) { NL_OWN_ADD(&a[0]"));
        assert!(s.contains("nl_h_fwd(__global REAL* y, __global REAL* a) { NL_SHARED_ADD(&a[0]"));
        // callees first, each function's versions together, the all-global one first
        let at = |n: &str| s.find(n).unwrap();
        assert!(at("nl_h_fwd(") < at("nl_h_p2_fwd(") && at("nl_h_p2_fwd(") < at("nl_g_fwd("));
        assert!(at("nl_g_p1_fwd(__private") < at("nl_k_fwd("));
        assert_eq!(s.matches("NL_FN void").count(), 2);
        assert_eq!(s.matches("NL_FN_PRIVATE void").count(), 2);
    }
}
