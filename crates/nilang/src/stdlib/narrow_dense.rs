//! The dense layer on data with few inputs, `Y ±= X·W + 1·bᵀ` ([`i_dense_data`] with `X` a
//! `rows × k` matrix of `f64` data, `k ≤ 16`, and more than one output; `Y`, `W`, `b` of
//! `GVar<f64>`), in one streaming pass over the rows for the values and one for the
//! adjoints, where [`matrixmultiply`] would pack `X` (and `Ȳ`) into tiles first and a second
//! pass would add the bias (or sum the columns of `Ȳ` for `b̄`). On plain `f64` the GEMM and
//! its bias pass stay (faster there: the `mlp` suite's `nilang-O` at B = 4096 took 0.58 ms
//! so, 0.77 ms with this module's generic kernel).
//!
//! - Values: `Y[r, j] = (Y[r, j] ± s_rj) ± b_j` with `s_rj = Σ_l X[r, l]·W[l, j]` summed in
//!   the order of `l` (a multiplication then an addition, from `0`; rows of `X` padded with
//!   zeros to 8 or 16 values), eight outputs at a time.
//! - Adjoints (`Ȳ` not all zero): `W̄[l, j] ∓= Σ_r X[r, l]·Ȳ[r, j]` and `b̄_j ∓= Σ_r Ȳ[r, j]`,
//!   the sums over the rows in order, for eight columns at a time in one sweep over the rows
//!   (the partial sums of `W̄` and `b̄` held in registers).
//!
//! The same operations in the same order on every vector level (compiled for AVX-512, AVX2
//! and the default build, picked at run time), so the same bits on every path; a row's values
//! do not depend on its position. On gradient numbers the values and adjoints are read as the
//! pairs they are stored in (a whole vector of pairs loaded, the other lanes written back as
//! they were). AVX-512 and AVX2 have their own register blockings of whole blocks (AVX2: four
//! rows by eight outputs for the values; four outputs by eight inputs per sweep for the
//! adjoints, the rows in chunks held in L1): the blocking differs, each sum's order does not.
//!
//! On x86-64 only (where it was measured); other targets keep the GEMM.
//!
//! [`i_dense_data`]: super::nnlib::i_dense_data
use super::matmul::{all_zero, Planes, Step};
use core::mem::size_of;

/// The most columns of `X` (inputs) these kernels take.
pub(super) const MAX_K: usize = 16;
/// The outputs computed together (one vector of `f64` in AVX-512).
const L: usize = 8;

/// `Y ±= X·W + 1·bᵀ` (`step`) for row-major `y` (`m × n`), data `x` (`m × k`), `w` (`k × n`),
/// `b` (`n`), the lengths already checked; returns `false` (nothing done) unless `T` is
/// `GVar<f64>`, `D` is `f64`, `1 ≤ k ≤` [`MAX_K`] and `n > 1` (one output has its own
/// matrix-vector kernels).
pub(super) fn dense_data<T: 'static, D: 'static>(
    step: Step,
    y: &mut [T],
    x: &[D],
    w: &mut [T],
    b: &mut [T],
    (m, k, n): (usize, usize, usize),
) -> bool {
    // x86-64 only (measured there): elsewhere the GEMM, whose NEON kernels are known good
    if !cfg!(target_arch = "x86_64") || !(1..=MAX_K).contains(&k) || n < 2 {
        return false;
    }
    let planes = (
        Planes::<f64>::of(y.as_mut_ptr()),
        Planes::<f64>::of(x.as_ptr().cast_mut()).filter(|x| x.g.is_none()),
        Planes::<f64>::of(w.as_mut_ptr()),
        Planes::<f64>::of(b.as_mut_ptr()),
    );
    let (Some(yp), Some(xp), Some(wp), Some(bp)) = planes else {
        return false;
    };
    // where the values (and adjoints) of `Y` lie: stride 1, or pairs from the lower plane
    let (base, lanes) = match (yp.s, yp.g) {
        (2, Some(g)) => match (g as isize - yp.x as isize) / size_of::<f64>() as isize {
            1 => (yp.x, Lanes::Pairs { value: 0 }),
            -1 => (g, Lanes::Pairs { value: 1 }),
            _ => return false,
        },
        _ => return false,
    };
    let job = Job {
        dims: (m, k, n),
        inverse: step.inverse(),
        x: xp.x,
        y: base,
        w: (wp.x, wp.s),
        b: (bp.x, bp.s),
        wg: wp.g.map(|g| (g, wp.s)),
        bg: bp.g.map(|g| (g, bp.s)),
    };
    // SAFETY: the callers pass slices of the checked lengths (`y` distinct from `w` and `b`:
    // `&mut` borrows); every view below stays within them
    unsafe {
        // adjoint-only on gradient numbers: `Y`'s values are never read again
        if !(step.adjoints_only() && yp.g.is_some()) {
            run(&job, Pass::Values, lanes);
        }
        let adjoints =
            yp.g.filter(|&g| step != Step::ForwardValues && !all_zero(g, m * n, 2));
        if adjoints.is_some() && job.wg.is_some() && job.bg.is_some() {
            run(&job, Pass::Adjoints, lanes);
        }
    }
    true
}

/// How the numbers of `Y` are stored.
#[derive(Clone, Copy)]
enum Lanes {
    /// `GVar<f64>` pairs, the value at lane `value` (0 or 1) of each pair, the adjoint at the
    /// other.
    Pairs { value: usize },
}

/// Which pass runs.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Pass {
    Values,
    Adjoints,
}

