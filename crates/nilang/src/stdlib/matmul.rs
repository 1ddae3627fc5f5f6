//! The GEMM under the dense primitives ([`i_gemm`](super::blas::i_gemm),
//! [`i_gemv`](super::blas::i_gemv), [`i_affine`](super::linalg::i_affine),
//! [`i_dense`](super::nnlib::i_dense)): slices of `f64`, `f32`, `GVar<f64>` and `GVar<f32>` are
//! seen as strided real matrices and multiplied by [`matrixmultiply`] (which picks its AVX /
//! FMA / AVX-512 kernel at run time); other number types return `false` and their caller runs
//! the instruction loop.
//!
//! On gradient numbers the value and adjoint of a `GVar` are two matrices at the stride of the
//! `GVar` (the field offsets and size are read from the type, not assumed), so no copy is made.
//! `C += A·B` moves the adjoints as the scalar instructions do, by two more GEMMs:
//! `Ā -= C̄·Bᵀ`, `B̄ -= Aᵀ·C̄` (its inverse `C -= A·B` adds them). When `C̄` is exactly zero
//! (the forward pass of a gradient, a recomputed routine) those two GEMMs would add zeros and
//! are skipped.
use crate::ad::GVar;
use core::any::TypeId;
use core::mem::{offset_of, size_of};

/// A real type with a GEMM.
trait GemmReal: Copy + PartialEq + 'static + core::ops::Mul<Output = Self> {
    const ZERO: Self;
    const ONE: Self;
    /// `c += alpha · a · b` (`a` is `m × k`, `b` is `k × n`; strides in elements).
    ///
    /// # Safety
    /// The views must lie in their allocations; `c` must not overlap `a` or `b`.
    #[allow(clippy::too_many_arguments)]
    unsafe fn gemm(
        m: usize,
        k: usize,
        n: usize,
        alpha: Self,
        a: (*const Self, isize, isize),
        b: (*const Self, isize, isize),
        c: (*mut Self, isize, isize),
    );
    fn neg(self) -> Self;
    fn add(self, other: Self) -> Self;
}
macro_rules! gemm_real {
    ($t:ty, $f:path) => {
        impl GemmReal for $t {
            const ZERO: Self = 0.0;
            const ONE: Self = 1.0;
            #[inline]
            unsafe fn gemm(
                m: usize,
                k: usize,
                n: usize,
                alpha: Self,
                a: (*const Self, isize, isize),
                b: (*const Self, isize, isize),
                c: (*mut Self, isize, isize),
            ) {
                if m == 0 || n == 0 || k == 0 {
                    return;
                }
                // SAFETY: forwarded from the caller
                unsafe {
                    if n == 1 || k == 1 {
                        vector_product_dispatch(m, k, n, alpha, a, b, c)
                    } else {
                        $f(
                            m, k, n, alpha, a.0, a.1, a.2, b.0, b.1, b.2, 1.0, c.0, c.1, c.2,
                        )
                    }
                }
            }
            #[inline(always)]
            fn neg(self) -> Self {
                -self
            }
            #[inline(always)]
            fn add(self, other: Self) -> Self {
                self + other
            }
        }
    };
}
/// [`vector_product`] compiled for the widest vectors the CPU has (AVX-512 or AVX2 on
/// x86-64, detected at run time): the same operations in the same order on every path, so the
/// same bits.
///
/// # Safety
/// As [`GemmReal::gemm`].
#[inline]
unsafe fn vector_product_dispatch<R: GemmReal>(
    m: usize,
    k: usize,
    n: usize,
    alpha: R,
    a: (*const R, isize, isize),
    b: (*const R, isize, isize),
    c: (*mut R, isize, isize),
) {
    #[cfg(target_arch = "x86_64")]
    {
        #[target_feature(enable = "avx512f")]
        #[allow(clippy::too_many_arguments)]
        unsafe fn avx512<R: GemmReal>(
            m: usize,
            k: usize,
            n: usize,
            alpha: R,
            a: (*const R, isize, isize),
            b: (*const R, isize, isize),
            c: (*mut R, isize, isize),
        ) {
            // SAFETY: forwarded
            unsafe { vector_product(m, k, n, alpha, a, b, c) }
        }
        #[target_feature(enable = "avx2")]
        #[allow(clippy::too_many_arguments)]
        unsafe fn avx2<R: GemmReal>(
            m: usize,
            k: usize,
            n: usize,
            alpha: R,
            a: (*const R, isize, isize),
            b: (*const R, isize, isize),
            c: (*mut R, isize, isize),
        ) {
            // SAFETY: forwarded
            unsafe { vector_product(m, k, n, alpha, a, b, c) }
        }
        if std::arch::is_x86_feature_detected!("avx512f") {
            // SAFETY: the CPU has AVX-512F; the views as the caller's
            return unsafe { avx512(m, k, n, alpha, a, b, c) };
        }
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2; the views as the caller's
            return unsafe { avx2(m, k, n, alpha, a, b, c) };
        }
    }
    // SAFETY: forwarded from the caller
    unsafe { vector_product(m, k, n, alpha, a, b, c) }
}

