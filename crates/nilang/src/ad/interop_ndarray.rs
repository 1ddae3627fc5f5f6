//! `ndarray` arrays (`Array1`, `Array2`, any owned `Array<E, D>`) as arguments and results of
//! the gradient API (feature `ndarray`).
//!
//! A `#[i]` function takes the array type itself, generic over its number type
//! (`w: &mut Array1<T>`), and indexes it as usual (`w[i]`, `a[[i, j]]`); `len()` is readable.
//! For a gradient, an in-out array (`&mut Array2<f64>`) is lifted into an array of gradient
//! numbers of the same shape (the gradient comes back as that array: [`grads_of`] takes
//! the `.g` fields), and its values are restored in place. A read-only array (`&Array2<f64>`)
//! is data: the function receives the caller's own array, with no copy at all, and its
//! elements are converted to the instruction's number type where they are read.
//!
//! ```
//! use ndarray::{array, Array1, Array2};
//! use nilang::prelude::*;
//!
//! /// `y += A x`, `out += wᵀ y`.
//! #[i]
//! fn quad<T: Scalar>(
//!     out: &mut T,
//!     w: &mut Array1<T>,
//!     a: &Array2<f64>,
//!     x: &mut Array1<T>,
//!     y: &mut Array1<T>,
//! ) {
//!     for i in 0..w.len() {
//!         for j in 0..x.len() {
//!             y[i] += a[[i, j]] * x[j];
//!         }
//!         out += w[i] * y[i];
//!     }
//! }
//! let (mut w, a, mut x) = (array![1.0, 2.0], array![[1.0, 2.0], [3.0, 4.0]], array![5.0, 6.0]);
//! let mut y = Array1::zeros(2);
//! let args = (&mut 0.0, &mut w, &a, &mut x, &mut y);
//! let (out, (_, gw, _, gx, _)) = nilang::ad::value_and_gradient(&Quad, args, 0);
//! assert_eq!(out, w.dot(&a.dot(&x)));
//! use nilang::ad::interop_ndarray::grads_of;
//! assert_eq!(grads_of(&gw), a.dot(&x)); // ∂/∂w = A x
//! assert_eq!(grads_of(&gx), a.t().dot(&w)); // ∂/∂x = Aᵀ w
//! ```
use super::args::{Elem, GradArg, Lift, Slots};
use super::GVar;
use ndarray::{Array, Dimension};

/// An in-out `ndarray` array: lifted into an array of gradient numbers of the same shape
/// (standard layout), values written back in place.
impl<E: Elem, D: Dimension + 'static> GradArg<E> for &mut Array<E, D> {
    type Store<S: Lift<E>> = Array<GVar<S>, D>;
    type Borrow<'b, S: Lift<E> + 'b> = &'b mut Array<GVar<S>, D>;
    #[inline]
    fn store<S: Lift<E>>(&self) -> Array<GVar<S>, D> {
        let lifted = self.iter().map(|&e| GVar::from(S::lift(e))).collect();
        Array::from_shape_vec(self.raw_dim(), lifted).expect("the array's own shape")
    }
    #[inline]
    fn fits<S: Lift<E>>(&self, st: &Array<GVar<S>, D>) -> bool {
        st.shape() == self.shape()
    }
    #[inline]
    fn refresh<S: Lift<E>>(&self, st: &mut Array<GVar<S>, D>) {
        for (d, &e) in st.iter_mut().zip(self.iter()) {
            *d = GVar::from(S::lift(e));
        }
    }
    #[inline]
    fn borrow<S: Lift<E>>(s: &mut Array<GVar<S>, D>) -> &mut Array<GVar<S>, D> {
        s
    }
    fn slots<S: Lift<E>>(s: &mut Array<GVar<S>, D>) -> Slots<'_, S> {
        Slots::Slice(
            s.as_slice_mut()
                .expect("the store is built in the standard layout"),
        )
    }
    #[inline]
    fn restore<S: Lift<E>>(&mut self, s: &Array<GVar<S>, D>) {
        for (d, v) in self.iter_mut().zip(s.iter()) {
            *d = v.x.lower();
        }
    }
}

/// A read-only `ndarray` array is data: the caller's array itself is passed (no copy, no
/// gradient).
///
/// ```
/// use nilang::ad::args::GradArg;
/// let a = ndarray::array![[1.0, 2.0], [3.0, 4.0]];
/// let stored = <&ndarray::Array2<f64> as GradArg<f64>>::store::<f64>(&&a);
/// assert!(std::ptr::eq(stored, &a)); // the same array, not a copy
/// ```
impl<'a, E: Elem, D: Dimension + 'static> GradArg<E> for &'a Array<E, D> {
    type Store<S: Lift<E>> = &'a Array<E, D>;
    type Borrow<'b, S: Lift<E> + 'b> = &'b Array<E, D>;
    #[inline]
    fn store<S: Lift<E>>(&self) -> &'a Array<E, D> {
        self
    }
    #[inline]
    fn refresh<S: Lift<E>>(&self, st: &mut &'a Array<E, D>) {
        *st = self;
    }
    #[inline]
    fn borrow<'s, S: Lift<E>>(s: &'s mut &'a Array<E, D>) -> &'s Array<E, D> {
        s
    }
    fn slots<'s, S: Lift<E>>(_: &'s mut &'a Array<E, D>) -> Slots<'s, S> {
        Slots::Slice(&mut [])
    }
    #[inline]
    fn restore<S: Lift<E>>(&mut self, _: &&'a Array<E, D>) {}
}

/// The gradients of an array of gradient numbers (an argument's gradient storage), as a plain
/// array of the same shape.
pub fn grads_of<E: Copy, D: Dimension>(g: &Array<GVar<E>, D>) -> Array<E, D> {
    g.map(|v| v.g)
}
