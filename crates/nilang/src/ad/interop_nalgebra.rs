//! `nalgebra` matrices and vectors (`DVector`, `DMatrix`, `RowDVector`, `SMatrix`, `SVector`)
//! with the gradient API (feature `nalgebra`).
//!
//! Read-only, a matrix is data: a `#[i]` function takes `a: &DMatrix<f64>` itself (the
//! caller's matrix is passed, no copy) and reads `a[(i, j)]` or `a[k]` in any instruction,
//! converted to the instruction's number type. In-out, the function takes the matrix type
//! itself, generic over its number type (`w: &mut DMatrix<T>`, `&mut DVector<T>`,
//! `&mut SMatrix<T, R, C>`), and indexes it `w[(i, j)]` (`w[i]` on a vector too, with the
//! bound `T: Scalar + nalgebra::Scalar` that nalgebra's linear indexing asks for). The gradient
//! API lifts it into a matrix of gradient numbers of the same shape and storage order (one pass,
//! no intermediate copy; a [`Plan`](crate::ad::Plan) refreshes its lifted matrix in place, with
//! no allocation after the first call), returns that matrix as the argument's gradient
//! ([`grads_of`] takes the `.g` fields) and writes the values back into the caller's own
//! storage. The plain call `f(.., &mut w, ..)` runs on the caller's matrix itself.
//!
//! ```
//! use nalgebra::{DMatrix, DVector};
//! use nilang::ad::interop_nalgebra::grads_of;
//! use nilang::prelude::*;
//!
//! /// `y += A x`, `out += wᵀ y`.
//! #[i]
//! fn quad<T: Scalar + nalgebra::Scalar>(
//!     out: &mut T,
//!     w: &mut DVector<T>,
//!     a: &DMatrix<f64>,
//!     x: &mut DVector<T>,
//!     y: &mut DVector<T>,
//! ) {
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
//! let args = (&mut 0.0, &mut w, &a, &mut x, &mut y);
//! let (out, (_, gw, _, gx, _)) = nilang::ad::value_and_gradient(&Quad, args, 0);
//! assert_eq!(out, (w.transpose() * &a * &x)[0]);
//! assert_eq!(grads_of(&gw), &a * &x); // ∂/∂w = A x
//! assert_eq!(grads_of(&gx), a.transpose() * &w); // ∂/∂x = Aᵀ w
//! ```
//!
//! A function written on slices takes the matrix's own storage, `w.as_mut_slice()` (column
//! by column: `(i, j)` of an `r × c` matrix is `w[j * r + i]`); [`grad_matrix`] turns that
//! argument's gradient back into a matrix of the caller's shape.
use super::args::{lift_into, lower_into, Elem, GradArg, Lift, Slots};
use super::GVar;
use nalgebra::allocator::Allocator;
use nalgebra::storage::RawStorage;
use nalgebra::{
    ArrayStorage, DMatrix, DVector, DefaultAllocator, Dim, Matrix, OMatrix, RowDVector, SMatrix,
    Scalar, VecStorage,
};

