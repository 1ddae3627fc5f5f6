//! [`GradArg`]: how each kind of argument is seen by the gradient API.
//!
//! A reversible function's arguments (`&mut f64`, `&mut [f64]`, `&[f64]`, `&mut [f64; N]`,
//! `usize`, ...) are copied into storage of gradient numbers `GVar<S>`, borrowed in the same
//! shape for the inverse run, and read back as values and gradients.
use super::GVar;
use crate::numbers::Real;

/// A plain element type `E` lifted into the scalar `S` of a gradient computation (`f64` into
/// `f64`, or into a vector of lanes for one-pass Jacobians).
pub trait Lift<E>: Copy + Default {
    /// The element as a scalar.
    fn lift(e: E) -> Self;
    /// The element back (value lane).
    fn lower(self) -> E;
}
impl<E: Real> Lift<E> for E {
    #[inline(always)]
    fn lift(e: E) -> Self {
        e
    }
    #[inline(always)]
    fn lower(self) -> E {
        self
    }
}

/// The differentiable scalar slots of one stored argument: a slice (scalars, slices, arrays)
/// or the fields of a struct (see [`grad_struct!`](crate::grad_struct)).
pub enum Slots<'a, S> {
    /// Contiguous slots.
    Slice(&'a mut [GVar<S>]),
    /// One slot per struct field.
    Fields(Vec<&'a mut GVar<S>>),
}

impl<'a, S> Slots<'a, S> {
    /// The number of slots.
    pub fn len(&self) -> usize {
        match self {
            Slots::Slice(s) => s.len(),
            Slots::Fields(v) => v.len(),
        }
    }
    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The slots in order.
    pub fn iter(&self) -> impl Iterator<Item = &GVar<S>> + '_ {
        (0..self.len()).map(move |k| &self[k])
    }
    /// The slots in order, mutably.
    pub fn iter_mut(&mut self) -> SlotsIterMut<'_, 'a, S> {
        match self {
            Slots::Slice(s) => SlotsIterMut::Slice(s.iter_mut()),
            Slots::Fields(v) => SlotsIterMut::Fields(v.iter_mut()),
        }
    }
}

/// Mutable iterator over [`Slots`].
pub enum SlotsIterMut<'s, 'a, S> {
    #[doc(hidden)]
    Slice(core::slice::IterMut<'s, GVar<S>>),
    #[doc(hidden)]
    Fields(core::slice::IterMut<'s, &'a mut GVar<S>>),
}

impl<'s, 'a: 's, S> Iterator for SlotsIterMut<'s, 'a, S> {
    type Item = &'s mut GVar<S>;
    fn next(&mut self) -> Option<&'s mut GVar<S>> {
        match self {
            SlotsIterMut::Slice(i) => i.next(),
            SlotsIterMut::Fields(i) => i.next().map(|r| &mut **r),
        }
    }
}

impl<S> core::ops::Index<usize> for Slots<'_, S> {
    type Output = GVar<S>;
    fn index(&self, k: usize) -> &GVar<S> {
        match self {
            Slots::Slice(s) => &s[k],
            Slots::Fields(v) => v[k],
        }
    }
}
impl<S> core::ops::IndexMut<usize> for Slots<'_, S> {
    fn index_mut(&mut self, k: usize) -> &mut GVar<S> {
        match self {
            Slots::Slice(s) => &mut s[k],
            Slots::Fields(v) => v[k],
        }
    }
}

