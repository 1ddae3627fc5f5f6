//! `nalgebra` matrices and vectors (`DVector`, `DMatrix`, `SMatrix`, `SVector`: every owned
//! `OMatrix`) with the gradient API (feature `nalgebra`).
//!
//! Read-only, a matrix is data: a `#[i]` function takes `a: &DMatrix<f64>` itself (the
//! caller's matrix is passed, no copy) and reads `a[(i, j)]` or `a[k]` in any instruction,
//! converted to the instruction's number type. In-out, the function takes a slice in
//! nalgebra's storage order, column by column (element `(i, j)` of an `r × c` matrix is
//! `w[j * r + i]`), and the caller passes the matrix's own storage, `w.as_mut_slice()` (no
//! copy); [`grad_matrix`] turns the gradient of that argument back into a matrix of the
//! caller's shape.
//!
//! ```
//! use nalgebra::{DMatrix, DVector};
//! use nilang::ad::interop_nalgebra::grad_matrix;
//! use nilang::prelude::*;
//!
//! /// `y += A x`, `out += wᵀ y`.
//! #[i]
//! fn quad<T: Scalar>(out: &mut T, w: &mut [T], a: &DMatrix<f64>, x: &mut [T], y: &mut [T]) {
//!     for i in 0..w.len() {
//!         for j in 0..x.len() {
//!             y[i] += a[(i, j)] * x[j];
//!         }
//!         out += w[i] * y[i];
//!     }
//! }
//! let a = DMatrix::from_row_slice(2, 2, &[1.0, 2.0, 3.0, 4.0]);
//! let (mut w, mut x) = (DVector::from_vec(vec![1.0, 2.0]), DVector::from_vec(vec![5.0, 6.0]));
//! let mut y = DVector::zeros(2);
//! let args = (&mut 0.0, w.as_mut_slice(), &a, x.as_mut_slice(), y.as_mut_slice());
//! let (out, (_, gw, _, gx, _)) = nilang::ad::value_and_gradient(&Quad, args, 0);
//! assert_eq!(out, (w.transpose() * &a * &x)[0]);
//! assert_eq!(grad_matrix(&gw, &w), &a * &x); // ∂/∂w = A x
//! assert_eq!(grad_matrix(&gx, &x), a.transpose() * &w); // ∂/∂x = Aᵀ w
//! ```
use super::args::{Elem, GradArg, Lift, Slots};
use super::GVar;
use nalgebra::allocator::Allocator;
use nalgebra::{DefaultAllocator, Dim, OMatrix, Scalar};

/// A read-only `nalgebra` matrix or vector is data: the caller's matrix itself is passed (no
/// copy, no gradient).
///
/// ```
/// use nilang::ad::args::GradArg;
/// let a = nalgebra::DMatrix::from_row_slice(2, 2, &[1.0, 2.0, 3.0, 4.0]);
/// let stored = <&nalgebra::DMatrix<f64> as GradArg<f64>>::store::<f64>(&&a);
/// assert!(std::ptr::eq(stored, &a)); // the same matrix, not a copy
/// ```
impl<'a, E, R, C> GradArg<E> for &'a OMatrix<E, R, C>
where
    E: Elem + Scalar,
    R: Dim,
    C: Dim,
    DefaultAllocator: Allocator<R, C>,
{
    type Store<S: Lift<E>> = &'a OMatrix<E, R, C>;
    type Borrow<'b, S: Lift<E> + 'b> = &'b OMatrix<E, R, C>;
    #[inline]
    fn store<S: Lift<E>>(&self) -> &'a OMatrix<E, R, C> {
        self
    }
    #[inline]
    fn refresh<S: Lift<E>>(&self, st: &mut &'a OMatrix<E, R, C>) {
        *st = self;
    }
    #[inline]
    fn borrow<'s, S: Lift<E>>(s: &'s mut &'a OMatrix<E, R, C>) -> &'s OMatrix<E, R, C> {
        s
    }
    fn slots<'s, S: Lift<E>>(_: &'s mut &'a OMatrix<E, R, C>) -> Slots<'s, S> {
        Slots::Slice(&mut [])
    }
    #[inline]
    fn restore<S: Lift<E>>(&mut self, _: &&'a OMatrix<E, R, C>) {}
}

/// The gradients `g` of an argument passed as `like.as_mut_slice()`, as a matrix of `like`'s
/// shape (`g` is in storage order, as the function saw it).
///
/// Panics if `g` does not have one entry per element of `like`.
pub fn grad_matrix<E, R, C>(g: &[GVar<E>], like: &OMatrix<E, R, C>) -> OMatrix<E, R, C>
where
    E: Elem + Scalar,
    R: Dim,
    C: Dim,
    DefaultAllocator: Allocator<R, C>,
{
    assert_eq!(
        g.len(),
        like.len(),
        "one gradient per element of the matrix"
    );
    let (r, c) = like.shape_generic();
    OMatrix::from_iterator_generic(r, c, g.iter().map(|v| v.g))
}
