//! Elementwise functions over slices, computed in SIMD lanes: `y[i] += f(x[i])` for every `i`
//! ([`i_map`]) and its inverse `y[i] -= f(x[i])` ([`i_map_inv`]), like `jax.numpy`'s
//! elementwise functions.
//!
//! On `f64` and `GVar<f64>` slices, the functions of the table of elementary functions that
//! have a vector implementation (`exp`, `exp_m1`, `ln`, `ln_1p`, `tanh`, `sin`, `cos`, `softplus`: their
//! row's `lanes` slot, see [`nilang_functions`]) run eight elements at a time, by the same lane
//! code as [`F64x4`](crate::numbers::F64x4) and [`F64x8`](crate::numbers::F64x8) batches
//! (each value within two ulps of `f64`'s function), compiled for the running CPU's widest
//! vectors (AVX-512 or AVX2 on x86-64, chosen at run time; SSE2 or NEON otherwise) with the
//! same bits on every path. On gradient numbers the backward rule runs in the same lanes
//! (`x̄ ∓= ȳ·f'(x)` from the row's derivative, as the scalar rule computes it); where the
//! adjoints of eight targets are exactly zero (the forward pass of a gradient, a recomputed
//! routine) only the values move, and the adjoint-only rule (a target nothing reads
//! afterwards) computes `f(x)` only where `f'` reads it (`exp`, `exp_m1`, `tanh`; not `ln`,
//! `ln_1p`, `sin`, `cos`, `softplus`). With AVX-512 and AVX2, gradient numbers are split into
//! vectors of values and of adjoints in registers (two-source permutes; in-lane unpacks, which
//! take the numbers in a permuted order that the lanes do not see) and joined back by the
//! inverse permutation. With AVX-512, a derivative that calls a function
//! (`softplus`' `1 / (e^(−x) + 1)`, `sin`'s `cos(x)`) runs on sixteen lanes at once, two
//! vectors' chains interleaved (the same bits). The last `len mod 8` elements run in a vector padded with
//! zeros, so every element gets the same function whatever its position. Every other function
//! and number type (`Dual`, batches, `GVar<GVar<f64>>`, a `#[primitive]` of your own) runs the
//! instruction `y[i] += f(x[i])` one element at a time.
use crate::ad::{GVar, Scalar};
use crate::instr::{fns, PlusEq1};
use crate::numbers::lane_array::{ArrayLanes, F16, F8};
use crate::stdlib::matmul;
use core::any::TypeId;

/// `y[i] += f(x[i])` for every `i` (`f` a function marker of [`crate::instr::fns`], e.g.
/// `Tanh`, `Exp`, `Ln1p`); its inverse [`i_map_inv`] is `y[i] -= f(x[i])`.
///
/// A primitive: on `f64` and `GVar<f64>` slices the table's functions with a vector
/// implementation run in SIMD lanes, values and backward rule (each value within two ulps
/// of `f64`'s function, as the lane versions of the table are, so it may differ in the last
/// bits from the scalar loop `y[i] += tanh(x[i])`); other functions and numbers run that loop.
/// `y` and `x` must have one length (a typed [`ErrorKind::Length`](crate::check::ErrorKind::Length) error
/// otherwise, before anything changes). Called from `#[i]` code like any reversible function;
/// additive in `y` (compute–copy–uncompute).
///
/// ```
/// use nilang::instr::fns::Tanh;
/// use nilang::prelude::*;
/// use nilang::stdlib::elementwise::{i_map, i_map_inv};
///
/// let (mut h, mut z) = (vec![0.0; 5], vec![-2.0, -0.5, 0.0, 0.5, 2.0]);
/// i_map(&mut h, Tanh, &mut z);
/// assert!((h[4] - 2.0_f64.tanh()).abs() <= 2.0 * f64::EPSILON);
/// i_map_inv(&mut h, Tanh, &mut z);
/// assert_eq!(h, [0.0; 5]);
///
/// // in a program, and under the gradient API: Σ tanh(zᵢ), ∂/∂zᵢ = 1 − tanh²(zᵢ)
/// #[i]
/// fn act<T: Scalar>(loss: &mut T, h: &mut [T], z: &mut [T]) {
///     routine! {
///         i_map(h, Tanh, z);
///     }
///     for i in 0..h.len() {
///         loss += h[i];
///     }
///     unroutine!();
/// }
/// let (mut l, mut h) = (0.0, vec![0.0; 5]);
/// let (_, _, gz) = nilang::gradient(&Act, (&mut l, &mut h[..], &mut z[..]), 0);
/// assert!((gz[1].g - (1.0 - 0.5_f64.tanh().powi(2))).abs() < 1e-15);
/// ```
#[inline]
pub fn i_map<T: Scalar + PlusEq1<F, T>, F: Copy + 'static>(y: &mut [T], f: F, x: &mut [T]) {
    map(Step::Plus, y, f, x)
}

/// The inverse of [`i_map`]: `y[i] -= f(x[i])`.
#[inline]
pub fn i_map_inv<T: Scalar + PlusEq1<F, T>, F: Copy + 'static>(y: &mut [T], f: F, x: &mut [T]) {
    map(Step::Minus, y, f, x)
}

// `READS`: `f` and `x`, not `y` (only accumulated into; its adjoint-only inverse, not told
// `FRESH_TARGET`, moves `x̄ ±= ȳ·f'(x)` without reading `y`)
matmul::dense_markers!(
    i_map,
    i_map_inv,
    reads: 0b110,
    /// Values only (`y` carries no adjoint).
    #[doc(hidden)]
    #[inline]
    pub fn __primal<
        'a,
        Fun: crate::CallTuple<(&'a mut [T], F, &'a mut [T])>,
        T: Scalar + PlusEq1<F, T>,
        F: Copy + 'static,
    >(
        _f: Fun,
        (y, f, x): (&'a mut [T], F, &'a mut [T]),
    ) {
        map(Step::PlusValues, y, f, x)
    },
    /// Adjoint-only where bit 0 of `dead` is set (`y`'s value afterwards is never read).
    #[doc(hidden)]
    #[inline]
    pub fn __adj<
        'a,
        Fun: crate::CallTuple<(&'a mut [T], F, &'a mut [T])>,
        T: Scalar + PlusEq1<F, T>,
        F: Copy + 'static,
    >(
        _f: Fun,
        dead: crate::abi::ParamMask,
        (y, f, x): (&'a mut [T], F, &'a mut [T]),
    ) {
        let step = if dead & 1 == 1 {
            Step::PlusAdjoints
        } else {
            Step::Plus
        };
        map(step, y, f, x)
    },
    /// Adjoint-only where bit 0 of `dead` is set (`y`'s value afterwards is never read); where
    /// [`FRESH_TARGET`](crate::abi::FRESH_TARGET) is set, `y` holds `f(x)` (it was zero before
    /// the `i_map` undone), so the rule reads `f(x)` from it instead of recomputing it.
    #[doc(hidden)]
    #[inline]
    pub fn __adj<
        'a,
        Fun: crate::CallTuple<(&'a mut [T], F, &'a mut [T])>,
        T: Scalar + PlusEq1<F, T>,
        F: Copy + 'static,
    >(
        _f: Fun,
        dead: crate::abi::ParamMask,
        (y, f, x): (&'a mut [T], F, &'a mut [T]),
    ) {
        let step = match (dead & 1 == 1, dead & crate::abi::FRESH_TARGET != 0) {
            (true, false) => Step::MinusAdjoints,
            (true, true) => Step::MinusAdjointsStored,
            (false, false) => Step::Minus,
            (false, true) => Step::MinusStored,
        };
        map(step, y, f, x)
    }
);

