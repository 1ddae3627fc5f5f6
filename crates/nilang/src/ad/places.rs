//! Containers of places: how compiled code reads and writes the elements of a slice
//! parameter ([`Places`]), on today's storage (`[T]`, the element itself) and on split storage
//! ([`Split`]: a value plane and an adjoint plane, joined into a gradient number per element by
//! [`SplitNum`]).
//!
//! The instruction rules stay written once, on gradient numbers in locals: a place is read
//! into a local ([`Places::get`]), the instruction runs on the local, the local is written back
//! ([`Places::set`]). On `[T]` that is an element copy, which the optimiser folds into the
//! borrow it replaces; on a [`Split`] it reads the value from one plane and the adjoint from
//! the other. See docs/architecture.md, "Split storage: values and adjoints apart".
//!
//! The traits live here only, not in `nilang::ad`: a `use nilang::ad::*;` would otherwise
//! bring their methods into scope, and `v.get(i)` on a `&mut [T]` would become
//! [`Places::get`] (through the `&mut P` impl) and `x.value()` on a `GVar<f64>` ambiguous.
//!
//! ```
//! use nilang::ad::places::{Places, Split};
//! use nilang::GVar;
//!
//! /// `y[i] += x[i]` on gradient numbers, through whatever container holds them.
//! fn add<P: Places<Elem = GVar<f64>> + ?Sized>(y: &mut P, x: &P) {
//!     for i in 0..y.len() {
//!         let (mut t, a) = (y.get(i), x.get(i));
//!         t.x += a.x;
//!         y.set(i, t);
//!     }
//! }
//! // interleaved: one slice of gradient numbers
//! let mut y = [GVar::new(1.0, 0.5), GVar::new(2.0, 0.25)];
//! add(&mut y[..], &[GVar::new(10.0, 0.0), GVar::new(20.0, 0.0)][..]);
//! assert_eq!(y, [GVar::new(11.0, 0.5), GVar::new(22.0, 0.25)]);
//! // split: a value plane and an adjoint plane
//! let (mut yx, mut yg, mut xx, mut xg) = ([1.0, 2.0], [0.5, 0.25], [10.0, 20.0], [0.0; 2]);
//! let mut ys = Split::<GVar<f64>>::new(&mut yx, &mut yg);
//! add(&mut ys, &Split::new(&mut xx, &mut xg));
//! assert_eq!((yx, yg), ([11.0, 22.0], [0.5, 0.25]));
//! ```
use crate::ad::GVar;
use crate::stdlib::Planes;
use core::any::TypeId;
use core::ops::{Deref, DerefMut, Range};
use num_complex::Complex;

/// A gradient number that splits into a value and an adjoint of one type (and joins back):
/// `GVar<S>` ↔ `(S, S)` (`S` a real, a lane type such as `F64x8`, or itself a gradient
/// number), `Complex<GVar<S>>` ↔ `(Complex<S>, Complex<S>)` (so the planes of a complex
/// argument are slices of the caller's own complex type).
///
/// ```
/// use nilang::ad::places::SplitNum;
/// use nilang::GVar;
/// use num_complex::Complex;
/// let v = GVar::join(2.0, 0.5);
/// assert_eq!((v, v.value(), v.adjoint()), (GVar::new(2.0, 0.5), 2.0, 0.5));
/// let z = Complex::new(GVar::new(1.0, 3.0), GVar::new(2.0, 4.0));
/// assert_eq!((z.value(), z.adjoint()), (Complex::new(1.0, 2.0), Complex::new(3.0, 4.0)));
/// assert_eq!(<Complex<GVar<f64>>>::join(z.value(), z.adjoint()), z);
/// ```
pub trait SplitNum: Copy {
    /// The type of the value and of the adjoint.
    type Value: Copy;
    /// The number of value `x` and adjoint `g`.
    fn join(x: Self::Value, g: Self::Value) -> Self;
    /// The value.
    fn value(&self) -> Self::Value;
    /// The adjoint.
    fn adjoint(&self) -> Self::Value;
}

