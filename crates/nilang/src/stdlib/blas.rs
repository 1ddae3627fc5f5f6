//! Reversible BLAS-like kernels: sums, dot products, `axpy`, matrix-vector and matrix-matrix
//! multiply-accumulate, and the Givens-rotation unitary multiply.
//!
//! Matrices are row-major slices with explicit dimensions (`a[i * n + j]` is row `i`, column
//! `j` of an `m × n` matrix). Every function accumulates into its output (`out += ...`), so its
//! inverse subtracts; all are generic over [`Scalar`] and therefore differentiable.
use super::matmul::{self, Operand, Step};
use crate::ad::Scalar;
use crate::i;
use crate::instr::basic::{ROT_inv, Rotate, ROT};
use crate::instr::PlusEq1;
use num_complex::Complex;

/// `out += Σ xᵢ`.
///
/// ```
/// use nilang::stdlib::blas::{i_sum, i_sum_inv};
/// let (mut out, mut x) = (0.0, vec![1.0, 2.0, 3.5]);
/// i_sum(&mut out, &mut x);
/// assert_eq!(out, 6.5);
/// i_sum_inv(&mut out, &mut x);
/// assert_eq!(out, 0.0);
/// ```
#[i]
pub fn i_sum<T: Scalar>(out: &mut T, x: &mut [T]) {
    for i in 0..x.len() {
        out += x[i];
    }
}

/// `out += Σ f(xᵢ)` for a function marker `f` (NiLang's `i_sum(out!, f, x)`): any `F` with
/// `T: PlusEq1<F, T>`, e.g. `nilang::instr::fns::Exp` or a `#[primitive]`.
///
/// ```
/// use nilang::instr::fns::Exp;
/// use nilang::stdlib::blas::{i_sum_map, i_sum_map_inv};
/// let (mut out, mut x) = (0.0, vec![0.0, 1.0]);
/// i_sum_map(&mut out, Exp, &mut x);
/// assert_eq!(out, 1.0 + 1.0_f64.exp());
/// i_sum_map_inv(&mut out, Exp, &mut x);
/// assert_eq!(out, 0.0);
/// ```
#[i]
pub fn i_sum_map<T: Scalar + PlusEq1<F, T>, F: Copy>(out: &mut T, f: F, x: &mut [T]) {
    for i in 0..x.len() {
        out += F(x[i]);
    }
}

/// `out += Σ xᵢ yᵢ` (real dot product; see [`crate::stdlib::blas::i_dot_complex`] for the
/// conjugating complex version).
///
/// ```
/// use nilang::stdlib::blas::i_dot;
/// let (mut out, mut x, mut y) = (0.0, vec![1.0, 2.0, 3.0], vec![1.0, 2.0, 5.0]);
/// i_dot(&mut out, &mut x, &mut y);
/// assert_eq!(out, 20.0);
/// ```
#[i]
pub fn i_dot<T: Scalar>(out: &mut T, x: &mut [T], y: &mut [T]) {
    safe! { crate::check::equal_lengths("nilang::stdlib::blas::i_dot", "i_dot(out, x, y)", &[("x", x.len()), ("y", y.len())]); }
    for i in 0..x.len() {
        out += x[i] * y[i];
    }
    // checked last too: that is first in the generated inverse
    safe! { crate::check::equal_lengths("nilang::stdlib::blas::i_dot", "i_dot(out, x, y)", &[("x", x.len()), ("y", y.len())]); }
}

/// `out += Σ |xᵢ|²`.
///
/// ```
/// use nilang::stdlib::blas::i_norm2;
/// let (mut out, mut x) = (0.0, vec![1.0, 2.0, 3.0]);
/// i_norm2(&mut out, &mut x);
/// assert_eq!(out, 14.0);
/// ```
#[i]
pub fn i_norm2<T: Scalar>(out: &mut T, x: &mut [T]) {
    for i in 0..x.len() {
        out += x[i].powi(2);
    }
}

