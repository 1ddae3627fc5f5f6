//! Elementary functions on SIMD lanes (`wide`'s `f64x4`, the lane arrays `F4`, `F8` of `lane_array`), computed as vectors:
//! the implementations that rows of the table of elementary functions ([`nilang_functions`])
//! name in their `lanes` slot, so that `F64x4`/`F64x8` values, their reverse rules
//! (`GVar<F64x4>`) and everything built on them use one vector version of each function.
//!
//! Every function is branch-free over the lanes (both sides of a case are computed and
//! blended), written in plain Rust on lane arrays. Each is within two ulps of `f64`'s
//! function (std) at every input, with its special values (±0, ±∞, NaN, subnormals,
//! overflow) as std's; `tests/numbers/lane_math.rs` checks this.
//!
//! - `exp`: a table of `2^(j/64)` after `x = (64k + j)·ln 2/64 + r` and a degree-5
//!   polynomial of `eʳ` (ARM's optimized-routines' method; no division: two thirds of the
//!   time of Cephes' Padé form on SSE2);
//! - `exp_m1`: `x = k·ln 2 + r` (no reduction below 1.04), a degree-19 polynomial of `eʳ − 1`, then
//!   `2ᵏ·p + (2ᵏ − 1)` (exact terms, one rounding);
//! - `ln`, `ln_1p`: fdlibm's kernel (`log(1 + f) = 2 atanh(f / (2 + f))`), `ln_1p` with the
//!   rounding error of `1 + x` carried;
//! - `tanh`: Cephes' rational form below 0.625; above, `2|x| = k·ln 2 + 2h` and the same
//!   rational of `h` gives `e^(2h)`, so `1 − 2 / (e^(2|x|) + 1)` with one division in all
//!   (no table: on 8 lanes its look-ups cost more than the rational; no second division:
//!   `e^(2h)` and the quotient share one);
//! - `sin`, `cos`: fdlibm's kernels after a three-part Cody–Waite reduction by `π/2` (kept as
//!   a double-double), for `|x| ≤ 2²⁰·π/2`; a lane beyond that (or ±∞, NaN) takes std's
//!   functions (each lane's result never depends on the other lanes);
//! - `powf`: `exp` of `y·ln x` with `ln x` as a double-double;
//! - `softplus`: `max(x, 0) + ln_1p(e^(−|x|))` by `exp` and `ln_1p` (as the scalar
//!   `Real::softplus`, which std lacks; within three ulps of it).
//!
//! The constants of the polynomials are fdlibm's (Sun Microsystems, via FreeBSD and musl) and
//! Cephes' (S. Moshier); `exp`'s table and polynomial were computed here (mpmath).
//!
//! The functions of `x4` (on `wide`'s vectors, those of `F64x4`) but `exp` and
//! `ln` run these bodies compiled for the running CPU's widest vectors: AVX-512 or AVX2 (a
//! `#[target_feature]` copy each, picked by [`active`](super::isa::active) at every call, the
//! level `NILANG_SIMD` caps as it caps `#[i]` code), else the default
//! build's; the same bits on every path (no FMA). `exp` and `ln` are inlined in the caller
//! (on `wide`'s vectors): in a program their call would cost more than the wider copy saves.
//! On `x8` (those of `F64x8`, a lane array) the same, but `exp` and `ln` are the bodies compiled
//! into their caller, whose own level copy (`crate::simd`) picks the vector width.

