//! [`GradArg`]: how each kind of argument is seen by the gradient API.
//!
//! A reversible function's arguments (`&mut f64`, `&mut [f64]`, `&[f64]`, `&mut [f64; N]`,
//! `usize`, ...) are copied into storage of gradient numbers `GVar<S>`, borrowed in the same
//! shape for the inverse run, and read back as values and gradients.
pub use super::fields::{FieldSlots, LiftField};
use super::GVar;
pub use crate::number::Elem;
use crate::numbers::{Dual, Duals, Real, Tangents};
use num_complex::Complex;

/// A plain element type `E` lifted into the scalar `S` of a gradient computation (`f64` into
/// `f64`, or into a vector of lanes for one-pass Jacobians).
pub trait Lift<E>: Copy + Default {
    /// The element as a scalar.
    fn lift(e: E) -> Self;
    /// The element back (value lane).
    fn lower(self) -> E;
    /// `dst[i] = GVar::from(lift(src[i]))` over slices of one length: what a
    /// [`Plan`](crate::ad::Plan) refreshes its storage with. Element by element unless a
    /// type has a vector form (`f64`: whole vectors of gradient numbers, the same bits).
    #[doc(hidden)]
    #[inline(always)]
    fn lift_slice(dst: &mut [GVar<Self>], src: &[E])
    where
        E: Copy,
    {
        for (d, &e) in dst.iter_mut().zip(src) {
            *d = GVar::from(Self::lift(e));
        }
    }
    /// `dst[i] = GVar::from(lift(E::default()))` (zero values, zero adjoints): what a
    /// [`Plan`](crate::ad::Plan) refreshes a `zero(..)` workspace with, the caller's values
    /// not read. One store stream (`f64`: the zero bytes of `+0.0`, the same bits).
    #[doc(hidden)]
    #[inline(always)]
    fn zero_slice(dst: &mut [GVar<Self>])
    where
        E: Default,
    {
        dst.fill(GVar::from(Self::lift(E::default())));
    }
}
impl<E: Elem> Lift<E> for E {
    #[inline(always)]
    fn lift(e: E) -> Self {
        e
    }
    #[inline(always)]
    fn lower(self) -> E {
        self
    }
    #[inline(always)]
    fn lift_slice(dst: &mut [GVar<E>], src: &[E]) {
        if !super::gvar_slices::lift(dst, src) {
            for (d, &e) in dst.iter_mut().zip(src) {
                *d = GVar::from(e);
            }
        }
    }
    #[inline(always)]
    fn zero_slice(dst: &mut [GVar<E>]) {
        if !super::gvar_slices::zero(dst) {
            dst.fill(GVar::from(E::default()));
        }
    }
}
/// `f64` arguments as dual numbers: lifted as constants, lowered to their values.
impl<T: Real> Lift<f64> for Dual<T> {
    fn lift(e: f64) -> Self {
        Dual::from_f64(e)
    }
    fn lower(self) -> f64 {
        self.to_f64()
    }
}
/// `f64` arguments as multi-tangent dual numbers: lifted as constants, lowered to their values.
impl<B: Tangents> Lift<f64> for Duals<B> {
    fn lift(e: f64) -> Self {
        Duals::constant(e)
    }
    fn lower(self) -> f64 {
        self.x
    }
}