/// One argument of a reversible function, for the gradient API.
pub trait GradArg {
    /// The plain element type.
    type Elem: Real;
    /// Owned copy of the argument's plain values.
    type PStore;
    /// The plain copy borrowed in the shape of the argument.
    type PBorrow<'b>;
    /// Owned storage of the argument with gradient numbers over `S`.
    type Store<S: Lift<Self::Elem>>: Clone;
    /// The storage borrowed in the shape of the argument.
    type Borrow<'b, S: Lift<Self::Elem> + 'b>;
    /// Copy the plain values.
    fn pstore(&self) -> Self::PStore;
    /// Borrow the plain copy as an argument.
    fn pborrow(s: &mut Self::PStore) -> Self::PBorrow<'_>;
    /// Copy the current values into gradient numbers with zero gradient.
    fn store<S: Lift<Self::Elem>>(&self) -> Self::Store<S>;
    /// Gradient storage from a plain copy.
    fn store_from<S: Lift<Self::Elem>>(p: &Self::PStore) -> Self::Store<S>;
    /// Borrow the storage as an argument.
    fn borrow<S: Lift<Self::Elem>>(s: &mut Self::Store<S>) -> Self::Borrow<'_, S>;
    /// The differentiable slots of the storage (empty for integers and read-only arguments).
    fn slots<S: Lift<Self::Elem>>(s: &mut Self::Store<S>) -> Slots<'_, S>;
    /// Write the stored values back into the argument (in-out arguments only).
    fn restore<S: Lift<Self::Elem>>(&mut self, s: &Self::Store<S>);
}

impl<E: Real> GradArg for &mut E {
    type Elem = E;
    type PStore = E;
    type PBorrow<'b> = &'b mut E;
    type Store<S: Lift<E>> = GVar<S>;
    type Borrow<'b, S: Lift<E> + 'b> = &'b mut GVar<S>;
    fn pstore(&self) -> E {
        **self
    }
    fn pborrow(s: &mut E) -> &mut E {
        s
    }
    fn store<S: Lift<E>>(&self) -> GVar<S> {
        GVar::from(S::lift(**self))
    }
    fn store_from<S: Lift<E>>(p: &E) -> GVar<S> {
        GVar::from(S::lift(*p))
    }
    fn borrow<S: Lift<E>>(s: &mut GVar<S>) -> &mut GVar<S> {
        s
    }
    fn slots<S: Lift<E>>(s: &mut GVar<S>) -> Slots<'_, S> {
        Slots::Slice(core::slice::from_mut(s))
    }
    fn restore<S: Lift<E>>(&mut self, s: &GVar<S>) {
        **self = s.x.lower();
    }
}

impl<E: Real> GradArg for &mut [E] {
    type Elem = E;
    type PStore = Vec<E>;
    type PBorrow<'b> = &'b mut [E];
    type Store<S: Lift<E>> = Vec<GVar<S>>;
    type Borrow<'b, S: Lift<E> + 'b> = &'b mut [GVar<S>];
    fn pstore(&self) -> Vec<E> {
        self.to_vec()
    }
    fn pborrow(s: &mut Vec<E>) -> &mut [E] {
        s
    }
    fn store<S: Lift<E>>(&self) -> Vec<GVar<S>> {
        self.iter().map(|&e| GVar::from(S::lift(e))).collect()
    }
    fn store_from<S: Lift<E>>(p: &Vec<E>) -> Vec<GVar<S>> {
        p.iter().map(|&e| GVar::from(S::lift(e))).collect()
    }
    fn borrow<S: Lift<E>>(s: &mut Vec<GVar<S>>) -> &mut [GVar<S>] {
        s
    }
    fn slots<S: Lift<E>>(s: &mut Vec<GVar<S>>) -> Slots<'_, S> {
        Slots::Slice(s)
    }
    fn restore<S: Lift<E>>(&mut self, s: &Vec<GVar<S>>) {
        for (d, v) in self.iter_mut().zip(s) {
            *d = v.x.lower();
        }
    }
}

