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
//!
//! Products with one output column (`n = 1`: a matrix-vector product, a one-output layer) or
//! one inner term (`k = 1`: that layer's backward rule `Ā ∓= C̄·Bᵀ`) run the lane kernels of
//! this module instead of `matrixmultiply` (dot products of rows, transposed products, outer
//! products; eight lanes, compiled for the CPU's widest vectors at run time, the same bits on
//! every path), and the backward rule of a matrix-vector product on data with at most 16
//! columns (`c ∓= A·b` with `b̄ ±= Aᵀ·c̄`) reads `A` once; so does the backward rule of a
//! matrix-vector product on gradient numbers (`Ā ±= c̄·bᵀ` and `b̄ ±= Aᵀ·c̄`, with the values
//! where wanted: [`gemv_var`], a one-output layer on a hidden layer).
use super::short_rows;
use crate::ad::GVar;
use core::any::TypeId;
use core::mem::{offset_of, size_of};

/// A real type with a GEMM.
pub(super) trait GemmReal:
    Copy + PartialEq + 'static + core::ops::Mul<Output = Self>
{
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
    /// Whether this is `f64`.
    #[inline(always)]
    fn is_f64() -> bool {
        TypeId::of::<Self>() == TypeId::of::<f64>()
    }
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
/// [`vector_product`] compiled for the [`active`](crate::simd::active) vector level
/// ([`crate::simd::dispatch`]): the same operations in the same order on every path, so the
/// same bits.
///
/// # Safety
/// As [`GemmReal::gemm`].
#[inline]
unsafe fn vector_product_dispatch<R: GemmReal>(
    mut m: usize,
    k: usize,
    n: usize,
    alpha: R,
    mut a: (*const R, isize, isize),
    b: (*const R, isize, isize),
    mut c: (*mut R, isize, isize),
) {
    if n == 1 && (2..=short_rows::MAX_K).contains(&k) && a.2 == 1 && R::is_f64() {
        // short rows of `f64` in order: eight rows at a time in AVX-512 where the CPU has it
        // (the same bits), the rest below
        // SAFETY: `R` is `f64`; `b`'s `k` values are in the caller's view
        let done = unsafe {
            let bl = block_of(b.0, b.1, k);
            let bv = core::array::from_fn(|l| *bl.as_ptr().add(l).cast::<f64>());
            let alpha = *(&alpha as *const R).cast::<f64>();
            let cv = (c.0.cast::<f64>(), c.1);
            short_rows::gemv((m, k, alpha), (a.0.cast::<f64>(), a.1), &bv, cv, None)
        };
        if done == m {
            return;
        }
        // rows `done..m` go on below, in the caller's views
        // SAFETY: `done ≤ m` rows of the caller's views
        unsafe {
            a.0 = a.0.offset(done as isize * a.1);
            c.0 = c.0.offset(done as isize * c.1);
        }
        m -= done;
    }
    #[cfg(target_arch = "x86_64")]
    if n == 1
        && k > 1
        && (m == 1 || (a.2 != 1 && a.2 != 2))
        && crate::simd::active() == crate::simd::Isa::Avx512
    {
        // the column form (`a` transposed: the backward rule `B̄ ∓= Aᵀ·C̄` of a one-output
        // layer) in its own AVX-512 copy, `vector_product` inlined into it: through
        // `simd::dispatch` the closure stays out of line, in the default build's SSE2 code.
        // Measured on the bench's logistic gradient (AMD EPYC, A/B): `nilang-G` 1.04× and
        // `nilang-t1-G` 1.06× faster with this form in AVX-512, while with every form there
        // the row form (dot products of short rows) made `nilang-O` 1.2× slower, so the
        // others keep the closure. One long row (`m = 1`: the bias adjoint of a layer,
        // `b̄ ∓= Ȳᵀ·1`) too: its values at a stride of two reals (`GVar`s) cost about a
        // tenth of the logistic `nilang-G` through the closure.
        #[target_feature(enable = "avx512f,avx512vl,avx512dq,avx512bw,avx512cd,avx2,fma")]
        #[allow(clippy::type_complexity)]
        unsafe fn avx512<R: GemmReal>(
            (m, k, alpha): (usize, usize, R),
            a: (*const R, isize, isize),
            b: (*const R, isize, isize),
            c: (*mut R, isize, isize),
        ) {
            // SAFETY: forwarded
            unsafe { vector_product(m, k, 1, alpha, a, b, c) }
        }
        // SAFETY: the CPU has these features (`active` is at most what it has); the views as
        // the caller's
        return unsafe { avx512((m, k, alpha), a, b, c) };
    }
    // SAFETY: forwarded from the caller
    crate::simd::dispatch(|| unsafe { vector_product(m, k, n, alpha, a, b, c) })
}

/// `c += alpha · a · b` when `n` or `k` is 1 (a matrix-vector product, an outer product):
/// `matrixmultiply` packs its operands into tiles of 8×4 or 4×8 (a 4096 × 32 GEMV took 72 µs
/// through it, 10 µs as dot products here). Operands whose elements lie at a stride of one or
/// two reals (`f64`, or the values of `GVar<f64>`) run the lane kernels [`gemv_rows`] (rows of
/// `a` in order), [`gemv_cols`] (`a` a transposed view: the backward rule `B̄ ∓= Aᵀ·C̄`) and
/// [`outer`] (`k = 1`: the backward rule `Ā ∓= C̄·Bᵀ` of a one-output layer); others the loop
/// below.
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
    // SAFETY (every arm): forwarded from the caller, the strides as matched
    if n == 1 {
        let (bv, cv) = ((b.0, b.1), (c.0, c.1));
        // one term (`k = 1`) is an `axpy`: over the elements of `c` in lanes
        match (k == 1, a.2, a.1) {
            (false, 1, _) => return unsafe { gemv_rows::<R, 1>(m, k, alpha, (a.0, a.1), bv, cv) },
            (false, 2, _) => return unsafe { gemv_rows::<R, 2>(m, k, alpha, (a.0, a.1), bv, cv) },
            (_, _, 1) => {
                return unsafe { gemv_cols::<R, 1, 0>(m, k, alpha, (a.0, a.2), bv, cv, None) }
            }
            (_, _, 2) => {
                return unsafe { gemv_cols::<R, 2, 0>(m, k, alpha, (a.0, a.2), bv, cv, None) }
            }
            _ => {}
        }
    }
    if k == 1 {
        let (av, bv, cv) = ((a.0, a.1), (b.0, b.2), (c.0, c.1));
        match c.2 {
            1 => return unsafe { outer::<R, 1>(m, n, alpha, av, bv, cv) },
            2 => return unsafe { outer::<R, 2>(m, n, alpha, av, bv, cv) },
            _ => {}
        }
    }
    let at = |i: usize, j: usize, (p, rs, cs): (*const R, isize, isize)| {
        // SAFETY: inside the caller's views
        unsafe { *p.offset(i as isize * rs + j as isize * cs) }
    };
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

/// The lanes of the vector kernels: partial sums and elements handled together.
const LANES: usize = 8;
/// The values of a vector operand the kernels hold on the stack at a time.
const BLOCK: usize = 256;

/// `v[0] + … + v[7]` in a fixed tree (halves added lane by lane: the vector reduction).
#[inline(always)]
fn reduce<R: GemmReal>(v: [R; LANES]) -> R {
    let h: [R; 4] = core::array::from_fn(|q| v[q].add(v[q + 4]));
    h[0].add(h[2]).add(h[1].add(h[3]))
}

/// `b`'s `len ≤ BLOCK` values at stride `bs` from `b`, then zeros.
///
/// # Safety
/// The view must lie in its allocation.
#[inline(always)]
unsafe fn block_of<R: GemmReal>(b: *const R, bs: isize, len: usize) -> [R; BLOCK + LANES] {
    let mut v = [R::ZERO; BLOCK + LANES];
    if bs == 0 && len > 0 {
        // one value repeated (a product with ones: the bias adjoint of a layer), in lanes
        // SAFETY: inside the caller's view
        v[..len].fill(unsafe { *b });
        return v;
    }
    for (l, v) in v[..len].iter_mut().enumerate() {
        // SAFETY: inside the caller's view
        *v = unsafe { *b.offset(l as isize * bs) };
    }
    v
}

/// `c_i += alpha · Σ_l a[i, l] b_l` (`i < m`, `l < k`): the rows of `a` (row stride `a.1`,
/// elements at stride `AS`) each a dot product with `b` (stride `b.1`, copied to the stack in
/// blocks of [`BLOCK`]) in [`LANES`] × 2 partial sums, added by [`reduce`]; `c` at stride
/// `c.1`. The same operations for every row, so a row's result does not depend on its place.
///
/// # Safety
/// As [`GemmReal::gemm`].
#[inline(always)]
unsafe fn gemv_rows<R: GemmReal, const AS: usize>(
    m: usize,
    k: usize,
    alpha: R,
    a: (*const R, isize),
    b: (*const R, isize),
    c: (*mut R, isize),
) {
    let mut l0 = 0;
    while l0 < k {
        let kb = (k - l0).min(BLOCK);
        // SAFETY: `b`'s values `l0..l0 + kb` are in the caller's view
        let bl = unsafe { block_of(b.0.offset(l0 as isize * b.1), b.1, kb) };
        for i in 0..m {
            // SAFETY: row `i`, values `l0..l0 + kb`, in the caller's view of `a`
            let s = unsafe { row_dot::<R, AS>(a.0.offset(i as isize * a.1).add(l0 * AS), &bl, kb) };
            // SAFETY: inside the caller's view of `c`
            unsafe {
                let ci = c.0.offset(i as isize * c.1);
                *ci = (*ci).add(alpha * s);
            }
        }
        l0 += kb;
    }
}

/// `N` values at stride `S` from `p`, as an array (one vector load where `S` is 1).
///
/// # Safety
/// `p` must hold `N` values at stride `S`.
#[inline(always)]
unsafe fn load<R: GemmReal, const N: usize, const S: usize>(p: *const R) -> [R; N] {
    // SAFETY: the caller's promise
    core::array::from_fn(|q| unsafe { *p.add(q * S) })
}

/// `Σ_{l < kb} row[l·AS] · bl[l]` in two sets of [`LANES`] partial sums (the first takes
/// blocks `0, 2, …` of eight, the second `1, 3, …` and the zero-padded tail; a row of at
/// most [`FUSED`] values padded with zeros to two blocks), then [`reduce`]d.
///
/// # Safety
/// `row` must hold `kb` values at stride `AS`; `bl` is zero from `kb` on.
#[inline(always)]
unsafe fn row_dot<R: GemmReal, const AS: usize>(
    row: *const R,
    bl: &[R; BLOCK + LANES],
    kb: usize,
) -> R {
    let bp = bl.as_ptr();
    if kb <= FUSED {
        // a short row (the common one-output layer): one padded load, no loop
        // SAFETY: `row` holds `kb` values; `bl` holds `FUSED` (zero from `kb` on)
        let (x, b) = unsafe { (padded::<R, AS>(row, kb), load::<R, FUSED, 1>(bp)) };
        return reduce(core::array::from_fn(|q| {
            (x[q] * b[q]).add(x[q + LANES] * b[q + LANES])
        }));
    }
    let (mut acc0, mut acc1) = ([R::ZERO; LANES], [R::ZERO; LANES]);
    let mut l = 0;
    // SAFETY (every load): values `l..l + LANES` of `row` (`< kb`) and of `bl` (`< BLOCK + LANES`)
    while l + 2 * LANES <= kb {
        let (x0, x1, b0, b1) = unsafe {
            (
                load::<R, LANES, AS>(row.add(l * AS)),
                load::<R, LANES, AS>(row.add((l + LANES) * AS)),
                load::<R, LANES, 1>(bp.add(l)),
                load::<R, LANES, 1>(bp.add(l + LANES)),
            )
        };
        for q in 0..LANES {
            acc0[q] = acc0[q].add(x0[q] * b0[q]);
            acc1[q] = acc1[q].add(x1[q] * b1[q]);
        }
        l += 2 * LANES;
    }
    if l + LANES <= kb {
        let (x0, b0) = unsafe {
            (
                load::<R, LANES, AS>(row.add(l * AS)),
                load::<R, LANES, 1>(bp.add(l)),
            )
        };
        for q in 0..LANES {
            acc0[q] = acc0[q].add(x0[q] * b0[q]);
        }
        l += LANES;
    }
    if l < kb {
        let mut t = [R::ZERO; LANES];
        for (q, t) in t.iter_mut().enumerate().take(kb - l) {
            // SAFETY: `l + q < kb`
            *t = unsafe { *row.add((l + q) * AS) };
        }
        let b0 = unsafe { load::<R, LANES, 1>(bp.add(l)) };
        for q in 0..LANES {
            acc1[q] = acc1[q].add(t[q] * b0[q]);
        }
    }
    reduce(core::array::from_fn(|q| acc0[q].add(acc1[q])))
}

/// `c_i += Σ_l a[i, l] · (alpha b_l)` (`i < m`, `l < k`) for a transposed view `a`: element
/// `(i, l)` at `i·AS + l·a.1`, so a step in `l` is a row of the stored matrix, read in order.
/// Blocks of 16 elements of `c` held in two sets of partial sums (even and odd `l`) over all
/// `l`, then added; `b` at stride `b.1`, `c` at stride `c.1`. Every element of `c` gets the same
/// operations whatever its block.
///
/// With `ones` (a place `d`, `b` at a stride `BS` of one or two), also `d += alpha·Σ_l b_l` as
/// the product of `b` with ones computes it ([`gemv_rows`] of one row: [`row_dot`]s of
/// [`BLOCK`] values, each added to `d` in turn; the bias adjoint `b̄ ∓= Ȳᵀ·1` of a one-output
/// layer, the same bits), each block right after the rows that read it (its values still in
/// L1), not in a second pass over `b`.
///
/// # Safety
/// As [`GemmReal::gemm`]; `ones`' place distinct from the others, `b.1 == BS` with it.
#[inline(always)]
unsafe fn gemv_cols<R: GemmReal, const AS: usize, const BS: usize>(
    m: usize,
    k: usize,
    alpha: R,
    a: (*const R, isize),
    b: (*const R, isize),
    c: (*mut R, isize),
    ones: Option<*mut R>,
) {
    const W: usize = 2 * LANES;
    // SAFETY: `l < k`, in the caller's view of `b`
    let bv = |l: usize| alpha * unsafe { *b.0.offset(l as isize * b.1) };
    let k2 = k - k % 2;
    // the blocks of the product with ones up to row `upto` (`upto == k`: all that are left)
    // from row `*at`, added to `*d` (a function, not a closure: a closure would not be
    // compiled for the caller's target features unless inlined)
    #[inline(always)]
    unsafe fn ones_upto<R: GemmReal, const BS: usize>(
        (b, k, alpha): (*const R, usize, R),
        upto: usize,
        at: &mut usize,
        d: &mut R,
    ) {
        while *at < k && (*at + BLOCK <= upto || upto == k) {
            let kb = (k - *at).min(BLOCK);
            let one = R::ONE;
            // SAFETY: values `*at..*at + kb` of `b`, at stride `BS` (the caller's promise)
            let s = unsafe {
                let bl = block_of(&one, 0, kb);
                row_dot::<R, BS>(b.add(*at * BS), &bl, kb)
            };
            *d = d.add(alpha * s);
            *at += kb;
        }
    }
    for i0 in (0..m).step_by(W) {
        let w = (m - i0).min(W);
        // element `(i0, l)`
        let col = |l: usize| a.0.wrapping_offset(l as isize * a.1).wrapping_add(i0 * AS);
        let (mut acc0, mut acc1) = ([R::ZERO; W], [R::ZERO; W]);
        // the product with ones along the first block of `c`
        // SAFETY: the caller's place
        let mut ones = ones.filter(|_| i0 == 0).map(|d| (d, unsafe { *d }, 0));
        // the rows in blocks of `BLOCK` (even: pairs stay whole), the same order as one loop
        let mut l0 = 0;
        while l0 < k2 {
            let l1 = (l0 + BLOCK).min(k2);
            if w == W {
                for l in (l0..l1).step_by(2) {
                    let (b0, b1) = (bv(l), bv(l + 1));
                    // SAFETY: elements `i0..i0 + W` of stored rows `l`, `l + 1 < k`
                    let (x0, x1) =
                        unsafe { (load::<R, W, AS>(col(l)), load::<R, W, AS>(col(l + 1))) };
                    for j in 0..W {
                        acc0[j] = acc0[j].add(x0[j] * b0);
                        acc1[j] = acc1[j].add(x1[j] * b1);
                    }
                }
            } else {
                for l in (l0..l1).step_by(2) {
                    let (b0, b1) = (bv(l), bv(l + 1));
                    for j in 0..w {
                        // SAFETY: elements `i0..i0 + w` of stored rows `l`, `l + 1 < k`
                        let (x0, x1) = unsafe { (*col(l).add(j * AS), *col(l + 1).add(j * AS)) };
                        acc0[j] = acc0[j].add(x0 * b0);
                        acc1[j] = acc1[j].add(x1 * b1);
                    }
                }
            }
            if let Some((_, d, at)) = &mut ones {
                // SAFETY: the caller's promise
                unsafe { ones_upto::<R, BS>((b.0, k, alpha), l1, at, d) };
            }
            l0 = l1;
        }
        if k2 < k {
            let b0 = bv(k2);
            for (j, acc) in acc0.iter_mut().enumerate().take(w) {
                // SAFETY: element `i0 + j` of stored row `k2 < k`
                *acc = acc.add(unsafe { *col(k2).add(j * AS) } * b0);
            }
        }
        if let Some((p, mut d, mut at)) = ones {
            // SAFETY: the caller's promise
            unsafe { ones_upto::<R, BS>((b.0, k, alpha), k, &mut at, &mut d) };
            // SAFETY: the caller's place
            unsafe { *p = d };
        }
        for j in 0..w {
            // SAFETY: inside the caller's view of `c`
            unsafe {
                let cj = c.0.offset((i0 + j) as isize * c.1);
                *cj = (*cj).add(acc0[j].add(acc1[j]));
            }
        }
    }
}

/// [`gemv_cols`] with the product of `b` with ones added to `*d` (`b` at a stride of one or
/// two reals, else `false`: nothing done), compiled for AVX-512 or AVX2 where the CPU has it (as
/// [`vector_product_dispatch`] runs the column form), the same code otherwise: the backward
/// rule of a one-output layer on data with its bias, `W̄ ∓= Xᵀ·ȳ` and `b̄ ∓= Σ ȳ`, in one pass
/// over `ȳ`.
///
/// # Safety
/// As [`gemv_cols`].
unsafe fn gemv_cols_ones_dispatch<R: GemmReal, const AS: usize>(
    (m, k, alpha): (usize, usize, R),
    a: (*const R, isize),
    b: (*const R, isize),
    c: (*mut R, isize),
    d: *mut R,
) -> bool {
    #[allow(clippy::type_complexity)]
    #[inline(always)]
    unsafe fn body<R: GemmReal, const AS: usize>(
        (m, k, alpha): (usize, usize, R),
        a: (*const R, isize),
        b: (*const R, isize),
        c: (*mut R, isize),
        d: *mut R,
    ) -> bool {
        // SAFETY (both arms): forwarded, `b`'s stride as matched
        match b.1 {
            1 => unsafe { gemv_cols::<R, AS, 1>(m, k, alpha, a, b, c, Some(d)) },
            2 => unsafe { gemv_cols::<R, AS, 2>(m, k, alpha, a, b, c, Some(d)) },
            _ => return false,
        }
        true
    }
    #[cfg(target_arch = "x86_64")]
    if crate::simd::active() == crate::simd::Isa::Avx512 {
        #[target_feature(enable = "avx512f,avx512vl,avx512dq,avx512bw,avx512cd,avx2,fma")]
        #[allow(clippy::type_complexity)]
        unsafe fn avx512<R: GemmReal, const AS: usize>(
            mka: (usize, usize, R),
            a: (*const R, isize),
            b: (*const R, isize),
            c: (*mut R, isize),
            d: *mut R,
        ) -> bool {
            // SAFETY: forwarded
            unsafe { body::<R, AS>(mka, a, b, c, d) }
        }
        // SAFETY: the CPU has these features (`active` is at most what it has); forwarded
        return unsafe { avx512::<R, AS>((m, k, alpha), a, b, c, d) };
    }
    #[cfg(target_arch = "x86_64")]
    if crate::simd::active() == crate::simd::Isa::Avx2 {
        // its two sets of sixteen partial sums take eight AVX2 registers (the default
        // build keeps them in sixteen SSE2 ones, with the loads)
        #[target_feature(enable = "avx2,fma")]
        #[allow(clippy::type_complexity)]
        unsafe fn avx2<R: GemmReal, const AS: usize>(
            mka: (usize, usize, R),
            a: (*const R, isize),
            b: (*const R, isize),
            c: (*mut R, isize),
            d: *mut R,
        ) -> bool {
            // SAFETY: forwarded
            unsafe { body::<R, AS>(mka, a, b, c, d) }
        }
        // SAFETY: the CPU has these features (`active` is at most what it has); forwarded
        return unsafe { avx2::<R, AS>((m, k, alpha), a, b, c, d) };
    }
    // SAFETY: forwarded
    unsafe { body::<R, AS>((m, k, alpha), a, b, c, d) }
}

/// The most elements of `b` [`gemv_and_adjoint`] takes (its adjoints are held in registers).
const FUSED: usize = 2 * LANES;

/// `c ±= a·b` and `b̄ ∓= aᵀ·c̄` (`alpha` = ±1 for the first, its negation for the second) for
/// `n = 1` and `k ≤` [`FUSED`] in one pass over the rows of `a` (row stride `a.1`, elements at
/// stride `AS`), where the two products would read `a` twice: the backward rule of a
/// one-output layer on data. Each value of `c` as [`gemv_rows`] computes it, each adjoint of
/// `b` as [`gemv_cols`] does (the same operations in the same order, so the same bits).
///
/// # Safety
/// As [`GemmReal::gemm`] for both products; `k ≤ FUSED`; `bg` distinct from the others.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
unsafe fn gemv_and_adjoint<R: GemmReal, const AS: usize>(
    m: usize,
    k: usize,
    alpha: R,
    a: (*const R, isize),
    b: (*const R, isize),
    c: (*mut R, isize),
    cg: (*const R, isize),
    bg: (*mut R, isize),
) {
    debug_assert!(k <= FUSED);
    // SAFETY: `b`'s `k` values are in the caller's view
    let bl = unsafe { block_of(b.0, b.1, k) };
    let (mut acc0, mut acc1) = ([R::ZERO; FUSED], [R::ZERO; FUSED]);
    let g = alpha.neg();
    // the values of row `i`, its adjoint factor `∓c̄_i` and its elements (no closure: a
    // closure would not be compiled for the caller's target features unless inlined)
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    unsafe fn values<R: GemmReal, const AS: usize>(
        i: usize,
        k: usize,
        alpha: R,
        g: R,
        a: (*const R, isize),
        bl: &[R; BLOCK + LANES],
        c: (*mut R, isize),
        cg: (*const R, isize),
    ) -> (R, [R; FUSED]) {
        // SAFETY: row `i < m` of `a`, element `i` of `c` and `c̄`, in the caller's views
        unsafe {
            let row = a.0.offset(i as isize * a.1);
            let s = row_dot::<R, AS>(row, bl, k);
            let ci = c.0.offset(i as isize * c.1);
            *ci = (*ci).add(alpha * s);
            (g * *cg.0.offset(i as isize * cg.1), padded::<R, AS>(row, k))
        }
    }
    let values = |i: usize| unsafe { values::<R, AS>(i, k, alpha, g, a, &bl, c, cg) };
    let m2 = m - m % 2;
    for i in (0..m2).step_by(2) {
        let ((g0, x0), (g1, x1)) = (values(i), values(i + 1));
        for j in 0..FUSED {
            acc0[j] = acc0[j].add(x0[j] * g0);
            acc1[j] = acc1[j].add(x1[j] * g1);
        }
    }
    if m2 < m {
        let (g0, x0) = values(m2);
        for j in 0..FUSED {
            acc0[j] = acc0[j].add(x0[j] * g0);
        }
    }
    for j in 0..k {
        // SAFETY: element `j < k` of the caller's view of `b̄`
        unsafe {
            let bj = bg.0.offset(j as isize * bg.1);
            *bj = (*bj).add(acc0[j].add(acc1[j]));
        }
    }
}

/// The `k ≤` [`FUSED`] values at stride `S` from `p`, then zeros.
///
/// # Safety
/// `p` must hold `k` values at stride `S`.
#[inline(always)]
unsafe fn padded<R: GemmReal, const S: usize>(p: *const R, k: usize) -> [R; FUSED] {
    if k == FUSED {
        // SAFETY: the caller's promise
        return unsafe { load::<R, FUSED, S>(p) };
    }
    let mut v = [R::ZERO; FUSED];
    for (q, v) in v.iter_mut().enumerate().take(k) {
        // SAFETY: `q < k`
        *v = unsafe { *p.add(q * S) };
    }
    v
}

/// [`gemv_and_adjoint`] compiled for the widest vectors the CPU has (AVX-512F or AVX2 alone,
/// detected here); `false` (nothing done) unless `a`'s elements lie at a stride of one or two
/// reals. Not [`crate::simd::dispatch`] as [`vector_product_dispatch`]: compiled with its full
/// feature set (AVX-512 VL/DQ/BW, FMA) this kernel measured 8 % slower (logistic `nilang-G`,
/// A/B), while the plain products gained 14–16 %.
///
/// # Safety
/// As [`gemv_and_adjoint`].
#[allow(clippy::too_many_arguments)]
#[inline]
unsafe fn gemv_and_adjoint_dispatch<R: GemmReal>(
    m: usize,
    k: usize,
    alpha: R,
    a: (*const R, isize, isize),
    b: (*const R, isize),
    c: (*mut R, isize),
    cg: (*const R, isize),
    bg: (*mut R, isize),
) -> bool {
    type Kernel<R> = unsafe fn(
        usize,
        usize,
        R,
        (*const R, isize),
        (*const R, isize),
        (*mut R, isize),
        (*const R, isize),
        (*mut R, isize),
    );
    #[allow(clippy::too_many_arguments)]
    unsafe fn plain<R: GemmReal, const AS: usize>(
        m: usize,
        k: usize,
        alpha: R,
        a: (*const R, isize),
        b: (*const R, isize),
        c: (*mut R, isize),
        cg: (*const R, isize),
        bg: (*mut R, isize),
    ) {
        // SAFETY: forwarded
        unsafe { gemv_and_adjoint::<R, AS>(m, k, alpha, a, b, c, cg, bg) }
    }
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f")]
    #[allow(clippy::too_many_arguments)]
    unsafe fn avx512<R: GemmReal, const AS: usize>(
        m: usize,
        k: usize,
        alpha: R,
        a: (*const R, isize),
        b: (*const R, isize),
        c: (*mut R, isize),
        cg: (*const R, isize),
        bg: (*mut R, isize),
    ) {
        // SAFETY: forwarded
        unsafe { gemv_and_adjoint::<R, AS>(m, k, alpha, a, b, c, cg, bg) }
    }
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    #[allow(clippy::too_many_arguments)]
    unsafe fn avx2<R: GemmReal, const AS: usize>(
        m: usize,
        k: usize,
        alpha: R,
        a: (*const R, isize),
        b: (*const R, isize),
        c: (*mut R, isize),
        cg: (*const R, isize),
        bg: (*mut R, isize),
    ) {
        // SAFETY: forwarded
        unsafe { gemv_and_adjoint::<R, AS>(m, k, alpha, a, b, c, cg, bg) }
    }
    let kernel: [Kernel<R>; 2] = {
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx512f") {
                [avx512::<R, 1>, avx512::<R, 2>]
            } else if std::arch::is_x86_feature_detected!("avx2") {
                [avx2::<R, 1>, avx2::<R, 2>]
            } else {
                [plain::<R, 1>, plain::<R, 2>]
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            [plain::<R, 1>, plain::<R, 2>]
        }
    };
    let Some(kernel) = [1, 2].iter().position(|&s| s == a.2).map(|q| kernel[q]) else {
        return false;
    };
    // SAFETY: the CPU has the kernel's features; the views as the caller's
    unsafe { kernel(m, k, alpha, (a.0, a.1), b, c, cg, bg) };
    true
}