impl<S: Copy> SplitNum for GVar<S> {
    type Value = S;
    #[inline(always)]
    fn join(x: S, g: S) -> Self {
        GVar::new(x, g)
    }
    #[inline(always)]
    fn value(&self) -> S {
        self.x
    }
    #[inline(always)]
    fn adjoint(&self) -> S {
        self.g
    }
}

impl<S: Copy> SplitNum for Complex<GVar<S>> {
    type Value = Complex<S>;
    #[inline(always)]
    fn join(x: Complex<S>, g: Complex<S>) -> Self {
        Complex::new(GVar::new(x.re, g.re), GVar::new(x.im, g.im))
    }
    #[inline(always)]
    fn value(&self) -> Complex<S> {
        Complex::new(self.re.x, self.im.x)
    }
    #[inline(always)]
    fn adjoint(&self) -> Complex<S> {
        Complex::new(self.re.g, self.im.g)
    }
}

/// The container the compiler targets for a slice parameter: its length and element access by
/// copy, whatever the storage. Implemented by `[T]` (the element itself), `&mut P` (forwarded:
/// sub-slices and containers passed on) and [`Split`] (two planes).
///
/// ```
/// use nilang::ad::places::Places;
/// let mut x = [1.0, 2.0, 3.0, 4.0];
/// let v = Places::get(&x[..], 2);
/// Places::set(&mut x[..], 0, v + 1.0);
/// let mut s = Places::sub(&mut x[..], 1..3);
/// assert_eq!((s.len(), s.get(1)), (2, 3.0));
/// s.set(0, 9.0);
/// let total = Places::with_slice(&mut x[..], |v| v.iter().sum::<f64>());
/// assert_eq!((x, total), ([4.0, 9.0, 3.0, 4.0], 20.0));
/// ```
pub trait Places {
    /// The number of one element (`f64`, `GVar<f64>`, `Complex<GVar<f64>>`, ..).
    type Elem: Copy;
    /// A sub-range of the container, as [`Places::sub`] returns it.
    type Sub<'s>: Places<Elem = Self::Elem>
    where
        Self: 's;
    /// An element lent in place, as [`Places::at`] returns it.
    type Ref<'r>: DerefMut<Target = Self::Elem>
    where
        Self: 'r;
    /// The number of elements.
    fn len(&self) -> usize;
    /// Whether there are no elements.
    #[inline(always)]
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Element `i` (one bounds check for both planes of a split container).
    ///
    /// # Panics
    /// If `i` is out of bounds (as slice indexing does).
    fn get(&self, i: usize) -> Self::Elem;
    /// Writes element `i` (value and adjoint).
    ///
    /// # Panics
    /// If `i` is out of bounds.
    fn set(&mut self, i: usize, v: Self::Elem);
    /// Element `i` lent in place, for an instruction operand: on `[T]` the borrow
    /// `&mut self[i]` itself (no copy: a `GVar<F64x8>` is 128 bytes), on a [`Split`] a
    /// [`SplitRef`] holding the joined element, written back to both planes when dropped.
    ///
    /// # Panics
    /// If `i` is out of bounds.
    fn at(&mut self, i: usize) -> Self::Ref<'_>;
    /// Writes the adjoint of element `i` only, for a parameter the program never writes (its
    /// value is unchanged; a split container whose value plane is borrowed is not stored to).
    /// On `[T]`, the element itself.
    ///
    /// # Panics
    /// If `i` is out of bounds.
    fn set_adjoint(&mut self, i: usize, v: Self::Elem);
    /// The elements `r` (`[T]`: `&mut [T]`, [`Split`]: a `Split` of both planes).
    ///
    /// # Panics
    /// If `r` is out of bounds (as slice indexing does).
    fn sub(&mut self, r: Range<usize>) -> Self::Sub<'_>;
    /// The value and adjoint planes as strided reals `R`, when the elements are `R` or
    /// `GVar<R>` (stride 1 on `[R]` without adjoints, 2 on `[GVar<R>]`, 1 on a [`Split`] of
    /// `GVar<R>`); else `None`. The pointers are valid while `self` is borrowed.
    fn planes<R: 'static>(&mut self) -> Option<Planes<R>>
    where
        Self::Elem: 'static;
    /// Runs `f`, a callee that only takes `&mut [Elem]`, on the elements: `[T]` calls
    /// `f(self)`; a [`Split`] gathers the elements into a scratch vector, calls `f`, and
    /// scatters them back (correct, and a copy each way).
    fn with_slice<T>(&mut self, f: impl FnOnce(&mut [Self::Elem]) -> T) -> T;
}

