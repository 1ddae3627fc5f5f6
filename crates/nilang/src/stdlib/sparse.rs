//! Reversible sparse linear algebra on compressed sparse column (CSC) matrices: the Frobenius
//! dot product and the sparse matrix-vector (and matrix-dense-matrix) multiply, real and
//! complex.
//!
//! A sparse matrix is split into its read-only structure, a [`SparseView`] (column pointers,
//! row indices, shape), and its values, a `&mut [T]` slice that the functions differentiate.
//! Both come from a `sprs::CsMat` (`SparseView::of(&m)` and a copy `m.data().to_vec()`), and
//! `SparseView::to_csmat` builds a `CsMat` back from the structure and (gradient) values
//! (these two with the `sprs` feature of `nilang`, off by default; without it, build a
//! [`SparseView`] from its fields).
use crate::ad::Scalar;
use crate::i;
#[cfg(feature = "sprs")]
use core::ops::Deref;
use num_complex::Complex;
#[cfg(feature = "sprs")]
use sprs::CsMatBase;

/// The structure of a CSC sparse matrix: `indptr[j]..indptr[j+1]` are the positions of
/// column `j` in `indices` (row numbers, ascending) and in the value slice.
#[derive(Clone, Copy, Debug)]
pub struct SparseView<'a> {
    /// Column pointers (`ncols + 1` entries, starting at 0).
    pub indptr: &'a [usize],
    /// Row index of each stored value.
    pub indices: &'a [usize],
    /// Number of rows.
    pub nrows: usize,
    /// Number of columns.
    pub ncols: usize,
}

/// A sparsity pattern is read-only structure: the gradient API passes it through unchanged.
impl<'b, 'a, E: crate::ad::Elem> crate::ad::GradArg<E> for &'b SparseView<'a> {
    type Store<S: crate::ad::Lift<E>> = &'b SparseView<'a>;
    type Borrow<'c, S: crate::ad::Lift<E> + 'c> = &'c SparseView<'c>;
    fn store<S: crate::ad::Lift<E>>(&self) -> &'b SparseView<'a> {
        self
    }
    fn refresh<S: crate::ad::Lift<E>>(&self, st: &mut &'b SparseView<'a>) {
        *st = self;
    }
    fn borrow<'c, S: crate::ad::Lift<E>>(s: &'c mut &'b SparseView<'a>) -> &'c SparseView<'c> {
        s
    }
    fn slots<'c, S: crate::ad::Lift<E>>(_: &'c mut &'b SparseView<'a>) -> crate::ad::Slots<'c, S> {
        crate::ad::Slots::Slice(&mut [])
    }
    fn restore<S: crate::ad::Lift<E>>(&mut self, _: &&'b SparseView<'a>) {}
}