/// The differentiable scalar slots of one stored argument: a slice (scalars, slices, arrays)
/// or the fields of a struct (see [`grad_struct!`](crate::grad_struct)).
pub enum Slots<'a, S> {
    /// Contiguous slots.
    Slice(&'a mut [GVar<S>]),
    /// One slot per struct field.
    Fields(Vec<&'a mut GVar<S>>),
    /// Complex numbers: two slots each, `re` then `im`.
    Pairs(&'a mut [Complex<GVar<S>>]),
}

impl<'a, S> Slots<'a, S> {
    /// The number of slots.
    pub fn len(&self) -> usize {
        match self {
            Slots::Slice(s) => s.len(),
            Slots::Fields(v) => v.len(),
            Slots::Pairs(z) => 2 * z.len(),
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
            Slots::Pairs(z) => SlotsIterMut::Pairs(PairsIterMut {
                numbers: z.iter_mut(),
                im: None,
            }),
        }
    }
}

/// Mutable iterator over [`Slots`].
pub enum SlotsIterMut<'s, 'a, S> {
    #[doc(hidden)]
    Slice(core::slice::IterMut<'s, GVar<S>>),
    #[doc(hidden)]
    Fields(core::slice::IterMut<'s, &'a mut GVar<S>>),
    #[doc(hidden)]
    Pairs(PairsIterMut<'s, S>),
}

/// The parts of complex slots in order, `re` then `im` (see [`Slots::Pairs`]).
pub struct PairsIterMut<'s, S> {
    numbers: core::slice::IterMut<'s, Complex<GVar<S>>>,
    im: Option<&'s mut GVar<S>>,
}

impl<'s, S> Iterator for PairsIterMut<'s, S> {
    type Item = &'s mut GVar<S>;
    #[inline]
    fn next(&mut self) -> Option<&'s mut GVar<S>> {
        if let Some(im) = self.im.take() {
            return Some(im);
        }
        let z = self.numbers.next()?;
        self.im = Some(&mut z.im);
        Some(&mut z.re)
    }
}

impl<'s, 'a: 's, S> Iterator for SlotsIterMut<'s, 'a, S> {
    type Item = &'s mut GVar<S>;
    #[inline]
    fn next(&mut self) -> Option<&'s mut GVar<S>> {
        match self {
            SlotsIterMut::Slice(i) => i.next(),
            SlotsIterMut::Fields(i) => i.next().map(|r| &mut **r),
            SlotsIterMut::Pairs(i) => i.next(),
        }
    }
}

impl<S> core::ops::Index<usize> for Slots<'_, S> {
    type Output = GVar<S>;
    fn index(&self, k: usize) -> &GVar<S> {
        match self {
            Slots::Slice(s) => &s[k],
            Slots::Fields(v) => v[k],
            Slots::Pairs(z) => [&z[k / 2].re, &z[k / 2].im][k % 2],
        }
    }
}
impl<S> core::ops::IndexMut<usize> for Slots<'_, S> {
    fn index_mut(&mut self, k: usize) -> &mut GVar<S> {
        match self {
            Slots::Slice(s) => &mut s[k],
            Slots::Fields(v) => v[k],
            Slots::Pairs(z) => {
                let c = &mut z[k / 2];
                match k % 2 {
                    0 => &mut c.re,
                    _ => &mut c.im,
                }
            }
        }
    }
}

/// One argument of a reversible function, for the gradient API.
///
/// The gradient API never changes the caller's arguments: it copies them into storage of
/// gradient numbers ([`GradArg::Store`], which a [`Plan`](crate::ad::Plan) keeps and
/// refreshes), borrows that storage in the shape the function takes ([`GradArg::Borrow`]),
/// and reads values and gradients back from it.
pub trait GradArg<E: Elem> {
    /// Owned storage of the argument with gradient numbers over `S`.
    type Store<S: Lift<E>>: Clone;
    /// The storage borrowed as an argument.
    type Borrow<'b, S: Lift<E> + 'b>;
    /// Whether the argument is a scalar `&mut` number (the only kind a loss can be).
    const SCALAR_OUT: bool = false;
    /// Copy the current values into gradient numbers with zero gradient.
    fn store<S: Lift<E>>(&self) -> Self::Store<S>;
    /// Whether `st` has this argument's shape (lengths), so [`GradArg::refresh`] can reuse it.
    #[inline]
    fn fits<S: Lift<E>>(&self, _st: &Self::Store<S>) -> bool {
        true
    }
    /// Overwrite `st` (of this argument's shape) with the current values, zero gradients.
    fn refresh<S: Lift<E>>(&self, st: &mut Self::Store<S>);
    /// Overwrite `st` (of this argument's shape) with zero values and zero gradients, the
    /// argument's values not read: a [`Plan`](crate::ad::Plan)'s refresh of a `zero(..)`
    /// workspace (which the caller passes zero). [`GradArg::refresh`] unless the argument is
    /// a slice or a `Vec`.
    #[inline]
    fn refresh_zero<S: Lift<E>>(&self, st: &mut Self::Store<S>) {
        self.refresh(st)
    }
    /// Borrow the storage as an argument.
    fn borrow<S: Lift<E>>(s: &mut Self::Store<S>) -> Self::Borrow<'_, S>;
    /// The differentiable slots of the storage (empty for integers and read-only arguments).
    fn slots<S: Lift<E>>(s: &mut Self::Store<S>) -> Slots<'_, S>;
    /// Write the stored values back into the argument (in-out arguments only).
    fn restore<S: Lift<E>>(&mut self, s: &Self::Store<S>);
}