/// Today's storage, and every plain slice: the element itself.
impl<T: Copy> Places for [T] {
    type Elem = T;
    type Sub<'s>
        = &'s mut [T]
    where
        Self: 's;
    type Ref<'r>
        = &'r mut T
    where
        Self: 'r;
    #[inline(always)]
    fn len(&self) -> usize {
        <[T]>::len(self)
    }
    #[inline(always)]
    #[track_caller]
    fn get(&self, i: usize) -> T {
        self[i]
    }
    #[inline(always)]
    #[track_caller]
    fn set(&mut self, i: usize, v: T) {
        self[i] = v;
    }
    #[inline(always)]
    #[track_caller]
    fn at(&mut self, i: usize) -> &mut T {
        &mut self[i]
    }
    #[inline(always)]
    #[track_caller]
    fn set_adjoint(&mut self, i: usize, v: T) {
        self[i] = v;
    }
    #[inline(always)]
    #[track_caller]
    fn sub(&mut self, r: Range<usize>) -> &mut [T] {
        &mut self[r]
    }
    #[inline]
    fn planes<R: 'static>(&mut self) -> Option<Planes<R>>
    where
        T: 'static,
    {
        Planes::of(self.as_mut_ptr())
    }
    #[inline(always)]
    fn with_slice<U>(&mut self, f: impl FnOnce(&mut [T]) -> U) -> U {
        f(self)
    }
}

/// A container passed on: forwarded.
impl<P: Places + ?Sized> Places for &mut P {
    type Elem = P::Elem;
    type Sub<'s>
        = P::Sub<'s>
    where
        Self: 's;
    type Ref<'r>
        = P::Ref<'r>
    where
        Self: 'r;
    #[inline(always)]
    fn len(&self) -> usize {
        P::len(self)
    }
    #[inline(always)]
    #[track_caller]
    fn get(&self, i: usize) -> P::Elem {
        P::get(self, i)
    }
    #[inline(always)]
    #[track_caller]
    fn set(&mut self, i: usize, v: P::Elem) {
        P::set(self, i, v)
    }
    #[inline(always)]
    #[track_caller]
    fn at(&mut self, i: usize) -> P::Ref<'_> {
        P::at(self, i)
    }
    #[inline(always)]
    #[track_caller]
    fn set_adjoint(&mut self, i: usize, v: P::Elem) {
        P::set_adjoint(self, i, v)
    }
    #[inline(always)]
    #[track_caller]
    fn sub(&mut self, r: Range<usize>) -> P::Sub<'_> {
        P::sub(self, r)
    }
    #[inline(always)]
    fn planes<R: 'static>(&mut self) -> Option<Planes<R>>
    where
        P::Elem: 'static,
    {
        P::planes(self)
    }
    #[inline(always)]
    fn with_slice<U>(&mut self, f: impl FnOnce(&mut [P::Elem]) -> U) -> U {
        P::with_slice(self, f)
    }
}