/// `c += alpha · a · b` when `n` or `k` is 1 (a matrix-vector product, an outer product):
/// `matrixmultiply` packs its operands into tiles of 8×4 or 4×8 (a 4096 × 32 GEMV took 72 µs
/// through it, 10 µs as dot products here).
///
/// # Safety
/// As [`GemmReal::gemm`].
#[inline(always)]
unsafe fn vector_product<R: GemmReal>(
    m: usize,
    k: usize,
    n: usize,
    alpha: R,
    a: (*const R, isize, isize),
    b: (*const R, isize, isize),
    c: (*mut R, isize, isize),
) {
    let at = |i: usize, j: usize, (p, rs, cs): (*const R, isize, isize)| {
        // SAFETY: inside the caller's views
        unsafe { *p.offset(i as isize * rs + j as isize * cs) }
    };
    if n == 1 && a.1.abs() < a.2.abs() {
        // `a` is a transposed view (its rows are far apart): `c += alpha a b` as `k` passes
        // of `c += (alpha b_l) a_{:,l}`, each reading a row of the stored matrix in order;
        // eight elements of `c` at a time held in registers over the passes (each still
        // accumulates in the order of `l`)
        for i0 in (0..m).step_by(8) {
            let w = (m - i0).min(8);
            let ci = |j: usize| c.0.wrapping_offset((i0 + j) as isize * c.1);
            let mut acc = [R::ZERO; 8];
            for (j, acc) in acc.iter_mut().enumerate().take(w) {
                // SAFETY: inside the caller's view of `c`
                *acc = unsafe { *ci(j) };
            }
            for l in 0..k {
                let bl = alpha * at(l, 0, b);
                if w == 8 && a.1 == 1 {
                    // SAFETY: eight values in order in the caller's view of `a`
                    let col =
                        unsafe { &*a.0.offset(i0 as isize + l as isize * a.2).cast::<[R; 8]>() };
                    for (acc, &v) in acc.iter_mut().zip(col) {
                        *acc = acc.add(v * bl);
                    }
                } else if w == 8 && a.1 == 2 {
                    // the values (or adjoints) of eight gradient numbers in order: sixteen
                    // reals, every other one read (no gather)
                    // SAFETY: the eight elements lie in the caller's view of `a`; the last
                    // real read is the eighth element's
                    let col = unsafe {
                        core::slice::from_raw_parts(
                            a.0.offset(2 * i0 as isize + l as isize * a.2),
                            15,
                        )
                    };
                    for (j, acc) in acc.iter_mut().enumerate() {
                        *acc = acc.add(col[2 * j] * bl);
                    }
                } else if w == 8 {
                    for (j, acc) in acc.iter_mut().enumerate() {
                        *acc = acc.add(at(i0 + j, l, a) * bl);
                    }
                } else {
                    for (j, acc) in acc.iter_mut().enumerate().take(w) {
                        *acc = acc.add(at(i0 + j, l, a) * bl);
                    }
                }
            }
            for (j, &acc) in acc.iter().enumerate().take(w) {
                // SAFETY: inside the caller's view of `c`
                unsafe { *ci(j) = acc };
            }
        }
        return;
    }
    if k == 1 && n <= 64 {
        // an outer product (`Ā ∓= C̄·Bᵀ` of a one-output layer): row by row, `b` read once
        let mut bv = [R::ZERO; 64];
        for (j, v) in bv.iter_mut().enumerate().take(n) {
            *v = at(0, j, b);
        }
        // SAFETY: forwarded from the caller
        unsafe {
            match c.2 {
                1 => outer::<R, 1>(m, alpha, a, &bv[..n], c),
                2 => outer::<R, 2>(m, alpha, a, &bv[..n], c),
                _ => {
                    for i in 0..m {
                        let ai = at(i, 0, a);
                        for (j, &bj) in bv[..n].iter().enumerate() {
                            let cij = c.0.offset(i as isize * c.1 + j as isize * c.2);
                            *cij = (*cij).add(alpha * (ai * bj));
                        }
                    }
                }
            }
        }
        return;
    }
    if n == 1 && a.2 == 1 {
        // rows of `a` in order, `b` at the stride of `f64` or `GVar<f64>` values: the loop
        // below with the strides known (vectorised), the same operations
        match b.1 {
            // SAFETY: forwarded from the caller
            1 => return unsafe { dots::<R, 1>(m, k, alpha, a, b.0, c) },
            // SAFETY: forwarded from the caller
            2 => return unsafe { dots::<R, 2>(m, k, alpha, a, b.0, c) },
            _ => {}
        }
    }
    for i in 0..m {
        for j in 0..n {
            // four partial sums: independent additions in flight
            let mut s = [R::ZERO; 4];
            let k4 = k - k % 4;
            for l in (0..k4).step_by(4) {
                for (q, s) in s.iter_mut().enumerate() {
                    *s = s.add(at(i, l + q, a) * at(l + q, j, b));
                }
            }
            for l in k4..k {
                s[0] = s[0].add(at(i, l, a) * at(l, j, b));
            }
            let s = s[0].add(s[1]).add(s[2].add(s[3]));
            // SAFETY: inside the caller's view of `c`
            unsafe {
                let cij = c.0.offset(i as isize * c.1 + j as isize * c.2);
                *cij = (*cij).add(alpha * s);
            }
        }
    }
}