#[inline(always)]
pub(super) fn lift_into<E: Elem, S: Lift<E>>(dst: &mut [GVar<S>], src: &[E]) {
    S::lift_slice(dst, src)
}

#[inline(always)]
pub(super) fn lower_into<E: Elem, S: Lift<E>>(dst: &mut [E], src: &[GVar<S>]) {
    for (d, v) in dst.iter_mut().zip(src) {
        *d = v.x.lower();
    }
}

/// `&mut E` (an in-out number: a scalar output) and `&E` (read only): one gradient number,
/// lifted as a struct field of the same type (`LiftField`).
macro_rules! scalar_arg {
    ($($arg:ty => &$($m:ident)?, out: $out:literal,
       slots($s:ident) $slots:expr, restore($me:ident, $st:ident) $restore:block;)*) => {$(
        impl<E: Elem> GradArg<E> for $arg {
            type Store<S: Lift<E>> = GVar<S>;
            type Borrow<'b, S: Lift<E> + 'b> = &'b $($m)? GVar<S>;
            const SCALAR_OUT: bool = $out;
            #[inline]
            fn store<S: Lift<E>>(&self) -> GVar<S> {
                (**self).lift_field()
            }
            #[inline]
            fn refresh<S: Lift<E>>(&self, st: &mut GVar<S>) {
                (**self).refresh_field(st)
            }
            #[inline]
            fn borrow<S: Lift<E>>(s: &mut GVar<S>) -> &$($m)? GVar<S> {
                s
            }
            fn slots<S: Lift<E>>($s: &mut GVar<S>) -> Slots<'_, S> {
                $slots
            }
            #[inline]
            fn restore<S: Lift<E>>(&mut $me, $st: &GVar<S>) $restore
        }
    )*};
}
scalar_arg!(
    &mut E => &mut, out: true,
        slots(s) Slots::Slice(core::slice::from_mut(s)),
        restore(self, s) { (**self).restore_field(s) };
    &E => &, out: false,
        slots(_s) Slots::Slice(&mut []),
        restore(self, _s) {};
);

/// `st` refreshed as the `zero(..)` workspace `ws` (zero values, zero adjoints), `ws` not
/// read in release builds. Debug builds read it once: passed nonzero, it is the caller's
/// mistake, reported as the function's own entry check reports it.
#[inline(always)]
pub(super) fn zero_workspace<E: Elem, S: Lift<E>>(ws: &[E], st: &mut [GVar<S>]) {
    #[cfg(debug_assertions)]
    if let Some(i) = ws.iter().position(|e| !plain_zero(e)) {
        crate::check::fail(
            crate::check::ErrorKind::Argument,
            "nilang::ad::Plan",
            "#[i(zero(..))]",
            format!(
                "a `zero(..)` workspace is not zero on entry: element {i} is {:?} (a \
                 `zero(..)` workspace must be passed zero; a release build's `Plan` \
                 takes it as zero without reading it)",
                ws[i]
            ),
        );
    }
    #[cfg(not(debug_assertions))]
    let _ = ws;
    S::zero_slice(st)
}

/// Whether `e` is zero, where it is an `f64` or an `f32` (other elements: `true`, unchecked):
/// the debug builds' check of a `zero(..)` workspace a `Plan` is given.
#[cfg(debug_assertions)]
fn plain_zero<E: 'static>(e: &E) -> bool {
    let e: &dyn core::any::Any = e;
    match (e.downcast_ref::<f64>(), e.downcast_ref::<f32>()) {
        (Some(x), _) => *x == 0.0,
        (_, Some(x)) => *x == 0.0,
        _ => true,
    }
}