/// An in-out heap matrix or vector (`&mut DMatrix<f64>`, `&mut DVector<f64>`,
/// `&mut RowDVector<f64>`): lifted into a matrix of gradient numbers of the same shape and
/// storage order, in one pass over the caller's storage; its values are written back into
/// that storage (same buffer, no reallocation). A [`Plan`](crate::ad::Plan) keeps the lifted
/// matrix between calls and refreshes it in place (no allocation after the first call).
macro_rules! in_out_heap_matrix {
    ($($alias:ident),*) => {$(
        impl<E: Elem> GradArg<E> for &mut $alias<E> {
            type Store<S: Lift<E>> = $alias<GVar<S>>;
            type Borrow<'b, S: Lift<E> + 'b> = &'b mut $alias<GVar<S>>;
            #[inline]
            fn store<S: Lift<E>>(&self) -> $alias<GVar<S>> {
                let (r, c) = self.shape_generic();
                let lifted = self.as_slice().iter().map(|&e| GVar::from(S::lift(e))).collect();
                $alias::from_vec_storage(VecStorage::new(r, c, lifted))
            }
            #[inline]
            fn fits<S: Lift<E>>(&self, st: &$alias<GVar<S>>) -> bool {
                st.shape() == self.shape()
            }
            #[inline]
            fn refresh<S: Lift<E>>(&self, st: &mut $alias<GVar<S>>) {
                lift_into(st.as_mut_slice(), self.as_slice());
            }
            #[inline]
            fn borrow<S: Lift<E>>(s: &mut $alias<GVar<S>>) -> &mut $alias<GVar<S>> {
                s
            }
            fn slots<S: Lift<E>>(s: &mut $alias<GVar<S>>) -> Slots<'_, S> {
                Slots::Slice(s.as_mut_slice())
            }
            #[inline]
            fn restore<S: Lift<E>>(&mut self, s: &$alias<GVar<S>>) {
                lower_into(self.as_mut_slice(), s.as_slice());
            }
        }
    )*};
}
in_out_heap_matrix!(DMatrix, DVector, RowDVector);

/// An in-out static matrix or vector (`&mut SMatrix<f64, R, C>`, `&mut SVector<f64, R>`):
/// lifted into a static matrix of gradient numbers (on the stack), values written back in
/// place.
impl<E: Elem, const R: usize, const C: usize> GradArg<E> for &mut SMatrix<E, R, C> {
    type Store<S: Lift<E>> = SMatrix<GVar<S>, R, C>;
    type Borrow<'b, S: Lift<E> + 'b> = &'b mut SMatrix<GVar<S>, R, C>;
    #[inline]
    fn store<S: Lift<E>>(&self) -> SMatrix<GVar<S>, R, C> {
        let columns = self
            .data
            .0
            .map(|column| column.map(|e| GVar::from(S::lift(e))));
        SMatrix::from_array_storage(ArrayStorage(columns))
    }
    #[inline]
    fn refresh<S: Lift<E>>(&self, st: &mut SMatrix<GVar<S>, R, C>) {
        lift_into(st.as_mut_slice(), self.as_slice());
    }
    #[inline]
    fn borrow<S: Lift<E>>(s: &mut SMatrix<GVar<S>, R, C>) -> &mut SMatrix<GVar<S>, R, C> {
        s
    }
    fn slots<S: Lift<E>>(s: &mut SMatrix<GVar<S>, R, C>) -> Slots<'_, S> {
        Slots::Slice(s.as_mut_slice())
    }
    #[inline]
    fn restore<S: Lift<E>>(&mut self, s: &SMatrix<GVar<S>, R, C>) {
        lower_into(self.as_mut_slice(), s.as_slice());
    }
}

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

/// The gradients of a matrix of gradient numbers (the gradient of an in-out `&mut DMatrix`,
/// `&mut DVector`, `&mut SMatrix`, ... argument), as a plain matrix of the same shape.
///
/// ```
/// use nalgebra::DVector;
/// use nilang::ad::interop_nalgebra::grads_of;
/// let g = DVector::from_vec(vec![nilang::GVar { x: 1.0, g: 0.5 }, nilang::GVar { x: 2.0, g: -1.0 }]);
/// assert_eq!(grads_of(&g), DVector::from_vec(vec![0.5, -1.0]));
/// ```
pub fn grads_of<E, R, C, S>(g: &Matrix<GVar<E>, R, C, S>) -> OMatrix<E, R, C>
where
    E: Scalar + Copy,
    R: Dim,
    C: Dim,
    S: RawStorage<GVar<E>, R, C>,
    DefaultAllocator: Allocator<R, C>,
{
    let (r, c) = g.shape_generic();
    OMatrix::from_iterator_generic(r, c, g.iter().map(|v| v.g))
}
