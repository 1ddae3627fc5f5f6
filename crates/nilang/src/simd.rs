//! Run-time CPU dispatch: programs on the batch number [`F64x8`](crate::numbers::F64x8) (and
//! gradient numbers over it) run with the running CPU's widest vectors, without `RUSTFLAGS`.
//!
//! The default x86-64 build targets SSE2 (two `f64` lanes per instruction). Every generic
//! `#[i]` function with a loop (a type parameter bounded by `Scalar`, `Ordered` or `Batch`)
//! instantiated on `F64x8` (`F64x8`, `GVar<F64x8>`, ..:
//! [`LaneOrd::WIDE`](crate::ad::LaneOrd::WIDE)) runs each of its bodies (forward, inverse,
//! and the variants the gradient runs) compiled three times: for AVX-512, for AVX2 + FMA and
//! for the default build, the copy picked at each call from [`active`] (one relaxed load); a
//! function without a loop is compiled into its caller's copy. `F64x8` is a plain array whose
//! operations are `#[inline(always)]` loops over the lanes, so in the AVX-512 copy they are
//! 512-bit instructions. So a program runs wide wherever it is called from: the gradient API
//! ([`gradient`](crate::gradient), [`Plan`](crate::ad::Plan), ..), a forward run, another
//! function. Every path computes the same IEEE operations in the same order (Rust never
//! contracts `a * b + c` into an FMA, and nothing here calls `mul_add`), so the results are
//! **bit-identical** on every path. Code of your own on batches outside `#[i]` functions (a
//! hand-written loop) gets the same with [`dispatch`].
//!
//! On aarch64, NEON is the baseline (128-bit, the widest every aarch64 CPU has): no dispatch.
//! Scalar programs (`f64`, `GVar<f64>`) and `F64x4` are not dispatched (the default build's
//! code).
//!
//! The environment variable `NILANG_SIMD` (`baseline`, `avx2` or `avx512`, read once) caps
//! the path, as does [`limit`] at run time: e.g. `NILANG_SIMD=baseline` to compare with the
//! default build's code.
//!
//! ```
//! use nilang::simd::{self, Isa};
//! // the widest the CPU has (e.g. Isa::Avx512), unless capped
//! assert!(simd::active() <= simd::detected());
//! let before = simd::limit(Isa::Baseline);
//! assert_eq!(simd::active(), Isa::Baseline);
//! assert_eq!(simd::dispatch(|| 2.0_f64.sqrt()), 2.0_f64.sqrt());
//! simd::limit(before);
//! ```
use core::sync::atomic::{AtomicU8, Ordering};

/// An instruction-set level the dispatched code is compiled for (ordered: wider is greater).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Isa {
    /// The default build's instructions (SSE2 on x86-64, NEON on aarch64).
    Baseline,
    /// x86-64 AVX2 and FMA (256-bit vectors).
    Avx2,
    /// x86-64 AVX-512 F, VL, DQ, BW, CD (512-bit vectors).
    Avx512,
}

impl Isa {
    /// The level's name, as `NILANG_SIMD` spells it.
    ///
    /// ```
    /// assert_eq!(nilang::simd::Isa::Avx2.name(), "avx2");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            Isa::Baseline => "baseline",
            Isa::Avx2 => "avx2",
            Isa::Avx512 => "avx512",
        }
    }

    /// The level named `s` (`baseline`, `avx2`, `avx512`; case-insensitive).
    ///
    /// ```
    /// use nilang::simd::Isa;
    /// assert_eq!(Isa::parse("AVX512"), Some(Isa::Avx512));
    /// assert_eq!(Isa::parse("sse"), None);
    /// ```
    pub fn parse(s: &str) -> Option<Isa> {
        [Isa::Baseline, Isa::Avx2, Isa::Avx512]
            .into_iter()
            .find(|i| s.trim().eq_ignore_ascii_case(i.name()))
    }

    fn from_u8(v: u8) -> Isa {
        match v {
            2 => Isa::Avx512,
            1 => Isa::Avx2,
            _ => Isa::Baseline,
        }
    }
}

/// The widest level this CPU runs (detected at run time, cached by the standard library).
///
/// ```
/// let isa = nilang::simd::detected();
/// println!("dispatching to {}", isa.name());
/// ```
pub fn detected() -> Isa {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::is_x86_feature_detected as has;
        if has!("avx512f")
            && has!("avx512vl")
            && has!("avx512dq")
            && has!("avx512bw")
            && has!("avx512cd")
        {
            return Isa::Avx512;
        }
        if has!("avx2") && has!("fma") {
            return Isa::Avx2;
        }
    }
    Isa::Baseline
}

/// `u8::MAX`: not yet set (from [`detected`] and `NILANG_SIMD` at the first use).
static ACTIVE: AtomicU8 = AtomicU8::new(u8::MAX);