/// `y += a x` (`x`, `y` vectors of the same length, `a` a scalar).
///
/// ```
/// use nilang::stdlib::blas::{i_axpy, i_axpy_inv};
/// let (mut a, mut x, mut y) = (2.0, vec![1.0, 2.0], vec![10.0, 20.0]);
/// i_axpy(&mut a, &mut x, &mut y);
/// assert_eq!(y, [12.0, 24.0]);
/// i_axpy_inv(&mut a, &mut x, &mut y);
/// assert_eq!(y, [10.0, 20.0]);
/// ```
#[i]
pub fn i_axpy<T: Scalar>(a: &mut T, x: &mut [T], y: &mut [T]) {
    safe! { crate::check::equal_lengths("nilang::stdlib::blas::i_axpy", "i_axpy(a, x, y)", &[("x", x.len()), ("y", y.len())]); }
    for i in 0..y.len() {
        y[i] += a * x[i];
    }
    // checked last too: that is first in the generated inverse
    safe! { crate::check::equal_lengths("nilang::stdlib::blas::i_axpy", "i_axpy(a, x, y)", &[("x", x.len()), ("y", y.len())]); }
}

/// Complex dot product `out += Σ conj(xᵢ) yᵢ` (NiLang's `i_dot` on complex vectors), computed
/// on real and imaginary parts so that it is differentiable for `T = GVar<f64>`.
///
/// ```
/// use nilang::stdlib::blas::i_dot_complex;
/// use num_complex::Complex64 as C;
/// let mut out = C::new(0.0, 0.0);
/// let mut x = vec![C::new(0.0, 1.0), C::new(2.0, 0.0), C::new(3.0, 0.0)];
/// let mut y = vec![C::new(1.0, 0.0), C::new(0.0, 2.0), C::new(5.0, 0.0)];
/// i_dot_complex(&mut out, &mut x, &mut y);
/// assert_eq!(out, C::new(15.0, 3.0));
/// ```
#[i]
pub fn i_dot_complex<T: Scalar>(out: &mut Complex<T>, x: &mut [Complex<T>], y: &mut [Complex<T>]) {
    safe! { crate::check::equal_lengths("nilang::stdlib::blas::i_dot_complex", "i_dot_complex(out, x, y)", &[("x", x.len()), ("y", y.len())]); }
    for i in 0..x.len() {
        out.re += x[i].re * y[i].re;
        out.re += x[i].im * y[i].im;
        out.im += x[i].re * y[i].im;
        out.im -= x[i].im * y[i].re;
    }
    // checked last too: that is first in the generated inverse
    safe! { crate::check::equal_lengths("nilang::stdlib::blas::i_dot_complex", "i_dot_complex(out, x, y)", &[("x", x.len()), ("y", y.len())]); }
}

/// `out += Σ |xᵢ|²` for a complex vector, into a real `out`.
///
/// ```
/// use nilang::stdlib::blas::i_norm2_complex;
/// use num_complex::Complex64 as C;
/// let (mut out, mut x) = (0.0, vec![C::new(0.0, 1.0), C::new(2.0, 0.0), C::new(3.0, 0.0)]);
/// i_norm2_complex(&mut out, &mut x);
/// assert_eq!(out, 14.0);
/// ```
#[i]
pub fn i_norm2_complex<T: Scalar>(out: &mut T, x: &mut [Complex<T>]) {
    for i in 0..x.len() {
        out += x[i].re.powi(2);
        out += x[i].im.powi(2);
    }
}