impl<E: Real, const N: usize> GradArg for &mut [E; N] {
    type Elem = E;
    type PStore = [E; N];
    type PBorrow<'b> = &'b mut [E; N];
    type Store<S: Lift<E>> = [GVar<S>; N];
    type Borrow<'b, S: Lift<E> + 'b> = &'b mut [GVar<S>; N];
    fn pstore(&self) -> [E; N] {
        **self
    }
    fn pborrow(s: &mut [E; N]) -> &mut [E; N] {
        s
    }
    fn store<S: Lift<E>>(&self) -> [GVar<S>; N] {
        core::array::from_fn(|k| GVar::from(S::lift(self[k])))
    }
    fn store_from<S: Lift<E>>(p: &[E; N]) -> [GVar<S>; N] {
        core::array::from_fn(|k| GVar::from(S::lift(p[k])))
    }
    fn borrow<S: Lift<E>>(s: &mut [GVar<S>; N]) -> &mut [GVar<S>; N] {
        s
    }
    fn slots<S: Lift<E>>(s: &mut [GVar<S>; N]) -> Slots<'_, S> {
        Slots::Slice(s)
    }
    fn restore<S: Lift<E>>(&mut self, s: &[GVar<S>; N]) {
        for (d, v) in self.iter_mut().zip(s) {
            *d = v.x.lower();
        }
    }
}

impl<E: Real> GradArg for &[E] {
    type Elem = E;
    type PStore = Vec<E>;
    type PBorrow<'b> = &'b [E];
    type Store<S: Lift<E>> = Vec<GVar<S>>;
    type Borrow<'b, S: Lift<E> + 'b> = &'b [GVar<S>];
    fn pstore(&self) -> Vec<E> {
        self.to_vec()
    }
    fn pborrow(s: &mut Vec<E>) -> &[E] {
        s
    }
    fn store<S: Lift<E>>(&self) -> Vec<GVar<S>> {
        self.iter().map(|&e| GVar::from(S::lift(e))).collect()
    }
    fn store_from<S: Lift<E>>(p: &Vec<E>) -> Vec<GVar<S>> {
        p.iter().map(|&e| GVar::from(S::lift(e))).collect()
    }
    fn borrow<S: Lift<E>>(s: &mut Vec<GVar<S>>) -> &[GVar<S>] {
        s
    }
    fn slots<S: Lift<E>>(_: &mut Vec<GVar<S>>) -> Slots<'_, S> {
        Slots::Slice(&mut [])
    }
    fn restore<S: Lift<E>>(&mut self, _: &Vec<GVar<S>>) {}
}

impl<E: Real> GradArg for &E {
    type Elem = E;
    type PStore = E;
    type PBorrow<'b> = &'b E;
    type Store<S: Lift<E>> = GVar<S>;
    type Borrow<'b, S: Lift<E> + 'b> = &'b GVar<S>;
    fn pstore(&self) -> E {
        **self
    }
    fn pborrow(s: &mut E) -> &E {
        s
    }
    fn store<S: Lift<E>>(&self) -> GVar<S> {
        GVar::from(S::lift(**self))
    }
    fn store_from<S: Lift<E>>(p: &E) -> GVar<S> {
        GVar::from(S::lift(*p))
    }
    fn borrow<S: Lift<E>>(s: &mut GVar<S>) -> &GVar<S> {
        s
    }
    fn slots<S: Lift<E>>(_: &mut GVar<S>) -> Slots<'_, S> {
        Slots::Slice(&mut [])
    }
    fn restore<S: Lift<E>>(&mut self, _: &GVar<S>) {}
}

macro_rules! int_arg {
    ($($t:ty),*) => {$(
        impl GradArg for $t {
            type Elem = f64;
            type PStore = $t;
            type PBorrow<'b> = $t;
            type Store<S: Lift<f64>> = $t;
            type Borrow<'b, S: Lift<f64> + 'b> = $t;
            fn pstore(&self) -> $t { *self }
            fn pborrow(s: &mut $t) -> $t { *s }
            fn store<S: Lift<f64>>(&self) -> $t { *self }
            fn store_from<S: Lift<f64>>(p: &$t) -> $t { *p }
            fn borrow<S: Lift<f64>>(s: &mut $t) -> $t { *s }
            fn slots<S: Lift<f64>>(_: &mut $t) -> Slots<'_, S> { Slots::Slice(&mut []) }
            fn restore<S: Lift<f64>>(&mut self, _: &$t) {}
        }
        impl<'a> GradArg for &'a mut $t {
            type Elem = f64;
            type PStore = $t;
            type PBorrow<'b> = &'b mut $t;
            type Store<S: Lift<f64>> = $t;
            type Borrow<'b, S: Lift<f64> + 'b> = &'b mut $t;
            fn pstore(&self) -> $t { **self }
            fn pborrow(s: &mut $t) -> &mut $t { s }
            fn store<S: Lift<f64>>(&self) -> $t { **self }
            fn store_from<S: Lift<f64>>(p: &$t) -> $t { *p }
            fn borrow<S: Lift<f64>>(s: &mut $t) -> &mut $t { s }
            fn slots<S: Lift<f64>>(_: &mut $t) -> Slots<'_, S> { Slots::Slice(&mut []) }
            fn restore<S: Lift<f64>>(&mut self, s: &$t) { **self = *s; }
        }
    )*};
}
int_arg!(usize, isize, i32, i64, u32, u64, bool);