/// The functions on one lane type: `$simd` (`f64` lanes) and `$u` (`u64` lanes).
macro_rules! lane_math {
    ($module:ident, $simd:ty, $u:ty, $n:literal) => {
        /// Elementary functions on this many lanes.
        pub(crate) mod $module {
            #![allow(clippy::excessive_precision, clippy::unreadable_literal)]
            type F = $simd;
            type U = $u;
            use crate::numbers::lane_math::{
                EXP_64_LN2, EXP_C2, EXP_C3, EXP_C4, EXP_C5, EXP_LN2_64_HI, EXP_LN2_64_LO, EXP_TABLE,
            };

            const MAGIC: f64 = 6755399441055744.0; // 1.5 · 2^52: adding it rounds to an integer
            const LN2_HI: f64 = 0.693145751953125; // ln 2 with its last 32 bits zero
            const LN2_LO: f64 = 1.428_606_820_309_417_2e-6;

            #[inline(always)]
            fn f(v: f64) -> F {
                F::splat(v)
            }
            #[inline(always)]
            fn bits(x: F) -> U {
                crate::numbers::lane_math::LaneBits::to_u(x)
            }
            #[inline(always)]
            fn from_bits(u: U) -> F {
                <F as crate::numbers::lane_math::LaneBits>::from_u(u)
            }
            /// `2ᵏ` for integers `k` (as `f64` lanes) with `−1022 ≤ k ≤ 1023`.
            #[inline(always)]
            fn pow2(k: F) -> F {
                let t = k + f(MAGIC);
                from_bits((bits(t) - U::splat(MAGIC.to_bits()) + U::splat(1023)) << 52u32)
            }
            /// `x` clamped to `[lo, hi]`, NaN staying NaN (`maxpd`/`minpd` give their second
            /// operand where one is NaN).
            #[inline(always)]
            fn clamp(x: F, lo: f64, hi: f64) -> F {
                f(hi).fast_min(f(lo).fast_max(x))
            }
            /// `x` with the sign of `s` (`x` has none).
            #[inline(always)]
            fn with_sign_of(x: F, s: F) -> F {
                x ^ (s & f(-0.0))
            }

            /// The parts of `eˣ = 2ᵏ·2^(j/64)·eʳ` for `x = (64k + j)·ln 2/64 + r` (`0 ≤ j < 64`,
            /// `|r| ≤ ln 2/128`): the bits of `s = 2ᵏ·2^(j/64)` ([`EXP_TABLE`]'s entry `j` with
            /// `k` added to its exponent field), `p(r) ≈ eʳ − 1` (degree 5), so that
            /// `eˣ ≈ s + s·p`, and `64k + j` (an integer, as `f64` lanes).
            #[inline(always)]
            fn exp_parts(x: F) -> (U, F, F) {
                let t = x * f(EXP_64_LN2) + f(MAGIC);
                let kj = t - f(MAGIC);
                let r = (x - kj * f(EXP_LN2_64_HI)) - kj * f(EXP_LN2_64_LO);
                // `t`'s last bits are `64k + j` (two's complement): shifted by 46, `j` cancels
                // the table's `−j·2⁴⁶` and `k` lands in the exponent field
                let s = U::new(bits(t).to_array().map(|u| EXP_TABLE[(u & 63) as usize]))
                    + (bits(t) << 46u32);
                let r2 = r * r;
                let p =
                    r + r2 * (f(EXP_C2) + r * f(EXP_C3)) + (r2 * r2) * (f(EXP_C4) + r * f(EXP_C5));
                (s, p, kj)
            }

            /// `eˣ` (a table of the 64 values `2^(j/64)`, as ARM's optimized-routines):
            /// [`exp_parts`], then `s + s·p` where every lane is within ±670, else the same with
            /// `s = 2ᵏ²·s₁` in two factors: `(s₁ + s₁·p)·2ᵏ²`, so that a subnormal result is
            /// rounded once. The same bits where the result is normal: below −670 (`s < 2⁻⁹⁶⁶`)
            /// the term `s·p` of the first form could be subnormal and rounded coarser.
            #[inline(always)]
            pub(crate) fn exp(x: F) -> F {
                if crate::numbers::lane_math::LaneBits::all_set(x.abs().simd_le(f(670.0))) {
                    let (s, p, _) = exp_parts(x);
                    let s = from_bits(s);
                    return s + s * p;
                }
                let x = clamp(x, -746.0, 710.0);
                let (s, p, kj) = exp_parts(x);
                // k = (kj − j)/64, k2 = round(k/2) (|k2| ≤ 539): s₁ = s·2⁻ᵏ² is normal
                let j = from_bits((bits(kj + f(MAGIC)) & U::splat(63)) | U::splat(MAGIC.to_bits()))
                    - f(MAGIC);
                let k2 = bits(((kj - j) * f(1.0 / 128.0)) + f(MAGIC)) - U::splat(MAGIC.to_bits());
                let s1 = from_bits(s - (k2 << 52u32));
                (s1 + s1 * p) * from_bits((k2 + U::splat(1023)) << 52u32)
            }

            /// `eˣ − 1`: `x = k·ln 2 + r` with the rounding of `r` carried in `c` (`k = 0` for
            /// `|x| < 1.04`, else `|r| ≤ ln 2 / 2`), `p = eʳ − 1` (Taylor to degree 19),
            /// `2ᵏ·p + (2ᵏ − 1)` (both terms
            /// exact for `−53 ≤ k ≤ 54`, so one rounding; beyond, `2ᵏ − 1` rounds to `2ᵏ` or `−1`
            /// within half an ulp of the result), in halves so that `2ᵏ⁻¹` is finite; `−1` below −40.
            #[inline(always)]
            pub(crate) fn exp_m1(x: F) -> F {
                let xc = clamp(x, -40.0, 710.0);
                let kf = (xc * f(core::f64::consts::LOG2_E) + f(MAGIC)) - f(MAGIC);
                // no reduction below 1.5·ln 2 (where 2ᵏ·p + (2ᵏ − 1) would cancel for k = ±1)
                let kf = xc.abs().simd_lt(f(1.0397)).select(f(0.0), kf);
                let r_hi = xc - kf * f(LN2_HI);
                let r_lo = kf * f(LN2_LO);
                let r = r_hi - r_lo;
                let c = (r_hi - r) - r_lo;
                // Horner on 1/n!, n = 19 down to 2
                let q = f(1.0 / 121645100408832000.0);
                let q = q * r + f(1.0 / 6402373705728000.0);
                let q = q * r + f(1.0 / 355687428096000.0);
                let q = q * r + f(1.0 / 20922789888000.0);
                let q = q * r + f(1.0 / 1307674368000.0);
                let q = q * r + f(1.0 / 87178291200.0);
                let q = q * r + f(1.0 / 6227020800.0);
                let q = q * r + f(1.0 / 479001600.0);
                let q = q * r + f(1.0 / 39916800.0);
                let q = q * r + f(1.0 / 3628800.0);
                let q = q * r + f(1.0 / 362880.0);
                let q = q * r + f(1.0 / 40320.0);
                let q = q * r + f(1.0 / 5040.0);
                let q = q * r + f(1.0 / 720.0);
                let q = q * r + f(1.0 / 120.0);
                let q = q * r + f(1.0 / 24.0);
                let q = q * r + f(1.0 / 6.0);
                let q = q * r + f(0.5);
                let p = r + (r * r) * q;
                let p = p + c * (f(1.0) + p);
                // 2·(2ᵏ⁻¹·p + (2ᵏ⁻¹ − 1/2)): 2ᵏ⁻¹ is finite up to k = 1024
                let s = pow2(kf - f(1.0));
                let y = (s * p + (s - f(0.5))) * f(2.0);
                // ±0 keep their sign
                x.simd_eq(f(0.0)).select(x, y)
            }

            /// `ln(2ᵈᵏ·u) + c` for finite `u > 0` (normal), an integer `dk` and a small correction
            /// `c` (fdlibm):
            /// `u = 2ᵏ·m` (`√2/2 ≤ m < √2`), `f = m − 1`, `s = f / (2 + f)`,
            /// `ln m = f − f²/2 + s·(f²/2 + R(s²))`.
            #[inline(always)]
            fn ln_kernel(u: F, c: F, dk: F) -> F {
                const LG1: f64 = 6.666666666666735130e-01;
                const LG2: f64 = 3.999999999940941908e-01;
                const LG3: f64 = 2.857142874366239149e-01;
                const LG4: f64 = 2.222219843214978396e-01;
                const LG5: f64 = 1.818357216161805012e-01;
                const LG6: f64 = 1.531383769920937332e-01;
                const LG7: f64 = 1.479819860511658591e-01;
                const LN2_HI: f64 = 6.93147180369123816490e-01;
                const LN2_LO: f64 = 1.90821492927058770002e-10;
                let ix = bits(u) + U::splat(0x3ff0_0000_0000_0000 - 0x3fe6_a09e_0000_0000);
                // k + 1023 (0 ..= 2047) as f64: the exponent field under the bits of 2^52
                let e = from_bits((ix >> 52u32) | U::splat(0x4330_0000_0000_0000));
                let k = (e - f(4503599627370496.0 + 1023.0)) + dk;
                let m = from_bits(
                    (ix & U::splat(0x000f_ffff_ffff_ffff)) + U::splat(0x3fe6_a09e_0000_0000),
                );
                let fm = m - f(1.0);
                let hfsq = f(0.5) * fm * fm;
                let s = fm / (f(2.0) + fm);
                let z = s * s;
                let w = z * z;
                let t1 = w * (f(LG2) + w * (f(LG4) + w * f(LG6)));
                let t2 = z * (f(LG1) + w * (f(LG3) + w * (f(LG5) + w * f(LG7))));
                let r = t2 + t1;
                s * (hfsq + r) + (k * f(LN2_LO) + c) - hfsq + fm + k * f(LN2_HI)
            }

            /// `ln x`: [`ln_kernel`] (subnormal `x` scaled by `2⁵⁴` first); `ln 0 = −∞`,
            /// `ln x = NaN` for `x < 0`, `ln ∞ = ∞`.
            #[inline(always)]
            pub(crate) fn ln(x: F) -> F {
                // every lane a positive normal number: the kernel alone (the same bits as below)
                if (x.simd_ge(f(f64::MIN_POSITIVE)) & x.simd_lt(f(f64::INFINITY))).all() {
                    return ln_kernel(x, f(0.0), f(0.0));
                }
                let tiny = x.simd_lt(f(f64::MIN_POSITIVE));
                let xs = tiny.select(x * f(18014398509481984.0), x); // 2^54
                let y = ln_kernel(xs, f(0.0), tiny.select(f(-54.0), f(0.0)));
                let y = x.simd_eq(f(0.0)).select(f(f64::NEG_INFINITY), y);
                let y = x.simd_lt(f(0.0)).select(f(f64::NAN), y);
                let y = x.simd_eq(f(f64::INFINITY)).select(x, y);
                x.simd_ne(x).select(x, y)
            }

            /// `ln(1 + x)`: `u = 1 + x` with its rounding error `c` (two-sum), [`ln_kernel`] of
            /// `u` with the correction `c / u`.
            #[inline(always)]
            pub(crate) fn ln_1p(x: F) -> F {
                let one = f(1.0);
                let u = one + x;
                let bv = u - one;
                let c = (one - (u - bv)) + (x - bv);
                let ok = u.simd_gt(f(0.0)) & u.simd_lt(f(f64::INFINITY));
                // every lane ordinary (−1 < x < ∞, x ≠ 0): the kernel alone (the same bits as below)
                if (ok & x.simd_gt(f(-1.0)) & x.simd_ne(f(0.0))).all() {
                    return ln_kernel(u, c / u, f(0.0));
                }
                let us = ok.select(u, one);
                let y = ln_kernel(us, c / us, f(0.0));
                let y = x.simd_eq(f(-1.0)).select(f(f64::NEG_INFINITY), y);
                let y = x.simd_lt(f(-1.0)).select(f(f64::NAN), y);
                let y = u.simd_eq(f(f64::INFINITY)).select(f(f64::INFINITY), y);
                let y = x.simd_ne(x).select(x, y);
                x.simd_eq(f(0.0)).select(x, y)
            }

            /// `ln(1 + eˣ)` as `max(x, 0) + ln_1p(e^(−|x|))` (the scalar `Real::softplus`'s
            /// operations, by [`exp`] and [`ln_1p`]): no overflow, NaN stays NaN.
            #[inline(always)]
            pub(crate) fn softplus(x: F) -> F {
                x.fast_max(f(0.0)) + ln_1p(exp(-x.abs()))
            }

            /// `tanh x` with one rational function and one division: `a = |x|` (capped at 19.5,
            /// beyond which `tanh = 1`), `h = a` below 0.625, else `h = a − k·ln 2 / 2`
            /// (`k = round(2a / ln 2)`, `|h| ≤ ln 2 / 4`); Cephes' rational `tanh h = h + c / M`
            /// with `c = h·z·N(z)` (`z = h²`). Below 0.625 that is the result; above,
            /// `p = h·M + c` gives `e²ʰ = (M + p) / (M − p)`, so
            /// `tanh a = 1 − 2 / (2ᵏ·e²ʰ + 1) = 1 + (p − M) / ((s + ½)·M + (s − ½)·p)` with
            /// `s = 2ᵏ⁻¹` (`s = ½` below 0.625, where that denominator is `M`); then the sign of
            /// `x`. Both forms are a value plus a smaller correction (`|tanh a − 1| < 0.45` from
            /// 0.625): at most 1.5 ulps from `tanh` (mpmath, 1.8·10⁵ inputs; std's own error
            /// reaches 2.1), two from std's.
            #[inline(always)]
            pub(crate) fn tanh(x: F) -> F {
                let a = f(19.5).fast_min(x.abs()); // NaN stays NaN (`minpd`: the second)
                let small = a.simd_lt(f(0.625));
                // `t`'s last bits are `k = round(2a / ln 2)`, 0 below 0.625 (`k ≤ 56`)
                let t = a * f(2.0 * core::f64::consts::LOG2_E) + f(MAGIC);
                let t = small.select(f(MAGIC), t);
                let kf = t - f(MAGIC);
                // `kf·LN2_HI/2` exact, `a − kf·LN2_HI/2` exact (Sterbenz)
                let h = (a - kf * f(LN2_HI / 2.0)) - kf * f(LN2_LO / 2.0);
                let z = h * h;
                let n = (f(-9.64399179425052238628e-1) * z + f(-9.92877231001918586564e1)) * z
                    + f(-1.61468768441708447952e3);
                let m = ((z + f(1.12811678491632931402e2)) * z + f(2.23548839060100448583e3)) * z
                    + f(4.84406305325125486048e3);
                let c = (h * z) * n;
                let p = h * m + c;
                let s = from_bits((bits(t) << 52u32) + U::splat(0.5f64.to_bits()));
                let den = (s + f(0.5)) * m + (s - f(0.5)) * p;
                let y = small.select(h, f(1.0)) + small.select(c, p - m) / den;
                with_sign_of(y, x)
            }

            /// `x` with its low 32 bits zero (a 21-bit significand: products of two such are
            /// exact).
            #[inline(always)]
            fn high(x: F) -> F {
                from_bits(bits(x) & U::splat(0xffff_ffff_0000_0000))
            }

            /// `xʸ` (fdlibm's `pow`): `log2 |x|` as a double-double `t1 + t2` (`|x| = 2ⁿ·m`,
            /// `m` near 1 or 1.5, `log m` from `s = (m − b)/(m + b)` to about 64 bits), times `y`
            /// split into exact products, then `2^(p_h + p_l)` with the low part carried. The
            /// special cases (zeros, infinities, NaN, negative `x`, integer `y`) as `f64::powf`.
            #[inline(always)]
            pub(crate) fn powf(x: F, y: F) -> F {
                const L1: f64 = 5.99999999999994648725e-01;
                const L2: f64 = 4.28571428578550184252e-01;
                const L3: f64 = 3.33333329818377432918e-01;
                const L4: f64 = 2.72728123808534006489e-01;
                const L5: f64 = 2.30660745775561754067e-01;
                const L6: f64 = 2.06975017800338417784e-01;
                const P1: f64 = 1.66666666666666019037e-01;
                const P2: f64 = -2.77777777770155933842e-03;
                const P3: f64 = 6.61375632143793436117e-05;
                const P4: f64 = -1.65339022054652515390e-06;
                const P5: f64 = 4.13813679705723846039e-08;
                const LG2: f64 = core::f64::consts::LN_2;
                const LG2_H: f64 = 6.93147182464599609375e-01;
                const LG2_L: f64 = -1.90465429995776804525e-09;
                const CP: f64 = 9.61796693925975554329e-01; // 2/(3 ln 2)
                const CP_H: f64 = 9.61796700954437255859e-01;
                const CP_L: f64 = -7.02846165095275826516e-09;
                const DP_H: f64 = 5.84962487220764160156e-01; // log2(1.5), high
                const DP_L: f64 = 1.35003920212974897128e-08;
                let one = f(1.0);
                let ax = x.abs();
                // subnormal |x|: scaled by 2^53
                let sub = ax.simd_lt(f(f64::MIN_POSITIVE));
                let ax = sub.select(ax * f(9007199254740992.0), ax);
                let ix = bits(ax);
                let hi = ix >> 32u32;
                let j = hi & U::splat(0x000f_ffff);
                // n = the exponent; m = the significand in [1, 2), then m near 1 (k = 0), near
                // 1.5 (k = 1), or halved (above √3) with n + 1
                let e = from_bits((ix >> 52u32) | U::splat(0x4330_0000_0000_0000));
                let n = (e - f(4503599627370496.0 + 1023.0)) + sub.select(f(-53.0), f(0.0));
                let above =
                    from_bits(U::splat(0) - ((j + U::splat(0x1_0000_0000 - 0xBB67A)) >> 32u32));
                let mid =
                    from_bits(U::splat(0) - ((j + U::splat(0x1_0000_0000 - 0x3988F)) >> 32u32))
                        & !above;
                let n = n + above.select(one, f(0.0));
                let mb = (ix & U::splat(0x000f_ffff_ffff_ffff)) | U::splat(0x3ff0_0000_0000_0000);
                let m = from_bits(mb);
                let m = above.select(m * f(0.5), m);
                let bp = mid.select(f(1.5), one);
                let dp_h = mid.select(f(DP_H), f(0.0));
                let dp_l = mid.select(f(DP_L), f(0.0));
                // ss = s_h + s_l = (m − bp)/(m + bp)
                let u = m - bp;
                let v = one / (m + bp);
                let ss = u * v;
                let s_h = high(ss);
                let t_h = high(m + bp);
                let t_l = m - (t_h - bp);
                let s_l = v * ((u - s_h * t_h) - s_h * t_l);
                // log(m)
                let s2 = ss * ss;
                let r = s2
                    * s2
                    * (f(L1)
                        + s2 * (f(L2) + s2 * (f(L3) + s2 * (f(L4) + s2 * (f(L5) + s2 * f(L6))))));
                let r = r + s_l * (s_h + ss);
                let s2 = s_h * s_h;
                let t_h = high(f(3.0) + s2 + r);
                let t_l = r - ((t_h - f(3.0)) - s2);
                let u = s_h * t_h;
                let v = s_l * t_h + t_l * ss;
                let p_h = high(u + v);
                let p_l = v - (p_h - u);
                let z_h = f(CP_H) * p_h;
                let z_l = f(CP_L) * p_h + p_l * f(CP) + dp_l;
                // log2|x| = n + dp_h + z_h + z_l = t1 + t2
                let t1 = high(((z_h + z_l) + dp_h) + n);
                let t2 = z_l - (((t1 - n) - dp_h) - z_h);
                // y·log2|x| = p_h + p_l
                let y1 = high(y);
                let p_l = (y - y1) * t1 + y * t2;
                let p_h = y1 * t1;
                let z = p_l + p_h;
                let over = p_h.simd_gt(f(1100.0)) | z.simd_gt(f(1100.0));
                let under = p_h.simd_lt(f(-1100.0)) | z.simd_lt(f(-1100.0));
                // 2^z = 2^nn · 2^(z − nn), nn the nearest integer (|z| clamped: the result
                // over- or underflows beyond)
                let zc = clamp(z, -1100.0, 1100.0);
                let nn = (zc + f(MAGIC)) - f(MAGIC);
                let p_h = p_h - nn;
                let t = high(p_l + p_h);
                let u = t * f(LG2_H);
                let v = (p_l - (t - p_h)) * f(LG2) + t * f(LG2_L);
                let z = u + v;
                let w = v - (z - u);
                let t = z * z;
                let t1 = z - t * (f(P1) + t * (f(P2) + t * (f(P3) + t * (f(P4) + t * f(P5)))));
                let r = (z * t1) / (t1 - f(2.0)) - (w + z * w);
                let z = one - (r - z);
                // times 2^nn in two factors (a subnormal result rounded once)
                let nh = ((nn * f(0.5)) + f(MAGIC)) - f(MAGIC);
                let nh = nh.simd_gt(nn * f(0.5)).select(nh - one, nh); // ⌊nn/2⌋
                let mag = z * pow2_wide(nh) * pow2_wide(nn - nh);
                let mag = over.select(f(f64::INFINITY), under.select(f(0.0), mag));
                // the special cases
                let y_int = y.round().simd_eq(y);
                let half = y * f(0.5);
                let y_odd = y_int & !half.round().simd_eq(half);
                let x_neg = x.simd_lt(f(0.0)) | (x.simd_eq(f(0.0)) & bits_sign(x));
                let inf = f(f64::INFINITY);
                let zero = f(0.0);
                let y_inf = y.abs().simd_eq(inf);
                let x_abs = x.abs();
                let mag = x_abs
                    .simd_eq(zero)
                    .select(y.simd_lt(zero).select(inf, zero), mag);
                let mag = x_abs
                    .simd_eq(inf)
                    .select(y.simd_lt(zero).select(zero, inf), mag);
                let grows = !(x_abs.simd_gt(one) ^ y.simd_gt(zero));
                let mag =
                    y_inf.select(x_abs.simd_eq(one).select(one, grows.select(inf, zero)), mag);
                let res = mag ^ ((x_neg & y_odd & !y_inf) & f(-0.0));
                let nan = f(f64::NAN);
                let res = (x.simd_lt(zero) & x.simd_gt(-inf) & !y_int & !y_inf).select(nan, res);
                let res = (x.simd_ne(x) | y.simd_ne(y)).select(nan, res);
                (y.simd_eq(zero) | x.simd_eq(one)).select(one, res)
            }

            /// `2ᵏ` for integers `k` (as `f64` lanes) with `−1022 ≤ k ≤ 1023`, `k` clamped to that.
            #[inline(always)]
            fn pow2_wide(k: F) -> F {
                let k = k.simd_lt(f(-1022.0)).select(f(-1022.0), k);
                pow2(k.simd_gt(f(1023.0)).select(f(1023.0), k))
            }

            /// All ones where the sign bit of `x` is set.
            #[inline(always)]
            fn bits_sign(x: F) -> F {
                from_bits(U::splat(0) - (bits(x) >> 63u32))
            }

            /// `|x|` up to which [`sin_cos`] reduces as vectors: `n·p` is exact for the 33-bit
            /// parts `p` of `π/2` while `n < 2²⁰`.
            const REDUCE_MAX: f64 = 1.6e6;

            /// `x − n·π/2 = y0 + y1` (a double-double) and `n mod 4`, for `|x| ≤ REDUCE_MAX`
            /// (fdlibm's medium case, all three rounds, the rounding error of each carried).
            #[inline(always)]
            fn reduce_pio2(x: F) -> (F, F, U) {
                const INV_PIO2: f64 = core::f64::consts::FRAC_2_PI;
                const PIO2_1: f64 = 1.57079632673412561417e+00;
                const PIO2_2: f64 = 6.07710050630396597660e-11;
                const PIO2_3: f64 = 2.02226624871116645580e-21;
                const PIO2_3T: f64 = 8.47842766036889956997e-32;
                let t = x * f(INV_PIO2) + f(MAGIC);
                let n = t - f(MAGIC);
                let r = x - n * f(PIO2_1);
                let w = n * f(PIO2_2);
                let r2 = r - w;
                let e2 = (r - r2) - w;
                let w = n * f(PIO2_3);
                let r3 = r2 - w;
                let e3 = (r2 - r3) - w;
                let w = n * f(PIO2_3T) - (e3 + e2);
                let y0 = r3 - w;
                let y1 = (r3 - y0) - w;
                (y0, y1, bits(t) & U::splat(3))
            }

            /// fdlibm's `__kernel_sin(x, y)` on `|x + y| ≤ π/4`.
            #[inline(always)]
            fn kernel_sin(x: F, y: F) -> F {
                const S1: f64 = -1.66666666666666324348e-01;
                const S2: f64 = 8.33333333332248946124e-03;
                const S3: f64 = -1.98412698298579493134e-04;
                const S4: f64 = 2.75573137070700676789e-06;
                const S5: f64 = -2.50507602534068634195e-08;
                const S6: f64 = 1.58969099521155010221e-10;
                let z = x * x;
                let w = z * z;
                let r = f(S2) + z * (f(S3) + z * f(S4)) + z * w * (f(S5) + z * f(S6));
                let v = z * x;
                x - ((z * (f(0.5) * y - v * r) - y) - v * f(S1))
            }

            /// fdlibm's `__kernel_cos(x, y)` on `|x + y| ≤ π/4`.
            #[inline(always)]
            fn kernel_cos(x: F, y: F) -> F {
                const C1: f64 = 4.16666666666666019037e-02;
                const C2: f64 = -1.38888888888741095749e-03;
                const C3: f64 = 2.48015872894767294178e-05;
                const C4: f64 = -2.75573143513906633035e-07;
                const C5: f64 = 2.08757232129817482790e-09;
                const C6: f64 = -1.13596475577881948265e-11;
                let z = x * x;
                let w = z * z;
                let r = z * (f(C1) + z * (f(C2) + z * f(C3)))
                    + w * w * (f(C4) + z * (f(C5) + z * f(C6)));
                let hz = f(0.5) * z;
                let w = f(1.0) - hz;
                w + (((f(1.0) - w) - hz) + (z * r - x * y))
            }

            /// `(sin x, cos x)`: the kernels at the reduced argument, swapped and negated by
            /// the quadrant. A lane beyond `REDUCE_MAX` (or not finite) takes std's functions.
            #[inline(always)]
            pub(crate) fn sin_cos(x: F) -> (F, F) {
                let near = x.abs().simd_le(f(REDUCE_MAX));
                let (s, c) = sin_cos_near(near.select(x, f(0.0)));
                if near.all() {
                    return (s, c);
                }
                // the other lanes by std's functions (each lane's result its own, whatever
                // its neighbours)
                let (mut s, mut c, xs, near) =
                    (s.to_array(), c.to_array(), x.to_array(), near.to_array());
                for k in 0..$n {
                    if near[k].to_bits() == 0 {
                        (s[k], c[k]) = (xs[k].sin(), xs[k].cos());
                    }
                }
                (F::new(s), F::new(c))
            }

            /// [`sin_cos`] for `|x| ≤ REDUCE_MAX`.
            #[inline(always)]
            fn sin_cos_near(x: F) -> (F, F) {
                let (y0, y1, q) = reduce_pio2(x);
                let ks = kernel_sin(y0, y1);
                let kc = kernel_cos(y0, y1);
                // odd quadrant: sin ↔ cos; the sign bits of sin (q ∈ {2, 3}) and cos (q ∈ {1, 2})
                let odd = from_bits(U::splat(0) - (q & U::splat(1)));
                let sin_sign = from_bits((q >> 1u32) << 63u32);
                let cos_sign = from_bits(((q + U::splat(1)) >> 1u32) << 63u32);
                let s = odd.select(kc, ks) ^ sin_sign;
                let c = odd.select(ks, kc) ^ cos_sign;
                // sin(±0) = ±0
                (x.simd_eq(f(0.0)).select(x, s), c)
            }

            /// `sin x` ([`sin_cos`]).
            #[inline(always)]
            pub(crate) fn sin(x: F) -> F {
                sin_cos(x).0
            }

            /// `cos x` ([`sin_cos`]).
            #[inline(always)]
            pub(crate) fn cos(x: F) -> F {
                sin_cos(x).1
            }
        }
    };
}