/// Split storage of a slice of gradient numbers `N`: the values in one plane, the adjoints in
/// another, of one length (checked when made). Named by its element, as `[N]` is: a value
/// type alone does not say which number it joins into (`Complex<f64>` values join into
/// `Complex<GVar<f64>>`).
///
/// ```
/// use nilang::ad::places::{Places, Split};
/// use nilang::GVar;
/// let (mut x, mut g) = ([1.0, 2.0, 3.0], [0.0; 3]);
/// let mut s = Split::<GVar<f64>>::new(&mut x, &mut g);
/// let mut v = s.get(1);
/// v.g += 0.5;
/// s.set_adjoint(1, v);
/// assert_eq!((x, g), ([1.0, 2.0, 3.0], [0.0, 0.5, 0.0]));
/// ```
#[derive(Debug)]
pub struct Split<'a, N: SplitNum> {
    x: &'a mut [N::Value],
    g: &'a mut [N::Value],
}

impl<'a, N: SplitNum> Split<'a, N> {
    /// The container of values `x` and adjoints `g`.
    ///
    /// # Panics
    /// If the planes differ in length.
    #[track_caller]
    pub fn new(x: &'a mut [N::Value], g: &'a mut [N::Value]) -> Self {
        let (nx, ng) = (<[_]>::len(x), <[_]>::len(g));
        assert_eq!(
            nx, ng,
            "Split::new: the value plane has {nx} elements and the adjoint plane {ng}"
        );
        Split { x, g }
    }

    /// The two planes, values then adjoints.
    pub fn into_planes(self) -> (&'a mut [N::Value], &'a mut [N::Value]) {
        (self.x, self.g)
    }

    /// The value plane.
    pub fn values(&self) -> &[N::Value] {
        self.x
    }

    /// The adjoint plane.
    pub fn adjoints(&self) -> &[N::Value] {
        self.g
    }

    #[inline(always)]
    #[track_caller]
    fn check(&self, i: usize) {
        let n = <[_]>::len(self.x);
        if i >= n {
            out_of_bounds(i, n);
        }
    }
}

#[cold]
#[inline(never)]
#[track_caller]
fn out_of_bounds(i: usize, n: usize) -> ! {
    panic!("index out of bounds: the len is {n} but the index is {i}")
}

impl<N: SplitNum> Places for Split<'_, N> {
    type Elem = N;
    type Sub<'s>
        = Split<'s, N>
    where
        Self: 's;
    type Ref<'r>
        = SplitRef<'r, N>
    where
        Self: 'r;
    #[inline(always)]
    fn len(&self) -> usize {
        <[_]>::len(self.x)
    }
    #[inline(always)]
    #[track_caller]
    fn get(&self, i: usize) -> N {
        self.check(i);
        // SAFETY: `i < x.len() == g.len()` (checked above and in `new`)
        unsafe { N::join(*self.x.get_unchecked(i), *self.g.get_unchecked(i)) }
    }
    #[inline(always)]
    #[track_caller]
    fn set(&mut self, i: usize, v: N) {
        self.check(i);
        // SAFETY: as in `get`
        unsafe {
            *self.x.get_unchecked_mut(i) = v.value();
            *self.g.get_unchecked_mut(i) = v.adjoint();
        }
    }
    #[inline(always)]
    #[track_caller]
    fn at(&mut self, i: usize) -> SplitRef<'_, N> {
        self.check(i);
        // SAFETY: as in `get`
        let (x, g) = unsafe { (self.x.get_unchecked_mut(i), self.g.get_unchecked_mut(i)) };
        let v = N::join(*x, *g);
        SplitRef { x, g, v }
    }
    #[inline(always)]
    #[track_caller]
    fn set_adjoint(&mut self, i: usize, v: N) {
        self.check(i);
        // SAFETY: as in `get`
        unsafe { *self.g.get_unchecked_mut(i) = v.adjoint() };
    }
    #[inline(always)]
    #[track_caller]
    fn sub(&mut self, r: Range<usize>) -> Split<'_, N> {
        Split {
            x: &mut self.x[r.clone()],
            g: &mut self.g[r],
        }
    }
    #[inline]
    fn planes<R: 'static>(&mut self) -> Option<Planes<R>>
    where
        N: 'static,
    {
        // `N` is `GVar<R>`: its planes are slices of `R`
        (TypeId::of::<N>() == TypeId::of::<GVar<R>>()).then(|| Planes {
            x: self.x.as_mut_ptr().cast(),
            g: Some(self.g.as_mut_ptr().cast()),
            s: 1,
        })
    }
    fn with_slice<U>(&mut self, f: impl FnOnce(&mut [N]) -> U) -> U {
        let mut scratch: Vec<N> = self
            .x
            .iter()
            .zip(self.g.iter())
            .map(|(&x, &g)| N::join(x, g))
            .collect();
        let out = f(&mut scratch);
        for ((x, g), v) in self.x.iter_mut().zip(self.g.iter_mut()).zip(&scratch) {
            (*x, *g) = (v.value(), v.adjoint());
        }
        out
    }
}