/// A tuple of [`GradArg`]s: the whole argument list of a reversible function.
pub trait GradArgs {
    /// The plain element type (shared by all float arguments).
    type Elem: Real;
    /// Plain copy tuple.
    type PStore;
    /// Borrowed plain copy tuple.
    type PBorrow<'b>;
    /// Storage tuple.
    type Store<S: Lift<Self::Elem>>: Clone;
    /// Borrowed storage tuple.
    type Borrow<'b, S: Lift<Self::Elem> + 'b>;
    /// Copy every argument's plain values.
    fn pstore(&self) -> Self::PStore;
    /// Borrow the plain copies.
    fn pborrow(s: &mut Self::PStore) -> Self::PBorrow<'_>;
    /// Build the gradient storage from plain copies.
    fn store_from<S: Lift<Self::Elem>>(p: &Self::PStore) -> Self::Store<S>;
    /// Store every argument.
    fn store<S: Lift<Self::Elem>>(&self) -> Self::Store<S>;
    /// Borrow every stored argument.
    fn borrow<S: Lift<Self::Elem>>(s: &mut Self::Store<S>) -> Self::Borrow<'_, S>;
    /// The differentiable slots of argument `k`.
    fn slots<S: Lift<Self::Elem>>(s: &mut Self::Store<S>, k: usize) -> Slots<'_, S>;
    /// Write stored values back into every in-out argument.
    fn restore<S: Lift<Self::Elem>>(&mut self, s: &Self::Store<S>);
    /// The number of arguments.
    const LEN: usize;
}

macro_rules! tuple_args {
    ($n:expr; $($i:tt $a:ident),*) => {
        impl<E: Real, $($a: GradArg<Elem = E>),*> GradArgs for ($($a,)*) {
            type Elem = E;
            type PStore = ($($a::PStore,)*);
            type PBorrow<'b> = ($($a::PBorrow<'b>,)*);
            type Store<S: Lift<E>> = ($($a::Store<S>,)*);
            type Borrow<'b, S: Lift<E> + 'b> = ($($a::Borrow<'b, S>,)*);
            fn pstore(&self) -> Self::PStore { ($(self.$i.pstore(),)*) }
            fn pborrow(s: &mut Self::PStore) -> Self::PBorrow<'_> { ($($a::pborrow(&mut s.$i),)*) }
            fn store_from<S: Lift<E>>(p: &Self::PStore) -> Self::Store<S> { ($($a::store_from::<S>(&p.$i),)*) }
            fn store<S: Lift<E>>(&self) -> Self::Store<S> { ($(self.$i.store::<S>(),)*) }
            fn borrow<S: Lift<E>>(s: &mut Self::Store<S>) -> Self::Borrow<'_, S> {
                ($($a::borrow::<S>(&mut s.$i),)*)
            }
            fn slots<S: Lift<E>>(s: &mut Self::Store<S>, k: usize) -> Slots<'_, S> {
                match k {
                    $($i => $a::slots::<S>(&mut s.$i),)*
                    _ => panic!("nilang: argument index {k} out of range (the function has {} arguments)", $n),
                }
            }
            fn restore<S: Lift<E>>(&mut self, s: &Self::Store<S>) { $(self.$i.restore::<S>(&s.$i);)* }
            const LEN: usize = $n;
        }
    };
}
tuple_args!(1; 0 A0);
tuple_args!(2; 0 A0, 1 A1);
tuple_args!(3; 0 A0, 1 A1, 2 A2);
tuple_args!(4; 0 A0, 1 A1, 2 A2, 3 A3);
tuple_args!(5; 0 A0, 1 A1, 2 A2, 3 A3, 4 A4);
tuple_args!(6; 0 A0, 1 A1, 2 A2, 3 A3, 4 A4, 5 A5);
tuple_args!(7; 0 A0, 1 A1, 2 A2, 3 A3, 4 A4, 5 A5, 6 A6);
tuple_args!(8; 0 A0, 1 A1, 2 A2, 3 A3, 4 A4, 5 A5, 6 A6, 7 A7);