/// `64 / ln 2`: `x · EXP_64_LN2` rounded to an integer is `64k + j` of `exp`'s reduction.
const EXP_64_LN2: f64 = 92.33248261689366;
/// `ln 2 / 64` with its last 20 bits zero (its products with `|64k + j| < 2¹⁷` are exact).
const EXP_LN2_64_HI: f64 = 0.010830424695086549;
/// `ln 2 / 64 − EXP_LN2_64_HI`.
const EXP_LN2_64_LO: f64 = 1.162596423439437e-12;
// `eʳ − 1 − r ≈ r²·(C2 + C3·r + C4·r² + C5·r³)` on `|r| ≤ ln 2/128` (a Chebyshev fit: relative
// error of `1 + p(r)` below 4.5·10⁻¹⁸, 0.04 ulp)
const EXP_C2: f64 = 0.4999999999998495;
const EXP_C3: f64 = 0.16666666666664517;
const EXP_C4: f64 = 0.04166670755826905;
const EXP_C5: f64 = 0.008333339174990219;

/// `exp`'s table: entry `j` is the bits of `2^(j/64)` (rounded to `f64`) minus `j·2⁴⁶`, as
/// ARM's optimized-routines (`exp_data.c`, there with 128 entries and the rounding errors;
/// the same values at its even entries). Computed with mpmath at 60 digits; checked by
/// `exp_table_is_two_to_the_j_64`.
#[rustfmt::skip]
static EXP_TABLE: [u64; 64] = [
    0x3ff0_0000_0000_0000, 0x3fef_ec9a_3e77_8061, 0x3fef_d9b0_d315_8574, 0x3fef_c745_1875_9bc8,
    0x3fef_b558_6cf9_890f, 0x3fef_a3ec_32d3_d1a2, 0x3fef_9301_d012_5b51, 0x3fef_829a_aea9_2de0,
    0x3fef_72b8_3c7d_517b, 0x3fef_635b_eb6f_cb75, 0x3fef_5487_3168_b9aa, 0x3fef_463b_8862_8cd6,
    0x3fef_387a_6e75_6238, 0x3fef_2b45_65e2_7cdd, 0x3fef_1e9d_f51f_dee1, 0x3fef_1285_a6e4_030b,
    0x3fef_06fe_0a31_b715, 0x3fee_fc08_b264_16ff, 0x3fee_f1a7_373a_a9cb, 0x3fee_e7db_34e5_9ff7,
    0x3fee_dea6_4c12_3422, 0x3fee_d60a_21f7_2e2a, 0x3fee_ce08_6061_892d, 0x3fee_c6a2_b5c1_3cd0,
    0x3fee_bfda_d536_2a27, 0x3fee_b9b2_769d_2ca7, 0x3fee_b42b_569d_4f82, 0x3fee_af47_36b5_27da,
    0x3fee_ab07_dd48_5429, 0x3fee_a76f_15ad_2148, 0x3fee_a47e_b03a_5585, 0x3fee_a238_8255_2225,
    0x3fee_a09e_667f_3bcd, 0x3fee_9fb2_3c65_1a2f, 0x3fee_9f75_e8ec_5f74, 0x3fee_9feb_5642_67c9,
    0x3fee_a114_73eb_0187, 0x3fee_a2f3_36cf_4e62, 0x3fee_a589_994c_ce13, 0x3fee_a8d9_9b44_92ed,
    0x3fee_ace5_422a_a0db, 0x3fee_b1ae_9915_7736, 0x3fee_b737_b0cd_c5e5, 0x3fee_bd82_9fde_4e50,
    0x3fee_c491_82a3_f090, 0x3fee_cc66_7b5d_e565, 0x3fee_d503_b23e_255d, 0x3fee_de6b_5579_fdbf,
    0x3fee_e89f_995a_d3ad, 0x3fee_f3a2_b84f_15fb, 0x3fee_ff76_f2fb_5e47, 0x3fef_0c1e_904b_c1d2,
    0x3fef_199b_dd85_529c, 0x3fef_27f1_2e57_d14b, 0x3fef_3720_dcef_9069, 0x3fef_472d_4a07_897c,
    0x3fef_5818_dcfb_a487, 0x3fef_69e6_03db_3285, 0x3fef_7c97_337b_9b5f, 0x3fef_902e_e78b_3ff6,
    0x3fef_a4af_a2a4_90da, 0x3fef_ba1b_ee61_5a27, 0x3fef_d076_5b6e_4540, 0x3fef_e7c1_819e_90d8,
];

