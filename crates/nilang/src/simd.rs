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
//! **Soundness.** Every `#[target_feature]` function (code that may use instructions the
//! default build lacks) is `nilang`'s own, called only after a check that the CPU has its
//! features ([`active`] is at most [`detected`]; a level tag above [`detected`] panics).
//! `#[i]`-generated code reaches them through the hidden `__wide` and `__at_level`, which run
//! a body's level copy inside `nilang`'s function of the level: the copy is a *safe* function
//! value (`CallTuple`: an `fn` item or closure, never an `unsafe fn` pointer, whose
//! preconditions nothing here could know), an `#[inline(always)]` function of the caller's
//! crate that LLVM inlines there. So whatever a safe caller passes them, the behaviour is
//! defined (a forged level panics, anything else computes), and the generated code holds no
//! `unsafe`: it compiles under `#![forbid(unsafe_code)]`.
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
use crate::CallTuple;

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

/// `copy(args)` compiled for AVX-512: `copy` (a safe function value: a body's level-2 copy,
/// `#[inline(always)]`) is inlined here, so its code takes this function's features. Called
/// (`unsafe`, from code without them) only where the CPU has the features of [`Isa::Avx512`].
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512vl,avx512dq,avx512bw,avx512cd,avx2,fma")]
#[inline]
fn on_avx512<A, P: CallTuple<A>>(copy: P, args: A) {
    copy.call_tuple(args)
}

/// `copy(args)` compiled for AVX2 + FMA, as [`on_avx512`]: only where the CPU has the
/// features of [`Isa::Avx2`].
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
#[inline]
fn on_avx2<A, P: CallTuple<A>>(copy: P, args: A) {
    copy.call_tuple(args)
}

/// What `#[i]` generates for a body on batch numbers called from code that is not `#[i]`
/// code of a known level (see [`crate::simd`]): `avx512(args)` or `avx2(args)`, the body's
/// copies for those levels, run inside `nilang`'s `#[target_feature]` function of the level
/// where [`active`] says so (`Ok`), else the arguments come back (`Err`: the caller runs the
/// default build's body). `tag` is `u8::MAX`, or for a tagged instance its level (see
/// [`__at_level`], which `#[i]` calls for levels 1 and 2). For generated code, but sound for
/// any arguments: the copies are safe function values (see the module's "Soundness").
#[doc(hidden)]
#[inline(always)]
pub fn __wide<A, P2: CallTuple<A>, P1: CallTuple<A>>(
    tag: u8,
    args: A,
    avx512: P2,
    avx2: P1,
) -> Result<(), A> {
    #[cfg(target_arch = "x86_64")]
    {
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
                unsafe { on_avx512(avx512, args) };
                return Ok(());
            }
            Isa::Avx2 => {
                // SAFETY: as above
                unsafe { on_avx2(avx2, args) };
                return Ok(());
            }
            Isa::Baseline => {}
        }
    }
    let _ = (tag, avx512, avx2);
    Err(args)
}

/// What `#[i]` generates for a body on batch numbers called from `#[i]` code of level
/// `level` (1 or 2, a constant: [`Level`]): `copy(args)`, the body's copy for that level, run
/// inside `nilang`'s `#[target_feature]` function of the level (the caller's code ran at that
/// level: the CPU has it; checked, for a forged tag: a level above the CPU's panics). Only
/// that copy is named, so the other levels' copies of the callee are not compiled for this
/// caller, and LLVM sees the copy called once (and inlines it into the caller's). For
/// generated code, sound for any arguments, as [`__wide`].
#[doc(hidden)]
#[inline(always)]
pub fn __at_level<A, P: CallTuple<A>>(level: u8, args: A, copy: P) {
    #[cfg(target_arch = "x86_64")]
    {
        if level == 2 {
            if Isa::Avx512 > detected() {
                above_the_cpu(level)
            }
            // SAFETY: the CPU has level 2, `on_avx512`'s features
            unsafe { on_avx512(copy, args) }
        } else {
            if Isa::Avx2 > detected() {
                above_the_cpu(level)
            }
            // SAFETY: the CPU has level 1, `on_avx2`'s features
            unsafe { on_avx2(copy, args) }
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (level, args, copy);
        unreachable!("no dispatched levels on this architecture")
    }
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

    /// A body's copy of level 2: says so.
    #[inline(always)]
    fn two(w: &mut u8) {
        *w = 2;
    }
    /// A body's copy of level 1: says so.
    #[inline(always)]
    fn one(w: &mut u8) {
        *w = 1;
    }

    /// Which copy `__wide` runs for `tag`: 2 (AVX-512), 1 (AVX2), 0 (the default build's).
    fn ran(tag: u8) -> u8 {
        let mut which = 0;
        let r = __wide(tag, (&mut which,), two, one);
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

    /// `__at_level` runs the copy of the caller's level (one the CPU has).
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn at_level_runs_the_levels_copy() {
        use super::__at_level;
        let mut which: u8 = 0;
        if detected() >= Isa::Avx2 {
            __at_level(1, (&mut which,), one);
            assert_eq!(which, 1);
        }
        if detected() >= Isa::Avx512 {
            __at_level(2, (&mut which,), two);
            assert_eq!(which, 2);
        } else {
            let r = std::panic::catch_unwind(|| {
                let mut w: u8 = 0;
                __at_level(2, (&mut w,), two);
            });
            assert!(r.is_err());
        }
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