/// Matrix-vector multiply-accumulate `y += A x`, `A` an `m × n` row-major matrix (a
/// primitive: on `f64`, `f32`, `GVar<f64>`, `GVar<f32>` one GEMM, see [`i_gemm`]).
///
/// ```
/// use nilang::stdlib::blas::{i_gemv, i_gemv_inv};
/// let (mut y, mut a, mut x) = (vec![0.0; 2], vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0], vec![1.0, 0.0, -1.0]);
/// i_gemv(&mut y, &mut a, &mut x, 2, 3);
/// assert_eq!(y, [-2.0, -2.0]);
/// i_gemv_inv(&mut y, &mut a, &mut x, 2, 3);
/// assert_eq!(y, [0.0, 0.0]);
/// ```
#[inline]
pub fn i_gemv<T: Scalar>(y: &mut [T], a: &mut [T], x: &mut [T], m: usize, n: usize) {
    gemv_dims(y.len(), a.len(), x.len(), m, n);
    if !matmul::gemm(Step::Forward, y, Operand::Var(a.as_mut_ptr()), x, (m, n, 1)) {
        gemm_loop(y, a, x, m, n, 1);
    }
}
/// The inverse of [`i_gemv`]: `y -= A x`.
#[inline]
pub fn i_gemv_inv<T: Scalar>(y: &mut [T], a: &mut [T], x: &mut [T], m: usize, n: usize) {
    gemv_dims(y.len(), a.len(), x.len(), m, n);
    if !matmul::gemm(Step::Inverse, y, Operand::Var(a.as_mut_ptr()), x, (m, n, 1)) {
        gemm_loop_inv(y, a, x, m, n, 1);
    }
}
matmul::dense_markers!(
    i_gemv,
    i_gemv_inv,
    /// Values only (`y` carries no adjoint).
    #[doc(hidden)]
    #[inline]
    pub fn __primal<
        'a,
        F: crate::CallTuple<(&'a mut [T], &'a mut [T], &'a mut [T], usize, usize)>,
        T: Scalar,
    >(
        _f: F,
        (y, a, x, m, n): (&'a mut [T], &'a mut [T], &'a mut [T], usize, usize),
    ) {
        gemv_dims(y.len(), a.len(), x.len(), m, n);
        if !matmul::gemm(
            Step::ForwardValues,
            y,
            Operand::Var(a.as_mut_ptr()),
            x,
            (m, n, 1),
        ) {
            gemm_loop::__primal(gemm_loop, (y, a, x, m, n, 1));
        }
    }
);
matmul::dense_reversible!(
    /// [`i_gemv`] as a reversible value.
    IGemv, i_gemv, i_gemv_inv, ['y, 'a, 'x, T: Scalar],
    (y: &'y mut [T] => &mut *y, a: &'a mut [T] => &mut *a, x: &'x mut [T] => &mut *x, m: usize => m, n: usize => n)
);

/// Matrix-matrix multiply-accumulate `C += A B`, `A` is `m × k`, `B` is `k × n`, `C` is `m × n`
/// (all row-major); its inverse [`i_gemm_inv`] is `C -= A B`.
///
/// A primitive: on `f64`, `f32`, `GVar<f64>` and `GVar<f32>` it is one GEMM of the
/// [`matrixmultiply`] crate (kernels chosen at run time for the CPU: AVX, FMA, AVX-512), and
/// its backward rule is two more, `Ā += C̄ Bᵀ` and `B̄ += Aᵀ C̄`, on the values and adjoints of
/// the gradient numbers in place (strided, no copies); they are skipped while `C̄` is exactly
/// zero. Other number types (`Dual`, batches, `GVar<GVar<f64>>`, ...) run the instruction
/// loop `c[i,j] += a[i,l] * b[l,j]`. Called from `#[i]` code like any reversible function;
/// compute–copy–uncompute in `c`.
///
/// ```
/// use nilang::stdlib::blas::{i_gemm, i_gemm_inv};
/// let (mut c, mut a, mut b) = (vec![0.0; 4], vec![1.0, 2.0, 3.0, 4.0], vec![0.0, 1.0, 1.0, 0.0]);
/// i_gemm(&mut c, &mut a, &mut b, 2, 2, 2);
/// assert_eq!(c, [2.0, 1.0, 4.0, 3.0]);
/// i_gemm_inv(&mut c, &mut a, &mut b, 2, 2, 2);
/// assert_eq!(c, [0.0; 4]);
/// ```
#[inline]
pub fn i_gemm<T: Scalar>(c: &mut [T], a: &mut [T], b: &mut [T], m: usize, k: usize, n: usize) {
    gemm_dims(c.len(), a.len(), b.len(), m, k, n);
    if !matmul::gemm(Step::Forward, c, Operand::Var(a.as_mut_ptr()), b, (m, k, n)) {
        gemm_loop(c, a, b, m, k, n);
    }
}
/// The inverse of [`i_gemm`]: `C -= A B`.
#[inline]
pub fn i_gemm_inv<T: Scalar>(c: &mut [T], a: &mut [T], b: &mut [T], m: usize, k: usize, n: usize) {
    gemm_dims(c.len(), a.len(), b.len(), m, k, n);
    if !matmul::gemm(Step::Inverse, c, Operand::Var(a.as_mut_ptr()), b, (m, k, n)) {
        gemm_loop_inv(c, a, b, m, k, n);
    }
}
matmul::dense_markers!(
    i_gemm,
    i_gemm_inv,
    /// Values only (`c` carries no adjoint).
    #[doc(hidden)]
    #[inline]
    #[allow(clippy::type_complexity)]
    pub fn __primal<
        'a,
        F: crate::CallTuple<(&'a mut [T], &'a mut [T], &'a mut [T], usize, usize, usize)>,
        T: Scalar,
    >(
        _f: F,
        (c, a, b, m, k, n): (&'a mut [T], &'a mut [T], &'a mut [T], usize, usize, usize),
    ) {
        gemm_dims(c.len(), a.len(), b.len(), m, k, n);
        if !matmul::gemm(
            Step::ForwardValues,
            c,
            Operand::Var(a.as_mut_ptr()),
            b,
            (m, k, n),
        ) {
            gemm_loop::__primal(gemm_loop, (c, a, b, m, k, n));
        }
    },
    /// Adjoint-only where bit 0 of `dead` is set (`c`'s value afterwards is never read).
    #[doc(hidden)]
    #[inline]
    #[allow(clippy::type_complexity)]
    pub fn __adj<
        'a,
        F: crate::CallTuple<(&'a mut [T], &'a mut [T], &'a mut [T], usize, usize, usize)>,
        T: Scalar,
    >(
        _f: F,
        dead: crate::abi::ParamMask,
        (c, a, b, m, k, n): (&'a mut [T], &'a mut [T], &'a mut [T], usize, usize, usize),
    ) {
        gemm_dims(c.len(), a.len(), b.len(), m, k, n);
        let step = Step::Forward.dead_target(dead);
        if !matmul::gemm(step, c, Operand::Var(a.as_mut_ptr()), b, (m, k, n)) {
            gemm_loop(c, a, b, m, k, n);
        }
    },
    /// Adjoint-only where bit 0 of `dead` is set (`c`'s value afterwards is never read).
    #[doc(hidden)]
    #[inline]
    #[allow(clippy::type_complexity)]
    pub fn __adj<
        'a,
        F: crate::CallTuple<(&'a mut [T], &'a mut [T], &'a mut [T], usize, usize, usize)>,
        T: Scalar,
    >(
        _f: F,
        dead: crate::abi::ParamMask,
        (c, a, b, m, k, n): (&'a mut [T], &'a mut [T], &'a mut [T], usize, usize, usize),
    ) {
        gemm_dims(c.len(), a.len(), b.len(), m, k, n);
        let step = Step::Inverse.dead_target(dead);
        if !matmul::gemm(step, c, Operand::Var(a.as_mut_ptr()), b, (m, k, n)) {
            gemm_loop_inv(c, a, b, m, k, n);
        }
    }
);
matmul::dense_reversible!(
    /// [`i_gemm`] as a reversible value.
    IGemm, i_gemm, i_gemm_inv, ['c, 'a, 'b, T: Scalar],
    (c: &'c mut [T] => &mut *c, a: &'a mut [T] => &mut *a, b: &'b mut [T] => &mut *b,
     m: usize => m, k: usize => k, n: usize => n)
);

/// The instruction loop of [`i_gemm`] for the number types without a GEMM (lengths checked by
/// the caller).
#[i(nocheck)]
pub(crate) fn gemm_loop<T: Scalar>(
    c: &mut [T],
    a: &mut [T],
    b: &mut [T],
    m: usize,
    k: usize,
    n: usize,
) {
    // i-l-j order: the innermost loop runs along rows of B and C (contiguous, vectorisable)
    for i in 0..m {
        for l in 0..k {
            for j in 0..n {
                c[i * n + j] += a[i * k + l] * b[l * n + j];
            }
        }
    }
}

/// Unitary matrix multiply by Givens rotations (NiLang's `i_umm!`): `x` is an `m × n` row-major
/// matrix; each column is rotated by the same `m(m−1)/2` rotations
/// `ROT(x[i, l], x[i+1, l], θ[k])`, for `j = 0..m`, `i = m−2 down to j`, `k` counting up.
///
/// ```
/// use nilang::stdlib::blas::{i_umm, i_umm_inv};
/// let mut x = vec![1.0, 0.0, 0.0];
/// let mut theta = vec![0.1, 0.2, 0.3];
/// i_umm(&mut x, &mut theta, 3, 1);
/// let n2: f64 = x.iter().map(|v| v * v).sum();
/// assert!((n2 - 1.0).abs() < 1e-14); // a rotation keeps the norm
/// i_umm_inv(&mut x, &mut theta, 3, 1);
/// assert!((x[0] - 1.0).abs() < 1e-15 && x[1].abs() < 1e-15);
/// ```
#[i]
pub fn i_umm<T: Scalar + Rotate<T>>(x: &mut [T], theta: &mut [T], m: usize, n: usize) {
    safe! {
        umm_dims(x.len(), theta.len(), m, n);
    }
    for l in 0..n {
        for j in 0..m {
            for i in (j..m.saturating_sub(1)).rev() {
                ROT(
                    &mut x[i * n + l],
                    &mut x[(i + 1) * n + l],
                    &mut theta[umm_index(m, j, i)],
                );
            }
        }
    }
    // checked last too: that is first in the generated inverse
    safe! {
        umm_dims(x.len(), theta.len(), m, n);
    }
}

/// The index of the angle of rotation `(j, i)` in [`i_umm`]'s order.
#[inline(always)]
fn umm_index(m: usize, j: usize, i: usize) -> usize {
    // rotations before row j: Σ_{j'<j} (m−1−j'); within row j, i counts down from m−2
    j * (m - 1) - j * j.saturating_sub(1) / 2 + (m - 2 - i)
}

fn umm_dims(lx: usize, lt: usize, m: usize, n: usize) {
    crate::check::dimensions(
        lx == m * n && lt == m * m.saturating_sub(1) / 2,
        "nilang::stdlib::blas::i_umm",
        "i_umm(x, theta, m, n)",
        || {
            format!("i_umm: dimension mismatch: x has {lx} elements (expected m·n = {}), theta has {lt} (expected m(m-1)/2 = {}) for m={m}, n={n}", m * n, m * m.saturating_sub(1) / 2)
        },
    );
}

fn gemv_dims(ly: usize, la: usize, lx: usize, m: usize, n: usize) {
    crate::check::dimensions(
        ly == m && Some(la) == m.checked_mul(n) && lx == n,
        "nilang::stdlib::blas::i_gemv",
        "i_gemv(y, a, x, m, n)",
        || {
            format!("i_gemv: dimension mismatch: y has {ly}, A has {la}, x has {lx} elements for m={m}, n={n}")
        },
    );
}

fn gemm_dims(lc: usize, la: usize, lb: usize, m: usize, k: usize, n: usize) {
    crate::check::dimensions(
        Some(lc) == m.checked_mul(n)
            && Some(la) == m.checked_mul(k)
            && Some(lb) == k.checked_mul(n),
        "nilang::stdlib::blas::i_gemm",
        "i_gemm(c, a, b, m, k, n)",
        || {
            format!("i_gemm: dimension mismatch: C has {lc}, A has {la}, B has {lb} elements for m={m}, k={k}, n={n}")
        },
    );
}