/// The operands of one layer: `Y` from its lower plane, the value planes of `W` and `b` and
/// their adjoint planes (element strides in reals).
struct Job {
    dims: (usize, usize, usize),
    inverse: bool,
    x: *const f64,
    y: *mut f64,
    w: (*const f64, isize),
    b: (*const f64, isize),
    wg: Option<(*mut f64, isize)>,
    bg: Option<(*mut f64, isize)>,
}

/// `pass` of `job` compiled for the [`active`](crate::simd::active) vector level, rows
/// padded to 8 or 16 values.
///
/// # Safety
/// As [`dense_data`]'s views.
unsafe fn run(job: &Job, pass: Pass, lanes: Lanes) {
    type Kernel = unsafe fn(&Job);
    // one function per pass, so that each is compiled (and its registers allocated) alone
    macro_rules! kernels {
        ($($name:ident $(: $features:literal)?),*) => {$(
            $(#[cfg(target_arch = "x86_64")] #[target_feature(enable = $features)])?
            unsafe fn $name<const K: usize, const S: usize, const V: usize, const ADJ: bool>(
                job: &Job,
            ) {
                let pass = if ADJ { Pass::Adjoints } else { Pass::Values };
                // SAFETY: forwarded
                unsafe { kernel::<K, S, V>(job, pass) }
            }
        )*};
    }
    kernels!(plain, avx512: "avx512f,avx512vl,avx512dq,avx2,fma", avx2: "avx2,fma");
    macro_rules! pick {
        ($f:ident) => {
            match (pass, job.dims.1 <= L, lanes) {
                (Pass::Values, true, Lanes::Pairs { value: 0 }) => $f::<L, 2, 0, false> as Kernel,
                (Pass::Values, true, Lanes::Pairs { .. }) => $f::<L, 2, 1, false>,
                (Pass::Values, false, Lanes::Pairs { value: 0 }) => $f::<MAX_K, 2, 0, false>,
                (Pass::Values, false, Lanes::Pairs { .. }) => $f::<MAX_K, 2, 1, false>,
                (Pass::Adjoints, true, Lanes::Pairs { value: 0 }) => $f::<L, 2, 0, true>,
                (Pass::Adjoints, true, Lanes::Pairs { .. }) => $f::<L, 2, 1, true>,
                (Pass::Adjoints, false, Lanes::Pairs { value: 0 }) => $f::<MAX_K, 2, 0, true>,
                (Pass::Adjoints, false, Lanes::Pairs { .. }) => $f::<MAX_K, 2, 1, true>,
            }
        };
    }
    let kernel = match crate::simd::active() {
        #[cfg(target_arch = "x86_64")]
        crate::simd::Isa::Avx512 => pick!(avx512),
        #[cfg(target_arch = "x86_64")]
        crate::simd::Isa::Avx2 => pick!(avx2),
        _ => pick!(plain),
    };
    // SAFETY: the CPU has the kernel's features (`active` is at most what it detected); the
    // views as the caller's
    unsafe { kernel(job) }
}

/// [`run`]'s body: `K` the padded row length of `X`, `Y`'s numbers at stride `S` reals from
/// `job.y` with the value at lane `V` (the adjoint at `1 − V` when `S` is 2). The outputs in
/// groups of [`GROUP`] blocks of [`L`], the rows in chunks of [`CHUNK`] (in L1 while every
/// block of the group passes over them), so `X` and `Y` are read once, in order.
///
/// # Safety
/// As [`dense_data`]'s views.
#[inline(always)]
unsafe fn kernel<const K: usize, const S: usize, const V: usize>(job: &Job, pass: Pass) {
    let (m, k, n) = job.dims;
    for g0 in (0..n).step_by(GROUP * L) {
        let blocks = (n - g0).div_ceil(L).min(GROUP);
        let nb = |jb: usize| (n - g0 - jb * L).min(L);
        match pass {
            Pass::Values => {
                // the blocks of `W` (rows `l < k`) and of `±b`, zeros elsewhere
                let mut wb = [[[0.0; L]; K]; GROUP];
                let mut bb = [[0.0; L]; GROUP];
                for jb in 0..blocks {
                    // SAFETY: elements of `W` and `b` inside their views
                    unsafe { w_block(job, g0 + jb * L, nb(jb), &mut wb[jb], &mut bb[jb]) };
                }
                let mut xbuf = [[0.0; K]; CHUNK];
                for r0 in (0..m).step_by(CHUNK) {
                    let rows = r0..(r0 + CHUNK).min(m);
                    // SAFETY: rows `rows` of `X`
                    let xs = unsafe { x_rows::<K>(job.x, k, rows.clone(), &mut xbuf) };
                    for jb in 0..blocks {
                        // SAFETY: rows `rows`, columns of block `jb`, in the caller's views
                        unsafe {
                            values::<K, S, V>(
                                job,
                                (g0 + jb * L, nb(jb)),
                                (rows.clone(), xs),
                                &wb[jb],
                                &bb[jb],
                            )
                        };
                    }
                }
            }
            Pass::Adjoints => {
                #[cfg(target_arch = "x86_64")]
                if S == 2
                    && k == K
                    && nb(blocks - 1) == L
                    && job.wg.is_some()
                    && job.bg.is_some()
                    && crate::simd::active() == crate::simd::Isa::Avx2
                {
                    // whole blocks in AVX2: the group's sums in one sweep over the rows
                    // SAFETY: columns `g0..g0 + blocks·L` in the caller's views
                    let sums = unsafe { avx2::sweep::<K, V>(job, g0, blocks) };
                    for (jb, (acc, accb)) in sums.iter().enumerate().take(blocks) {
                        // SAFETY: columns of block `jb` in the caller's views
                        unsafe { add_sums::<K>(job, (g0 + jb * L, L), acc, accb) };
                    }
                    continue;
                }
                for jb in 0..blocks {
                    // SAFETY: columns of block `jb` in the caller's views
                    unsafe { adjoints::<K, S, V>(job, (g0 + jb * L, nb(jb))) };
                }
            }
        }
    }
}

/// The blocks of outputs held at once.
const GROUP: usize = 8;
/// The rows of a chunk.
const CHUNK: usize = 32;

/// The block of `W` (rows `l < k`, columns `j0..j0 + nb`) and of `±b`.
///
/// # Safety
/// As [`dense_data`]'s views; `j0 + nb ≤ n`.
#[inline(always)]
unsafe fn w_block<const K: usize>(
    job: &Job,
    j0: usize,
    nb: usize,
    wb: &mut [[f64; L]; K],
    bb: &mut [f64; L],
) {
    let (_, k, n) = job.dims;
    // SAFETY: elements of `W` and `b` inside their views
    unsafe {
        for (l, row) in wb.iter_mut().enumerate().take(k) {
            for (q, v) in row.iter_mut().enumerate().take(nb) {
                *v = *job.w.0.offset((l * n + j0 + q) as isize * job.w.1);
            }
        }
        for (q, v) in bb.iter_mut().enumerate().take(nb) {
            let b = *job.b.0.offset((j0 + q) as isize * job.b.1);
            *v = if job.inverse { -b } else { b };
        }
    }
}

/// `a + x·v`, lane by lane (a multiplication, then an addition).
#[inline(always)]
fn add_scaled(a: [f64; L], x: f64, v: [f64; L]) -> [f64; L] {
    core::array::from_fn(|q| a[q] + x * v[q])
}

/// Rows `rows` of `X` (`k ≤ K` values each) at a stride of `K` values: `X` itself where
/// `k` is `K`, else copied into `buf` with zeros after each row's `k` values.
///
/// # Safety
/// `x` holds rows of `k` values, `rows` among them; `rows` has at most [`CHUNK`].
#[inline(always)]
unsafe fn x_rows<const K: usize>(
    x: *const f64,
    k: usize,
    rows: core::ops::Range<usize>,
    buf: &mut [[f64; K]; CHUNK],
) -> *const f64 {
    // SAFETY: the caller's promise
    unsafe {
        if k == K {
            return x.add(rows.start * k);
        }
        for (row, r) in buf.iter_mut().zip(rows) {
            for (l, v) in row.iter_mut().enumerate().take(k) {
                *v = *x.add(r * k + l);
            }
        }
    }
    buf.as_ptr().cast()
}

/// `Σ_l x_l·W[l, ·]` in the order of `l` (`x`: `K` values).
///
/// # Safety
/// `x` holds `K` values.
#[inline(always)]
unsafe fn row_sum<const K: usize>(x: *const f64, wb: &[[f64; L]; K]) -> [f64; L] {
    let mut acc = [0.0; L];
    for (l, w) in wb.iter().enumerate() {
        // SAFETY: the caller's promise
        acc = add_scaled(acc, unsafe { *x.add(l) }, *w);
    }
    acc
}

/// The `nb ≤ L` numbers of `Y` from element `e` on at lane `LANE` of each (stride `S`), then
/// zeros.
///
/// # Safety
/// The `nb` numbers lie in `Y`.
#[inline(always)]
unsafe fn y_lanes<const S: usize, const LANE: usize>(y: *mut f64, e: usize, nb: usize) -> [f64; L] {
    // SAFETY: the caller's promise (a full block: `L` numbers of `S` reals)
    unsafe {
        let p = y.add(e * S);
        if nb == L {
            if S == 1 {
                return core::ptr::read_unaligned(p.cast::<[f64; L]>());
            }
            let v = core::ptr::read_unaligned(p.cast::<[f64; 2 * L]>());
            return core::array::from_fn(|q| v[S * q + LANE]);
        }
        let mut v = [0.0; L];
        for (q, v) in v.iter_mut().enumerate().take(nb) {
            *v = *p.add(S * q + LANE);
        }
        v
    }
}

/// The values of `Y` for columns `j0..j0 + nb` and rows `rows`:
/// `Y[r, j] = (Y[r, j] ± s_rj) ± b_j` (`wb`, `bb`: the block of `W` and of `±b`).
///
/// # Safety
/// As [`dense_data`]'s views; `j0 + nb ≤ n`, `rows` within `0..m`.
#[inline(always)]
unsafe fn values<const K: usize, const S: usize, const V: usize>(
    job: &Job,
    (j0, nb): (usize, usize),
    (rows, xs): (core::ops::Range<usize>, *const f64),
    wb: &[[f64; L]; K],
    bb: &[f64; L],
) {
    let n = job.dims.2;
    /// Row `r`'s block of `Y` (from element `e`) updated by `±acc` and `bb`.
    ///
    /// # Safety
    /// As [`values`].
    #[inline(always)]
    unsafe fn put<const S: usize, const V: usize>(
        y: *mut f64,
        e: usize,
        nb: usize,
        (inverse, acc, bb): (bool, [f64; L], &[f64; L]),
    ) {
        let acc = if inverse { acc.map(|v| -v) } else { acc };
        // SAFETY: the caller's promise
        unsafe {
            let p = y.add(e * S);
            if nb == L && S == 2 {
                let v = core::ptr::read_unaligned(p.cast::<[f64; 2 * L]>());
                let x: [f64; L] = core::array::from_fn(|q| v[2 * q + V]);
                let new: [f64; L] = core::array::from_fn(|q| (x[q] + acc[q]) + bb[q]);
                let out: [f64; 2 * L] =
                    core::array::from_fn(|q| if q % 2 == V { new[q / 2] } else { v[q] });
                core::ptr::write_unaligned(p.cast::<[f64; 2 * L]>(), out);
                return;
            }
            if nb == L {
                let v = core::ptr::read_unaligned(p.cast::<[f64; L]>());
                let new: [f64; L] = core::array::from_fn(|q| (v[q] + acc[q]) + bb[q]);
                core::ptr::write_unaligned(p.cast::<[f64; L]>(), new);
                return;
            }
            for q in 0..nb {
                let yq = p.add(S * q + V);
                *yq = (*yq + acc[q]) + bb[q];
            }
        }
    }
    let r0 = rows.start;
    #[cfg(target_arch = "x86_64")]
    if S == 2 && nb == L {
        match crate::simd::active() {
            // SAFETY: as the caller's; the CPU has AVX-512F
            crate::simd::Isa::Avx512 => {
                return unsafe { avx512::values::<K, V>(job, j0, (rows, xs), wb, bb) }
            }
            // SAFETY: as the caller's; the CPU has AVX2
            crate::simd::Isa::Avx2 => {
                return unsafe { avx2::values::<K, V>(job, j0, (rows, xs), wb, bb) }
            }
            _ => {}
        }
    }
    // SAFETY (every row): rows `r < m` of `X` and `Y`, columns `j0..j0 + nb`
    unsafe {
        if nb == L {
            // a whole block: its length a constant in the loop
            for r in rows {
                let s = row_sum::<K>(xs.add((r - r0) * K), wb);
                put::<S, V>(job.y, r * n + j0, L, (job.inverse, s, bb));
            }
        } else {
            for r in rows {
                let s = row_sum::<K>(xs.add((r - r0) * K), wb);
                put::<S, V>(job.y, r * n + j0, nb, (job.inverse, s, bb));
            }
        }
    }
}

/// The adjoints of `W` and `b` for columns `j0..j0 + nb`: `W̄[l, j] ∓= Σ_r X[r, l]·Ȳ[r, j]`,
/// `b̄_j ∓= Σ_r Ȳ[r, j]`, over the rows in order (the partial sums in registers).
///
/// # Safety
/// As [`dense_data`]'s views; `j0 + nb ≤ n`.
#[inline(always)]
unsafe fn adjoints<const K: usize, const S: usize, const V: usize>(
    job: &Job,
    (j0, nb): (usize, usize),
) {
    let k = job.dims.1;
    if job.wg.is_none() || job.bg.is_none() {
        return;
    }
    /// The sums over the rows (`FULL`: rows of `K` values, else `k` padded with zeros).
    ///
    /// # Safety
    /// As [`adjoints`].
    #[inline(always)]
    #[allow(clippy::type_complexity)]
    unsafe fn sweep<const K: usize, const S: usize, const V: usize, const FULL: bool>(
        job: &Job,
        (j0, nb): (usize, usize),
    ) -> ([[f64; L]; K], [f64; L]) {
        let (m, k, n) = job.dims;
        // a whole block: its length a constant in the loop
        let nb = if nb == L { L } else { nb };
        let mut acc = [[0.0; L]; K];
        let mut accb = [0.0; L];
        for r in 0..m {
            // SAFETY: row `r < m` of `Y` (its adjoint lanes), columns `j0..j0 + nb`; row `r`
            // of `X` holds `k` values (`K` where `FULL`)
            unsafe {
                let g = y_lanes_adjoint::<S, V>(job.y, r * n + j0, nb);
                let xr = job.x.add(r * k);
                let xr: [f64; K] =
                    core::array::from_fn(|l| if FULL || l < k { *xr.add(l) } else { 0.0 });
                acc = core::array::from_fn(|l| add_scaled(acc[l], xr[l], g));
                accb = core::array::from_fn(|q| accb[q] + g[q]);
            }
        }
        (acc, accb)
    }
    // SAFETY: forwarded
    let (acc, accb) = unsafe {
        #[cfg(target_arch = "x86_64")]
        if S == 2 && nb == L && k == K && crate::simd::active() == crate::simd::Isa::Avx512 {
            avx512::sweep::<K, V>(job, j0)
        } else if k == K {
            sweep::<K, S, V, true>(job, (j0, nb))
        } else {
            sweep::<K, S, V, false>(job, (j0, nb))
        }
        #[cfg(not(target_arch = "x86_64"))]
        if k == K {
            sweep::<K, S, V, true>(job, (j0, nb))
        } else {
            sweep::<K, S, V, false>(job, (j0, nb))
        }
    };
    // SAFETY: columns `j0..j0 + nb` in the caller's views
    unsafe { add_sums::<K>(job, (j0, nb), &acc, &accb) }
}

/// `W̄[l, j] ∓= acc[l][j − j0]` and `b̄_j ∓= accb[j − j0]` for columns `j0..j0 + nb`, `l < k`
/// (forward: the adjoints subtract).
///
/// # Safety
/// As [`dense_data`]'s views; `j0 + nb ≤ n`; `job.wg` and `job.bg` are there.
#[inline(always)]
unsafe fn add_sums<const K: usize>(
    job: &Job,
    (j0, nb): (usize, usize),
    acc: &[[f64; L]; K],
    accb: &[f64; L],
) {
    let (k, n) = (job.dims.1, job.dims.2);
    let (Some(wg), Some(bg)) = (job.wg, job.bg) else {
        return;
    };
    let sign = |v: f64| if job.inverse { v } else { -v };
    // SAFETY: elements of `W̄` and `b̄` inside their views
    unsafe {
        for (l, row) in acc.iter().enumerate().take(k) {
            for (q, &v) in row.iter().enumerate().take(nb) {
                let p = wg.0.offset((l * n + j0 + q) as isize * wg.1);
                *p += sign(v);
            }
        }
        for (q, &v) in accb.iter().enumerate().take(nb) {
            let p = bg.0.offset((j0 + q) as isize * bg.1);
            *p += sign(v);
        }
    }
}

/// The adjoints of `Y` (stride `S` is 2: lane `1 − V`) of `nb` numbers from element `e`.
///
/// # Safety
/// As [`y_lanes`].
#[inline(always)]
unsafe fn y_lanes_adjoint<const S: usize, const V: usize>(
    y: *mut f64,
    e: usize,
    nb: usize,
) -> [f64; L] {
    // SAFETY: forwarded
    unsafe {
        if V == 0 {
            y_lanes::<S, 1>(y, e, nb)
        } else {
            y_lanes::<S, 0>(y, e, nb)
        }
    }
}

/// The two passes on gradient numbers (pairs) for a whole block of [`L`] outputs in AVX-512
/// registers: the operations of the generic code (a multiplication, then an addition, in the
/// same order), so the same bits; LLVM keeps the generic code's partial sums in memory here.
#[cfg(target_arch = "x86_64")]
mod avx512 {
    use super::{Job, CHUNK, L};
    use crate::stdlib::pair_index::pick;
    use core::arch::x86_64::{
        __m512d, __m512i, _mm512_add_pd, _mm512_loadu_pd, _mm512_mul_pd, _mm512_permutex2var_pd,
        _mm512_set1_pd, _mm512_set_epi64, _mm512_setzero_pd, _mm512_storeu_pd, _mm512_sub_pd,
    };

    /// The first (`half` 0) or second eight reals of eight pairs with lane `lane` of each
    /// pair taken from a second vector (element `q` of it for pair `q`).
    #[target_feature(enable = "avx512f")]
    #[inline]
    fn merge(half: i64, lane: i64) -> __m512i {
        let e = |i: i64| {
            if i % 2 == lane {
                8 + 4 * half + i / 2
            } else {
                i
            }
        };
        _mm512_set_epi64(e(7), e(6), e(5), e(4), e(3), e(2), e(1), e(0))
    }

    /// [`super::values`] for pairs, `nb` = [`L`].
    ///
    /// # Safety
    /// As [`super::values`]; the CPU has AVX-512F.
    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn values<const K: usize, const V: usize>(
        job: &Job,
        j0: usize,
        (rows, xs): (core::ops::Range<usize>, *const f64),
        wb: &[[f64; L]; K],
        bb: &[f64; L],
    ) {
        debug_assert!(rows.len() <= CHUNK);
        let n = job.dims.2;
        // SAFETY: register operations and the caller's views
        unsafe {
            let w: [__m512d; K] = core::array::from_fn(|l| _mm512_loadu_pd(wb[l].as_ptr()));
            let b = _mm512_loadu_pd(bb.as_ptr());
            let (vals, lo, hi) = (pick(V as i64), merge(0, V as i64), merge(1, V as i64));
            let r0 = rows.start;
            for r in rows {
                let x = xs.add((r - r0) * K);
                let mut acc = _mm512_setzero_pd();
                for (l, w) in w.iter().enumerate() {
                    acc = _mm512_add_pd(acc, _mm512_mul_pd(_mm512_set1_pd(*x.add(l)), *w));
                }
                let p = job.y.add((r * n + j0) * 2);
                let (a, c) = (_mm512_loadu_pd(p), _mm512_loadu_pd(p.add(L)));
                let v = _mm512_permutex2var_pd(a, vals, c);
                // `(v ± acc) + (±b)`: `v + (−acc)` is `v − acc`
                let v = if job.inverse {
                    _mm512_sub_pd(v, acc)
                } else {
                    _mm512_add_pd(v, acc)
                };
                let v = _mm512_add_pd(v, b);
                _mm512_storeu_pd(p, _mm512_permutex2var_pd(a, lo, v));
                _mm512_storeu_pd(p.add(L), _mm512_permutex2var_pd(c, hi, v));
            }
        }
    }

    /// [`super::adjoints`]' sums for pairs, `nb` = [`L`], rows of `K` values.
    ///
    /// # Safety
    /// As [`super::adjoints`]; the CPU has AVX-512F.
    #[target_feature(enable = "avx512f")]
    #[allow(clippy::type_complexity)]
    pub(super) unsafe fn sweep<const K: usize, const V: usize>(
        job: &Job,
        j0: usize,
    ) -> ([[f64; L]; K], [f64; L]) {
        let (m, k, n) = job.dims;
        debug_assert_eq!(k, K);
        // SAFETY: register operations and the caller's views
        unsafe {
            let grads = pick(1 - V as i64);
            let mut acc = [_mm512_setzero_pd(); K];
            let mut accb = _mm512_setzero_pd();
            for r in 0..m {
                let p = job.y.add((r * n + j0) * 2);
                let g =
                    _mm512_permutex2var_pd(_mm512_loadu_pd(p), grads, _mm512_loadu_pd(p.add(L)));
                let x = job.x.add(r * K);
                for (l, acc) in acc.iter_mut().enumerate() {
                    *acc = _mm512_add_pd(*acc, _mm512_mul_pd(_mm512_set1_pd(*x.add(l)), g));
                }
                accb = _mm512_add_pd(accb, g);
            }
            let mut out = ([[0.0; L]; K], [0.0; L]);
            for (o, a) in out.0.iter_mut().zip(&acc) {
                _mm512_storeu_pd(o.as_mut_ptr(), *a);
            }
            _mm512_storeu_pd(out.1.as_mut_ptr(), accb);
            out
        }
    }
}

/// The two passes on gradient numbers (pairs) for a whole block of [`L`] outputs in AVX2
/// registers (sixteen of four reals: the AVX-512 blocking would spill), the operations of the
/// generic code (a multiplication, then an addition, in the same order; no FMA), so the same
/// bits. The values of four pairs taken by one unpack of two vectors come in the order
/// `0, 2, 1, 3`: the blocks of `W` and `b` (and the sums of the adjoints) are held in that
/// order, so no lane crosses a 128-bit half.
#[cfg(target_arch = "x86_64")]
mod avx2 {
    use super::{Job, CHUNK, GROUP, L};
    use core::arch::x86_64::{
        __m256d, _mm256_add_pd, _mm256_broadcast_sd, _mm256_loadu_pd, _mm256_mul_pd,
        _mm256_setzero_pd, _mm256_storeu_pd, _mm256_sub_pd, _mm256_unpackhi_pd, _mm256_unpacklo_pd,
    };

    /// The rows of `X` (and `Y`) handled together in the values pass (each row's sums in two
    /// registers, the block of `W` loaded once for all of them).
    const ROWS: usize = 4;
    /// The inputs (`l`) handled in one sweep of the adjoints pass (their sums in registers).
    const G: usize = 8;
    /// The rows of one chunk of the adjoints pass (in L1 while the sweeps pass over them).
    const SWEEP: usize = 64;
    /// Lane `q` of a vector from an unpack of four pairs holds pair `ORDER[q]`.
    const ORDER: [usize; 4] = [0, 2, 1, 3];

    /// `v`'s halves of four in the unpack order ([`ORDER`]).
    #[inline(always)]
    fn permuted(v: &[f64; L]) -> [f64; L] {
        core::array::from_fn(|q| v[4 * (q / 4) + ORDER[q % 4]])
    }

    /// The values (lane `V`) and the other lanes of the four pairs in `a`, `c` (two each).
    #[target_feature(enable = "avx2")]
    #[inline]
    fn split<const V: usize>(a: __m256d, c: __m256d) -> (__m256d, __m256d) {
        if V == 0 {
            (_mm256_unpacklo_pd(a, c), _mm256_unpackhi_pd(a, c))
        } else {
            (_mm256_unpackhi_pd(a, c), _mm256_unpacklo_pd(a, c))
        }
    }

    /// The two vectors of pairs [`split`] took apart, put back together.
    #[target_feature(enable = "avx2")]
    #[inline]
    fn join<const V: usize>(v: __m256d, o: __m256d) -> (__m256d, __m256d) {
        if V == 0 {
            (_mm256_unpacklo_pd(v, o), _mm256_unpackhi_pd(v, o))
        } else {
            (_mm256_unpacklo_pd(o, v), _mm256_unpackhi_pd(o, v))
        }
    }

    /// [`super::values`] for pairs, `nb` = [`L`]: [`ROWS`] rows at a time.
    ///
    /// # Safety
    /// As [`super::values`]; the CPU has AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn values<const K: usize, const V: usize>(
        job: &Job,
        j0: usize,
        (rows, xs): (core::ops::Range<usize>, *const f64),
        wb: &[[f64; L]; K],
        bb: &[f64; L],
    ) {
        debug_assert!(rows.len() <= CHUNK);
        let n = job.dims.2;
        let w: [[f64; L]; K] = core::array::from_fn(|l| permuted(&wb[l]));
        let bb = permuted(bb);
        /// Rows `r..r + R` (`R` ≤ [`ROWS`]; `x` their first row of `X`).
        ///
        /// # Safety
        /// As [`values`].
        #[target_feature(enable = "avx2")]
        #[inline]
        unsafe fn rows_of<const K: usize, const V: usize, const R: usize>(
            job: &Job,
            (r, j0, n): (usize, usize, usize),
            x: *const f64,
            w: &[[f64; L]; K],
            b: [__m256d; 2],
        ) {
            // SAFETY: register operations, `w`, and rows `r..r + R` of `X` and `Y` (the
            // caller's promise)
            unsafe {
                let mut acc = [[_mm256_setzero_pd(); 2]; R];
                for (l, w) in w.iter().enumerate() {
                    let w = [
                        _mm256_loadu_pd(w.as_ptr()),
                        _mm256_loadu_pd(w.as_ptr().add(4)),
                    ];
                    for (i, acc) in acc.iter_mut().enumerate() {
                        let x = _mm256_broadcast_sd(&*x.add(i * K + l));
                        acc[0] = _mm256_add_pd(acc[0], _mm256_mul_pd(x, w[0]));
                        acc[1] = _mm256_add_pd(acc[1], _mm256_mul_pd(x, w[1]));
                    }
                }
                for (i, acc) in acc.iter().enumerate() {
                    let p = job.y.add(((r + i) * n + j0) * 2);
                    for (h, (&acc, &b)) in acc.iter().zip(&b).enumerate() {
                        let p = p.add(8 * h);
                        let (v, o) = split::<V>(_mm256_loadu_pd(p), _mm256_loadu_pd(p.add(4)));
                        // `(v ± acc) + (±b)`: `v + (−acc)` is `v − acc`
                        let v = if job.inverse {
                            _mm256_sub_pd(v, acc)
                        } else {
                            _mm256_add_pd(v, acc)
                        };
                        let (a, c) = join::<V>(_mm256_add_pd(v, b), o);
                        _mm256_storeu_pd(p, a);
                        _mm256_storeu_pd(p.add(4), c);
                    }
                }
            }
        }
        // SAFETY: register operations and the caller's views (rows `rows` of `X` at `xs`, a
        // stride of `K`)
        unsafe {
            let b = [
                _mm256_loadu_pd(bb.as_ptr()),
                _mm256_loadu_pd(bb.as_ptr().add(4)),
            ];
            let r0 = rows.start;
            let mut r = r0;
            while r + ROWS <= rows.end {
                let x = xs.add((r - r0) * K);
                rows_of::<K, V, ROWS>(job, (r, j0, n), x, &w, b);
                r += ROWS;
            }
            while r < rows.end {
                let x = xs.add((r - r0) * K);
                rows_of::<K, V, 1>(job, (r, j0, n), x, &w, b);
                r += 1;
            }
        }
    }

    /// [`super::adjoints`]' sums for pairs of `blocks` ≤ [`GROUP`] whole blocks of [`L`]
    /// outputs from `g0`, rows of `K` values: the rows in chunks of [`SWEEP`], each swept once
    /// per four outputs and [`G`] inputs, the partial sums kept between chunks (the sums over
    /// the rows in order), so `Y` and `X` are read from memory once.
    ///
    /// # Safety
    /// As [`super::adjoints`] for each block; the CPU has AVX2.
    #[target_feature(enable = "avx2")]
    #[allow(clippy::type_complexity)]
    pub(super) unsafe fn sweep<const K: usize, const V: usize>(
        job: &Job,
        g0: usize,
        blocks: usize,
    ) -> [([[f64; L]; K], [f64; L]); GROUP] {
        let (m, k, _) = job.dims;
        debug_assert_eq!(k, K);
        debug_assert_eq!(K % G, 0);
        debug_assert!(blocks <= GROUP);
        /// Rows `rows` for the four outputs from `j0` and inputs `l0..l0 + G`: `acc` (and
        /// `accb` where `B`) updated.
        ///
        /// # Safety
        /// As [`sweep`].
        #[target_feature(enable = "avx2")]
        #[inline]
        unsafe fn pass<const K: usize, const V: usize, const B: bool>(
            job: &Job,
            (rows, j0, l0): (core::ops::Range<usize>, usize, usize),
            acc: &mut [__m256d],
            accb: &mut __m256d,
        ) {
            let n = job.dims.2;
            // SAFETY: register operations and rows `rows` of `X` and `Y` (the caller's views)
            unsafe {
                let mut a: [__m256d; G] = core::array::from_fn(|i| acc[i]);
                let mut ab = *accb;
                for r in rows {
                    let p = job.y.add((r * n + j0) * 2);
                    let (_, g) = split::<V>(_mm256_loadu_pd(p), _mm256_loadu_pd(p.add(4)));
                    let x = job.x.add(r * K + l0);
                    for (i, a) in a.iter_mut().enumerate() {
                        *a = _mm256_add_pd(*a, _mm256_mul_pd(_mm256_broadcast_sd(&*x.add(i)), g));
                    }
                    if B {
                        ab = _mm256_add_pd(ab, g);
                    }
                }
                acc[..G].copy_from_slice(&a);
                *accb = ab;
            }
        }
        // SAFETY: register operations and the caller's views
        unsafe {
            // per four outputs (block `jb`, half `h`) the sums for each input, and of `Ȳ`
            let mut acc = [[[_mm256_setzero_pd(); K]; 2]; GROUP];
            let mut accb = [[_mm256_setzero_pd(); 2]; GROUP];
            for r0 in (0..m).step_by(SWEEP) {
                let rows = r0..(r0 + SWEEP).min(m);
                for jb in 0..blocks {
                    for h in 0..2 {
                        let j = g0 + jb * L + 4 * h;
                        for l0 in (0..K).step_by(G) {
                            let (acc, accb) = (&mut acc[jb][h][l0..], &mut accb[jb][h]);
                            if l0 == 0 {
                                pass::<K, V, true>(job, (rows.clone(), j, l0), acc, accb);
                            } else {
                                pass::<K, V, false>(job, (rows.clone(), j, l0), acc, accb);
                            }
                        }
                    }
                }
            }
            let lanes = |v: __m256d| {
                let mut o = [0.0; 4];
                _mm256_storeu_pd(o.as_mut_ptr(), v);
                o
            };
            let mut out = [([[0.0; L]; K], [0.0; L]); GROUP];
            for ((out, acc), accb) in out.iter_mut().zip(&acc).zip(&accb).take(blocks) {
                for h in 0..2 {
                    for (q, &e) in ORDER.iter().enumerate() {
                        for (o, a) in out.0.iter_mut().zip(&acc[h]) {
                            o[4 * h + e] = lanes(*a)[q];
                        }
                        out.1[4 * h + e] = lanes(accb[h])[q];
                    }
                }
            }
            out
        }
    }
}