/// The bits of a lane vector (`u64` lanes) and back.
trait LaneBits {
    type U;
    fn to_u(self) -> Self::U;
    fn from_u(u: Self::U) -> Self;
    /// Whether every lane of the mask `self` is set.
    fn all_set(self) -> bool;
}
impl LaneBits for wide::f64x4 {
    type U = wide::u64x4;
    #[inline(always)]
    fn all_set(self) -> bool {
        // one test of both halves' signs (`all` tests each half, with a branch each)
        self.to_bitmask() == 0b1111
    }
    #[inline(always)]
    fn to_u(self) -> wide::u64x4 {
        wide::bytemuck::cast(self)
    }
    #[inline(always)]
    fn from_u(u: wide::u64x4) -> Self {
        wide::bytemuck::cast(u)
    }
}
/// `LaneBits` of the plain lane arrays (`F4`, `F8`, `F16` and their bit arrays).
macro_rules! lane_array_bits {
    ($($f:ident $u:ident),*) => {$(
        impl LaneBits for crate::numbers::lane_array::$f {
            type U = crate::numbers::lane_array::$u;
            #[inline(always)]
            fn all_set(self) -> bool {
                self.all()
            }
            #[inline(always)]
            fn to_u(self) -> Self::U {
                self.to_bits()
            }
            #[inline(always)]
            fn from_u(u: Self::U) -> Self {
                Self::from_bits(u)
            }
        }
    )*};
}
lane_array_bits!(F4 U4, F8 U8, F16 U16);