/// `c[i, j] += alpha · (a[i, 0] · b_j)` (an outer product, `k = 1`) for `c` at column stride
/// `CS`: the operations of [`vector_product`]'s loop for `k = 1` (its one partial sum is the
/// product itself), vectorised along the row.
///
/// # Safety
/// As [`GemmReal::gemm`].
#[inline(always)]
unsafe fn outer<R: GemmReal, const CS: usize>(
    m: usize,
    alpha: R,
    a: (*const R, isize, isize),
    b: &[R],
    c: (*mut R, isize, isize),
) {
    for i in 0..m {
        // SAFETY: inside the caller's views (`a` is `m × 1`, row `i` of `c` has `b.len()`
        // elements at stride `CS`)
        unsafe {
            let ai = *a.0.offset(i as isize * a.1);
            let row = c.0.offset(i as isize * c.1);
            for (j, &bj) in b.iter().enumerate() {
                let cij = row.add(j * CS);
                *cij = (*cij).add(alpha * (ai * bj));
            }
        }
    }
}

/// `c_i += alpha · Σ_l a[i, l] b_l` for rows of `a` stored in order (column stride 1) and `b`
/// at stride `BS`: [`vector_product`]'s loop for `n = 1` (four partial sums, the same order).
///
/// # Safety
/// As [`GemmReal::gemm`].
#[inline(always)]
unsafe fn dots<R: GemmReal, const BS: usize>(
    m: usize,
    k: usize,
    alpha: R,
    a: (*const R, isize, isize),
    b: *const R,
    c: (*mut R, isize, isize),
) {
    // SAFETY: `b` holds `k` values at stride `BS` (the caller's view)
    let b = |l: usize| unsafe { *b.add(l * BS) };
    let k4 = k - k % 4;
    for i in 0..m {
        // SAFETY: row `i` of the caller's view of `a`: `k` values in order
        let row = unsafe { core::slice::from_raw_parts(a.0.offset(i as isize * a.1), k) };
        let mut s = [R::ZERO; 4];
        for l in (0..k4).step_by(4) {
            for (q, s) in s.iter_mut().enumerate() {
                *s = s.add(row[l + q] * b(l + q));
            }
        }
        for (l, &v) in row.iter().enumerate().skip(k4) {
            s[0] = s[0].add(v * b(l));
        }
        let s = s[0].add(s[1]).add(s[2].add(s[3]));
        // SAFETY: inside the caller's view of `c`
        unsafe {
            let ci = c.0.offset(i as isize * c.1);
            *ci = (*ci).add(alpha * s);
        }
    }
}