/// The elements of a row of `A` [`gemv_var`] takes at a time (its adjoints of `b` are held
/// in registers; a wider matrix is swept once per block of this many columns).
const COLS: usize = 2 * LANES;
/// The reals of [`COLS`] gradient numbers (value and adjoint).
const PAIRS: usize = 2 * COLS;

/// `c ±= A·b`, `Ā ∓= c̄·bᵀ` and `b̄ ∓= Aᵀ·c̄` (`n = 1`, `alpha` = ±1 for the first, its
/// negation for the others) for a matrix `A` of gradient numbers (each a value and an adjoint
/// side by side, the adjoint at lane `GL` of the pair; rows at stride `rs` reals from `a`), in
/// one sweep over the rows of `A` per block of [`COLS`] columns (the blocks of a row lie in
/// distinct cache lines, so `A` is read once): the backward rule of a matrix-vector product
/// or of a one-output layer on a hidden layer, where the separate products read `A` two or
/// three times. A row's pairs are loaded and stored as whole vectors (the values stored back
/// unchanged). `c` (values) is `None` for the adjoint-only step; otherwise `k ≤ COLS`. Each
/// value of `c` as [`gemv_rows`] computes it, each adjoint of `A` as [`outer`] and of `b` as
/// [`gemv_cols`] (the same operations in the same order, so the same bits).
///
/// # Safety
/// As [`GemmReal::gemm`] for the three products; `bg` distinct from the others.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
unsafe fn gemv_var<R: GemmReal, const GL: usize>(
    m: usize,
    k: usize,
    alpha: R,
    (a, rs): (*mut R, isize),
    b: (*const R, isize),
    c: Option<(*mut R, isize)>,
    cg: (*const R, isize),
    bg: (*mut R, isize),
) {
    debug_assert!(c.is_none() || k <= COLS);
    let g = alpha.neg();
    let mut j0 = 0;
    while j0 < k {
        let kb = (k - j0).min(COLS);
        // SAFETY: `b`'s values `j0..j0 + kb` are in the caller's view
        let bl = unsafe { block_of(b.0.offset(j0 as isize * b.1), b.1, kb) };
        // `b` at the adjoint lanes, zero at the value lanes
        let mut bp = [R::ZERO; PAIRS];
        for (j, &b) in bl[..COLS].iter().enumerate() {
            bp[2 * j + GL] = b;
        }
        #[cfg(target_arch = "x86_64")]
        if kb == COLS
            && c.is_none()
            && R::is_f64()
            && crate::simd::active() == crate::simd::Isa::Avx2
        {
            // a whole block, adjoints only, in AVX2 registers (the generic code runs in
            // scalars there)
            // SAFETY: `R` is `f64`; rows `0..m`, pairs `j0..j0 + COLS` of `A`, `c̄` and
            // `b̄`'s elements `j0..j0 + COLS` in the caller's views; the CPU has AVX2
            unsafe {
                let g = *(&g as *const R).cast::<f64>();
                let b: [f64; COLS] = core::array::from_fn(|j| *bl.as_ptr().add(j).cast::<f64>());
                var_avx2::block::<GL>(
                    m,
                    g,
                    (a.cast::<f64>().add(2 * j0), rs),
                    &b,
                    (cg.0.cast::<f64>(), cg.1),
                    (bg.0.cast::<f64>().offset(j0 as isize * bg.1), bg.1),
                );
            }
            j0 += kb;
            continue;
        }
        let (mut acc0, mut acc1) = ([R::ZERO; PAIRS], [R::ZERO; PAIRS]);
        // row `i`: its value of `c` (where wanted), its adjoints, its factor `∓c̄_i`, its
        // pairs `j0..j0 + kb` (no closure: a closure would not be compiled for the caller's
        // target features unless inlined)
        #[inline(always)]
        #[allow(clippy::too_many_arguments)]
        unsafe fn row<R: GemmReal, const GL: usize>(
            i: usize,
            (j0, kb): (usize, usize),
            (alpha, g): (R, R),
            (a, rs): (*mut R, isize),
            (bl, bp): (&[R; BLOCK + LANES], &[R; PAIRS]),
            c: Option<(*mut R, isize)>,
            cg: (*const R, isize),
        ) -> (R, [R; PAIRS]) {
            // SAFETY: row `i < m`, pairs `j0..j0 + kb`, element `i` of `c` and `c̄`, in the
            // caller's views
            unsafe {
                let p = a.offset(i as isize * rs).add(2 * j0);
                if let Some(c) = c {
                    let s = row_dot::<R, 2>(p.add(1 - GL), bl, kb);
                    let ci = c.0.offset(i as isize * c.1);
                    *ci = (*ci).add(alpha * s);
                }
                let gi = g * *cg.0.offset(i as isize * cg.1);
                if kb == COLS {
                    let v = core::ptr::read_unaligned(p.cast::<[R; PAIRS]>());
                    // every lane computed, the value lanes kept: a vector blend
                    let t: [R; PAIRS] = core::array::from_fn(|q| v[q].add(gi * bp[q]));
                    let new: [R; PAIRS] =
                        core::array::from_fn(|q| if q % 2 == GL { t[q] } else { v[q] });
                    core::ptr::write_unaligned(p.cast::<[R; PAIRS]>(), new);
                    return (gi, v);
                }
                let mut v = [R::ZERO; PAIRS];
                for (q, v) in v.iter_mut().enumerate().take(2 * kb) {
                    *v = *p.add(q);
                }
                for q in (GL..2 * kb).step_by(2) {
                    *p.add(q) = v[q].add(gi * bp[q]);
                }
                (gi, v)
            }
        }
        let row =
            |i: usize| unsafe { row::<R, GL>(i, (j0, kb), (alpha, g), (a, rs), (&bl, &bp), c, cg) };
        let m2 = m - m % 2;
        // every lane is summed (the value lanes are the products wanted)
        for i in (0..m2).step_by(2) {
            let (g0, x0) = row(i);
            for q in 0..PAIRS {
                acc0[q] = acc0[q].add(x0[q] * g0);
            }
            let (g1, x1) = row(i + 1);
            for q in 0..PAIRS {
                acc1[q] = acc1[q].add(x1[q] * g1);
            }
        }
        if m2 < m {
            let (g0, x0) = row(m2);
            for q in 0..PAIRS {
                acc0[q] = acc0[q].add(x0[q] * g0);
            }
        }
        for j in 0..kb {
            let q = 2 * j + 1 - GL;
            // SAFETY: element `j0 + j < k` of the caller's view of `b̄`
            unsafe {
                let bj = bg.0.offset((j0 + j) as isize * bg.1);
                *bj = (*bj).add(acc0[q].add(acc1[q]));
            }
        }
        j0 += kb;
    }
}

