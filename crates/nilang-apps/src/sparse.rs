//! Reversible sparse linear algebra on compressed-sparse-column (CSC) matrices: the Frobenius
//! dot product `tr(AᵀB)` and the complex matrix-vector product `y += A x` (the paper's
//! Table 2), differentiable with respect to the stored values.
//!
//! The sparsity structure is read-only ([`SparseView`], shared with `nilang::stdlib::sparse`); only the values are in-out. The dot
//! product is branch-free: each column of `B` is scattered into a zero work vector, gathered
//! against `A`'s column, and scattered back out (exactly, so the work vector returns to zero).
use nilang::ad::ComplexOps;
use nilang::prelude::*;
pub use nilang::stdlib::sparse::SparseView;
use num_complex::Complex;

/// `r += tr(AᵀB) = Σ A_ij B_ij` for two matrices of the same shape; `w` is a work vector of
/// length `m` that must be zero (it is zero again afterwards). Compute–copy–uncompute per
/// column, so its gradient is one backward pass.
///
/// ```
/// use nilang_apps::sparse::{i_sparse_dot, SparseView};
/// let colptr = [0, 1, 2];
/// let rowval = [0, 1];
/// let p = SparseView { nrows: 2, ncols: 2, indptr: &colptr, indices: &rowval };
/// let (mut r, mut av, mut bv, mut w) = (0.0, vec![2.0, 3.0], vec![4.0, 5.0], vec![0.0; 2]);
/// i_sparse_dot(&mut r, &p, &mut av, &p, &mut bv, &mut w);
/// assert_eq!(r, 23.0);
/// ```
#[i(nocheck)]
pub fn i_sparse_dot<T: Scalar>(
    r: &mut T,
    a: &SparseView<'_>,
    av: &mut [T],
    b: &SparseView<'_>,
    bv: &mut [T],
    w: &mut [T],
) {
    for j in 0..a.ncols {
        routine! {
            for q in b.indptr[j]..b.indptr[j + 1] {
                w[b.indices[q]] += bv[q];
            }
        }
        for p in a.indptr[j]..a.indptr[j + 1] {
            r += av[p] * w[a.indices[p]];
        }
        unroutine!();
    }
}

/// `y += A x` for a complex matrix and complex vectors: `av` has the `nnz` values, `x` has
/// `n` numbers and `y` has `m`. One complex instruction per stored value (its gradient rule
/// moves the `(re, im)` adjoints as pairs, see `nilang::ad::complex`).
///
/// ```
/// use nilang_apps::sparse::{i_sparse_matvec, SparseView};
/// use num_complex::Complex64 as C;
/// let (colptr, rowval) = ([0, 1], [0]);
/// let p = SparseView { nrows: 1, ncols: 1, indptr: &colptr, indices: &rowval };
/// let (mut y, mut av, mut x) = ([C::new(0.0, 0.0)], [C::new(1.0, 2.0)], [C::new(3.0, 4.0)]);
/// i_sparse_matvec(&mut y, &p, &mut av, &mut x);
/// assert_eq!(y, [C::new(-5.0, 10.0)]);
/// ```
#[i(nocheck)]
pub fn i_sparse_matvec<T: Scalar>(
    y: &mut [Complex<T>],
    a: &SparseView<'_>,
    av: &mut [Complex<T>],
    x: &mut [Complex<T>],
) where
    Complex<T>: ComplexOps<T>,
{
    for j in 0..a.ncols {
        for p in a.indptr[j]..a.indptr[j + 1] {
            y[a.indices[p]] += av[p] * x[j];
        }
    }
}

/// The storage of the gradient plan of [`i_sparse_matvec`].
type MatvecStore<'p> = (
    Vec<Complex<GVar<f64>>>,
    &'p SparseView<'p>,
    Vec<Complex<GVar<f64>>>,
    Vec<Complex<GVar<f64>>>,
);

/// Reusable buffers of [`sparse_matvec_vjp`]: the output and the gradient plan.
pub struct SparseMatvecScratch<'p> {
    y: Vec<Complex<f64>>,
    plan: nilang::ad::Plan<MatvecStore<'p>>,
}

impl SparseMatvecScratch<'_> {
    /// Buffers for `m` (complex) outputs (the value and input counts are read from the first
    /// call).
    pub fn new(outputs: usize) -> Self {
        SparseMatvecScratch {
            y: vec![Complex::new(0.0, 0.0); outputs],
            plan: nilang::ad::Plan::new(),
        }
    }
    /// Adjoints of the values, `(∂L/∂Re, ∂L/∂Im)` per value in order (after
    /// [`sparse_matvec_vjp`]).
    pub fn grad_values(&self) -> impl Iterator<Item = f64> + '_ {
        self.plan
            .storage()
            .into_iter()
            .flat_map(|s| s.2.iter().flat_map(|v| [v.re.g, v.im.g]))
    }
    /// Adjoints of the input vector, `(∂L/∂Re, ∂L/∂Im)` per number.
    pub fn grad_x(&self) -> impl Iterator<Item = f64> + '_ {
        self.plan
            .storage()
            .into_iter()
            .flat_map(|s| s.3.iter().flat_map(|v| [v.re.g, v.im.g]))
    }
}