/// `&mut [E]` and `&mut Vec<E>`: lifted into a `Vec` of gradient numbers.
macro_rules! lifted_vec_arg {
    ($($arg:ty => $borrow:ty),*) => {$(
        impl<E: Elem> GradArg<E> for $arg {
            type Store<S: Lift<E>> = Vec<GVar<S>>;
            type Borrow<'b, S: Lift<E> + 'b> = &'b mut $borrow;
            // as a struct field of the same type (`LiftField`)
            #[inline]
            fn store<S: Lift<E>>(&self) -> Vec<GVar<S>> {
                (**self).lift_field()
            }
            #[inline]
            fn fits<S: Lift<E>>(&self, st: &Vec<GVar<S>>) -> bool {
                (**self).fits_field(st)
            }
            #[inline]
            fn refresh<S: Lift<E>>(&self, st: &mut Vec<GVar<S>>) {
                (**self).refresh_field(st)
            }
            #[inline]
            fn refresh_zero<S: Lift<E>>(&self, st: &mut Vec<GVar<S>>) {
                zero_workspace(self, st)
            }
            #[inline]
            fn borrow<S: Lift<E>>(s: &mut Vec<GVar<S>>) -> &mut $borrow {
                s
            }
            fn slots<S: Lift<E>>(s: &mut Vec<GVar<S>>) -> Slots<'_, S> {
                Slots::Slice(s)
            }
            #[inline]
            fn restore<S: Lift<E>>(&mut self, s: &Vec<GVar<S>>) {
                (**self).restore_field(s)
            }
        }
    )*};
}
lifted_vec_arg!(&mut [E] => [GVar<S>], &mut Vec<E> => Vec<GVar<S>>);

impl<E: Elem, const N: usize> GradArg<E> for &mut [E; N] {
    type Store<S: Lift<E>> = [GVar<S>; N];
    type Borrow<'b, S: Lift<E> + 'b> = &'b mut [GVar<S>; N];
    #[inline]
    fn store<S: Lift<E>>(&self) -> [GVar<S>; N] {
        core::array::from_fn(|k| GVar::from(S::lift(self[k])))
    }
    #[inline]
    fn refresh<S: Lift<E>>(&self, st: &mut [GVar<S>; N]) {
        lift_into(st, &self[..])
    }
    #[inline]
    fn borrow<S: Lift<E>>(s: &mut [GVar<S>; N]) -> &mut [GVar<S>; N] {
        s
    }
    fn slots<S: Lift<E>>(s: &mut [GVar<S>; N]) -> Slots<'_, S> {
        Slots::Slice(s)
    }
    #[inline]
    fn restore<S: Lift<E>>(&mut self, s: &[GVar<S>; N]) {
        lower_into(&mut self[..], s)
    }
}

/// A read-only slice is data: passed through unchanged (not lifted to gradient numbers, no
/// gradient, no copy) — declare such a parameter with its plain type, e.g. the points of a
/// model as `x: &[f64]` in a function generic over its number type `T`.
///
/// ```
/// use nilang::prelude::*;
/// #[i]
/// fn fit<T: Scalar>(out: &mut T, a: &mut T, x: &[f64])
/// where
///     T: nilang::instr::PlusEq2<nilang::instr::fns::Mul, T, f64>,
/// {
///     for i in 0..x.len() {
///         out += a * x[i];
///     }
/// }
/// let x = [1.0, 2.0, 3.0];
/// let (_, ga, _) = nilang::gradient(&Fit, (&mut 0.0, &mut 2.0, &x[..]), 0);
/// assert_eq!(ga.g, 6.0);
/// ```
impl<'a, E: Elem> GradArg<E> for &'a [E] {
    type Store<S: Lift<E>> = &'a [E];
    type Borrow<'b, S: Lift<E> + 'b> = &'b [E];
    #[inline]
    fn store<S: Lift<E>>(&self) -> &'a [E] {
        self
    }
    #[inline]
    fn refresh<S: Lift<E>>(&self, st: &mut &'a [E]) {
        *st = self;
    }
    #[inline]
    fn borrow<'s, S: Lift<E>>(s: &'s mut &'a [E]) -> &'s [E] {
        s
    }
    fn slots<'s, S: Lift<E>>(_: &'s mut &'a [E]) -> Slots<'s, S> {
        Slots::Slice(&mut [])
    }
    #[inline]
    fn restore<S: Lift<E>>(&mut self, _: &&'a [E]) {}
}