#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    use super::*;
    use crate::ad::GVar;
    use crate::simd::{self, Isa};

    fn data(len: usize, seed: usize) -> Vec<f64> {
        (0..len)
            .map(|i| ((i * 7919 + seed * 104_729) % 1009) as f64 / 1009.0 * 4.0 - 2.0)
            .collect()
    }

    /// `Y ±= X·W + 1·bᵀ` and its adjoints by the loops the kernels promise to follow.
    #[allow(clippy::type_complexity)]
    fn reference(
        inverse: bool,
        (y, x, w, b): (&mut [GVar<f64>], &[f64], &mut [GVar<f64>], &mut [GVar<f64>]),
        (m, k, n): (usize, usize, usize),
    ) {
        let sg = |v: f64| if inverse { -v } else { v };
        for j in 0..n {
            let (mut sb, mut sw) = (0.0, vec![0.0; k]);
            for r in 0..m {
                let g = y[r * n + j].g;
                for (l, sw) in sw.iter_mut().enumerate() {
                    *sw += x[r * k + l] * g;
                }
                sb += g;
            }
            for (l, sw) in sw.iter().enumerate() {
                w[l * n + j].g += -sg(*sw);
            }
            b[j].g += -sg(sb);
        }
        for r in 0..m {
            for j in 0..n {
                let mut s = 0.0;
                for l in 0..k {
                    s += x[r * k + l] * w[l * n + j].x;
                }
                let v = &mut y[r * n + j].x;
                *v = (*v + sg(s)) + sg(b[j].x);
            }
        }
    }

    /// On gradient numbers (values and adjoints), at every vector level the CPU has: the numbers of the reference loops, the same bits on every level.
    #[test]
    fn dense_on_data_matches_its_loops_with_the_same_bits_on_every_level() {
        let top = simd::detected();
        // more rows than a chunk of the AVX2 adjoint sweep (64), whole and partial blocks
        let shapes = [
            (37, 16, 32),
            (9, 5, 12),
            (40, 8, 8),
            (5, 16, 70),
            (3, 1, 2),
            (150, 16, 16),
            (131, 8, 28),
        ];
        for &(m, k, n) in &shapes {
            for inverse in [false, true] {
                let step = if inverse {
                    Step::Inverse
                } else {
                    Step::Forward
                };
                let gv = |v: Vec<f64>, s: usize| -> Vec<GVar<f64>> {
                    v.iter()
                        .zip(data(v.len(), s))
                        .map(|(&x, g)| GVar::new(x, g))
                        .collect()
                };
                let x = data(m * k, 1);
                let y0 = gv(data(m * n, 2), 3);
                let (w0, b0) = (gv(data(k * n, 4), 5), gv(data(n, 6), 7));
                let (mut ye, mut we, mut be) = (y0.clone(), w0.clone(), b0.clone());
                reference(inverse, (&mut ye, &x, &mut we, &mut be), (m, k, n));
                let mut runs = vec![];
                for isa in [Isa::Baseline, Isa::Avx2, Isa::Avx512] {
                    if isa > top {
                        continue;
                    }
                    let before = simd::limit(isa);
                    let (mut y, mut w, mut b) = (y0.clone(), w0.clone(), b0.clone());
                    assert!(dense_data(step, &mut y, &x, &mut w, &mut b, (m, k, n)));
                    simd::limit(before);
                    for (a, e) in y
                        .iter()
                        .zip(&ye)
                        .chain(w.iter().zip(&we))
                        .chain(b.iter().zip(&be))
                    {
                        assert_eq!((a.x, a.g), (e.x, e.g), "{m}×{k}×{n} {isa:?}");
                    }
                    let bits = |v: &[GVar<f64>]| {
                        v.iter()
                            .flat_map(|v| [v.x.to_bits(), v.g.to_bits()])
                            .collect::<Vec<_>>()
                    };
                    runs.push((bits(&y), bits(&w), bits(&b)));
                }
                assert!(
                    runs.iter().all(|r| *r == runs[0]),
                    "bits differ across levels"
                );
            }
        }
    }

    /// Shapes it does not take: more than sixteen inputs, one output, other numbers (plain
    /// `f64` too: the GEMM's).
    #[test]
    fn declines_what_its_kernels_do_not_take() {
        let g = |len| vec![GVar::from(0.0); len];
        let (mut y, mut w, mut b) = (g(4), g(32), g(2));
        let x = data(2 * 16, 1);
        assert!(dense_data(
            Step::Forward,
            &mut y,
            &x,
            &mut w,
            &mut b,
            (2, 16, 2)
        ));
        let (mut y, mut w, mut b) = (vec![0.0; 4], vec![0.0; 6], vec![0.0; 2]);
        assert!(!dense_data(
            Step::Forward,
            &mut y,
            &x[..6],
            &mut w,
            &mut b,
            (2, 3, 2)
        ));
        let x = data(2 * 17, 1);
        let (mut y, mut w, mut b) = (vec![0.0; 4], vec![0.0; 34], vec![0.0; 2]);
        assert!(!dense_data(
            Step::Forward,
            &mut y,
            &x,
            &mut w,
            &mut b,
            (2, 17, 2)
        ));
        let (mut y, mut w, mut b) = (vec![0.0; 2], vec![0.0; 3], vec![0.0; 1]);
        assert!(!dense_data(
            Step::Forward,
            &mut y,
            &x[..6],
            &mut w,
            &mut b,
            (2, 3, 1)
        ));
        let (mut y, mut w, mut b) = (vec![0.0f32; 4], vec![0.0f32; 6], vec![0.0f32; 2]);
        let xf = [1.0f32; 6];
        assert!(!dense_data(
            Step::Forward,
            &mut y,
            &xf,
            &mut w,
            &mut b,
            (2, 3, 2)
        ));
    }
}