gemm_real!(f64, matrixmultiply::dgemm);
gemm_real!(f32, matrixmultiply::sgemm);

impl<D> Clone for Operand<D> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<D> Copy for Operand<D> {}

/// One matrix operand in a slice of numbers: its value plane, its adjoint plane (gradient
/// numbers), the element stride in reals.
struct Planes<R> {
    x: *mut R,
    g: Option<*mut R>,
    s: isize,
}

impl<R> Clone for Planes<R> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<R> Copy for Planes<R> {}

impl<R: GemmReal> Planes<R> {
    /// The planes of a slice of `T` when `T` is `R` or `GVar<R>`.
    fn of<T: 'static>(v: *mut T) -> Option<Self> {
        if TypeId::of::<T>() == TypeId::of::<R>() {
            return Some(Planes {
                x: v.cast(),
                g: None,
                s: 1,
            });
        }
        if TypeId::of::<T>() == TypeId::of::<GVar<R>>() {
            let r = size_of::<R>();
            let (ox, og, sz) = (
                offset_of!(GVar<R>, x),
                offset_of!(GVar<R>, g),
                size_of::<GVar<R>>(),
            );
            debug_assert!(ox % r == 0 && og % r == 0 && sz % r == 0);
            let base = v.cast::<u8>();
            // SAFETY: the field offsets lie inside the first element (or one past an empty
            // slice's pointer, never dereferenced: every GEMM has a zero dimension then)
            let (x, g) = unsafe { (base.add(ox).cast(), base.add(og).cast()) };
            return Some(Planes {
                x,
                g: Some(g),
                s: (sz / r) as isize,
            });
        }
        None
    }

    /// The value plane as a row-major `rows × cols` matrix (`transpose`: its transpose).
    fn x(&self, cols: usize, transpose: bool) -> (*const R, isize, isize) {
        let (rs, cs) = strides(self.s, cols, transpose);
        (self.x, rs, cs)
    }
}

fn strides(s: isize, cols: usize, transpose: bool) -> (isize, isize) {
    let row = s * cols as isize;
    if transpose {
        (s, row)
    } else {
        (row, s)
    }
}

/// Whether the `len` reals at `p`, stride `s`, are all zero.
///
/// # Safety
/// The view must lie in its allocation.
unsafe fn all_zero<R: GemmReal>(p: *const R, len: usize, s: isize) -> bool {
    match s {
        // SAFETY: forwarded from the caller
        1 => unsafe { all_zero_at::<R, 1>(p, len) },
        // SAFETY: forwarded from the caller
        2 => unsafe { all_zero_at::<R, 2>(p, len) },
        // SAFETY: forwarded from the caller
        _ => (0..len).all(|i| unsafe { *p.offset(i as isize * s) } == R::ZERO),
    }
}