/// A read-only array is data, like a read-only slice: passed through unchanged.
impl<'a, E: Elem, const N: usize> GradArg<E> for &'a [E; N] {
    type Store<S: Lift<E>> = &'a [E; N];
    type Borrow<'b, S: Lift<E> + 'b> = &'b [E; N];
    #[inline]
    fn store<S: Lift<E>>(&self) -> &'a [E; N] {
        self
    }
    #[inline]
    fn refresh<S: Lift<E>>(&self, st: &mut &'a [E; N]) {
        *st = self;
    }
    #[inline]
    fn borrow<'s, S: Lift<E>>(s: &'s mut &'a [E; N]) -> &'s [E; N] {
        s
    }
    fn slots<'s, S: Lift<E>>(_: &'s mut &'a [E; N]) -> Slots<'s, S> {
        Slots::Slice(&mut [])
    }
    #[inline]
    fn restore<S: Lift<E>>(&mut self, _: &&'a [E; N]) {}
}

macro_rules! passed_arg {
    ($($t:ty),*) => {$(
        impl<E: Elem> GradArg<E> for $t {
            type Store<S: Lift<E>> = $t;
            type Borrow<'b, S: Lift<E> + 'b> = $t;
            #[inline]
            fn store<S: Lift<E>>(&self) -> $t { *self }
            #[inline]
            fn refresh<S: Lift<E>>(&self, st: &mut $t) { *st = *self; }
            #[inline]
            fn borrow<S: Lift<E>>(s: &mut $t) -> $t { *s }
            fn slots<S: Lift<E>>(_: &mut $t) -> Slots<'_, S> { Slots::Slice(&mut []) }
            #[inline]
            fn restore<S: Lift<E>>(&mut self, _: &$t) {}
        }
    )*};
}
// by-value parameters are read-only constants: integers, flags, and plain float settings
passed_arg!(usize, isize, i32, i64, u32, u64, bool, f64, f32);

macro_rules! int_mut_arg {
    ($($t:ty),*) => {$(
        impl<'a, E: Elem> GradArg<E> for &'a mut $t {
            type Store<S: Lift<E>> = $t;
            type Borrow<'b, S: Lift<E> + 'b> = &'b mut $t;
            #[inline]
            fn store<S: Lift<E>>(&self) -> $t { **self }
            #[inline]
            fn refresh<S: Lift<E>>(&self, st: &mut $t) { *st = **self; }
            #[inline]
            fn borrow<S: Lift<E>>(s: &mut $t) -> &mut $t { s }
            fn slots<S: Lift<E>>(_: &mut $t) -> Slots<'_, S> { Slots::Slice(&mut []) }
            #[inline]
            fn restore<S: Lift<E>>(&mut self, s: &$t) { **self = *s; }
        }
    )*};
}
int_mut_arg!(usize, isize, i32, i64, u32, u64, bool);