impl<'a> SparseView<'a> {
    /// The structure of a CSC `sprs` matrix (panics for CSR: convert with `to_csc()` first).
    ///
    /// ```
    /// # #[cfg(feature = "sprs")] {
    /// let m = sprs::CsMat::new_csc((2, 2), vec![0, 1, 2], vec![1, 0], vec![3.0, 4.0]);
    /// let v = nilang::stdlib::sparse::SparseView::of(&m);
    /// assert_eq!((v.nrows, v.ncols, v.indices), (2, 2, &[1, 0][..]));
    /// # }
    /// ```
    #[cfg(feature = "sprs")]
    pub fn of<N, IS, DS, PS>(m: &'a CsMatBase<N, usize, PS, IS, DS, usize>) -> Self
    where
        PS: Deref<Target = [usize]>,
        IS: Deref<Target = [usize]>,
        DS: Deref<Target = [N]>,
    {
        assert!(
            m.is_csc(),
            "nilang sparse: expected a CSC matrix (convert a CSR one with `to_csc()`)"
        );
        let indptr = m.indptr().into_raw_storage();
        assert!(
            indptr.first() == Some(&0),
            "nilang sparse: the column pointers must start at 0 (a proper CSC matrix)"
        );
        SparseView {
            indptr,
            indices: m.indices(),
            nrows: m.rows(),
            ncols: m.cols(),
        }
    }
    /// The number of stored values.
    pub fn nnz(&self) -> usize {
        self.indptr[self.ncols]
    }
    /// The position of entry `(row, col)` in the value slice, or `usize::MAX` if it is not
    /// stored (binary search in the column).
    #[inline]
    pub fn find(&self, row: usize, col: usize) -> usize {
        let (s, e) = (self.indptr[col], self.indptr[col + 1]);
        match self.indices[s..e].binary_search(&row) {
            Ok(k) => s + k,
            Err(_) => usize::MAX,
        }
    }
    /// A `sprs` CSC matrix with this structure and the given values (e.g. gradients).
    #[cfg(feature = "sprs")]
    pub fn to_csmat<N: Clone>(&self, values: &[N]) -> sprs::CsMat<N> {
        assert_eq!(
            values.len(),
            self.nnz(),
            "nilang sparse: wrong number of values"
        );
        sprs::CsMat::new_csc(
            (self.nrows, self.ncols),
            self.indptr.to_vec(),
            self.indices.to_vec(),
            values.to_vec(),
        )
    }
}

#[track_caller]
fn same_shape(a: &SparseView, av: usize, b: &SparseView, bv: usize) {
    assert!(
        a.nrows == b.nrows && a.ncols == b.ncols,
        "nilang sparse: matrices must have the same dimensions: {}×{} vs {}×{}",
        a.nrows,
        a.ncols,
        b.nrows,
        b.ncols
    );
    assert!(
        av == a.nnz() && bv == b.nnz(),
        "nilang sparse: value slices do not match the structures"
    );
}

#[track_caller]
fn mul_dims(c: usize, a: &SparseView, av: usize, x: usize, k: usize) {
    assert!(
        av == a.nnz() && x == a.ncols * k && c == a.nrows * k,
        "nilang sparse: dimension mismatch: A is {}×{} with {} values ({} given), x has {} and C has {} elements for {} right-hand sides",
        a.nrows, a.ncols, a.nnz(), av, x, c, k
    );
}

/// Frobenius dot product `r += Σᵢⱼ Aᵢⱼ Bᵢⱼ = tr(AᵀB)` of two CSC matrices of the same shape
/// (NiLang's sparse `i_dot`). Entries of `A` are matched in `B` by binary search.
///
/// ```
/// # #[cfg(feature = "sprs")] {
/// use nilang::stdlib::sparse::{i_sparse_dot, SparseView};
/// let a = sprs::CsMat::new_csc((2, 2), vec![0, 1, 2], vec![1, 0], vec![3.0, 4.0]);
/// let b = sprs::CsMat::new_csc((2, 2), vec![0, 2, 2], vec![0, 1], vec![5.0, 6.0]);
/// let (mut av, mut bv, mut r) = (a.data().to_vec(), b.data().to_vec(), 0.0);
/// i_sparse_dot(&mut r, &SparseView::of(&a), &mut av, &SparseView::of(&b), &mut bv);
/// assert_eq!(r, 18.0);
/// # }
/// ```
#[i(nocheck)]
pub fn i_sparse_dot<'s, T: Scalar>(
    r: &mut T,
    a: &SparseView<'s>,
    av: &mut [T],
    b: &SparseView<'s>,
    bv: &mut [T],
) {
    safe! { same_shape(a, av.len(), b, bv.len()); }
    for j in 0..a.ncols {
        for ia in a.indptr[j]..a.indptr[j + 1] {
            let ib = b.find(a.indices[ia], j);
            if (ib != usize::MAX, _) {
                r += av[ia] * bv[ib];
            }
            dealloc!(ib = b.find(a.indices[ia], j));
        }
    }
    // checked last too: that is first in the generated inverse
    safe! { same_shape(a, av.len(), b, bv.len()); }
}

/// Complex Frobenius dot product `r += Σᵢⱼ conj(Aᵢⱼ) Bᵢⱼ = tr(AᴴB)`, on the real and
/// imaginary parts (so it is differentiable with `T = GVar<f64>`).
///
/// ```
/// # #[cfg(feature = "sprs")] {
/// use nilang::stdlib::sparse::{i_sparse_dot_complex, SparseView};
/// use num_complex::Complex64 as C;
/// let a = sprs::CsMat::new_csc((1, 1), vec![0, 1], vec![0], vec![C::new(1.0, 2.0)]);
/// let (mut av, mut bv, mut r) = (a.data().to_vec(), vec![C::new(3.0, 4.0)], C::new(0.0, 0.0));
/// let s = SparseView::of(&a);
/// i_sparse_dot_complex(&mut r, &s, &mut av, &s, &mut bv);
/// assert_eq!(r, C::new(1.0, -2.0) * C::new(3.0, 4.0));
/// # }
/// ```
#[i(nocheck)]
pub fn i_sparse_dot_complex<'s, T: Scalar>(
    r: &mut Complex<T>,
    a: &SparseView<'s>,
    av: &mut [Complex<T>],
    b: &SparseView<'s>,
    bv: &mut [Complex<T>],
) {
    safe! { same_shape(a, av.len(), b, bv.len()); }
    for j in 0..a.ncols {
        for ia in a.indptr[j]..a.indptr[j + 1] {
            let ib = b.find(a.indices[ia], j);
            if (ib != usize::MAX, _) {
                r.re += av[ia].re * bv[ib].re;
                r.re += av[ia].im * bv[ib].im;
                r.im += av[ia].re * bv[ib].im;
                r.im -= av[ia].im * bv[ib].re;
            }
            dealloc!(ib = b.find(a.indices[ia], j));
        }
    }
    // checked last too: that is first in the generated inverse
    safe! { same_shape(a, av.len(), b, bv.len()); }
}