/// An element of a [`Split`] lent by [`Places::at`]: the joined number, written back to the
/// value and adjoint planes when the guard is dropped (also when a panic unwinds through it).
///
/// ```
/// use nilang::ad::places::Places;
/// use nilang::ad::Split;
/// use nilang::GVar;
/// let (mut x, mut g) = ([1.0, 2.0], [0.0; 2]);
/// let mut s = Split::<GVar<f64>>::new(&mut x, &mut g);
/// {
///     let mut e = s.at(1);
///     e.x *= 3.0;
///     e.g += 0.5;
/// }
/// assert_eq!((x, g), ([1.0, 6.0], [0.0, 0.5]));
/// ```
#[derive(Debug)]
pub struct SplitRef<'r, N: SplitNum> {
    x: &'r mut N::Value,
    g: &'r mut N::Value,
    v: N,
}

impl<N: SplitNum> Deref for SplitRef<'_, N> {
    type Target = N;
    #[inline(always)]
    fn deref(&self) -> &N {
        &self.v
    }
}

impl<N: SplitNum> DerefMut for SplitRef<'_, N> {
    #[inline(always)]
    fn deref_mut(&mut self) -> &mut N {
        &mut self.v
    }
}

impl<N: SplitNum> Drop for SplitRef<'_, N> {
    #[inline(always)]
    fn drop(&mut self) {
        (*self.x, *self.g) = (self.v.value(), self.v.adjoint());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::numbers::F64x4;

    type C = Complex<GVar<f64>>;

    fn cg(re: f64, im: f64, gre: f64, gim: f64) -> C {
        Complex::new(GVar::new(re, gre), GVar::new(im, gim))
    }

    /// The same walk on any container: get, set, set_adjoint, sub, len.
    fn walk<P: Places + ?Sized>(p: &mut P, f: impl Fn(P::Elem) -> P::Elem) -> Vec<P::Elem> {
        let n = p.len();
        let v = p.get(n - 1);
        p.set(0, f(v));
        let w = p.get(1);
        p.set_adjoint(1, f(w));
        {
            let mut s = p.sub(1..n);
            assert_eq!(s.len(), n - 1);
            let u = s.get(0);
            s.set(n - 2, u);
        }
        (0..n).map(|i| p.get(i)).collect()
    }

    #[test]
    fn real_slices() {
        let mut x = [1.0, 2.0, 3.0];
        let got = walk(&mut x[..], |v| 10.0 * v);
        assert_eq!(got, [30.0, 20.0, 20.0]);
        assert_eq!(x, [30.0, 20.0, 20.0]);
        // through a forwarding reference
        let mut r: &mut [f64] = &mut x;
        assert_eq!(Places::get(&r, 2), 20.0);
        Places::set(&mut r, 2, -1.0);
        assert_eq!(x, [30.0, 20.0, -1.0]);
        let p = Places::planes::<f64>(&mut x[..]).unwrap();
        assert_eq!((p.s, p.g, p.x), (1, None, x.as_mut_ptr()));
        assert!(Places::planes::<f32>(&mut x[..]).is_none());
        let s = Places::with_slice(&mut x[..], |v| {
            v[0] = 0.0;
            v.len()
        });
        assert_eq!((s, x[0]), (3, 0.0));
    }

    #[test]
    fn gvar_slices() {
        let mut x = [
            GVar::new(1.0, 0.1),
            GVar::new(2.0, 0.2),
            GVar::new(3.0, 0.3),
        ];
        let twice = |v: GVar<f64>| GVar::new(2.0 * v.x, 2.0 * v.g);
        let got = walk(&mut x[..], twice);
        let want = [
            GVar::new(6.0, 0.6),
            GVar::new(4.0, 0.4),
            GVar::new(4.0, 0.4),
        ];
        assert_eq!(got, want);
        assert_eq!(x, want);
        let p = Places::planes::<f64>(&mut x[..]).unwrap();
        assert_eq!(p.s, 2);
        // SAFETY: `x` has three elements, read through its planes
        let (v2, g2) = unsafe { (*p.x.add(4), *p.g.unwrap().add(4)) };
        assert_eq!((v2, g2), (4.0, 0.4));
    }

    #[test]
    fn complex_slices() {
        let mut x = [cg(1.0, 2.0, 0.0, 0.5), cg(3.0, 4.0, 1.0, 0.0)];
        let conj = |v: C| Complex::new(v.re, GVar::new(-v.im.x, -v.im.g));
        let got = walk(&mut x[..], conj);
        let want = [cg(3.0, -4.0, 1.0, 0.0), cg(3.0, -4.0, 1.0, 0.0)];
        assert_eq!(got, want);
        assert!(Places::planes::<f64>(&mut x[..]).is_none());
    }

    #[test]
    fn split_gvar() {
        let (mut x, mut g) = ([1.0, 2.0, 3.0], [0.1, 0.2, 0.3]);
        let mut s = Split::<GVar<f64>>::new(&mut x, &mut g);
        let got = walk(&mut s, |v| GVar::new(2.0 * v.x, 2.0 * v.g));
        let want = [
            GVar::new(6.0, 0.6),
            GVar::new(2.0, 0.4),
            GVar::new(2.0, 0.4),
        ];
        assert_eq!(got, want);
        let p = s.planes::<f64>().unwrap();
        assert_eq!(p.s, 1);
        // SAFETY: both planes have three elements
        assert_eq!(unsafe { (*p.x.add(1), *p.g.unwrap().add(1)) }, (2.0, 0.4));
        assert!(s.planes::<f32>().is_none());
        assert_eq!(s.values(), [6.0, 2.0, 2.0]);
        // set_adjoint left value 1 as it was (2.0), the value of set(2, ..) is element 1's
        assert_eq!((x, g), ([6.0, 2.0, 2.0], [0.6, 0.4, 0.4]));
    }

    #[test]
    fn split_complex_and_lanes() {
        let z = |a: f64, b: f64| Complex::new(a, b);
        let (mut x, mut g) = ([z(1.0, 2.0), z(3.0, 4.0)], [z(0.0, 0.5), z(1.0, 0.0)]);
        let mut s = Split::<C>::new(&mut x, &mut g);
        let conj = |v: C| Complex::new(v.re, GVar::new(-v.im.x, -v.im.g));
        let got = walk(&mut s, conj);
        // as on interleaved storage (`complex_slices`), except that `set_adjoint` left the
        // value of element 1 as it was
        assert_eq!(got, [cg(3.0, -4.0, 1.0, 0.0), cg(3.0, 4.0, 1.0, 0.0)]);
        assert!(s.planes::<f64>().is_none());
        assert_eq!((x[0], g[0]), (z(3.0, -4.0), z(1.0, 0.0)));

        let l = |v: f64| F64x4::new([v, v + 1.0, v + 2.0, v + 3.0]);
        let (mut x, mut g) = ([l(1.0), l(2.0)], [l(0.0), l(0.0)]);
        let mut s = Split::<GVar<F64x4>>::new(&mut x, &mut g);
        s.set(1, GVar::new(l(5.0), l(7.0)));
        let v = s.get(1);
        assert_eq!(
            (v.x.to_array(), v.g.to_array()),
            (l(5.0).to_array(), l(7.0).to_array())
        );
        assert_eq!(s.get(0).x.to_array(), [1.0, 2.0, 3.0, 4.0]);
        assert!(s.planes::<f64>().is_none());
        assert_eq!(
            (x[1].to_array(), g[1].to_array()),
            ([5.0, 6.0, 7.0, 8.0], [7.0, 8.0, 9.0, 10.0])
        );
    }

    /// `at` lends element `i` in place on every container: what is written through it is
    /// there afterwards, and only there.
    fn lend<P: Places<Elem = GVar<f64>> + ?Sized>(p: &mut P) -> Vec<GVar<f64>> {
        {
            let mut e = p.at(1);
            e.x *= 3.0;
            e.g += 0.5;
        }
        let mut e = p.at(0);
        *e = GVar::new(-1.0, -2.0);
        drop(e);
        (0..p.len()).map(|i| p.get(i)).collect()
    }

    #[test]
    fn lent_elements() {
        let want = [
            GVar::new(-1.0, -2.0),
            GVar::new(6.0, 0.75),
            GVar::new(3.0, 0.3),
        ];
        let mut x = [
            GVar::new(1.0, 0.1),
            GVar::new(2.0, 0.25),
            GVar::new(3.0, 0.3),
        ];
        assert_eq!(lend(&mut x[..]), want);
        let mut x = [
            GVar::new(1.0, 0.1),
            GVar::new(2.0, 0.25),
            GVar::new(3.0, 0.3),
        ];
        let mut r: &mut [GVar<f64>] = &mut x;
        assert_eq!(lend(&mut r), want);
        let (mut x, mut g) = ([1.0, 2.0, 3.0], [0.1, 0.25, 0.3]);
        let mut s = Split::<GVar<f64>>::new(&mut x, &mut g);
        assert_eq!(lend(&mut s), want);
        assert_eq!((x, g), ([-1.0, 6.0, 3.0], [-2.0, 0.75, 0.3]));
    }

    #[test]
    #[should_panic(expected = "the len is 2 but the index is 2")]
    fn split_at_bounds() {
        let (mut x, mut g) = ([1.0, 2.0], [0.0, 0.0]);
        let _ = Split::<GVar<f64>>::new(&mut x, &mut g).at(2);
    }

    #[test]
    fn split_with_slice() {
        let (mut x, mut g) = ([1.0, 2.0], [0.0, 0.0]);
        let mut s = Split::<GVar<f64>>::new(&mut x, &mut g);
        let n = s.with_slice(|v| {
            v[1].g = 3.0;
            v[0].x = -1.0;
            v.len()
        });
        assert_eq!((n, x, g), (2, [-1.0, 2.0], [0.0, 3.0]));
    }

    #[test]
    #[should_panic(expected = "the len is 2 but the index is 2")]
    fn split_bounds() {
        let (mut x, mut g) = ([1.0, 2.0], [0.0, 0.0]);
        Split::<GVar<f64>>::new(&mut x, &mut g).get(2);
    }

    #[test]
    #[should_panic(expected = "the value plane has 2 elements and the adjoint plane 1")]
    fn split_lengths() {
        let (mut x, mut g) = ([1.0, 2.0], [0.0]);
        Split::<GVar<f64>>::new(&mut x, &mut g);
    }
}