// the bodies, on plain lane arrays: compiled for whatever vector width their caller is compiled
// for (`a8`, also `x8`, is called from `stdlib::elementwise`'s dispatched kernel and by
// `F64x8`; `a4` from the dispatched functions of `x4` below)
#[allow(dead_code)] // `a8` is called for the functions of the table only
mod bodies {
    lane_math!(w4, wide::f64x4, wide::u64x4, 4);
    lane_math!(
        a4,
        crate::numbers::lane_array::F4,
        crate::numbers::lane_array::U4,
        4
    );
    lane_math!(
        a8,
        crate::numbers::lane_array::F8,
        crate::numbers::lane_array::U8,
        8
    );
    // `F64x8`'s inline functions (`exp`, `ln`): the array bodies themselves
    pub(crate) use self::a8 as w8;
    // two vectors' worth (`stdlib::elementwise`'s AVX-512 values: more independent work)
    lane_math!(
        a16,
        crate::numbers::lane_array::F16,
        crate::numbers::lane_array::U16,
        16
    );
}
pub(crate) use bodies::{a16, a8};

use super::isa::{active, Isa};

/// `x` read in 16-byte halves, for a `#[target_feature]` copy called from the default build:
/// the caller stored the lanes in 16-byte halves (SSE2 registers), and one wider load of two
/// such stores misses store-to-load forwarding (a stall of tens of cycles, about the time of
/// the whole function on four lanes). Volatile, so that LLVM does not merge the halves into
/// one wide load.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn load_halves<const N: usize>(x: &[f64; N]) -> [f64; N] {
    use core::arch::x86_64::__m128d;
    let mut r = [0.0; N];
    for k in (0..N).step_by(2) {
        // SAFETY: `k + 1 < N` (`N` even): 16 readable bytes, 16-byte aligned (the lane
        // arrays are aligned to their size, `k` even); `__m128d` and `[f64; 2]` one layout
        let h = unsafe {
            core::mem::transmute::<__m128d, [f64; 2]>(core::ptr::read_volatile(
                x.as_ptr().add(k).cast::<__m128d>(),
            ))
        };
        r[k] = h[0];
        r[k + 1] = h[1];
    }
    r
}