impl<E: Real> Lift<E> for GVar<E> {
    #[inline(always)]
    fn lift(e: E) -> Self {
        GVar::from(e)
    }
    #[inline(always)]
    fn lower(self) -> E {
        self.x
    }
}

/// Let the gradient API take a user struct of scalars: `grad_struct!(Params { a, b, c })` for
/// `struct Params<T> { a: T, b: T, c: T }` (generic over its scalar, `Clone + Copy`) implements
/// [`GradArg`] for `&mut Params<E>`: its fields are the differentiable slots, in order.
///
/// ```
/// use nilang::prelude::*;
/// #[derive(Clone, Copy, Debug, Default)]
/// struct Point<T> { x: T, y: T }
/// nilang::grad_struct!(Point { x, y });
///
/// #[i]
/// fn r2<T: Scalar>(out: &mut T, p: &mut Point<T>) {
///     out += abs2(p.x);
///     out += abs2(p.y);
/// }
/// let (mut out, mut p) = (0.0, Point { x: 3.0, y: 4.0 });
/// let (_, gp) = nilang::gradient(&R2, (&mut out, &mut p), 0);
/// assert_eq!((gp.x.g, gp.y.g), (6.0, 8.0));
/// ```
#[macro_export]
macro_rules! grad_struct {
    ($name:ident { $($field:ident),+ $(,)? }) => {
        impl<E: $crate::Real> $crate::ad::GradArg for &mut $name<E> {
            type Elem = E;
            type PStore = $name<E>;
            type PBorrow<'b> = &'b mut $name<E>;
            type Store<S: $crate::ad::Lift<E>> = $name<$crate::GVar<S>>;
            type Borrow<'b, S: $crate::ad::Lift<E> + 'b> = &'b mut $name<$crate::GVar<S>>;
            fn pstore(&self) -> $name<E> {
                $name { $($field: self.$field),+ }
            }
            fn pborrow(s: &mut $name<E>) -> &mut $name<E> {
                s
            }
            fn store<S: $crate::ad::Lift<E>>(&self) -> $name<$crate::GVar<S>> {
                $name { $($field: $crate::GVar::from(S::lift(self.$field))),+ }
            }
            fn store_from<S: $crate::ad::Lift<E>>(p: &$name<E>) -> $name<$crate::GVar<S>> {
                $name { $($field: $crate::GVar::from(S::lift(p.$field))),+ }
            }
            fn borrow<S: $crate::ad::Lift<E>>(s: &mut $name<$crate::GVar<S>>) -> &mut $name<$crate::GVar<S>> {
                s
            }
            fn slots<S: $crate::ad::Lift<E>>(s: &mut $name<$crate::GVar<S>>) -> $crate::ad::Slots<'_, S> {
                $crate::ad::Slots::Fields(vec![$(&mut s.$field),+])
            }
            fn restore<S: $crate::ad::Lift<E>>(&mut self, s: &$name<$crate::GVar<S>>) {
                $(self.$field = $crate::ad::Lift::lower(s.$field.x);)+
            }
        }
    };
}