/// Sparse matrix times dense vector(s), accumulated: `C += α A X` (NiLang's sparse `i_mul!`
/// with `β = 1`). `A` is `m × n` CSC, `X` is `n × k` and `C` is `m × k`, both row-major
/// (`k = 1`: vectors).
///
/// ```
/// # #[cfg(feature = "sprs")] {
/// use nilang::stdlib::sparse::{i_sparse_mul, i_sparse_mul_inv, SparseView};
/// let a = sprs::CsMat::new_csc((2, 2), vec![0, 1, 2], vec![1, 0], vec![3.0, 4.0]);
/// let (mut av, mut x, mut c, mut alpha) = (a.data().to_vec(), vec![1.0, 2.0], vec![0.0; 2], 0.5);
/// i_sparse_mul(&mut c, &SparseView::of(&a), &mut av, &mut x, &mut alpha, 1);
/// assert_eq!(c, [4.0, 1.5]);
/// i_sparse_mul_inv(&mut c, &SparseView::of(&a), &mut av, &mut x, &mut alpha, 1);
/// assert_eq!(c, [0.0, 0.0]);
/// # }
/// ```
#[i(nocheck)]
pub fn i_sparse_mul<'s, T: Scalar>(
    c: &mut [T],
    a: &SparseView<'s>,
    av: &mut [T],
    x: &mut [T],
    alpha: &mut T,
    k: usize,
) {
    safe! { mul_dims(c.len(), a, av.len(), x.len(), k); }
    for col in 0..a.ncols {
        for l in 0..k {
            let ax = T::default();
            ax += x[col * k + l] * alpha;
            for p in a.indptr[col]..a.indptr[col + 1] {
                c[a.indices[p] * k + l] += av[p] * ax;
            }
            ax -= x[col * k + l] * alpha;
            dealloc!(ax = T::default());
        }
    }
    // checked last too: that is first in the generated inverse
    safe! { mul_dims(c.len(), a, av.len(), x.len(), k); }
}

/// Complex sparse matrix times dense complex vector(s): `C += α A X` (layout as in
/// [`i_sparse_mul`]), on real and imaginary parts.
///
/// ```
/// # #[cfg(feature = "sprs")] {
/// use nilang::stdlib::sparse::{i_sparse_mul_complex, SparseView};
/// use num_complex::Complex64 as C;
/// let a = sprs::CsMat::new_csc((1, 1), vec![0, 1], vec![0], vec![C::new(1.0, 2.0)]);
/// let (mut av, mut x, mut c) = (a.data().to_vec(), vec![C::new(3.0, 4.0)], vec![C::new(0.0, 0.0)]);
/// let mut alpha = C::new(1.0, 0.0);
/// i_sparse_mul_complex(&mut c, &SparseView::of(&a), &mut av, &mut x, &mut alpha, 1);
/// assert_eq!(c[0], C::new(1.0, 2.0) * C::new(3.0, 4.0));
/// # }
/// ```
#[i(nocheck)]
pub fn i_sparse_mul_complex<'s, T: Scalar>(
    c: &mut [Complex<T>],
    a: &SparseView<'s>,
    av: &mut [Complex<T>],
    x: &mut [Complex<T>],
    alpha: &mut Complex<T>,
    k: usize,
) {
    safe! { mul_dims(c.len(), a, av.len(), x.len(), k); }
    for col in 0..a.ncols {
        for l in 0..k {
            let (re, im) = (T::default(), T::default());
            re += x[col * k + l].re * alpha.re;
            re -= x[col * k + l].im * alpha.im;
            im += x[col * k + l].re * alpha.im;
            im += x[col * k + l].im * alpha.re;
            for p in a.indptr[col]..a.indptr[col + 1] {
                c[a.indices[p] * k + l].re += av[p].re * re;
                c[a.indices[p] * k + l].re -= av[p].im * im;
                c[a.indices[p] * k + l].im += av[p].re * im;
                c[a.indices[p] * k + l].im += av[p].im * re;
            }
            im -= x[col * k + l].im * alpha.re;
            im -= x[col * k + l].re * alpha.im;
            re += x[col * k + l].im * alpha.im;
            re -= x[col * k + l].re * alpha.re;
            dealloc!((re, im) = (T::default(), T::default()));
        }
    }
    // checked last too: that is first in the generated inverse
    safe! { mul_dims(c.len(), a, av.len(), x.len(), k); }
}