/// Which direction runs, and whether adjoints move.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Step {
    /// `y += f(x)`.
    Plus,
    /// `y -= f(x)`.
    Minus,
    /// `y += f(x)` on the values only (`ȳ` is known to be zero).
    PlusValues,
    /// `y += f(x)` adjoint-only: `y`'s value afterwards is never read (on gradient numbers
    /// the adjoints alone move; on plain numbers [`Step::Plus`]).
    PlusAdjoints,
    /// `y -= f(x)` adjoint-only (as [`Step::PlusAdjoints`]).
    MinusAdjoints,
    /// [`Step::Minus`] where `y` holds `f(x)` exactly (up to the sign of a zero: it was zero
    /// before the `y += f(x)` undone, [`FRESH_TARGET`](crate::abi::FRESH_TARGET)): the lanes
    /// read `f(x)` from `y` instead of computing it.
    MinusStored,
    /// [`Step::MinusAdjoints`] where `y` holds `f(x)` (as [`Step::MinusStored`]).
    MinusAdjointsStored,
}

impl Step {
    /// Whether it subtracts (`y -= f(x)`).
    #[inline(always)]
    fn minus(self) -> bool {
        matches!(
            self,
            Step::Minus | Step::MinusAdjoints | Step::MinusStored | Step::MinusAdjointsStored
        )
    }
    /// Whether only the adjoints move (on gradient numbers).
    #[inline(always)]
    fn adjoints_only(self) -> bool {
        matches!(
            self,
            Step::PlusAdjoints | Step::MinusAdjoints | Step::MinusAdjointsStored
        )
    }
    /// Whether `y` holds `f(x)` ([`Step::MinusStored`]).
    #[inline(always)]
    fn stored(self) -> bool {
        matches!(self, Step::MinusStored | Step::MinusAdjointsStored)
    }
}

#[inline]
fn map<T: Scalar + PlusEq1<F, T>, F: Copy + 'static>(step: Step, y: &mut [T], _f: F, x: &mut [T]) {
    crate::check::equal_lengths(
        "nilang::stdlib::elementwise::i_map",
        "i_map(y, f, x)",
        &[("y", y.len()), ("x", x.len())],
    );
    if table_lanes::<T, F>(step, y, x) {
        return;
    }
    for (y, x) in y.iter_mut().zip(x.iter_mut()) {
        match step {
            Step::Plus => <T as PlusEq1<F, T>>::plus_eq(y, x),
            Step::Minus | Step::MinusStored => <T as PlusEq1<F, T>>::minus_eq(y, x),
            Step::PlusValues => <T as PlusEq1<F, T>>::plus_eq_primal(y, x),
            Step::PlusAdjoints => <T as PlusEq1<F, T>>::plus_eq_adjoint(y, x),
            Step::MinusAdjoints | Step::MinusAdjointsStored => {
                <T as PlusEq1<F, T>>::minus_eq_adjoint(y, x)
            }
        }
    }
}

/// The rows of the table of elementary functions with a vector implementation: `F` one of
/// them and `T` `f64` or `GVar<f64>` runs [`by_lanes`] and returns `true`; otherwise `false`
/// (nothing done). The conditions are on types only: rustc folds them.
macro_rules! table_lanes {
    ($($F:ident { names: [$f:ident $(, $alias:ident)*], c: $c:ident, domain: $dom:literal, d: $s:tt $op:tt $d:tt, lanes: $l:ident },)*) => {
        #[inline(always)]
        fn table_lanes<T: 'static, F: 'static>(step: Step, y: &mut [T], x: &mut [T]) -> bool {
            $(
                if table_lanes!(@vector $l) && TypeId::of::<F>() == TypeId::of::<fns::$F>() {
                    return table_lanes!(@call $l $F, step, y, x);
                }
            )*
            false
        }
    };
    (@vector each) => { false };
    (@vector $l:ident) => { true };
    (@call each $F:ident, $step:ident, $y:ident, $x:ident) => { false };
    (@call $l:ident $F:ident, $step:ident, $y:ident, $x:ident) => { by_lanes::<fns::$F, T>($step, $y, $x) };
}
nilang_functions::elementary_functions!(table_lanes! {});

/// `y ±= f(x)` in lanes when `T` is `f64` or `GVar<f64>` (returns `false` otherwise).
#[inline(always)]
fn by_lanes<F: ArrayLanes, T: 'static>(step: Step, y: &mut [T], x: &mut [T]) -> bool {
    if TypeId::of::<T>() == TypeId::of::<f64>() {
        // SAFETY: `T` is `f64`
        let (y, x) = unsafe { (cast::<T, f64>(y), cast::<T, f64>(x)) };
        dispatch::<F, f64>(step, y, x);
        return true;
    }
    if TypeId::of::<T>() == TypeId::of::<GVar<f64>>() {
        // SAFETY: `T` is `GVar<f64>`
        let (y, x) = unsafe { (cast::<T, GVar<f64>>(y), cast::<T, GVar<f64>>(x)) };
        // the kernels of AVX-512 and AVX2 split the numbers in registers (permutes, unpacks),
        // so the values step runs there too
        if step == Step::PlusValues && crate::simd::active() == crate::simd::Isa::Baseline {
            values_by_blocks::<F>(y, x);
        } else {
            dispatch::<F, GVar<f64>>(step, y, x);
        }
        return true;
    }
    false
}

/// The values-only step on gradient numbers by the kernel of plain numbers: their values
/// copied to blocks of `f64` and back (the lanes of `f64` ran a `tanh` twice as fast as those
/// of interleaved `GVar`s; the same operations, so the same bits): the default build's path.
/// The kernels of AVX-512 and AVX2 split the numbers in registers instead ([`avx512_pairs`],
/// [`avx2_pairs`]).
#[inline]
fn values_by_blocks<F: ArrayLanes>(y: &mut [GVar<f64>], x: &[GVar<f64>]) {
    const BLOCK: usize = 256;
    let (mut yv, mut xv) = ([0.0; BLOCK], [0.0; BLOCK]);
    for (y, x) in y.chunks_mut(BLOCK).zip(x.chunks(BLOCK)) {
        let n = y.len();
        for (v, y) in yv.iter_mut().zip(y.iter()) {
            *v = y.x;
        }
        for (v, x) in xv.iter_mut().zip(x) {
            *v = x.x;
        }
        dispatch::<F, f64>(Step::Plus, &mut yv[..n], &mut xv[..n]);
        for (y, v) in y.iter_mut().zip(&yv) {
            y.x = *v;
        }
    }
}

/// Runs [`kernel`] compiled for the widest vectors the CPU has: on x86-64 AVX-512 or AVX2
/// ([`crate::simd::active`]: detected at run time, capped by `NILANG_SIMD`), else the default build's (SSE2 on x86-64,
/// NEON on aarch64). The kernel computes lane by lane with the same IEEE operations whatever
/// the instructions, so every path gives the same bits.
#[inline]
fn dispatch<F: ArrayLanes, L: Lane>(step: Step, y: &mut [L], x: &mut [L]) {
    #[cfg(target_arch = "x86_64")]
    {
        #[target_feature(enable = "avx512f")]
        fn avx512<F: ArrayLanes, L: Lane>(step: Step, y: &mut [L], x: &mut [L]) {
            // SAFETY: the CPU has AVX-512F (this function's own feature)
            unsafe { L::kernel_avx512::<F>(step, y, x) }
        }
        #[target_feature(enable = "avx2")]
        fn avx2<F: ArrayLanes, L: Lane>(step: Step, y: &mut [L], x: &mut [L]) {
            // SAFETY: the CPU has AVX2 (this function's own feature)
            unsafe { L::kernel_avx2::<F>(step, y, x) }
        }
        match crate::simd::active() {
            // SAFETY: the CPU has AVX-512F (`active` is at most what it has)
            crate::simd::Isa::Avx512 => return unsafe { avx512::<F, L>(step, y, x) },
            // SAFETY: the CPU has AVX2
            crate::simd::Isa::Avx2 => return unsafe { avx2::<F, L>(step, y, x) },
            crate::simd::Isa::Baseline => {}
        }
    }
    kernel::<F, L>(step, y, x)
}