/// A tuple of [`GradArg`]s: the whole argument list of a reversible function (up to 32
/// arguments; a user struct passed as one argument holds any number of fields).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an argument tuple the gradient API takes",
    label = "not a tuple of up to 32 gradient arguments",
    note = "the gradient API takes a tuple of at most 32 arguments, each `&mut` number, slice, \
            array or `Vec`, a read-only one, an integer or a `grad_struct!` struct: pass more \
            parameters in a slice or a `nilang::grad_struct!` struct, or differentiate an \
            `#[i]` wrapper that calls the long function"
)]
pub trait GradArgs<E: Elem> {
    /// Storage tuple.
    type Store<S: Lift<E>>: Clone;
    /// Borrowed storage tuple.
    type Borrow<'b, S: Lift<E> + 'b>;
    /// The number of arguments.
    const LEN: usize;
    /// Whether argument `k` is a scalar `&mut` number (`None`: out of range).
    fn scalar_out(k: usize) -> Option<bool>;
    /// Store every argument.
    fn store<S: Lift<E>>(&self) -> Self::Store<S>;
    /// Whether `st` has the arguments' shapes.
    fn fits<S: Lift<E>>(&self, st: &Self::Store<S>) -> bool;
    /// Overwrite `st` with the current values, zero gradients.
    fn refresh<S: Lift<E>>(&self, st: &mut Self::Store<S>);
    /// [`GradArgs::refresh`], but the arguments whose bit of `zero` is set (`zero(..)`
    /// workspaces, [`Reversible::workspaces`](crate::Reversible::workspaces)) overwritten
    /// with zeros, their values not read ([`GradArg::refresh_zero`]).
    fn refresh_zeroing<S: Lift<E>>(&self, st: &mut Self::Store<S>, zero: crate::abi::ParamMask);
    /// Borrow every stored argument.
    fn borrow<S: Lift<E>>(s: &mut Self::Store<S>) -> Self::Borrow<'_, S>;
    /// The differentiable slots of argument `k`.
    fn slots<S: Lift<E>>(s: &mut Self::Store<S>, k: usize) -> Slots<'_, S>;
    /// Write stored values back into every in-out argument.
    fn restore<S: Lift<E>>(&mut self, s: &Self::Store<S>);
}

macro_rules! tuple_args {
    ($($i:tt $a:ident),*) => {
        impl<E: Elem, $($a: GradArg<E>),*> GradArgs<E> for ($($a,)*) {
            type Store<S: Lift<E>> = ($(<$a as GradArg<E>>::Store<S>,)*);
            type Borrow<'b, S: Lift<E> + 'b> = ($(<$a as GradArg<E>>::Borrow<'b, S>,)*);
            const LEN: usize = [$($i),*].len();
            fn scalar_out(k: usize) -> Option<bool> {
                match k { $($i => Some(<$a as GradArg<E>>::SCALAR_OUT),)* _ => None }
            }
            #[inline]
            fn store<S: Lift<E>>(&self) -> Self::Store<S> { ($(<$a as GradArg<E>>::store::<S>(&self.$i),)*) }
            #[inline]
            fn fits<S: Lift<E>>(&self, st: &Self::Store<S>) -> bool { true $(&& <$a as GradArg<E>>::fits::<S>(&self.$i, &st.$i))* }
            #[inline]
            fn refresh<S: Lift<E>>(&self, st: &mut Self::Store<S>) { $(<$a as GradArg<E>>::refresh::<S>(&self.$i, &mut st.$i);)* }
            #[inline]
            fn refresh_zeroing<S: Lift<E>>(&self, st: &mut Self::Store<S>, zero: crate::abi::ParamMask) {
                $(if (zero >> $i) & 1 == 1 {
                    <$a as GradArg<E>>::refresh_zero::<S>(&self.$i, &mut st.$i)
                } else {
                    <$a as GradArg<E>>::refresh::<S>(&self.$i, &mut st.$i)
                })*
            }
            #[inline]
            fn borrow<S: Lift<E>>(s: &mut Self::Store<S>) -> Self::Borrow<'_, S> {
                ($(<$a as GradArg<E>>::borrow::<S>(&mut s.$i),)*)
            }
            fn slots<S: Lift<E>>(s: &mut Self::Store<S>, k: usize) -> Slots<'_, S> {
                match k {
                    $($i => <$a as GradArg<E>>::slots::<S>(&mut s.$i),)*
                    _ => panic!("nilang: argument index {k} out of range (the function has {} arguments)", Self::LEN),
                }
            }
            #[inline]
            fn restore<S: Lift<E>>(&mut self, s: &Self::Store<S>) { $(<$a as GradArg<E>>::restore::<S>(&mut self.$i, &s.$i);)* }
        }
    };
}
for_tuples!(tuple_args);

impl<E: Elem> Lift<E> for GVar<E> {
    #[inline(always)]
    fn lift(e: E) -> Self {
        GVar::from(e)
    }
    #[inline(always)]
    fn lower(self) -> E {
        self.x
    }
}