/// [`gemv_var`]'s adjoint-only step for a whole block of [`COLS`] columns of `f64` pairs in
/// AVX2 registers: the operations of the generic code in the same order (each adjoint of `A`
/// `v + gi·b_j`, each sum of `b̄` the products `v·gi` of the even rows and of the odd rows
/// apart, then added), so the same bits; the value lanes of two vectors of pairs taken by
/// one unpack (in the order `0, 2, 1, 3` of their four columns), so the sums of `b̄` take
/// eight registers, not sixteen.
#[cfg(target_arch = "x86_64")]
mod var_avx2 {
    use super::COLS;
    use core::arch::x86_64::{
        __m256d, _mm256_add_pd, _mm256_blend_pd, _mm256_loadu_pd, _mm256_mul_pd, _mm256_set1_pd,
        _mm256_setzero_pd, _mm256_storeu_pd, _mm256_unpackhi_pd, _mm256_unpacklo_pd,
    };

    /// The vectors of four reals (two pairs) in a block.
    const VECS: usize = COLS / 2;

    /// `A[i, j].adj += gi·b_j` and `b̄_j += Σ_i A[i, j].val·gi` (`gi = g·c̄_i`, the even rows'
    /// and the odd rows' sums apart, then added) for the `m` rows of a block of [`COLS`]
    /// pairs from `a` (row stride `rs` reals), the adjoint at lane `GL` of each pair.
    ///
    /// # Safety
    /// `a` holds `m` rows of `COLS` pairs at stride `rs`, `cg` `m` values at stride `cg.1`,
    /// `bg` `COLS` values at stride `bg.1`, distinct from `a`; the CPU has AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn block<const GL: usize>(
        m: usize,
        g: f64,
        (a, rs): (*mut f64, isize),
        b: &[f64; COLS],
        cg: (*const f64, isize),
        bg: (*mut f64, isize),
    ) {
        // `b` at the adjoint lanes, zero at the value lanes
        let mut bp = [0.0; 2 * COLS];
        for (j, &b) in b.iter().enumerate() {
            bp[2 * j + GL] = b;
        }
        /// Row `i`: its adjoints updated, its values times `gi` added to `acc`.
        ///
        /// # Safety
        /// As [`block`].
        #[target_feature(enable = "avx2")]
        #[inline]
        unsafe fn row<const GL: usize>(
            i: usize,
            (g, a, rs, cg): (f64, *mut f64, isize, (*const f64, isize)),
            bp: &[f64; 2 * COLS],
            acc: &mut [__m256d; VECS / 2],
        ) {
            // SAFETY: row `i` and `c̄_i` in the caller's views
            unsafe {
                let gv = _mm256_set1_pd(g * *cg.0.offset(i as isize * cg.1));
                let p = a.offset(i as isize * rs);
                for (h, acc) in acc.iter_mut().enumerate() {
                    let v: [__m256d; 2] =
                        core::array::from_fn(|e| _mm256_loadu_pd(p.add(8 * h + 4 * e)));
                    for (e, &v) in v.iter().enumerate() {
                        let q = 8 * h + 4 * e;
                        let t = _mm256_add_pd(
                            v,
                            _mm256_mul_pd(gv, _mm256_loadu_pd(bp.as_ptr().add(q))),
                        );
                        let new = if GL == 1 {
                            _mm256_blend_pd::<0b1010>(v, t)
                        } else {
                            _mm256_blend_pd::<0b0101>(v, t)
                        };
                        _mm256_storeu_pd(p.add(q), new);
                    }
                    let vals = if GL == 1 {
                        _mm256_unpacklo_pd(v[0], v[1])
                    } else {
                        _mm256_unpackhi_pd(v[0], v[1])
                    };
                    *acc = _mm256_add_pd(*acc, _mm256_mul_pd(vals, gv));
                }
            }
        }
        // SAFETY: register operations and the caller's views
        unsafe {
            let (mut acc0, mut acc1) = (
                [_mm256_setzero_pd(); VECS / 2],
                [_mm256_setzero_pd(); VECS / 2],
            );
            let args = (g, a, rs, cg);
            let m2 = m - m % 2;
            for i in (0..m2).step_by(2) {
                row::<GL>(i, args, &bp, &mut acc0);
                row::<GL>(i + 1, args, &bp, &mut acc1);
            }
            if m2 < m {
                row::<GL>(m2, args, &bp, &mut acc0);
            }
            let (mut s0, mut s1) = ([0.0; COLS], [0.0; COLS]);
            for (s, acc) in [(&mut s0, &acc0), (&mut s1, &acc1)] {
                for (h, &v) in acc.iter().enumerate() {
                    _mm256_storeu_pd(s.as_mut_ptr().add(4 * h), v);
                }
            }
            // lane `q` of vector `h` holds column `4h + [0, 2, 1, 3][q]`
            for j in 0..COLS {
                let q = 4 * (j / 4) + [0, 2, 1, 3][j % 4];
                let bj = bg.0.offset(j as isize * bg.1);
                *bj += s0[q] + s1[q];
            }
        }
    }
}