/// [`all_zero`] at a stride known at compile time: 64 values at a time without a branch
/// (vectorised), the answer after each block.
///
/// # Safety
/// As [`all_zero`].
#[inline]
unsafe fn all_zero_at<R: GemmReal, const S: usize>(p: *const R, len: usize) -> bool {
    let mut i = 0;
    while i < len {
        let end = (i + 64).min(len);
        let mut nonzero = false;
        for j in i..end {
            // SAFETY: inside the caller's view
            nonzero |= unsafe { *p.add(j * S) } != R::ZERO;
        }
        if nonzero {
            return false;
        }
        i = end;
    }
    true
}

/// Which direction of `C += A·B` runs, and what it moves.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Step {
    /// `C += A·B` (adjoints: `Ā -= C̄·Bᵀ`, `B̄ -= Aᵀ·C̄`).
    Forward,
    /// `C -= A·B` (adjoints: `Ā += C̄·Bᵀ`, `B̄ += Aᵀ·C̄`).
    Inverse,
    /// `C += A·B` on the values only (`C̄` is known to be zero).
    ForwardValues,
    /// `C += A·B` where `C`'s value afterwards is never read (an adjoint-only variant): on
    /// gradient numbers the adjoints alone move, `C`'s values are left as they were; on plain
    /// numbers [`Step::Forward`].
    ForwardAdjoints,
    /// `C -= A·B` adjoint-only (as [`Step::ForwardAdjoints`]; on plain numbers
    /// [`Step::Inverse`]).
    InverseAdjoints,
}

impl Step {
    /// Whether it subtracts (`C -= A·B`).
    #[inline(always)]
    pub(crate) fn inverse(self) -> bool {
        matches!(self, Step::Inverse | Step::InverseAdjoints)
    }
    /// Whether the values of `C` need not be updated when `C` carries adjoints.
    #[inline(always)]
    pub(crate) fn adjoints_only(self) -> bool {
        matches!(self, Step::ForwardAdjoints | Step::InverseAdjoints)
    }
    /// The step of an adjoint-only variant (`__adj`) told `dead` (bit 0: the target's value
    /// afterwards is never read): `self` adjoint-only when the bit is set.
    #[inline(always)]
    pub(crate) fn dead_target(self, dead: crate::abi::ParamMask) -> Step {
        match (self, dead & 1 == 1) {
            (Step::Forward, true) => Step::ForwardAdjoints,
            (Step::Inverse, true) => Step::InverseAdjoints,
            (s, _) => s,
        }
    }
}

/// `C ±= A·B` for row-major `c` (`m × n`), `a` (`m × k`), `b` (`k × n`), the lengths already
/// checked. Returns `false` (and does nothing) unless `T` is `f64`, `f32`, `GVar<f64>` or
/// `GVar<f32>` and `A` is `T` (from a `&mut [T]`) or, read-only data (`Operand::Data`, from a
/// `&[D]`: no adjoint), `T`'s real.
pub(crate) fn gemm<T: 'static, D: 'static>(
    step: Step,
    c: &mut [T],
    a: Operand<D>,
    b: &mut [T],
    (m, k, n): (usize, usize, usize),
) -> bool {
    run::<f64, T, D>(step, c.as_mut_ptr(), a, b.as_mut_ptr(), (m, k, n))
        || run::<f32, T, D>(step, c.as_mut_ptr(), a, b.as_mut_ptr(), (m, k, n))
}

/// The left operand of [`gemm`].
pub(crate) enum Operand<D> {
    /// A `&mut [T]` (its adjoint is accumulated).
    Var(*mut D),
    /// A `&[D]` of reals (read only).
    Data(*const D),
}

