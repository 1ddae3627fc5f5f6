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
pub use crate::numbers::isa::{active, detected, limit, Isa};

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
/// or `avx2(args)` run from a function compiled for that level (`Ok`), else the arguments
/// come back (`Err`: the caller runs the default build's body). The level is `tag`, the
/// level of the `#[i]` code that called this instance ([`Level`]; a constant, so the other
/// levels' code is removed), or [`active`] where `tag` is `u8::MAX` (untagged).
/// Each closure is called from one place, so LLVM inlines it, and the body it calls, into
/// that function.
#[doc(hidden)]
#[inline(always)]
pub fn __wide<A>(tag: u8, args: A, avx512: impl FnOnce(A), avx2: impl FnOnce(A)) -> Result<(), A> {
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
        let level = match tag {
            0 => Isa::Baseline,
            // the caller's level (its code ran: the CPU has it; checked, for a forged tag)
            1 | 2 => {
                let l = if tag == 2 { Isa::Avx512 } else { Isa::Avx2 };
                if l > detected() {
                    above_the_cpu(tag)
                }
                l
            }
            _ => active(),
        };
        match level {
            Isa::Avx512 => {
                // SAFETY: `level` is at most `detected`: the CPU has these features
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
    let _ = (tag, avx512, avx2);
    Err(args)
}

/// A [`Level`] tag that no `#[i]` code on this CPU made (a level above the CPU's).
#[cfg(target_arch = "x86_64")]
#[cold]
#[inline(never)]
fn above_the_cpu(tag: u8) -> ! {
    panic!(
        "nilang::simd::Level::<{tag}, _> names a level above this CPU's ({})",
        detected().name()
    )
}

/// A function value tagged with the instruction-set level of the code that calls it: what
/// `#[i]` code passes to the value-only and adjoint-only variants (`f::__primal`, `f::__adj`)
/// of the functions it calls, so that each level's code calls an instance of its own, which
/// runs that level's code alone (`CallTuple::LEVEL`, read by [`__wide`]) and which LLVM
/// then inlines into it. Calls the function it holds.
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub struct Level<const L: u8, F>(pub F);

impl<const L: u8, F: crate::CallTuple<A>, A> crate::CallTuple<A> for Level<L, F> {
    const LEVEL: u8 = L;
    #[inline(always)]
    fn call_tuple(self, args: A) {
        self.0.call_tuple(args)
    }
}

#[cfg(test)]
mod tests {
    use super::{__wide, active, detected, Isa};

    /// Which closure `__wide` runs for `tag`: 2 (AVX-512), 1 (AVX2), 0 (the default build's).
    fn ran(tag: u8) -> u8 {
        let mut which = 0;
        let r = __wide(tag, &mut which, |w| *w = 2, |w| *w = 1);
        assert_eq!(r.is_err(), which == 0);
        which
    }

    /// A tagged instance runs its caller's level, whatever the active one; an untagged one
    /// runs the active level.
    #[test]
    fn a_tag_picks_the_level_and_no_tag_the_active_one() {
        assert_eq!(ran(0), 0);
        let wide = if cfg!(target_arch = "x86_64") {
            detected()
        } else {
            Isa::Baseline
        };
        if wide >= Isa::Avx2 {
            assert_eq!(ran(1), 1);
        }
        if wide >= Isa::Avx512 {
            assert_eq!(ran(2), 2);
        }
        assert_eq!(ran(u8::MAX), wide.min(active()) as u8);
    }

    /// A tag above the CPU's level (never made by `#[i]` code) panics instead of running
    /// instructions the CPU lacks.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn a_tag_above_the_cpu_panics() {
        if detected() < Isa::Avx512 {
            let r = std::panic::catch_unwind(|| ran(2));
            assert!(r.is_err());
        }
    }
}