/// The vector–Jacobian product of `y += A x` with output adjoints `ybar` (the paper's
/// backward pass "B") by the gradient API: [`i_sparse_matvec`] is compute–copy–uncompute in
/// `y`, so this is one backward pass from the inputs; the adjoints are in the scratch.
/// `ybar` holds `(∂L/∂Re yᵢ, ∂L/∂Im yᵢ)` pairs (`2m` numbers). `av` and `x` are read, never
/// changed (the gradient API lifts them into its own storage: no copy of them first). No
/// allocation after the first call.
///
/// ```
/// use nilang_apps::sparse::{sparse_matvec_vjp, SparseMatvecScratch, SparseView};
/// use num_complex::Complex64 as C;
/// let (colptr, rowval) = ([0, 1], [0]);
/// let p = SparseView { nrows: 1, ncols: 1, indptr: &colptr, indices: &rowval };
/// let (mut av, mut x) = ([C::new(1.0, 2.0)], [C::new(3.0, 4.0)]);
/// let mut s = SparseMatvecScratch::new(1);
/// // ȳ = 1: x̄ = conj(a)·ȳ = 1 - 2i, ā = ȳ·conj(x) = 3 - 4i
/// sparse_matvec_vjp(&[1.0, 0.0], &p, &mut av, &mut x, &mut s);
/// assert_eq!(s.grad_x().collect::<Vec<_>>(), [1.0, -2.0]);
/// assert_eq!(s.grad_values().collect::<Vec<_>>(), [3.0, -4.0]);
/// assert_eq!((av, x), ([C::new(1.0, 2.0)], [C::new(3.0, 4.0)]));
/// ```
pub fn sparse_matvec_vjp<'p>(
    ybar: &[f64],
    a: &'p SparseView<'p>,
    av: &mut [Complex<f64>],
    x: &mut [Complex<f64>],
    scratch: &mut SparseMatvecScratch<'p>,
) {
    let s = scratch;
    s.y.iter_mut().for_each(|v| *v = Complex::new(0.0, 0.0));
    s.plan
        .vjp(&ISparseMatvec, (&mut s.y[..], a, av, x), 0, ybar);
}

/// The storage of the gradient plan of [`i_sparse_dot`].
type DotStore<'p> = (
    GVar<f64>,
    &'p SparseView<'p>,
    Vec<GVar<f64>>,
    &'p SparseView<'p>,
    Vec<GVar<f64>>,
    Vec<GVar<f64>>,
);

/// The gradient of `tr(AᵀB)` with respect to both value arrays by the gradient API:
/// [`i_sparse_dot`] is compute–copy–uncompute in `r`, so this is one backward pass (the
/// paper's "B" measure); the gradients are in [`SparseDotScratch::grad_a`] and `grad_b`.
/// Returns `tr(AᵀB)`. `av` and `bv` are read, never changed (no copy of them first). No
/// allocation after the first call.
///
/// ```
/// use nilang_apps::sparse::{sparse_dot_gradient, SparseDotScratch, SparseView};
/// let (colptr, rowval) = ([0, 1, 2], [0, 1]);
/// let p = SparseView { nrows: 2, ncols: 2, indptr: &colptr, indices: &rowval };
/// let (mut av, mut bv) = (vec![2.0, 3.0], vec![4.0, 5.0]);
/// let mut s = SparseDotScratch::new(2);
/// assert_eq!(sparse_dot_gradient(&p, &mut av, &p, &mut bv, &mut s), 23.0);
/// assert_eq!(s.grad_a().collect::<Vec<_>>(), [4.0, 5.0]);
/// assert_eq!(s.grad_b().collect::<Vec<_>>(), [2.0, 3.0]);
/// ```
pub fn sparse_dot_gradient<'p>(
    a: &'p SparseView<'p>,
    av: &mut [f64],
    b: &'p SparseView<'p>,
    bv: &mut [f64],
    scratch: &mut SparseDotScratch<'p>,
) -> f64 {
    let s = scratch;
    let args = (&mut 0.0, a, av, b, bv, &mut s.w[..]);
    s.plan.value_and_gradient(&ISparseDot, args, 0).0
}

/// Reusable buffers of [`sparse_dot_gradient`]: the zero work vector and the gradient plan.
pub struct SparseDotScratch<'p> {
    w: Vec<f64>,
    plan: nilang::ad::Plan<DotStore<'p>>,
}

impl SparseDotScratch<'_> {
    /// `∂ tr(AᵀB) / ∂A` values (after [`sparse_dot_gradient`]).
    pub fn grad_a(&self) -> impl Iterator<Item = f64> + '_ {
        self.plan
            .storage()
            .into_iter()
            .flat_map(|s| s.2.iter().map(|v| v.g))
    }
    /// `∂ tr(AᵀB) / ∂B` values.
    pub fn grad_b(&self) -> impl Iterator<Item = f64> + '_ {
        self.plan
            .storage()
            .into_iter()
            .flat_map(|s| s.4.iter().map(|v| v.g))
    }
}

impl SparseDotScratch<'_> {
    /// Buffers for matrices with `m` rows (the value counts are read from the first call).
    pub fn new(m: usize) -> Self {
        SparseDotScratch {
            w: vec![0.0; m],
            plan: nilang::ad::Plan::new(),
        }
    }
}