fn run<R: GemmReal, T: 'static, D: 'static>(
    step: Step,
    c: *mut T,
    a: Operand<D>,
    b: *mut T,
    (m, k, n): (usize, usize, usize),
) -> bool {
    let a = match a {
        Operand::Var(p) => Planes::<R>::of(p),
        // data must be plain reals: nothing is ever written through it
        Operand::Data(p) => Planes::<R>::of(p.cast_mut()).filter(|a| a.g.is_none()),
    };
    let (Some(c), Some(a), Some(b)) = (Planes::<R>::of(c), a, Planes::<R>::of(b)) else {
        return false;
    };
    let sign = if step.inverse() { R::ONE.neg() } else { R::ONE };
    // SAFETY: the callers pass slices of the checked lengths, `c` distinct from `a` and `b`
    // (`&mut` borrows); every view below stays within them
    unsafe {
        // adjoint-only on gradient numbers: `C`'s values are never read again
        if !(step.adjoints_only() && c.g.is_some()) {
            R::gemm(
                m,
                k,
                n,
                sign,
                a.x(k, false),
                b.x(n, false),
                (c.x, strides(c.s, n, false).0, c.s),
            );
        }
        let Some(cg) = c.g else { return true };
        if step == Step::ForwardValues || all_zero(cg, m * n, c.s) {
            return true;
        }
        let cgv = (cg.cast_const(), c.s * n as isize, c.s);
        if let Some(ag) = a.g {
            // Ā (m × k) ∓= C̄ (m × n) · Bᵀ (n × k)
            let (rs, cs) = strides(a.s, k, false);
            R::gemm(m, n, k, sign.neg(), cgv, b.x(n, true), (ag, rs, cs));
        }
        if let Some(bg) = b.g {
            // B̄ (k × n) ∓= Aᵀ (k × m) · C̄ (m × n)
            let (rs, cs) = strides(b.s, n, false);
            R::gemm(k, m, n, sign.neg(), a.x(k, true), cgv, (bg, rs, cs));
        }
    }
    true
}

/// `Y ±= 1·bᵀ` for a row-major `rows × n` matrix `y` and a vector `b` of `n`: the bias of a
/// dense layer (on gradient numbers `b̄ ∓= Σ_rows Ȳ`). Same types and return as [`gemm`].
pub(crate) fn add_rows<T: 'static>(
    step: Step,
    y: &mut [T],
    b: &mut [T],
    rows: usize,
    n: usize,
) -> bool {
    add_rows_in::<f64, T>(step, y, b, rows, n) || add_rows_in::<f32, T>(step, y, b, rows, n)
}

fn add_rows_in<R: GemmReal, T: 'static>(
    step: Step,
    y: &mut [T],
    b: &mut [T],
    rows: usize,
    n: usize,
) -> bool {
    let (Some(y), Some(b)) = (
        Planes::<R>::of(y.as_mut_ptr()),
        Planes::<R>::of(b.as_mut_ptr()),
    ) else {
        return false;
    };
    let inverse = step.inverse();
    // SAFETY: `y` has `rows · n` elements and `b` has `n` (checked by the callers)
    unsafe {
        match (y.s, b.s) {
            // adjoint-only on gradient numbers: `y`'s values are never read again
            _ if step.adjoints_only() && y.g.is_some() => {}
            (1, 1) => add_rows_values::<R, 1, 1>(inverse, y.x, b.x, rows, n),
            (2, 2) => add_rows_values::<R, 2, 2>(inverse, y.x, b.x, rows, n),
            _ => {
                for r in 0..rows {
                    let row = y.x.offset(r as isize * n as isize * y.s);
                    for j in 0..n {
                        let (yj, bj) =
                            (row.offset(j as isize * y.s), *b.x.offset(j as isize * b.s));
                        *yj = if inverse {
                            (*yj).add(bj.neg())
                        } else {
                            (*yj).add(bj)
                        };
                    }
                }
            }
        }
        if let (Some(yg), Some(bg), false) = (y.g, b.g, step == Step::ForwardValues) {
            // row by row (`Ȳ` is read once, in memory order)
            for r in 0..rows {
                let row = yg.offset(r as isize * n as isize * y.s);
                for j in 0..n {
                    let (bj, g) = (bg.offset(j as isize * b.s), *row.offset(j as isize * y.s));
                    *bj = if inverse {
                        (*bj).add(g)
                    } else {
                        (*bj).add(g.neg())
                    };
                }
            }
        }
    }
    true
}