/// `y ±= f(x)` over the slices (of one length), eight elements at a time, the tail in one
/// vector padded with zeros (so an element's result does not depend on its position).
#[inline(always)]
fn kernel<F: ArrayLanes, L: Lane>(step: Step, y: &mut [L], x: &mut [L]) {
    let (n, full) = (y.len(), y.len() - y.len() % 8);
    for (y, x) in y[..full]
        .chunks_exact_mut(8)
        .zip(x[..full].chunks_exact_mut(8))
    {
        // one chunk an iteration: vectorised across its eight lanes (SLP), not across chunks
        // (the loop vectoriser would gather lane `l` of eight chunks into one register)
        let (y, x) = core::hint::black_box((y, x));
        L::step::<F>(step, y.try_into().unwrap(), x.try_into().unwrap());
    }
    if full < n {
        let (mut yt, mut xt) = ([L::default(); 8], [L::default(); 8]);
        yt[..n - full].copy_from_slice(&y[full..]);
        xt[..n - full].copy_from_slice(&x[full..]);
        L::step::<F>(step, &mut yt, &mut xt);
        y[full..].copy_from_slice(&yt[..n - full]);
        x[full..].copy_from_slice(&xt[..n - full]);
    }
}

/// [`kernel`] sixteen elements at a time (two AVX-512 vectors: the instructions of two
/// independent vectors interleaved, where one vector's long chain of dependent operations
/// left the core waiting), then [`kernel`] on the rest: each element gets the same operations,
/// so the same bits, as in [`kernel`].
#[inline(always)]
fn kernel16<F: ArrayLanes, L: Lane>(step: Step, y: &mut [L], x: &mut [L]) {
    let full = y.len() - y.len() % 16;
    for (y, x) in y[..full]
        .chunks_exact_mut(16)
        .zip(x[..full].chunks_exact_mut(16))
    {
        let (y, x) = core::hint::black_box((y, x));
        L::step16::<F>(step, y.try_into().unwrap(), x.try_into().unwrap());
    }
    kernel::<F, L>(step, &mut y[full..], &mut x[full..]);
}

/// A number the kernel runs on: `f64` (values) or `GVar<f64>` (values and adjoints).
trait Lane: Copy + Default {
    /// `y ±= f(x)` on eight elements.
    fn step<F: ArrayLanes>(step: Step, y: &mut [Self; 8], x: &mut [Self; 8]);
    /// `y ±= f(x)` on sixteen elements: [`Lane::step`] on each half, or the same operations
    /// on both together.
    #[inline(always)]
    fn step16<F: ArrayLanes>(step: Step, y: &mut [Self; 16], x: &mut [Self; 16]) {
        let (ya, yb) = y.split_at_mut(8);
        let (xa, xb) = x.split_at_mut(8);
        Self::step::<F>(step, ya.try_into().unwrap(), xa.try_into().unwrap());
        Self::step::<F>(step, yb.try_into().unwrap(), xb.try_into().unwrap());
    }
    /// `y ±= f(x)` over the slices compiled for AVX-512: [`kernel16`], or a kernel of this
    /// type's own with the same bits.
    ///
    /// # Safety
    /// The CPU must have AVX-512F.
    #[inline(always)]
    unsafe fn kernel_avx512<F: ArrayLanes>(step: Step, y: &mut [Self], x: &mut [Self]) {
        kernel16::<F, Self>(step, y, x)
    }
    /// `y ±= f(x)` over the slices compiled for AVX2: [`kernel`], or a kernel of this type's
    /// own with the same bits.
    ///
    /// # Safety
    /// The CPU must have AVX2.
    #[inline(always)]
    unsafe fn kernel_avx2<F: ArrayLanes>(step: Step, y: &mut [Self], x: &mut [Self]) {
        kernel::<F, Self>(step, y, x)
    }
}

/// `v` as a slice of `U`.
///
/// # Safety
/// `T` and `U` must be the same type.
#[inline(always)]
unsafe fn cast<T, U>(v: &mut [T]) -> &mut [U] {
    // SAFETY: the same type (the caller's promise): same layout and length
    unsafe { core::slice::from_raw_parts_mut(v.as_mut_ptr().cast::<U>(), v.len()) }
}

/// Whether all eight lanes are zero (`±0`), by vector operations (`v.0 == [0.0; 8]` compiled
/// to eight scalar compares and branches).
#[inline(always)]
fn all_zero(v: F8) -> bool {
    v.0.iter().fold(0u64, |acc, r| acc | (r.to_bits() << 1)) == 0
}

impl Lane for f64 {
    #[inline(always)]
    fn step<F: ArrayLanes>(step: Step, y: &mut [f64; 8], x: &mut [f64; 8]) {
        let yv = F8(*y);
        let r = if step.stored() { yv } else { F::value(F8(*x)) };
        // plain numbers: an adjoint-only step is the instruction itself
        *y = if step.minus() { yv - r } else { yv + r }.0;
    }
    /// Both halves' values in one sixteen-lane call ([`ArrayLanes::value16`]).
    #[inline(always)]
    fn step16<F: ArrayLanes>(step: Step, y: &mut [f64; 16], x: &mut [f64; 16]) {
        let yv = F16(*y);
        let r = if step.stored() {
            yv
        } else {
            F::value16(F16(*x))
        };
        *y = if step.minus() { yv - r } else { yv + r }.0;
    }
}

/// The reals of eight gradient numbers, in memory order (values and adjoints interleaved).
type Pairs = [f64; 16];

/// The positions of a `GVar<f64>`'s value and adjoint among its two reals.
const X_AT: usize = core::mem::offset_of!(GVar<f64>, x) / size_of::<f64>();
const G_AT: usize = core::mem::offset_of!(GVar<f64>, g) / size_of::<f64>();
const _: () = assert!(size_of::<GVar<f64>>() == 2 * size_of::<f64>() && X_AT + G_AT == 1);

/// Eight gradient numbers as their sixteen reals (one copy of the whole chunk: two vector
/// loads and a shuffle per part, where reading the fields one by one loads them one at a time).
#[inline(always)]
fn pairs(v: &[GVar<f64>; 8]) -> Pairs {
    // SAFETY: `GVar<f64>` is two `f64`s (asserted above), so eight are sixteen, same alignment
    unsafe { core::ptr::read(v.as_ptr().cast::<Pairs>()) }
}

/// Writes the sixteen reals back (one store of the whole chunk).
#[inline(always)]
fn set_pairs(v: &mut [GVar<f64>; 8], p: Pairs) {
    // SAFETY: as in [`pairs`]
    unsafe { core::ptr::write(v.as_mut_ptr().cast::<Pairs>(), p) }
}

/// The values (`at` = [`X_AT`]) or adjoints ([`G_AT`]) of [`pairs`] as lanes.
#[inline(always)]
fn part(p: &Pairs, at: usize) -> F8 {
    F8(core::array::from_fn(|l| p[2 * l + at]))
}

/// `p` with its part `at` replaced by `v`.
#[inline(always)]
fn with_part(p: &Pairs, at: usize, v: F8) -> Pairs {
    core::array::from_fn(|k| if k % 2 == at { v.0[k / 2] } else { p[k] })
}