/// Runs `fn($args) -> $R $body` (`$args` lane arrays) compiled for the level `$l`: the body
/// (calls of the `#[inline(always)]` functions of `bodies`) is written into a
/// `#[target_feature]` function per level, so the lane arrays' loops become that level's vector
/// instructions; its arguments cross in 16-byte halves ([`load_halves`]). `$l` must be at
/// most [`detected()`](super::isa::detected).
macro_rules! on_level {
    ($l:expr, fn($($a:ident: $t:ty),*) -> $R:ty $body:block) => {{
        #[cfg(target_arch = "x86_64")]
        {
            #[target_feature(enable = "avx512f,avx512vl,avx512dq,avx512bw,avx512cd,avx2,fma")]
            #[inline]
            fn avx512($($a: &$t),*) -> $R {
                $(let $a = <$t>::new(super::load_halves(&$a.0));)*
                $body
            }
            #[target_feature(enable = "avx2,fma")]
            #[inline]
            fn avx2($($a: &$t),*) -> $R {
                $(let $a = <$t>::new(super::load_halves(&$a.0));)*
                $body
            }
            match $l {
                // SAFETY: the CPU has these features (`$l` is at most `detected()`)
                Isa::Avx512 => return unsafe { avx512($(&$a),*) },
                // SAFETY: as above
                Isa::Avx2 => return unsafe { avx2($(&$a),*) },
                Isa::Baseline => {}
            }
        }
        let _ = $l;
        $body
    }};
}