/// The values of [`add_rows`] at strides known at compile time (`YS` of `y`, `BS` of `b`):
/// the same operations, vectorised.
///
/// # Safety
/// As [`add_rows`]' views.
#[inline]
unsafe fn add_rows_values<R: GemmReal, const YS: usize, const BS: usize>(
    inverse: bool,
    y: *mut R,
    b: *const R,
    rows: usize,
    n: usize,
) {
    for r in 0..rows {
        // SAFETY: row `r` of `y`, `n` elements at stride `YS`; `b` has `n` at stride `BS`
        unsafe {
            let row = y.add(r * n * YS);
            for j in 0..n {
                let (yj, bj) = (row.add(j * YS), *b.add(j * BS));
                *yj = if inverse {
                    (*yj).add(bj.neg())
                } else {
                    (*yj).add(bj)
                };
            }
        }
    }
}

/// The analyses `#[i]` code reads from a dense primitive `f`/`f_inv` (see
/// [`additive!`](crate::additive)): compute–copy–uncompute in parameter 0, which is the only
/// one written, and the value-only variant `f::__primal` given as an item.
///
/// With two more items, `f::__adj` and `f_inv::__adj`: the adjoint-only variants (bit 0 of
/// `dead`: the target's value afterwards is never read, see [`Step::dead_target`]).
macro_rules! dense_markers {
    ($f:ident, $inv:ident, $primal:item) => {
        $crate::additive!(@marker $f, 1, 1, { $primal });
        $crate::additive!(@marker $inv, 1, 1, {});
    };
    ($f:ident, $inv:ident, $primal:item, $adj:item, $adj_inv:item) => {
        $crate::additive!(@marker_adj $f, 1, 1, { $primal $adj });
        $crate::additive!(@marker_adj $inv, 1, 1, { $adj_inv });
    };
}
pub(crate) use dense_markers;

/// The [`Reversible`](crate::Reversible) value `S` of a dense primitive `f`/`f_inv`
/// (additive in argument 0; its value-only variant is `f::__primal`): generics in brackets,
/// then each parameter with its type and how it is passed on (`&mut *y` or `m`).
macro_rules! dense_reversible {
    ($(#[$doc:meta])* $S:ident, $f:ident, $inv:ident, [$($gen:tt)*],
     ($($p:ident: $t:ty => $e:expr),*)) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, Default)]
        pub struct $S;
        impl<$($gen)*> $crate::Reversible<($($t,)*)> for $S {
            #[inline]
            fn call(&self, ($($p,)*): ($($t,)*)) -> ($($t,)*) {
                $f($($e,)*);
                ($($p,)*)
            }
            #[inline]
            fn uncall(&self, ($($p,)*): ($($t,)*)) -> ($($t,)*) {
                $inv($($e,)*);
                ($($p,)*)
            }
            #[inline]
            fn call_primal(&self, ($($p,)*): ($($t,)*)) -> ($($t,)*) {
                $f::__primal($f, ($($e,)*));
                ($($p,)*)
            }
            fn additive(&self) -> $crate::abi::ParamMask {
                1
            }
            #[inline]
            fn uncall_dead(&self, ($($p,)*): ($($t,)*), dead: $crate::abi::ParamMask) -> ($($t,)*) {
                $inv::__adj($inv, dead, ($($e,)*));
                ($($p,)*)
            }
        }
    };
}
pub(crate) use dense_reversible;