/// [`gemv_var`] compiled for the [`active`](crate::simd::active) vector level
/// ([`crate::simd::dispatch`]) on the planes `a` of a matrix of gradient numbers; `false`
/// (nothing done) unless each value and its adjoint lie side by side.
///
/// # Safety
/// As [`gemv_var`] (`k` the row length of `a`).
#[allow(clippy::too_many_arguments)]
#[inline]
unsafe fn gemv_var_dispatch<R: GemmReal>(
    m: usize,
    k: usize,
    alpha: R,
    a: (Planes<R>, *mut R),
    b: (*const R, isize),
    c: Option<(*mut R, isize)>,
    cg: (*const R, isize),
    bg: (*mut R, isize),
) -> bool {
    let (Planes { x, s, .. }, ag) = a;
    let rs = s * k as isize;
    type Kernel<R> = unsafe fn(
        usize,
        usize,
        R,
        (*mut R, isize),
        (*const R, isize),
        Option<(*mut R, isize)>,
        (*const R, isize),
        (*mut R, isize),
    );
    macro_rules! kernels {
        ($($name:ident $(: $features:literal)?),*) => {$(
            $(#[cfg(target_arch = "x86_64")] #[target_feature(enable = $features)])?
            #[allow(clippy::too_many_arguments)]
            unsafe fn $name<R: GemmReal, const GL: usize>(
                m: usize,
                k: usize,
                alpha: R,
                a: (*mut R, isize),
                b: (*const R, isize),
                c: Option<(*mut R, isize)>,
                cg: (*const R, isize),
                bg: (*mut R, isize),
            ) {
                // SAFETY: forwarded
                unsafe { gemv_var::<R, GL>(m, k, alpha, a, b, c, cg, bg) }
            }
        )*};
    }
    kernels!(plain, avx512: "avx512f,avx512vl,avx512dq,avx2,fma", avx2: "avx2,fma");
    let kernel: [Kernel<R>; 2] = match crate::simd::active() {
        #[cfg(target_arch = "x86_64")]
        crate::simd::Isa::Avx512 => [avx512::<R, 0>, avx512::<R, 1>],
        #[cfg(target_arch = "x86_64")]
        crate::simd::Isa::Avx2 => [avx2::<R, 0>, avx2::<R, 1>],
        _ => [plain::<R, 0>, plain::<R, 1>],
    };
    // the pairs start at the lower plane
    let d = (ag as isize - x as isize) / size_of::<R>() as isize;
    let (base, gl) = match (s, d) {
        (2, 1) => (x, 1),
        (2, -1) => (ag, 0),
        _ => return false,
    };
    // SAFETY: the CPU has the kernel's features (`active` is at most what it detected); the
    // views as the caller's
    unsafe { kernel[gl](m, k, alpha, (base, rs), b, c, cg, bg) };
    true
}

/// `c[i, j] += (alpha a_i) · b_j` (`i < m`, `j < n`; `k = 1`): `a` at stride `a.1`, `b` at
/// stride `b.1` (copied to the stack in blocks of [`BLOCK`]), the rows of `c` at stride `c.1`,
/// their elements at stride `CS`.
///
/// # Safety
/// As [`GemmReal::gemm`].
#[inline(always)]
unsafe fn outer<R: GemmReal, const CS: usize>(
    m: usize,
    n: usize,
    alpha: R,
    a: (*const R, isize),
    b: (*const R, isize),
    c: (*mut R, isize),
) {
    let mut j0 = 0;
    while j0 < n {
        let nb = (n - j0).min(BLOCK);
        // SAFETY: `b`'s values `j0..j0 + nb` are in the caller's view
        let bl = unsafe { block_of(b.0.offset(j0 as isize * b.1), b.1, nb) };
        for i in 0..m {
            // SAFETY: inside the caller's views of `a` and `c` (row `i`, elements `j0..j0 + nb`)
            unsafe {
                let ai = alpha * *a.0.offset(i as isize * a.1);
                let row = c.0.offset(i as isize * c.1).add(j0 * CS);
                for (j, &bj) in bl[..nb].iter().enumerate() {
                    let cij = row.add(j * CS);
                    *cij = (*cij).add(ai * bj);
                }
            }
        }
        j0 += nb;
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
/// numbers), the element stride in reals. Stride 2 on `[GVar<f64>]`, 1 on `[f64]` (no adjoint
/// plane) and on a [`Split`](crate::ad::Split) container ([`Places::planes`](crate::ad::places::Places::planes)).
///
/// Raw pointers: valid while the storage they were taken from is borrowed and not moved.
///
/// ```
/// use nilang::{stdlib::Planes, GVar};
/// let mut v = [GVar::new(1.0, 10.0), GVar::new(2.0, 20.0)];
/// let p = Planes::<f64>::of(v.as_mut_ptr()).unwrap();
/// assert_eq!(p.s, 2);
/// // SAFETY: `v` is alive and has two elements
/// unsafe { assert_eq!((*p.x.add(2), *p.g.unwrap().add(2)), (2.0, 20.0)) };
/// ```
#[derive(Debug)]
pub struct Planes<R> {
    /// The first value.
    pub x: *mut R,
    /// The first adjoint (`None`: plain numbers, no adjoints).
    pub g: Option<*mut R>,
    /// The distance in `R`s from one element's value (or adjoint) to the next one's.
    pub s: isize,
}

impl<R> Clone for Planes<R> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<R> Copy for Planes<R> {}

impl<R: 'static> Planes<R> {
    /// The planes of a slice of `T` starting at `v` when `T` is `R` or `GVar<R>` (else `None`).
    pub fn of<T: 'static>(v: *mut T) -> Option<Self> {
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
pub(super) unsafe fn all_zero<R: GemmReal>(p: *const R, len: usize, s: isize) -> bool {
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
    gemm_ones(step, c, a, b, None, (m, k, n), &mut false)
}

/// [`gemm`], and where `ones` is given (a bias of one element) and its adjoint can move in
/// the same pass (see [`gemv_cols`]), `b̄ias ∓= C̄ᵀ·1` too (`ones_done` set then; otherwise the
/// caller's [`add_rows`] moves it).
fn gemm_ones<T: 'static, D: 'static>(
    step: Step,
    c: &mut [T],
    a: Operand<D>,
    b: &mut [T],
    ones: Option<*mut T>,
    (m, k, n): (usize, usize, usize),
    ones_done: &mut bool,
) -> bool {
    let (cp, bp) = (c.as_mut_ptr(), b.as_mut_ptr());
    run::<f64, T, D>(step, cp, a, bp, ones, (m, k, n), ones_done)
        || run::<f32, T, D>(step, cp, a, bp, ones, (m, k, n), ones_done)
}

/// [`gemm`], then [`add_rows`] of `bias` (`C ±= A·B + 1·biasᵀ`: a dense layer, `bias` of
/// `n` elements); the same return. Where only the values of a one-output layer on `f64` rows
/// of at most 16 values move (the recomputation of a forward pass, or plain numbers), the
/// bias is added in the product's own pass over `C` (eight rows at a time in AVX-512, the
/// other rows as before), not in a second one: the same additions in the same order, so the
/// same bits.
pub(crate) fn gemm_bias<T: 'static, D: 'static>(
    step: Step,
    c: &mut [T],
    a: Operand<D>,
    b: &mut [T],
    bias: &mut [T],
    (m, k, n): (usize, usize, usize),
) -> bool {
    let a_ptr = match a {
        Operand::Var(p) => p.cast_const(),
        Operand::Data(p) => p,
    };
    // SAFETY: the callers pass slices of the checked lengths (`a` holds `m · k` elements)
    let done = unsafe { values_with_bias(step, c, a_ptr, b, bias, (m, k, n)) };
    if done == 0 {
        let mut ones_done = false;
        let ones = Some(bias.as_mut_ptr());
        return gemm_ones(step, c, a, b, ones, (m, k, n), &mut ones_done)
            && (ones_done || add_rows(step, c, bias, m, n));
    }
    // the rows past the kernel's multiple of eight as before (`done ≤ m` rows in)
    let rest = match a {
        Operand::Var(p) => Operand::Var(p.wrapping_add(done * k)),
        Operand::Data(p) => Operand::Data(p.wrapping_add(done * k)),
    };
    let c = &mut c[done..];
    gemm(step, c, rest, b, (m - done, k, n)) && add_rows(step, c, bias, m - done, n)
}

/// The rows [`gemm_bias`] does in one pass: the values of `c ±= a·b + bias` for `n = 1`,
/// `2 ≤ k ≤ 16`, `a` row-major `f64` values (no adjoint), when no adjoint moves (`step` is
/// [`Step::ForwardValues`] or `c` has no adjoints), through [`short_rows::gemv`]; returns how
/// many rows it did (none where any of this fails).
///
/// # Safety
/// As [`gemm`]'s callers: `a` holds `m · k` elements, `c` `m · n`, `b` `k · n`, `bias` `n`.
unsafe fn values_with_bias<T: 'static, D: 'static>(
    step: Step,
    c: &mut [T],
    a: *const D,
    b: &mut [T],
    bias: &mut [T],
    (m, k, n): (usize, usize, usize),
) -> usize {
    if n != 1 || !(2..=short_rows::MAX_K).contains(&k) {
        return 0;
    }
    let planes = (
        Planes::<f64>::of(c.as_mut_ptr()),
        Planes::<f64>::of(a.cast_mut()).filter(|a| a.g.is_none()),
        Planes::<f64>::of(b.as_mut_ptr()),
        Planes::<f64>::of(bias.as_mut_ptr()),
    );
    let (Some(cp), Some(ap), Some(bp), Some(biasp)) = planes else {
        return 0;
    };
    if cp.g.is_some() && step != Step::ForwardValues {
        return 0;
    }
    let sign = if step.inverse() { -1.0 } else { 1.0 };
    // SAFETY: `b`'s `k` values and `bias`'s one are in the caller's views, `a`'s rows of `k`
    // values and `c`'s `m` values too (the kernel writes only `c`)
    unsafe {
        let bl = block_of(bp.x.cast_const(), bp.s, k);
        let bv: [f64; short_rows::MAX_K] = core::array::from_fn(|l| bl[l]);
        let b0 = *biasp.x;
        short_rows::gemv(
            (m, k, sign),
            (ap.x.cast_const(), k as isize),
            &bv,
            (cp.x, cp.s),
            Some(if step.inverse() { -b0 } else { b0 }),
        )
    }
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
    ones: Option<*mut T>,
    (m, k, n): (usize, usize, usize),
    ones_done: &mut bool,
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
        let cg =
            c.g.filter(|&cg| step != Step::ForwardValues && !all_zero(cg, m * n, c.s));
        // adjoint-only on gradient numbers: `C`'s values are never read again
        let values = !(step.adjoints_only() && c.g.is_some());
        if let (true, 1, true, None, Some(bg), Some(cg)) = (values, n, k <= FUSED, a.g, b.g, cg) {
            // a matrix-vector product on data: values and `B̄` in one pass over `A`
            let av = a.x(k, false);
            if gemv_and_adjoint_dispatch(
                m,
                k,
                sign,
                av,
                (b.x, b.s),
                (c.x, c.s),
                (cg, c.s),
                (bg, b.s),
            ) {
                return true;
            }
        }
        if let (1, Some(ag), Some(bg), Some(cg)) = (n, a.g, b.g, cg) {
            // a matrix-vector product on gradient numbers: values (where wanted, rows of at
            // most `COLS`), `Ā` and `B̄` in one sweep over `A`
            if !values || k <= COLS {
                let cv = values.then_some((c.x, c.s));
                if gemv_var_dispatch(
                    m,
                    k,
                    sign,
                    (a, ag),
                    (b.x, b.s),
                    cv,
                    (cg.cast_const(), c.s),
                    (bg, b.s),
                ) {
                    return true;
                }
            }
        }
        if values {
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
        let Some(cg) = cg else { return true };
        let cgv = (cg.cast_const(), c.s * n as isize, c.s);
        if let Some(ag) = a.g {
            // Ā (m × k) ∓= C̄ (m × n) · Bᵀ (n × k)
            let (rs, cs) = strides(a.s, k, false);
            R::gemm(m, n, k, sign.neg(), cgv, b.x(n, true), (ag, rs, cs));
        }
        if let Some(bg) = b.g {
            // B̄ (k × n) ∓= Aᵀ (k × m) · C̄ (m × n)
            let (rs, cs) = strides(b.s, n, false);
            let at = a.x(k, true);
            // adjoint-only, one output: the bias adjoint in the same pass over `C̄`, where
            // `vector_product` would run the column form (`gemv_cols`)
            let og = ones.and_then(|p| Planes::<R>::of(p)).and_then(|o| o.g);
            *ones_done = match og {
                Some(og) if !values && n == 1 && m > 1 && k > 0 && at.2 != 1 && at.2 != 2 => {
                    let mka = (k, m, sign.neg());
                    let (av, cgs, bgs) = ((at.0, at.2), (cgv.0, cgv.2), (bg, rs));
                    match at.1 {
                        1 => gemv_cols_ones_dispatch::<R, 1>(mka, av, cgs, bgs, og),
                        2 => gemv_cols_ones_dispatch::<R, 2>(mka, av, cgs, bgs, og),
                        _ => false,
                    }
                }
                _ => false,
            };
            if !*ones_done {
                R::gemm(k, m, n, sign.neg(), at, cgv, (bg, rs, cs));
            }
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
            // b̄ ∓= Ȳᵀ·1: a matrix-vector product with a vector of ones (stride 0), `Ȳ`
            // read once, in memory order
            let one = R::ONE;
            let sign = if inverse { R::ONE } else { R::ONE.neg() };
            R::gemm(
                n,
                rows,
                1,
                sign,
                (yg.cast_const(), y.s, n as isize * y.s),
                (&one, 0, 0),
                (bg, b.s, 0),
            );
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
    if n == 1 {
        // one output: the same addition on every row, no inner loop
        // SAFETY: `b` has one element, `y` has `rows` at stride `YS`
        let b0 = unsafe { *b };
        let b0 = if inverse { b0.neg() } else { b0 };
        for r in 0..rows {
            // SAFETY: as above
            unsafe {
                let yr = y.add(r * YS);
                *yr = (*yr).add(b0);
            }
        }
        return;
    }
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
    // with the parameters whose values each direction may read (`READS`) given
    ($f:ident, $inv:ident, reads: $reads:expr, $primal:item, $adj:item, $adj_inv:item) => {
        $crate::additive!(@marker_adj $f, 1, 1, $reads, { $primal $adj });
        $crate::additive!(@marker_adj $inv, 1, 1, $reads, { $adj_inv });
    };
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

#[cfg(test)]
mod tests {
    use super::*;

    fn data(len: usize, seed: usize) -> Vec<f64> {
        (0..len)
            .map(|i| ((i * 7919 + seed * 104_729) % 1009) as f64 / 1009.0 * 4.0 - 2.0)
            .collect()
    }
    fn bits(v: &[f64]) -> Vec<u64> {
        v.iter().map(|v| v.to_bits()).collect()
    }

    /// The matrix-vector kernels as this CPU runs them (AVX-512 or AVX2 where present) and as
    /// the default build compiles them: the same bits; and the products they compute.
    #[test]
    fn vector_kernels_give_the_same_bits_on_every_path_and_the_products() {
        // short rows (one padded load), a row past one block of `b`, odd and tail sizes
        for &(m, k) in &[
            (37, 16),
            (9, 5),
            (24, 12),
            (3, 300),
            (21, 17),
            (40, 1),
            (1, 1),
        ] {
            for s in [1usize, 2] {
                let (a, b) = (data(m * k * s, 1), data(k.max(m) * s, 2));
                let c0 = data(m.max(k) * s, 3);
                // c += A·b (rows of A in order), c' += Aᵀ·b' (a transposed view)
                let rows = (a.as_ptr(), (k * s) as isize, s as isize);
                let cols = (a.as_ptr(), s as isize, (k * s) as isize);
                for (mm, kk, av) in [(m, k, rows), (k, m, cols)] {
                    let run = |dispatched: bool| {
                        let mut c = c0.clone();
                        let (bv, cv) =
                            ((b.as_ptr(), s as isize, 0), (c.as_mut_ptr(), s as isize, 0));
                        // SAFETY: the views lie in the vectors
                        unsafe {
                            if dispatched {
                                vector_product_dispatch(mm, kk, 1, -1.0, av, bv, cv)
                            } else {
                                vector_product(mm, kk, 1, -1.0, av, bv, cv)
                            }
                        }
                        c
                    };
                    let (got, plain) = (run(true), run(false));
                    assert_eq!(bits(&got), bits(&plain), "{mm}x{kk} stride {s}");
                    for i in 0..mm {
                        let at = |l: usize| a[(i as isize * av.1 + l as isize * av.2) as usize];
                        let want = c0[i * s] - (0..kk).map(|l| at(l) * b[l * s]).sum::<f64>();
                        assert!((got[i * s] - want).abs() < 1e-12, "{mm}x{kk} {i}");
                    }
                }
                // C (m × k) += a bᵀ: an outer product (inner dimension one)
                let run = |dispatched: bool| {
                    let mut c = data(m * k * s, 4);
                    let av = (a.as_ptr(), s as isize, 0);
                    let bv = (b.as_ptr(), 0, s as isize);
                    let cv = (c.as_mut_ptr(), (k * s) as isize, s as isize);
                    // SAFETY: the views lie in the vectors
                    unsafe {
                        if dispatched {
                            vector_product_dispatch(m, 1, k, 1.0, av, bv, cv)
                        } else {
                            vector_product(m, 1, k, 1.0, av, bv, cv)
                        }
                    }
                    c
                };
                let (got, plain, c1) = (run(true), run(false), data(m * k * s, 4));
                assert_eq!(bits(&got), bits(&plain), "outer {m}x{k} stride {s}");
                for (i, j) in (0..m).flat_map(|i| (0..k).map(move |j| (i, j))) {
                    let q = (i * k + j) * s;
                    assert_eq!(got[q], c1[q] + a[i * s] * b[j * s], "outer {i} {j}");
                }
            }
        }
    }

    /// The one-sweep rule of a matrix-vector product on gradient numbers (`c -= A·b`,
    /// `Ā += c̄·bᵀ`, `b̄ += Aᵀ·c̄`): the bits of the three products it replaces, with the
    /// values and adjoint-only, one block of columns and several, the adjoint after or
    /// before the value in each pair.
    #[test]
    fn one_sweep_rule_on_gradient_numbers_is_the_three_products() {
        for &(m, k) in &[(37, 16), (10, 5), (9, 40), (1, 32), (8, 33), (5, 64)] {
            for gl in [0usize, 1] {
                for with_values in [true, false] {
                    if with_values && k > COLS {
                        continue;
                    }
                    // A as pairs (value, adjoint) or (adjoint, value), row-major m × k
                    let (ax, ag0) = (data(m * k, 10), data(m * k, 11));
                    let mut pairs = vec![0.0; 2 * m * k];
                    for q in 0..m * k {
                        pairs[2 * q + 1 - gl] = ax[q];
                        pairs[2 * q + gl] = ag0[q];
                    }
                    let (b, cg, c0, bg0) = (data(k, 12), data(m, 13), data(m, 14), data(k, 15));
                    // the separate products on the value and adjoint planes
                    let (mut want_pairs, mut c, mut bg) = (pairs.clone(), c0.clone(), bg0.clone());
                    let (xp, gp) = (
                        want_pairs.as_mut_ptr().wrapping_add(1 - gl),
                        want_pairs.as_mut_ptr().wrapping_add(gl),
                    );
                    let rs = (2 * k) as isize;
                    // SAFETY: the views lie in the vectors
                    unsafe {
                        if with_values {
                            vector_product(
                                m,
                                k,
                                1,
                                -1.0,
                                (xp.cast_const(), rs, 2),
                                (b.as_ptr(), 1, 0),
                                (c.as_mut_ptr(), 1, 0),
                            );
                        }
                        // Ā (m × k) += c̄ (m × 1) · bᵀ (1 × k)
                        vector_product(
                            m,
                            1,
                            k,
                            1.0,
                            (cg.as_ptr(), 1, 0),
                            (b.as_ptr(), 0, 1),
                            (gp, rs, 2),
                        );
                        // b̄ (k × 1) += Aᵀ (k × m) · c̄ (m × 1)
                        vector_product(
                            k,
                            m,
                            1,
                            1.0,
                            (xp.cast_const(), 2, rs),
                            (cg.as_ptr(), 1, 0),
                            (bg.as_mut_ptr(), 1, 0),
                        );
                    }
                    let mut got_pairs = pairs.clone();
                    let (mut gc, mut gbg) = (c0.clone(), bg0.clone());
                    let x = got_pairs.as_mut_ptr().wrapping_add(1 - gl);
                    let planes = Planes {
                        x,
                        g: Some(got_pairs.as_mut_ptr().wrapping_add(gl)),
                        s: 2,
                    };
                    // SAFETY: the views lie in the vectors
                    let done = unsafe {
                        gemv_var_dispatch(
                            m,
                            k,
                            -1.0,
                            (planes, planes.g.unwrap()),
                            (b.as_ptr(), 1),
                            with_values.then_some((gc.as_mut_ptr(), 1)),
                            (cg.as_ptr(), 1),
                            (gbg.as_mut_ptr(), 1),
                        )
                    };
                    assert!(done);
                    let what = format!("{m}x{k} adjoint lane {gl} values {with_values}");
                    assert_eq!(bits(&got_pairs), bits(&want_pairs), "{what}");
                    assert_eq!(bits(&gc), bits(&c), "{what}");
                    assert_eq!(bits(&gbg), bits(&bg), "{what}");
                    assert!(bg.iter().zip(&bg0).any(|(p, q)| p != q), "{what}");
                    assert_eq!(with_values, c != c0, "{what}");
                    // the rule itself: Ā += c̄ bᵀ, b̄ += Aᵀ c̄
                    for i in 0..m {
                        for l in 0..k {
                            let q = 2 * (i * k + l) + gl;
                            assert_eq!(got_pairs[q], ag0[i * k + l] + cg[i] * b[l], "{what}");
                        }
                    }
                    for l in 0..k {
                        let want = bg0[l] + (0..m).map(|i| ax[i * k + l] * cg[i]).sum::<f64>();
                        assert!((gbg[l] - want).abs() < 1e-12, "{what}");
                    }
                }
            }
        }
    }

    /// The one-pass backward rule of a matrix-vector product on data (`c -= A·b`,
    /// `b̄ += Aᵀ·c̄`): the bits of the two products it replaces, on every path.
    #[test]
    fn one_pass_rule_is_the_two_products() {
        for &(m, k) in &[(37, 16), (10, 5), (1, 16), (8, 3)] {
            for s in [1usize, 2] {
                let (a, b, cg) = (data(m * k, 5), data(k * s, 6), data(m * s, 7));
                let (c0, bg0) = (data(m * s, 8), data(k * s, 9));
                let av = (a.as_ptr(), k as isize, 1);
                let fused = |dispatched: bool| {
                    let (mut c, mut bg) = (c0.clone(), bg0.clone());
                    let args = (
                        (b.as_ptr(), s as isize),
                        (c.as_mut_ptr(), s as isize),
                        (cg.as_ptr(), s as isize),
                        (bg.as_mut_ptr(), s as isize),
                    );
                    // SAFETY: the views lie in the vectors
                    unsafe {
                        if dispatched {
                            assert!(gemv_and_adjoint_dispatch(
                                m, k, -1.0, av, args.0, args.1, args.2, args.3
                            ));
                        } else {
                            gemv_and_adjoint::<f64, 1>(
                                m,
                                k,
                                -1.0,
                                (av.0, av.1),
                                args.0,
                                args.1,
                                args.2,
                                args.3,
                            );
                        }
                    }
                    (c, bg)
                };
                let (mut c, mut bg) = (c0.clone(), bg0.clone());
                // SAFETY: the views lie in the vectors
                unsafe {
                    vector_product(
                        m,
                        k,
                        1,
                        -1.0,
                        av,
                        (b.as_ptr(), s as isize, 0),
                        (c.as_mut_ptr(), s as isize, 0),
                    );
                    vector_product(
                        k,
                        m,
                        1,
                        1.0,
                        (a.as_ptr(), 1, k as isize),
                        (cg.as_ptr(), s as isize, 0),
                        (bg.as_mut_ptr(), s as isize, 0),
                    );
                }
                for dispatched in [true, false] {
                    let (fc, fbg) = fused(dispatched);
                    assert_eq!(bits(&fc), bits(&c), "{m}x{k} stride {s}");
                    assert_eq!(bits(&fbg), bits(&bg), "{m}x{k} stride {s}");
                }
                assert!(bg.iter().zip(&bg0).any(|(p, q)| p != q));
            }
        }
    }

    /// The bias of a one-output layer on gradient numbers (`y ±= 1·b`, `b̄ ∓= Σ ȳ`): the
    /// values and the adjoint (the product with ones, its ones filled in lanes) are the
    /// element loops' bits, for row counts around the kernels' steps.
    #[test]
    fn one_output_bias_is_the_element_loop() {
        for rows in [0usize, 1, 3, 4, 5, 9, 300, 513] {
            for step in [Step::Forward, Step::Inverse, Step::ForwardValues] {
                let (xs, gs) = (data(rows, 1), data(rows, 2));
                let mut y: Vec<GVar<f64>> =
                    xs.iter().zip(&gs).map(|(&x, &g)| GVar::new(x, g)).collect();
                let mut b = [GVar::new(0.375, 1.5)];
                assert!(add_rows(step, &mut y, &mut b, rows, 1));
                let sign = if step.inverse() { -1.0 } else { 1.0 };
                for (r, v) in y.iter().enumerate() {
                    assert_eq!(
                        v.x.to_bits(),
                        (xs[r] + sign * 0.375).to_bits(),
                        "{rows} {r}"
                    );
                    assert_eq!(v.g.to_bits(), gs[r].to_bits());
                }
                // the product with ones sums in blocks of 256, eight and eight lanes: compare
                // to the plain kernel of the same order
                let mut want = 1.5;
                if step != Step::ForwardValues && rows > 0 {
                    // SAFETY: `gs` holds `rows` values
                    unsafe {
                        vector_product(
                            1,
                            rows,
                            1,
                            -sign,
                            (gs.as_ptr(), rows as isize, 1),
                            (&1.0, 0, 0),
                            (&mut want, 0, 0),
                        )
                    };
                }
                assert_eq!(b[0].g.to_bits(), want.to_bits(), "{rows} {step:?}");
            }
        }
    }

    /// A one-output layer's values with its bias in the product's pass: the bits of the
    /// product and then the bias pass, on plain and gradient numbers, any row count.
    #[test]
    fn product_with_bias_is_the_product_then_the_bias() {
        for &(m, k) in &[(8, 16), (13, 5), (37, 16), (3, 7), (64, 2)] {
            for step in [Step::Forward, Step::Inverse, Step::ForwardValues] {
                let (x, w0, c0) = (data(m * k, 1), data(k, 2), data(m, 3));
                let plain = |fused: bool| {
                    let (mut c, mut w, mut b) = (c0.clone(), w0.clone(), vec![0.625]);
                    let a = Operand::Data(x.as_ptr());
                    if fused {
                        assert!(gemm_bias(step, &mut c, a, &mut w, &mut b, (m, k, 1)));
                    } else {
                        assert!(gemm(step, &mut c, a, &mut w, (m, k, 1)));
                        assert!(add_rows(step, &mut c, &mut b, m, 1));
                    }
                    c
                };
                assert_eq!(bits(&plain(true)), bits(&plain(false)), "{m}x{k} {step:?}");
                let lifted = |fused: bool| {
                    let mut c: Vec<GVar<f64>> = c0.iter().map(|&v| GVar::from(v)).collect();
                    let mut w: Vec<GVar<f64>> = w0.iter().map(|&v| GVar::from(v)).collect();
                    let mut b = vec![GVar::from(0.625)];
                    let a = Operand::Data(x.as_ptr());
                    if fused {
                        assert!(gemm_bias(step, &mut c, a, &mut w, &mut b, (m, k, 1)));
                    } else {
                        assert!(gemm(step, &mut c, a, &mut w, (m, k, 1)));
                        assert!(add_rows(step, &mut c, &mut b, m, 1));
                    }
                    c.iter().map(|v| v.x).collect::<Vec<_>>()
                };
                assert_eq!(
                    bits(&lifted(true)),
                    bits(&lifted(false)),
                    "{m}x{k} {step:?}"
                );
                assert_eq!(bits(&lifted(true)), bits(&plain(false)), "{m}x{k} {step:?}");
            }
        }
    }

    /// The adjoint-only backward rule of a one-output layer on data with its bias adjoint in
    /// the same pass over `C̄` (`W̄ ∓= Xᵀ·C̄`, `b̄ ∓= C̄ᵀ·1`): the bits of the product and then
    /// the bias pass, across the product with ones' blocks of 256 rows and odd row counts.
    #[test]
    fn backward_rule_with_bias_is_the_product_then_the_bias() {
        for &(m, k) in &[
            (2, 3),
            (37, 16),
            (256, 5),
            (257, 16),
            (300, 17),
            (513, 4),
            (1000, 16),
        ] {
            for step in [Step::ForwardAdjoints, Step::InverseAdjoints] {
                let (x, w0, cx, cg) = (data(m * k, 1), data(k, 2), data(m, 3), data(m, 4));
                let run = |fused: bool| {
                    let mut c: Vec<GVar<f64>> =
                        cx.iter().zip(&cg).map(|(&x, &g)| GVar::new(x, g)).collect();
                    let mut w: Vec<GVar<f64>> = w0.iter().map(|&v| GVar::new(v, 0.25)).collect();
                    let mut b = vec![GVar::new(0.625, -1.5)];
                    let a = Operand::Data(x.as_ptr());
                    if fused {
                        assert!(gemm_bias(step, &mut c, a, &mut w, &mut b, (m, k, 1)));
                    } else {
                        assert!(gemm(step, &mut c, a, &mut w, (m, k, 1)));
                        assert!(add_rows(step, &mut c, &mut b, m, 1));
                    }
                    let g: Vec<f64> = w.iter().chain(&b).map(|v| v.g).collect();
                    (g, c.iter().map(|v| v.x).collect::<Vec<_>>())
                };
                let (fused, plain) = (run(true), run(false));
                assert_eq!(bits(&fused.0), bits(&plain.0), "{m}x{k} {step:?}");
                assert_eq!(bits(&fused.1), bits(&plain.1), "{m}x{k} {step:?}");
                assert!(fused.0[k] != -1.5);
            }
        }
    }
}