/// The functions on one batch vector type `$simd` (lane array `$arr`): each converts to the
/// lane array, runs the body of `$body` compiled for the [`active`] level (the CPU's widest
/// unless `NILANG_SIMD` or `nilang::simd::limit` caps it: a relaxed load and a predictable
/// branch per call, then a call) and converts back. Every
/// level computes the same IEEE operations in the same order (no FMA contraction, no
/// `mul_add`), so the same bits. `<name>_at(level, ..)` runs one level (for the tests).
macro_rules! dispatched {
    ($module:ident, $body:ident, $wide:ident, $simd:ty, $arr:ty) => {
        /// Elementary functions on this many lanes, on the CPU's widest vectors.
        pub(crate) mod $module {
            #![allow(dead_code)] // the `_at` forms are for the tests
            use super::{active, bodies::$body, bodies::$wide, Isa};
            type F = $simd;
            type A = $arr;

            #[inline(always)]
            fn lanes(x: F) -> A {
                A::new(x.to_array())
            }
            #[inline(always)]
            fn back(x: A) -> F {
                F::new(x.to_array())
            }

            dispatched!(@inline $body $wide exp exp_at);
            dispatched!(@one $body exp_m1 exp_m1_at);
            dispatched!(@inline $body $wide ln ln_at);
            dispatched!(@one $body ln_1p ln_1p_at);
            dispatched!(@one $body tanh tanh_at);
            dispatched!(@one $body sin sin_at);
            dispatched!(@one $body cos cos_at);
            dispatched!(@one $body softplus softplus_at);

            /// `(sin x, cos x)` ([`sin_cos_at`] of the CPU's level).
            #[inline(always)]
            pub(crate) fn sin_cos(x: F) -> (F, F) {
                sin_cos_at(active(), x)
            }
            /// `(sin x, cos x)` compiled for `l` (at most [`detected()`](crate::numbers::isa::detected)).
            #[inline(always)]
            pub(crate) fn sin_cos_at(l: Isa, x: F) -> (F, F) {
                #[inline(always)]
                fn on(l: Isa, x: A) -> (A, A) {
                    on_level!(l, fn(x: A) -> (A, A) { $body::sin_cos(x) })
                }
                let (s, c) = on(l, lanes(x));
                (back(s), back(c))
            }
            /// `xʸ` ([`powf_at`] of the CPU's level).
            #[inline(always)]
            pub(crate) fn powf(x: F, y: F) -> F {
                powf_at(active(), x, y)
            }
            /// `xʸ` compiled for `l` (at most [`detected()`](crate::numbers::isa::detected)).
            #[inline(always)]
            pub(crate) fn powf_at(l: Isa, x: F, y: F) -> F {
                #[inline(always)]
                fn on(l: Isa, x: A, y: A) -> A {
                    on_level!(l, fn(x: A, y: A) -> A { $body::powf(x, y) })
                }
                back(on(l, lanes(x), lanes(y)))
            }
        }
    };
    (@inline $body:ident $wide:ident $f:ident $f_at:ident) => {
        #[doc = concat!("`", stringify!($f), "` in the caller's code (inlined: `wide`'s vectors, the")]
        /// default build's SSE2): short enough that the call of a wider copy costs more than it
        /// saves in a program (measured on GMM's gradient, whose `logsumexp` calls `exp` and `ln`).
        #[inline(always)]
        pub(crate) fn $f(x: F) -> F {
            $wide::$f(x)
        }
        #[doc = concat!("`", stringify!($f), "` compiled for `l` (at most [`detected()`](crate::numbers::isa::detected)).")]
        #[inline(always)]
        pub(crate) fn $f_at(l: Isa, x: F) -> F {
            #[inline(always)]
            fn on(l: Isa, x: A) -> A {
                on_level!(l, fn(x: A) -> A { $body::$f(x) })
            }
            back(on(l, lanes(x)))
        }
    };
    (@one $body:ident $f:ident $f_at:ident) => {
        #[doc = concat!("`", stringify!($f), "` on the CPU's widest vectors.")]
        #[inline(always)]
        pub(crate) fn $f(x: F) -> F {
            $f_at(active(), x)
        }
        #[doc = concat!("`", stringify!($f), "` compiled for `l` (at most [`detected()`](crate::numbers::isa::detected)).")]
        #[inline(always)]
        pub(crate) fn $f_at(l: Isa, x: F) -> F {
            #[inline(always)]
            fn on(l: Isa, x: A) -> A {
                on_level!(l, fn(x: A) -> A { $body::$f(x) })
            }
            back(on(l, lanes(x)))
        }
    };
}
dispatched!(x4, a4, w4, wide::f64x4, crate::numbers::lane_array::F4);
// `F64x8` (a lane array): `exp` and `ln` are the bodies, compiled into the caller (whose own
// level copy, `crate::simd`, picks the width); the longer functions dispatch per call as `x4`'s
dispatched!(
    x8,
    a8,
    w8,
    crate::numbers::lane_array::F8,
    crate::numbers::lane_array::F8
);