impl Lane for GVar<f64> {
    /// [`avx512_pairs::kernel`] on x86-64 ([`kernel16`] elsewhere, never called).
    #[inline(always)]
    unsafe fn kernel_avx512<F: ArrayLanes>(step: Step, y: &mut [Self], x: &mut [Self]) {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: the CPU has AVX-512F (the caller's promise)
        unsafe {
            avx512_pairs::kernel::<F>(step, y, x)
        }
        #[cfg(not(target_arch = "x86_64"))]
        kernel16::<F, Self>(step, y, x)
    }
    /// [`avx2_pairs::kernel`] on x86-64 ([`kernel`] elsewhere, never called).
    #[inline(always)]
    unsafe fn kernel_avx2<F: ArrayLanes>(step: Step, y: &mut [Self], x: &mut [Self]) {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: the CPU has AVX2 (the caller's promise)
        unsafe {
            avx2_pairs::kernel::<F>(step, y, x)
        }
        #[cfg(not(target_arch = "x86_64"))]
        kernel::<F, Self>(step, y, x)
    }
    /// The backward rule on eight lanes, or the values alone where the eight `ȳ` are zero.
    #[inline(always)]
    fn step<F: ArrayLanes>(step: Step, y: &mut [Self; 8], x: &mut [Self; 8]) {
        let (xp, yp) = (pairs(x), pairs(y));
        let (xv, yx, yg) = (part(&xp, X_AT), part(&yp, X_AT), part(&yp, G_AT));
        let adjoints_only = step.adjoints_only();
        // `y` = ±0 + f(x) where stored: the same bits as f(x) but for the sign of a zero, which
        // no row's derivative of `r` sees (`1 − r²`, `r + 1`; `exp` is never −0); adjoint-only,
        // `f(x)` is computed only where the derivative reads it (`xv` stands in, unread, where
        // it does not)
        let r = if step.stored() {
            yx
        } else if adjoints_only && !F::READS_R {
            xv
        } else {
            F::value(xv)
        };
        let minus = step.minus();
        if !adjoints_only {
            let out = if minus { yx - r } else { yx + r };
            set_pairs(y, with_part(&yp, X_AT, out));
        }
        if step == Step::PlusValues || all_zero(yg) {
            return;
        }
        let s = F::adjoint_step(yg, xv, r);
        let xg = part(&xp, G_AT);
        let g = if minus { xg + s } else { xg - s };
        set_pairs(x, with_part(&xp, G_AT, g));
    }
}

/// Gradient numbers on AVX2: eight numbers (four vectors of their reals: value, adjoint,
/// value, ..) split into two vectors of values and two of adjoints by one in-lane unpack each
/// (`unpacklo` of two vectors of pairs takes the values of numbers 0, 2, 1, 3; `unpackhi` the
/// adjoints, in the same order), and joined back by the same unpacks (the inverse
/// permutation). The lane code runs on the permuted order, which an elementwise map does not
/// see: every lane gets [`Lane::step`]'s operations, so the same bits. Where the compiler,
/// given the portable [`part`]/[`with_part`], moved the reals by cross-lane shuffles, the
/// adjoint-only rule of `tanh` with its output stored cost 6.6× a plain stream of adjoints.
/// Each step runs a loop of its own (the step a constant), the eight numbers' code inlined.
#[cfg(target_arch = "x86_64")]
mod avx2_pairs {
    use super::{ArrayLanes, GVar, Step, F8, G_AT, X_AT};
    use core::arch::x86_64::{
        __m256d, _mm256_add_pd, _mm256_castpd_si256, _mm256_loadu_pd, _mm256_or_pd,
        _mm256_slli_epi64, _mm256_storeu_pd, _mm256_sub_pd, _mm256_testz_si256, _mm256_unpackhi_pd,
        _mm256_unpacklo_pd,
    };

    // the unpacks below take the value from the low half of each pair
    const _: () = assert!(X_AT == 0 && G_AT == 1);

    /// Eight gradient numbers as four vectors of their reals (value, adjoint, value, ..).
    ///
    /// # Safety
    /// The CPU must have AVX2 (as for every function here).
    #[inline(always)]
    unsafe fn load(v: &[GVar<f64>; 8]) -> [__m256d; 4] {
        let p = v.as_ptr().cast::<f64>();
        // SAFETY: eight `GVar<f64>` are sixteen `f64` (asserted with `X_AT`), readable; AVX
        // (the caller's promise)
        [0, 4, 8, 12].map(|k| unsafe { _mm256_loadu_pd(p.add(k)) })
    }

    /// Writes [`load`]'s vectors back.
    ///
    /// # Safety
    /// As [`load`].
    #[inline(always)]
    unsafe fn store(v: &mut [GVar<f64>; 8], r: [__m256d; 4]) {
        let p = v.as_mut_ptr().cast::<f64>();
        for (k, r) in r.into_iter().enumerate() {
            // SAFETY: as in `load`, writable
            unsafe { _mm256_storeu_pd(p.add(4 * k), r) };
        }
    }

    /// The values and the adjoints of [`load`]'s numbers (two vectors each, numbers 0, 2, 1,
    /// 3, 4, 6, 5, 7).
    ///
    /// # Safety
    /// As [`load`].
    #[inline(always)]
    unsafe fn split(r: [__m256d; 4]) -> [[__m256d; 2]; 2] {
        // SAFETY: AVX (the caller's promise)
        unsafe {
            [
                [
                    _mm256_unpacklo_pd(r[0], r[1]),
                    _mm256_unpacklo_pd(r[2], r[3]),
                ],
                [
                    _mm256_unpackhi_pd(r[0], r[1]),
                    _mm256_unpackhi_pd(r[2], r[3]),
                ],
            ]
        }
    }

    /// The reals of the numbers with values `x` and adjoints `g` in [`split`]'s order: the
    /// inverse of [`split`], bit for bit.
    ///
    /// # Safety
    /// As [`load`].
    #[inline(always)]
    unsafe fn join(x: [__m256d; 2], g: [__m256d; 2]) -> [__m256d; 4] {
        // SAFETY: AVX (the caller's promise)
        unsafe {
            [
                _mm256_unpacklo_pd(x[0], g[0]),
                _mm256_unpackhi_pd(x[0], g[0]),
                _mm256_unpacklo_pd(x[1], g[1]),
                _mm256_unpackhi_pd(x[1], g[1]),
            ]
        }
    }

    /// `a + b` (`PLUS`) or `a − b`, vector by vector.
    ///
    /// # Safety
    /// As [`load`].
    #[inline(always)]
    unsafe fn add_or_sub(plus: bool, a: [__m256d; 2], b: [__m256d; 2]) -> [__m256d; 2] {
        // SAFETY: AVX (the caller's promise)
        unsafe {
            if plus {
                [_mm256_add_pd(a[0], b[0]), _mm256_add_pd(a[1], b[1])]
            } else {
                [_mm256_sub_pd(a[0], b[0]), _mm256_sub_pd(a[1], b[1])]
            }
        }
    }

    /// Two vectors as eight lanes.
    #[inline(always)]
    fn lanes(v: [__m256d; 2]) -> F8 {
        // SAFETY: two `__m256d` are eight `f64`
        F8(unsafe { core::mem::transmute::<[__m256d; 2], [f64; 8]>(v) })
    }

    /// Eight lanes as two vectors.
    #[inline(always)]
    fn vectors(v: F8) -> [__m256d; 2] {
        // SAFETY: as in `lanes`
        unsafe { core::mem::transmute::<[f64; 8], [__m256d; 2]>(v.0) }
    }

    /// Whether all eight lanes are zero (`±0`): [`super::all_zero`] on vectors.
    ///
    /// # Safety
    /// As [`load`].
    #[inline(always)]
    unsafe fn all_zero(v: [__m256d; 2]) -> bool {
        // SAFETY: AVX2 (the caller's promise)
        unsafe {
            let s = _mm256_slli_epi64::<1>(_mm256_castpd_si256(_mm256_or_pd(v[0], v[1])));
            _mm256_testz_si256(s, s) == 1
        }
    }

    /// `y ±= f(x)` on eight gradient numbers: [`Lane::step`](super::Lane::step)'s operations
    /// on the split numbers.
    ///
    /// # Safety
    /// As [`load`].
    #[inline(always)]
    unsafe fn step8<F: ArrayLanes>(step: Step, y: &mut [GVar<f64>; 8], x: &mut [GVar<f64>; 8]) {
        let adjoints_only = step.adjoints_only();
        let minus = step.minus();
        // SAFETY: AVX2 (the caller's promise)
        unsafe {
            let [yx, yg] = split(load(y));
            let [xv, xg] = split(load(x));
            // as in `Lane::step`: `f(x)` from `y` where stored; not computed where unread
            let r = if step.stored() {
                yx
            } else if adjoints_only && !F::READS_R {
                xv
            } else {
                vectors(F::value(lanes(xv)))
            };
            if !adjoints_only {
                store(y, join(add_or_sub(!minus, yx, r), yg));
            }
            if step == Step::PlusValues || all_zero(yg) {
                return;
            }
            let s = vectors(F::adjoint_step(lanes(yg), lanes(xv), lanes(r)));
            store(x, join(xv, add_or_sub(minus, xg, s)));
        }
    }

    /// The step of number `S` (a constant for [`chunks`]).
    const fn step_at(s: u8) -> Step {
        match s {
            0 => Step::Plus,
            1 => Step::Minus,
            2 => Step::PlusValues,
            3 => Step::PlusAdjoints,
            4 => Step::MinusAdjoints,
            5 => Step::MinusStored,
            _ => Step::MinusAdjointsStored,
        }
    }

    /// Step number `S` ([`step_at`]) over slices whose length is a multiple of eight.
    #[target_feature(enable = "avx2")]
    #[inline]
    fn chunks<F: ArrayLanes, const S: u8>(y: &mut [GVar<f64>], x: &mut [GVar<f64>]) {
        for (y, x) in y.chunks_exact_mut(8).zip(x.chunks_exact_mut(8)) {
            // SAFETY: the CPU has AVX2 (this function's own feature)
            unsafe { step8::<F>(step_at(S), y.try_into().unwrap(), x.try_into().unwrap()) };
        }
    }

    /// [`chunks`] of `step`.
    #[target_feature(enable = "avx2")]
    #[inline]
    fn by_step<F: ArrayLanes>(step: Step, y: &mut [GVar<f64>], x: &mut [GVar<f64>]) {
        match step {
            Step::Plus => chunks::<F, 0>(y, x),
            Step::Minus => chunks::<F, 1>(y, x),
            Step::PlusValues => chunks::<F, 2>(y, x),
            Step::PlusAdjoints => chunks::<F, 3>(y, x),
            Step::MinusAdjoints => chunks::<F, 4>(y, x),
            Step::MinusStored => chunks::<F, 5>(y, x),
            Step::MinusAdjointsStored => chunks::<F, 6>(y, x),
        }
    }

    /// `y ±= f(x)` over the slices: eight numbers at a time ([`step8`]), the last `len mod 8`
    /// in eight padded with zeros (as [`super::kernel`]).
    ///
    /// # Safety
    /// The CPU must have AVX2.
    #[target_feature(enable = "avx2")]
    #[inline]
    pub(super) unsafe fn kernel<F: ArrayLanes>(
        step: Step,
        y: &mut [GVar<f64>],
        x: &mut [GVar<f64>],
    ) {
        let (n, full) = (y.len(), y.len() - y.len() % 8);
        by_step::<F>(step, &mut y[..full], &mut x[..full]);
        if full < n {
            let (mut yt, mut xt) = ([GVar::default(); 8], [GVar::default(); 8]);
            yt[..n - full].copy_from_slice(&y[full..]);
            xt[..n - full].copy_from_slice(&x[full..]);
            by_step::<F>(step, &mut yt, &mut xt);
            y[full..].copy_from_slice(&yt[..n - full]);
            x[full..].copy_from_slice(&xt[..n - full]);
        }
    }
}

/// Gradient numbers on AVX-512: eight numbers (two vectors of their reals) split into a
/// vector of values and one of adjoints by two two-source permutes each way, where the
/// compiler, given the portable [`part`]/[`with_part`], moved the reals one at a time (the
/// adjoint-only rule of `tanh` cost 3.7× a plain loop over separate arrays). The operations on
/// the values and adjoints are [`Lane::step`]'s, so the same bits.
#[cfg(target_arch = "x86_64")]
mod avx512_pairs {
    use super::{all_zero, ArrayLanes, GVar, Step, F16, F8, G_AT, X_AT};
    use core::arch::x86_64::{
        __m512d, __m512i, _mm512_add_pd, _mm512_loadu_pd, _mm512_permutex2var_pd, _mm512_set1_pd,
        _mm512_set_epi64, _mm512_storeu_pd, _mm512_sub_pd,
    };

    // the permutes below put the value first
    const _: () = assert!(X_AT == 0 && G_AT == 1);

    /// Sixteen gradient numbers as four vectors of their reals (value, adjoint, value, ..).
    #[target_feature(enable = "avx512f")]
    #[inline]
    fn load(v: &[GVar<f64>; 16]) -> [__m512d; 4] {
        let p = v.as_ptr().cast::<f64>();
        // SAFETY: sixteen `GVar<f64>` are thirty-two `f64` (asserted with `X_AT`), readable
        [0, 8, 16, 24].map(|k| unsafe { _mm512_loadu_pd(p.add(k)) })
    }

    /// Writes [`load`]'s vectors back.
    #[target_feature(enable = "avx512f")]
    #[inline]
    fn store(v: &mut [GVar<f64>; 16], r: [__m512d; 4]) {
        let p = v.as_mut_ptr().cast::<f64>();
        for (k, r) in r.into_iter().enumerate() {
            // SAFETY: as in `load`, writable
            unsafe { _mm512_storeu_pd(p.add(8 * k), r) };
        }
    }

    /// The values (`AT` = 0) or adjoints (`AT` = 1) of [`load`]'s numbers: two vectors.
    #[target_feature(enable = "avx512f")]
    #[inline]
    fn part<const AT: i64>(r: [__m512d; 4]) -> [__m512d; 2] {
        let i = crate::stdlib::pair_index::pick(AT);
        [
            _mm512_permutex2var_pd(r[0], i, r[1]),
            _mm512_permutex2var_pd(r[2], i, r[3]),
        ]
    }

    /// The reals of eight numbers with values `x` and adjoints `g` (two vectors).
    #[target_feature(enable = "avx512f")]
    #[inline]
    fn pairs(x: __m512d, g: __m512d) -> [__m512d; 2] {
        let lo: __m512i = _mm512_set_epi64(11, 3, 10, 2, 9, 1, 8, 0);
        let hi: __m512i = _mm512_set_epi64(15, 7, 14, 6, 13, 5, 12, 4);
        [
            _mm512_permutex2var_pd(x, lo, g),
            _mm512_permutex2var_pd(x, hi, g),
        ]
    }

    /// Two vectors as sixteen lanes. `THROUGH_MEMORY`: stored and read back, so that the lane
    /// code after them starts from vector loads, as on plain numbers (handed the registers,
    /// the compiler ran the lane functions on half-width vectors); else in registers (cheaper
    /// where a few operations follow).
    #[target_feature(enable = "avx512f")]
    #[inline]
    fn lanes<const THROUGH_MEMORY: bool>(v: [__m512d; 2]) -> F16 {
        // SAFETY: two `__m512d` are sixteen `f64`
        let a = unsafe { core::mem::transmute::<[__m512d; 2], [f64; 16]>(v) };
        F16(if THROUGH_MEMORY {
            core::hint::black_box(a)
        } else {
            a
        })
    }

    /// Sixteen lanes as two vectors (`THROUGH_MEMORY` as in [`lanes`]).
    #[target_feature(enable = "avx512f")]
    #[inline]
    fn vectors<const THROUGH_MEMORY: bool>(v: F16) -> [__m512d; 2] {
        let a = if THROUGH_MEMORY {
            core::hint::black_box(v.0)
        } else {
            v.0
        };
        // SAFETY: as in `lanes`
        unsafe { core::mem::transmute::<[f64; 16], [__m512d; 2]>(a) }
    }

    /// The halves of sixteen lanes.
    #[inline(always)]
    fn halves(v: F16) -> [F8; 2] {
        let (a, b) = v.0.split_at(8);
        [F8(a.try_into().unwrap()), F8(b.try_into().unwrap())]
    }

    /// `y ±= f(x)` on sixteen gradient numbers: the values as [`Lane::step16`](super::Lane::step16)
    /// of plain numbers computes them (sixteen lanes), then each half's backward rule as
    /// [`Lane::step`](super::Lane::step) computes it. A part that changes is added to the
    /// numbers' reals as they lie (`y ± (r, ∓0)`, `x ∓ (±0, s)`): adding `∓0` leaves the
    /// other part as it is, bit for bit (a signalling NaN comes back quiet).
    #[target_feature(enable = "avx512f")]
    #[inline]
    fn step16<F: ArrayLanes>(step: Step, y: &mut [GVar<f64>; 16], x: &mut [GVar<f64>; 16]) {
        let adjoints_only = step.adjoints_only();
        // as in `Lane::step`: `f(x)` from `y` where stored; not computed where unread
        let compute_r = !step.stored() && (!adjoints_only || F::READS_R);
        let minus = step.minus();
        let (yr, xr) = (load(y), load(x));
        let r = if step.stored() {
            lanes::<false>(part::<0>(yr))
        } else if compute_r {
            F::value16(lanes::<true>(part::<0>(xr)))
        } else {
            lanes::<false>(part::<0>(xr))
        };
        // the sign of a zero that leaves a real as it is under the update's `+` or `−`
        let keep = |plus: bool| _mm512_set1_pd(if plus { -0.0 } else { 0.0 });
        if !adjoints_only {
            let [r0, r1] = if compute_r {
                vectors::<true>(r)
            } else {
                vectors::<false>(r)
            };
            let z = keep(!minus);
            let [a, b] = pairs(r0, z);
            let [c, d] = pairs(r1, z);
            let add = |y: __m512d, t: __m512d| {
                if minus {
                    _mm512_sub_pd(y, t)
                } else {
                    _mm512_add_pd(y, t)
                }
            };
            store(
                y,
                [add(yr[0], a), add(yr[1], b), add(yr[2], c), add(yr[3], d)],
            );
        }
        if step == Step::PlusValues {
            return;
        }
        let [yg0, yg1] = halves(lanes::<false>(part::<1>(yr)));
        // a half whose eight `ȳ` are zero moves nothing
        let live = [!all_zero(yg0), !all_zero(yg1)];
        if live == [false, false] {
            return;
        }
        // `ȳ ∘ d` of both halves: where the derivative calls a function (`exp(−x)` of
        // `softplus`), on sixteen lanes from memory, as the values are computed (two vectors'
        // chains interleaved, full-width; per half, in registers, the compiler split the
        // division in half-width vectors and ran the halves one after the other); else per
        // half in registers (a few operations). Lane by lane the same operations, so the same
        // bits.
        let s: [__m512d; 2] = if F::CALLS_FUNCTION {
            adjoint16::<F>(&yr, &xr, &r)
        } else {
            let [xv0, xv1] = halves(lanes::<false>(part::<0>(xr)));
            let [r0, r1] = halves(r);
            // SAFETY: `[f64; 8]` and `__m512d` are sixty-four bytes of `f64`s
            let half = |yg: F8, xv: F8, r: F8| unsafe {
                core::mem::transmute::<[f64; 8], __m512d>(F::adjoint_step(yg, xv, r).0)
            };
            [half(yg0, xv0, r0), half(yg1, xv1, r1)]
        };
        let z = keep(minus);
        // one half's reals after the rule: x̄ + s (a `−` step) or x̄ − s
        let rule = |s: __m512d, xa: __m512d, xb: __m512d| {
            let [a, b] = pairs(z, s);
            if minus {
                [_mm512_add_pd(xa, a), _mm512_add_pd(xb, b)]
            } else {
                [_mm512_sub_pd(xa, a), _mm512_sub_pd(xb, b)]
            }
        };
        let [a, b] = if live[0] {
            rule(s[0], xr[0], xr[1])
        } else {
            [xr[0], xr[1]]
        };
        let [c, d] = if live[1] {
            rule(s[1], xr[2], xr[3])
        } else {
            [xr[2], xr[3]]
        };
        store(x, [a, b, c, d]);
    }

    /// `ȳ ∘ d` of [`load`]'s sixteen numbers `y` and `x` (`r = f(x)`) on sixteen lanes in
    /// registers: a function of its own, so that its code is the same whichever step calls it
    /// (inlined into a step that also computes `f(x)`, the two chains' code was slower).
    #[target_feature(enable = "avx512f")]
    #[inline(never)]
    fn adjoint16<F: ArrayLanes>(yr: &[__m512d; 4], xr: &[__m512d; 4], r: &F16) -> [__m512d; 2] {
        let s = F::adjoint_step16(
            lanes::<false>(part::<1>(*yr)),
            lanes::<false>(part::<0>(*xr)),
            *r,
        );
        vectors::<false>(s)
    }

    /// `y ±= f(x)` over the slices: sixteen numbers at a time ([`step16`]), the rest by
    /// [`super::kernel`] (compiled here: the same operations).
    ///
    /// # Safety
    /// The CPU must have AVX-512F.
    #[target_feature(enable = "avx512f")]
    #[inline]
    pub(super) unsafe fn kernel<F: ArrayLanes>(
        step: Step,
        y: &mut [GVar<f64>],
        x: &mut [GVar<f64>],
    ) {
        let full = y.len() - y.len() % 16;
        for (y, x) in y[..full]
            .chunks_exact_mut(16)
            .zip(x[..full].chunks_exact_mut(16))
        {
            let (y, x) = core::hint::black_box((y, x));
            step16::<F>(step, y.try_into().unwrap(), x.try_into().unwrap());
        }
        super::kernel::<F, GVar<f64>>(step, &mut y[full..], &mut x[full..]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The kernel as this CPU runs it (AVX-512 or AVX2 where present) and as the default build
    /// compiles it: the same bits, values and adjoints, for every vector function.
    #[test]
    fn every_dispatch_path_gives_the_same_bits() {
        fn check<F: ArrayLanes>() {
            let n = 203;
            let x: Vec<f64> = (0..n)
                .map(|i| ((i * 7919) % n) as f64 / n as f64 * 8.0 - 3.9)
                .collect();
            let g: Vec<GVar<f64>> = (0..n)
                .map(|i| GVar::new(0.5 - i as f64 / n as f64, 0.1 * i as f64))
                .collect();
            let mut gx: Vec<GVar<f64>> = x.iter().map(|&v| GVar::new(v, 1.0)).collect();
            let (mut a, mut b) = (vec![0.25; n], vec![0.25; n]);
            let (mut ga, mut gb) = (g.clone(), g.clone());
            let (mut xa, mut gxa) = (x.clone(), gx.clone());
            dispatch::<F, f64>(Step::Plus, &mut a, &mut xa);
            kernel::<F, f64>(Step::Plus, &mut b, &mut xa);
            dispatch::<F, GVar<f64>>(Step::Minus, &mut ga, &mut gxa);
            kernel::<F, GVar<f64>>(Step::Minus, &mut gb, &mut gx);
            let bits = |v: &[f64]| v.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&a), bits(&b));
            let gbits = |v: &[GVar<f64>]| {
                v.iter()
                    .flat_map(|v| [v.x.to_bits(), v.g.to_bits()])
                    .collect::<Vec<_>>()
            };
            assert_eq!(gbits(&ga), gbits(&gb));
            assert_eq!(gbits(&gxa), gbits(&gx));
            assert!(a.iter().any(|&v| v != 0.25) && gxa.iter().any(|v| v.g != 1.0));
        }
        check::<fns::Tanh>();
        check::<fns::Exp>();
        check::<fns::ExpM1>();
        check::<fns::Ln1p>();
        check::<fns::Sin>();
        check::<fns::Cos>();
        check::<fns::Softplus>();
    }

    /// Every step on gradient numbers as this CPU runs it (AVX-512's kernel of split
    /// vectors where present) and as the default build's kernel runs it: the same bits, values
    /// and adjoints, with zeros of both signs, infinities and NaN among the values and
    /// adjoints, chunks of eight whose `ȳ` are all zero (skipped), and a tail.
    #[test]
    fn every_step_on_gradient_numbers_gives_the_default_kernels_bits() {
        fn check<F: ArrayLanes>() {
            let n = 77;
            let specials = [
                0.0,
                -0.0,
                f64::INFINITY,
                f64::NEG_INFINITY,
                f64::NAN,
                1e-310,
            ];
            let x: Vec<GVar<f64>> = (0..n)
                .map(|i| {
                    let v = if i % 11 == 3 {
                        specials[i % specials.len()]
                    } else {
                        ((i * 7919) % n) as f64 / n as f64 * 8.0 - 3.9
                    };
                    GVar::new(v, if i % 5 == 0 { -0.0 } else { 0.1 * i as f64 })
                })
                .collect();
            // ȳ zero in elements 8..24 (a chunk of eight in each half of the first sixteen)
            let y: Vec<GVar<f64>> = (0..n)
                .map(|i| {
                    let g = if (8..24).contains(&i) {
                        0.0
                    } else if i % 13 == 1 {
                        specials[i % specials.len()]
                    } else {
                        0.5 - i as f64 / n as f64
                    };
                    GVar::new(if i % 7 == 0 { -0.0 } else { 0.0 }, g)
                })
                .collect();
            let bits = |v: &[GVar<f64>]| {
                v.iter()
                    .flat_map(|v| [v.x.to_bits(), v.g.to_bits()])
                    .collect::<Vec<_>>()
            };
            // `y` holding `f(x)` for the stored steps
            let (mut yf, mut xf) = (y.clone(), x.clone());
            kernel::<F, GVar<f64>>(Step::PlusValues, &mut yf, &mut xf);
            for step in [
                Step::Plus,
                Step::Minus,
                Step::PlusValues,
                Step::PlusAdjoints,
                Step::MinusAdjoints,
                Step::MinusStored,
                Step::MinusAdjointsStored,
            ] {
                let y0 = if step.stored() { &yf } else { &y };
                let (mut ya, mut xa) = (y0.clone(), x.clone());
                let (mut yb, mut xb) = (y0.clone(), x.clone());
                dispatch::<F, GVar<f64>>(step, &mut ya, &mut xa);
                kernel::<F, GVar<f64>>(step, &mut yb, &mut xb);
                assert_eq!(bits(&ya), bits(&yb), "{step:?}: y");
                assert_eq!(bits(&xa), bits(&xb), "{step:?}: x");
                if step != Step::PlusValues {
                    assert_ne!(bits(&xa), bits(&x), "{step:?}: no adjoint moved");
                }
                if !step.adjoints_only() {
                    assert_ne!(bits(&ya), bits(y0), "{step:?}: no value moved");
                }
            }
        }
        check::<fns::Tanh>();
        check::<fns::Exp>();
        check::<fns::ExpM1>();
        check::<fns::Ln>();
        check::<fns::Ln1p>();
        check::<fns::Sin>();
        check::<fns::Softplus>();
    }

    /// AVX2's kernel on gradient numbers (run here where the CPU has AVX2, whatever
    /// [`dispatch`] picks) gives the default kernel's bits for every step, values and
    /// adjoints, with special values, a chunk of eight whose `ȳ` are zero, and tails of every
    /// length.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn the_avx2_kernel_on_gradient_numbers_gives_the_default_kernels_bits() {
        if crate::simd::detected() < crate::simd::Isa::Avx2 {
            return;
        }
        fn check<F: ArrayLanes>() {
            let specials = [
                0.0,
                -0.0,
                f64::INFINITY,
                f64::NEG_INFINITY,
                f64::NAN,
                1e-310,
            ];
            // every NaN as one: the sign and payload of a NaN made where two NaNs meet in an
            // operation are the compiler's choice (it may swap the operands of `+`, `*`)
            let bits = |v: &[GVar<f64>]| {
                v.iter()
                    .flat_map(|v| [v.x, v.g])
                    .map(|v| if v.is_nan() { u64::MAX } else { v.to_bits() })
                    .collect::<Vec<_>>()
            };
            for n in (0..=16).chain([45]) {
                let x: Vec<GVar<f64>> = (0..n)
                    .map(|i| {
                        let v = if i % 7 == 5 {
                            specials[i % specials.len()]
                        } else {
                            ((i + 1) as f64 * 0.83).sin() * 5.0
                        };
                        GVar::new(v, 0.3 - 0.01 * i as f64)
                    })
                    .collect();
                let y: Vec<GVar<f64>> = (0..n)
                    .map(|i| {
                        let g = if (8..16).contains(&i) {
                            if i % 2 == 0 {
                                0.0
                            } else {
                                -0.0
                            }
                        } else if i % 9 == 4 {
                            specials[i % specials.len()]
                        } else {
                            0.7 - 0.05 * i as f64
                        };
                        GVar::new(if i % 3 == 0 { -0.0 } else { 0.0 }, g)
                    })
                    .collect();
                let (mut yf, mut xf) = (y.clone(), x.clone());
                kernel::<F, GVar<f64>>(Step::PlusValues, &mut yf, &mut xf);
                for step in [
                    Step::Plus,
                    Step::Minus,
                    Step::PlusValues,
                    Step::PlusAdjoints,
                    Step::MinusAdjoints,
                    Step::MinusStored,
                    Step::MinusAdjointsStored,
                ] {
                    let y0 = if step.stored() { &yf } else { &y };
                    let (mut ya, mut xa) = (y0.clone(), x.clone());
                    let (mut yb, mut xb) = (y0.clone(), x.clone());
                    // SAFETY: the CPU has AVX2 (checked above)
                    unsafe { avx2_pairs::kernel::<F>(step, &mut ya, &mut xa) };
                    kernel::<F, GVar<f64>>(step, &mut yb, &mut xb);
                    assert_eq!(bits(&ya), bits(&yb), "n = {n}, {step:?}: y");
                    assert_eq!(bits(&xa), bits(&xb), "n = {n}, {step:?}: x");
                    if n > 0 && step != Step::PlusValues {
                        assert_ne!(bits(&xa), bits(&x), "n = {n}, {step:?}: no adjoint moved");
                    }
                    if n > 0 && !step.adjoints_only() {
                        assert_ne!(bits(&ya), bits(y0), "n = {n}, {step:?}: no value moved");
                    }
                }
            }
        }
        check::<fns::Tanh>();
        check::<fns::Exp>();
        check::<fns::ExpM1>();
        check::<fns::Ln>();
        check::<fns::Ln1p>();
        check::<fns::Sin>();
        check::<fns::Cos>();
        check::<fns::Softplus>();
    }

    /// The adjoint-only steps move the same adjoints, bit for bit, as the full steps (which
    /// compute `f(x)` for the values), also for the functions whose derivative does not read
    /// `f(x)` and so skip it; the target's values stay as they were.
    #[test]
    fn adjoint_only_steps_move_the_full_steps_adjoints() {
        fn check<F: ArrayLanes>(reads_r: bool) {
            assert_eq!(F::READS_R, reads_r);
            let n = 19;
            let x: Vec<GVar<f64>> = (0..n)
                .map(|i| GVar::new(0.3 + 0.2 * i as f64, 0.5))
                .collect();
            let y: Vec<GVar<f64>> = (0..n)
                .map(|i| GVar::new(1.5, 0.25 - 0.05 * i as f64))
                .collect();
            for (full, adj) in [
                (Step::Plus, Step::PlusAdjoints),
                (Step::Minus, Step::MinusAdjoints),
            ] {
                let (mut xf, mut yf, mut xa, mut ya) = (x.clone(), y.clone(), x.clone(), y.clone());
                dispatch::<F, GVar<f64>>(full, &mut yf, &mut xf);
                dispatch::<F, GVar<f64>>(adj, &mut ya, &mut xa);
                let g = |v: &[GVar<f64>]| v.iter().map(|v| v.g.to_bits()).collect::<Vec<_>>();
                assert_eq!(g(&xf), g(&xa));
                assert_ne!(g(&xa), g(&x));
                assert_eq!(ya, y);
            }
        }
        check::<fns::Exp>(true);
        check::<fns::Tanh>(true);
        check::<fns::ExpM1>(true);
        check::<fns::Ln1p>(false);
        check::<fns::Ln>(false);
        check::<fns::Sin>(false);
        // the sigmoid `1 / (exp(−x) + 1)` from `x` alone
        check::<fns::Softplus>(false);
    }

    /// The rule that reads `f(x)` from the target (`Step::MinusStored`, told
    /// `abi::FRESH_TARGET`) gives the bits of the rule that recomputes it, after `y += f(x)`
    /// from `y` = +0 or −0, for every vector function, on values and adjoints, full and
    /// adjoint-only, at zeros, infinities, NaN and the ends of the ranges too.
    #[test]
    fn the_stored_output_gives_the_bits_of_the_recomputed_one() {
        fn check<F: ArrayLanes>() {
            let mut x: Vec<f64> = vec![
                0.0,
                -0.0,
                f64::INFINITY,
                f64::NEG_INFINITY,
                f64::NAN,
                f64::MIN_POSITIVE,
                -f64::MIN_POSITIVE / 4.0,
                710.0,
                -746.0,
                -0.999,
                1e300,
            ];
            x.extend((0..40).map(|i| (i as f64 * 0.37).sin() * 6.0));
            let n = x.len();
            for y0 in [0.0, -0.0] {
                let mut y: Vec<GVar<f64>> = (0..n)
                    .map(|i| GVar::new(y0, 0.5 - i as f64 * 0.1))
                    .collect();
                let mut gx: Vec<GVar<f64>> = x.iter().map(|&v| GVar::new(v, 0.25)).collect();
                kernel::<F, GVar<f64>>(Step::PlusValues, &mut y, &mut gx);
                for (plain, stored) in [
                    (Step::Minus, Step::MinusStored),
                    (Step::MinusAdjoints, Step::MinusAdjointsStored),
                ] {
                    let (mut ya, mut xa) = (y.clone(), gx.clone());
                    let (mut yb, mut xb) = (y.clone(), gx.clone());
                    kernel::<F, GVar<f64>>(plain, &mut ya, &mut xa);
                    kernel::<F, GVar<f64>>(stored, &mut yb, &mut xb);
                    let bits = |v: &[GVar<f64>]| {
                        v.iter()
                            .flat_map(|v| [v.x.to_bits(), v.g.to_bits()])
                            .collect::<Vec<_>>()
                    };
                    assert_eq!(bits(&ya), bits(&yb), "{plain:?}, y0 = {y0}");
                    assert_eq!(bits(&xa), bits(&xb), "{plain:?}, y0 = {y0}");
                    assert!(xa.iter().any(|v| v.g != 0.25));
                }
                let yv: Vec<f64> = y.iter().map(|v| v.x).collect();
                let (mut a, mut b) = (yv.clone(), yv);
                let (mut xa, mut xb) = (x.clone(), x.clone());
                kernel::<F, f64>(Step::Minus, &mut a, &mut xa);
                kernel::<F, f64>(Step::MinusStored, &mut b, &mut xb);
                let fb = |v: &[f64]| v.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
                assert_eq!(fb(&a), fb(&b));
            }
        }
        check::<fns::Tanh>();
        check::<fns::Exp>();
        check::<fns::ExpM1>();
        check::<fns::Ln>();
        check::<fns::Ln1p>();
        check::<fns::Sin>();
        check::<fns::Cos>();
        check::<fns::Softplus>();
    }

    /// The values-only step on gradient numbers through blocks of plain numbers gives the
    /// bits of the kernel on gradient numbers (values; adjoints untouched), across blocks and
    /// a tail.
    #[test]
    fn values_through_plain_blocks_give_the_gradient_kernels_bits() {
        fn check<F: ArrayLanes>() {
            let n = 603;
            let x: Vec<GVar<f64>> = (0..n)
                .map(|i| GVar::new(((i * 7919) % n) as f64 / n as f64 * 8.0 - 3.9, i as f64))
                .collect();
            let y: Vec<GVar<f64>> = (0..n)
                .map(|i| GVar::new(if i % 3 == 0 { 0.0 } else { 0.1 * i as f64 }, -(i as f64)))
                .collect();
            let (mut ya, mut xa) = (y.clone(), x.clone());
            kernel::<F, GVar<f64>>(Step::PlusValues, &mut ya, &mut xa);
            let mut yb = y.clone();
            values_by_blocks::<F>(&mut yb, &x);
            let bits = |v: &[GVar<f64>]| {
                v.iter()
                    .flat_map(|v| [v.x.to_bits(), v.g.to_bits()])
                    .collect::<Vec<_>>()
            };
            assert_eq!(bits(&ya), bits(&yb));
            assert_eq!(bits(&xa), bits(&x));
            assert_ne!(bits(&ya), bits(&y));
        }
        check::<fns::Tanh>();
        check::<fns::Exp>();
        check::<fns::Ln1p>();
        check::<fns::Sin>();
    }

    /// The derivative on sixteen lanes (AVX-512's kernel, for a derivative that calls a
    /// function) gives each half the bits of the eight-lane one, with special values among
    /// the inputs; and which rows call a function.
    #[test]
    fn the_sixteen_lane_derivative_gives_the_eight_lane_bits() {
        use crate::numbers::lane_array::F16;
        fn check<F: ArrayLanes>(calls_function: bool) {
            assert_eq!(F::CALLS_FUNCTION, calls_function);
            let specials = [
                0.0,
                -0.0,
                f64::INFINITY,
                f64::NEG_INFINITY,
                f64::NAN,
                1e-310,
            ];
            let x: [f64; 16] = core::array::from_fn(|i| {
                if i % 5 == 2 {
                    specials[i % specials.len()]
                } else {
                    i as f64 * 0.61 - 4.3
                }
            });
            let yb: [f64; 16] = core::array::from_fn(|i| 0.5 - 0.07 * i as f64);
            let r = F::value16(F16(x));
            let s = F::adjoint_step16(F16(yb), F16(x), r);
            for h in 0..2 {
                let part = |v: &[f64; 16]| F8(v[8 * h..8 * h + 8].try_into().unwrap());
                let want = F::adjoint_step(part(&yb), part(&x), part(&r.0));
                // every NaN as one: Rust leaves a NaN's sign and payload unspecified, and the
                // two widths may order the operands of `+`/`*` differently (seen on AVX2: the
                // lane of x = +inf gave NaN of the other sign)
                let bits = |v: F8| {
                    v.0.map(|x| {
                        if x.is_nan() {
                            f64::NAN.to_bits()
                        } else {
                            x.to_bits()
                        }
                    })
                };
                assert_eq!(bits(part(&s.0)), bits(want));
            }
            assert!(s.0.iter().any(|v| v.is_finite() && *v != 0.0));
        }
        check::<fns::Softplus>(true);
        check::<fns::Sin>(true);
        check::<fns::Cos>(true);
        check::<fns::Tanh>(false);
        check::<fns::Exp>(false);
        check::<fns::ExpM1>(false);
        check::<fns::Ln>(false);
        check::<fns::Ln1p>(false);
    }
}
