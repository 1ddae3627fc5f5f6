//! The CPU's instruction-set level: what it runs ([`detected`]) and what the dispatched code
//! runs ([`active`]: capped by `NILANG_SIMD` and [`limit`]). One detection for the crate:
//! [`crate::simd`] (the public face: `nilang::simd::{Isa, detected, active, limit}`) and the
//! lane functions of the batch numbers read it here, below both.
//!
//! ```
//! use nilang::simd::{self, Isa};
//! assert!(simd::active() <= simd::detected());
//! assert!(Isa::Baseline < Isa::Avx2 && Isa::Avx2 < Isa::Avx512);
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

/// [`detect`]'s level, `u8::MAX` before the first call of [`detected`].
static DETECTED: AtomicU8 = AtomicU8::new(u8::MAX);

/// The widest level this CPU runs (detected at the first call: then one relaxed load).
///
/// ```
/// let isa = nilang::simd::detected();
/// println!("dispatching to {}", isa.name());
/// ```
#[inline]
pub fn detected() -> Isa {
    match DETECTED.load(Ordering::Relaxed) {
        u8::MAX => {
            let isa = detect();
            DETECTED.store(isa as u8, Ordering::Relaxed);
            isa
        }
        v => Isa::from_u8(v),
    }
}

/// The widest level this CPU runs, from its feature flags.
#[cold]
fn detect() -> Isa {
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

/// The level [`dispatch`](crate::simd::dispatch), `#[i]` code on batches and the lane
/// functions run: [`detected`], capped by `NILANG_SIMD` (read at the first call; an unknown
/// value is ignored) and by the last [`limit`].
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

/// Cap the level [`active`] at `cap` (process-wide; never above [`detected`]) and return the
/// level active before, to restore it: for comparing the paths (`limit(Isa::Baseline)` runs
/// the default build's code).
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

#[cfg(test)]
mod tests {
    use super::{detected, Isa};

    /// The detected level is what the CPU has.
    #[test]
    fn the_level_is_the_cpus() {
        #[cfg(target_arch = "x86_64")]
        {
            let avx2 = std::arch::is_x86_feature_detected!("avx2")
                && std::arch::is_x86_feature_detected!("fma");
            assert_eq!(detected() >= Isa::Avx2, avx2);
            if detected() == Isa::Avx512 {
                assert!(std::arch::is_x86_feature_detected!("avx512f"));
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        assert_eq!(detected(), Isa::Baseline);
    }
}