#[cfg(test)]
mod tests {
    use super::{x4, x8, Isa};
    use crate::numbers::isa::detected;

    /// Inputs over every function's domain and beyond: random bit patterns (every exponent,
    /// NaNs, infinities, subnormals), uniform values in `[-lo, hi]`-style ranges, and the
    /// special values.
    fn inputs() -> Vec<f64> {
        let mut s = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = move || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s
        };
        let mut v = vec![
            0.0,
            -0.0,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            f64::MIN_POSITIVE,
            -f64::MIN_POSITIVE,
            5e-324,
            -5e-324,
            1.0,
            -1.0,
            0.625,
            708.0,
            -708.0,
            709.9,
            -745.5,
            1.6e6,
            -1.7e6,
            1e300,
            f64::MAX,
            f64::MIN,
        ];
        for _ in 0..1500 {
            v.push(f64::from_bits(next()));
        }
        for scale in [1.0, 3.0, 30.0, 800.0, 2e6] {
            for _ in 0..400 {
                let u = (next() >> 11) as f64 / (1u64 << 53) as f64;
                v.push((2.0 * u - 1.0) * scale);
            }
        }
        v
    }

    /// The levels this CPU runs.
    fn levels() -> Vec<Isa> {
        [Isa::Baseline, Isa::Avx2, Isa::Avx512]
            .into_iter()
            .filter(|&l| l <= detected())
            .collect()
    }

    fn bits<const N: usize>(v: [f64; N]) -> [u64; N] {
        v.map(f64::to_bits)
    }

    macro_rules! same_bits_on_every_level {
        ($m:ident, $simd:ty, $n:literal) => {{
            let xs = inputs();
            let mut ys = xs.clone();
            ys.rotate_left(7);
            let ls = levels();
            let mut checked = 0;
            for (xc, yc) in xs.chunks_exact($n).zip(ys.chunks_exact($n)) {
                let x = <$simd>::new(xc.try_into().unwrap());
                let y = <$simd>::new(yc.try_into().unwrap());
                let all = |l: Isa| {
                    let (s, c) = $m::sin_cos_at(l, x);
                    [
                        $m::exp_at(l, x),
                        $m::exp_m1_at(l, x),
                        $m::ln_at(l, x),
                        $m::ln_1p_at(l, x),
                        $m::tanh_at(l, x),
                        $m::sin_at(l, x),
                        $m::cos_at(l, x),
                        s,
                        c,
                        $m::powf_at(l, x, y),
                        $m::powf_at(l, x.abs(), y),
                    ]
                    .map(|v| bits(v.to_array()))
                };
                let base = all(Isa::Baseline);
                for &l in &ls[1..] {
                    assert_eq!(all(l), base, "{:?} at x = {xc:?}, y = {yc:?}", l);
                    checked += 1;
                }
                // the dispatched form is the widest level's
                let (s, c) = $m::sin_cos(x);
                let top = [
                    $m::exp(x),
                    $m::exp_m1(x),
                    $m::ln(x),
                    $m::ln_1p(x),
                    $m::tanh(x),
                    $m::sin(x),
                    $m::cos(x),
                    s,
                    c,
                    $m::powf(x, y),
                    $m::powf(x.abs(), y),
                ]
                .map(|v| bits(v.to_array()));
                assert_eq!(top, base);
            }
            // on an x86-64 CPU with AVX2 (every one of the last decade) the wide levels ran
            if cfg!(target_arch = "x86_64") && std::arch::is_x86_feature_detected!("avx2") {
                assert!(checked > 0);
            }
        }};
    }

    /// Each function compiled for each level this CPU runs (AVX-512, AVX2, the default
    /// build's SSE2) gives the same bits, on four and on eight lanes.
    #[test]
    fn every_level_gives_the_same_bits() {
        // a large stack: unoptimised, the inlined bodies' temporaries take a lot of it
        std::thread::Builder::new()
            .stack_size(256 << 20)
            .spawn(|| {
                same_bits_on_every_level!(x4, wide::f64x4, 4);
                same_bits_on_every_level!(x8, crate::numbers::lane_array::F8, 8);
            })
            .unwrap()
            .join()
            .unwrap();
    }

    /// Entry `j` of `exp`'s table is `2^(j/64)` rounded to the nearest `f64` (`s`): `s⁶⁴`
    /// (in double-double arithmetic, to about 10⁻³⁰) is `2ʲ·(1 + 64ε)` with `|s·ε| ≤ 2⁻⁵³`, half
    /// an ulp of `s`.
    #[test]
    fn exp_table_is_two_to_the_j_64() {
        // double-double product (the exact `a·b` by `mul_add`)
        fn mul((ah, al): (f64, f64), (bh, bl): (f64, f64)) -> (f64, f64) {
            let p = ah * bh;
            let e = ah.mul_add(bh, -p) + (ah * bl + al * bh);
            let h = p + e;
            (h, e - (h - p))
        }
        for (j, &e) in super::EXP_TABLE.iter().enumerate() {
            let s = f64::from_bits(e.wrapping_add((j as u64) << 46));
            assert!((1.0..2.0).contains(&s), "entry {j}: {s}");
            let mut v = (s, 0.0);
            for _ in 0..6 {
                v = mul(v, v);
            }
            let two_j = (j as f64).exp2();
            let eps = ((v.0 - two_j) + v.1) / two_j / 64.0;
            assert!(
                (s * eps).abs() <= f64::EPSILON / 2.0 * (1.0 + 1e-9),
                "entry {j}: s = 2^(j/64)·(1 + {eps:e})"
            );
        }
    }
}