/// The level [`dispatch`] runs: [`detected`], capped by `NILANG_SIMD` (read at the first
/// call; an unknown value is ignored) and by the last [`limit`].
#[inline]
pub fn active() -> Isa {
    match ACTIVE.load(Ordering::Relaxed) {
        u8::MAX => init(),
        v => Isa::from_u8(v),
    }
}

#[cold]
fn init() -> Isa {
    let cap = std::env::var("NILANG_SIMD")
        .ok()
        .and_then(|v| Isa::parse(&v))
        .unwrap_or(Isa::Avx512);
    let isa = detected().min(cap);
    ACTIVE.store(isa as u8, Ordering::Relaxed);
    isa
}

/// Cap the level [`dispatch`] runs at `cap` (process-wide; never above [`detected`]) and
/// return the level active before, to restore it: for comparing the paths
/// (`limit(Isa::Baseline)` runs the default build's code).
///
/// ```
/// use nilang::simd::{self, Isa};
/// let before = simd::limit(Isa::Avx2);
/// assert!(simd::active() <= Isa::Avx2);
/// simd::limit(before);
/// ```
pub fn limit(cap: Isa) -> Isa {
    let before = active();
    ACTIVE.store(detected().min(cap) as u8, Ordering::Relaxed);
    before
}

/// Run `f` compiled for the [`active`] level: `f` and everything LLVM inlines into it are
/// compiled once per level (`#[target_feature]`), and the copy of the running level runs.
/// For your own code on batch numbers outside `#[i]` functions (which dispatch by
/// themselves); `f` must be inlined into the dispatched copy to benefit (a closure called
/// once is).
///
/// ```
/// use nilang::numbers::F64x8;
/// let (a, b) = (F64x8::splat(1.5), F64x8::from_fn(|k| k as f64));
/// let c = nilang::simd::dispatch(|| a * b + a);
/// assert_eq!(c.lane(2), 4.5);
/// ```
#[inline(always)]
pub fn dispatch<R, F: FnOnce() -> R>(f: F) -> R {
    #[cfg(target_arch = "x86_64")]
    {
        #[target_feature(enable = "avx512f,avx512vl,avx512dq,avx512bw,avx512cd,avx2,fma")]
        #[inline]
        fn avx512<R, F: FnOnce() -> R>(f: F) -> R {
            f()
        }
        #[target_feature(enable = "avx2,fma")]
        #[inline]
        fn avx2<R, F: FnOnce() -> R>(f: F) -> R {
            f()
        }
        match active() {
            // SAFETY: `active` is at most `detected`: the CPU has these features
            Isa::Avx512 => return unsafe { avx512(f) },
            // SAFETY: as above
            Isa::Avx2 => return unsafe { avx2(f) },
            Isa::Baseline => {}
        }
    }
    f()
}

/// What `#[i]` generates for a body on batch numbers (see [`crate::simd`]): `avx512(args)`
/// or `avx2(args)` run from a function compiled for that level when it is [`active`]
/// (`Ok`), else the arguments come back (`Err`: the caller runs the default build's body).
/// Each closure is called from one place, so LLVM inlines it, and the body it calls, into
/// that function.
#[doc(hidden)]
#[inline(always)]
pub fn __wide<A>(args: A, avx512: impl FnOnce(A), avx2: impl FnOnce(A)) -> Result<(), A> {
    #[cfg(target_arch = "x86_64")]
    {
        #[target_feature(enable = "avx512f,avx512vl,avx512dq,avx512bw,avx512cd,avx2,fma")]
        #[inline]
        fn level2<A, F: FnOnce(A)>(f: F, a: A) {
            f(a)
        }
        #[target_feature(enable = "avx2,fma")]
        #[inline]
        fn level1<A, F: FnOnce(A)>(f: F, a: A) {
            f(a)
        }
        match active() {
            Isa::Avx512 => {
                // SAFETY: `active` is at most `detected`: the CPU has these features
                unsafe { level2(avx512, args) };
                return Ok(());
            }
            Isa::Avx2 => {
                // SAFETY: as above
                unsafe { level1(avx2, args) };
                return Ok(());
            }
            Isa::Baseline => {}
        }
    }
    let _ = (avx512, avx2);
    Err(args)
}

/// A function value tagged with the instruction-set level of the code that calls it: what
/// `#[i]` code passes to the adjoint-only variant (`f::__adj`) of the functions it calls, so
/// that each level's code calls an instance of its own (which LLVM then inlines into it).
/// Calls the function it holds.
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub struct Level<const L: u8, F>(pub F);

impl<const L: u8, F: crate::CallTuple<A>, A> crate::CallTuple<A> for Level<L, F> {
    #[inline(always)]
    fn call_tuple(self, args: A) {
        self.0.call_tuple(args)
    }
}
