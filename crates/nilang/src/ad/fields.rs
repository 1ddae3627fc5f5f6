//! User structs as arguments of the gradient API: [`LiftField`] (how a field — a number, an
//! array or a `Vec` of numbers — is lifted to gradient numbers), [`FieldSlots`] (its slots)
//! and [`grad_struct!`](crate::grad_struct), which implements
//! [`GradArg`](super::args::GradArg) for a struct from its fields.
use super::args::{lift_into, lower_into, Elem, Lift};
use super::GVar;

/// A field of a user struct for [`grad_struct!`](crate::grad_struct): a number, an array or a
/// `Vec` of numbers, lifted to gradient numbers element by element.
pub trait LiftField<E: Elem> {
    /// The field over gradient numbers.
    type Lifted<S: Lift<E>>;
    /// Lift the values (zero gradients).
    fn lift_field<S: Lift<E>>(&self) -> Self::Lifted<S>;
    /// Whether `st` has this field's shape.
    fn fits_field<S: Lift<E>>(&self, st: &Self::Lifted<S>) -> bool;
    /// Overwrite `st` with the values (zero gradients).
    fn refresh_field<S: Lift<E>>(&self, st: &mut Self::Lifted<S>);
    /// Write the values back.
    fn restore_field<S: Lift<E>>(&mut self, st: &Self::Lifted<S>);
}

/// The slots of a lifted struct field (a gradient number, an array or a `Vec` of them).
pub trait FieldSlots<S> {
    /// Append the field's gradient numbers.
    fn push_slots<'a>(&'a mut self, out: &mut Vec<&'a mut GVar<S>>);
}
impl<S> FieldSlots<S> for GVar<S> {
    fn push_slots<'a>(&'a mut self, out: &mut Vec<&'a mut GVar<S>>) {
        out.push(self);
    }
}
impl<S, const N: usize> FieldSlots<S> for [GVar<S>; N] {
    fn push_slots<'a>(&'a mut self, out: &mut Vec<&'a mut GVar<S>>) {
        out.extend(self.iter_mut());
    }
}
impl<S> FieldSlots<S> for Vec<GVar<S>> {
    fn push_slots<'a>(&'a mut self, out: &mut Vec<&'a mut GVar<S>>) {
        out.extend(self.iter_mut());
    }
}
impl<E: Elem> LiftField<E> for E {
    type Lifted<S: Lift<E>> = GVar<S>;
    #[inline]
    fn lift_field<S: Lift<E>>(&self) -> GVar<S> {
        GVar::from(S::lift(*self))
    }
    #[inline]
    fn fits_field<S: Lift<E>>(&self, _: &GVar<S>) -> bool {
        true
    }
    #[inline]
    fn refresh_field<S: Lift<E>>(&self, st: &mut GVar<S>) {
        *st = GVar::from(S::lift(*self));
    }
    #[inline]
    fn restore_field<S: Lift<E>>(&mut self, st: &GVar<S>) {
        *self = st.x.lower();
    }
}
impl<E: Elem, const N: usize> LiftField<E> for [E; N] {
    type Lifted<S: Lift<E>> = [GVar<S>; N];
    #[inline]
    fn lift_field<S: Lift<E>>(&self) -> [GVar<S>; N] {
        self.map(|e| GVar::from(S::lift(e)))
    }
    #[inline]
    fn fits_field<S: Lift<E>>(&self, _: &[GVar<S>; N]) -> bool {
        true
    }
    #[inline]
    fn refresh_field<S: Lift<E>>(&self, st: &mut [GVar<S>; N]) {
        lift_into(st, self)
    }
    #[inline]
    fn restore_field<S: Lift<E>>(&mut self, st: &[GVar<S>; N]) {
        lower_into(self, st)
    }
}
/// A slice or a `Vec` field: lifted into a `Vec` of gradient numbers.
macro_rules! lifted_vec_field {
    ($($t:ty),*) => {$(
        impl<E: Elem> LiftField<E> for $t {
            type Lifted<S: Lift<E>> = Vec<GVar<S>>;
            #[inline]
            fn lift_field<S: Lift<E>>(&self) -> Vec<GVar<S>> {
                self.iter().map(|&e| GVar::from(S::lift(e))).collect()
            }
            #[inline]
            fn fits_field<S: Lift<E>>(&self, st: &Vec<GVar<S>>) -> bool {
                st.len() == self.len()
            }
            #[inline]
            fn refresh_field<S: Lift<E>>(&self, st: &mut Vec<GVar<S>>) {
                lift_into(st, self)
            }
            #[inline]
            fn restore_field<S: Lift<E>>(&mut self, st: &Vec<GVar<S>>) {
                lower_into(self, st)
            }
        }
    )*};
}
lifted_vec_field!([E], Vec<E>);

/// Let the gradient API take a user struct: `grad_struct!(Params { a, v, w } copy { n })` for
/// `struct Params<T> { a: T, v: Vec<T>, w: [T; 3], n: usize }` (generic over its scalar)
/// implements [`GradArg`](super::args::GradArg) for `&mut Params<E>`: the fields (numbers, arrays, `Vec`s, see
/// [`LiftField`]) are lifted element by element and are the differentiable slots, in order;
/// the optional `copy` fields (sizes, flags) are copied. It also implements
/// [`Fresh`](crate::instr::fresh::Fresh), so such a struct can be an ancilla workspace
/// (`fresh!(ws)`), lifted and reset by a [`Plan`](crate::ad::Plan) like any argument.
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
    ($name:ident { $($field:ident),+ $(,)? } $(copy { $($cf:ident),* $(,)? })?) => {
        impl<E: $crate::ad::Elem> $crate::ad::GradArg<E> for &mut $name<E> {
            type Store<S: $crate::ad::Lift<E>> = $name<$crate::GVar<S>>;
            type Borrow<'b, S: $crate::ad::Lift<E> + 'b> = &'b mut $name<$crate::GVar<S>>;
            #[inline]
            fn store<S: $crate::ad::Lift<E>>(&self) -> $name<$crate::GVar<S>> {
                $name {
                    $($field: $crate::ad::LiftField::<E>::lift_field::<S>(&self.$field),)+
                    $($($cf: self.$cf.clone(),)*)?
                }
            }
            #[inline]
            fn fits<S: $crate::ad::Lift<E>>(&self, st: &$name<$crate::GVar<S>>) -> bool {
                true $(&& $crate::ad::LiftField::<E>::fits_field::<S>(&self.$field, &st.$field))+
                    $($(&& st.$cf == self.$cf)*)?
            }
            #[inline]
            fn refresh<S: $crate::ad::Lift<E>>(&self, st: &mut $name<$crate::GVar<S>>) {
                $($crate::ad::LiftField::<E>::refresh_field::<S>(&self.$field, &mut st.$field);)+
            }
            #[inline]
            fn borrow<S: $crate::ad::Lift<E>>(s: &mut $name<$crate::GVar<S>>) -> &mut $name<$crate::GVar<S>> {
                s
            }
            fn slots<S: $crate::ad::Lift<E>>(s: &mut $name<$crate::GVar<S>>) -> $crate::ad::Slots<'_, S> {
                let mut v: Vec<&mut $crate::GVar<S>> = Vec::new();
                $($crate::ad::FieldSlots::<S>::push_slots(&mut s.$field, &mut v);)+
                $crate::ad::Slots::Fields(v)
            }
            #[inline]
            fn restore<S: $crate::ad::Lift<E>>(&mut self, s: &$name<$crate::GVar<S>>) {
                $($crate::ad::LiftField::<E>::restore_field::<S>(&mut self.$field, &s.$field);)+
            }
        }
        // read through a shared reference (`Shared(&ws)`: a workspace or parameters of a
        // `TermSum` program)
        impl<E: $crate::ad::Elem> $crate::ad::SharedArg<E> for $name<E> {
            type Store<S: $crate::ad::Lift<E>> = $name<$crate::GVar<S>>;
            type Borrow<'b, S: $crate::ad::Lift<E> + 'b> = &'b mut $name<$crate::GVar<S>>;
            #[inline]
            fn store<S: $crate::ad::Lift<E>>(&self) -> $name<$crate::GVar<S>> {
                $name {
                    $($field: $crate::ad::LiftField::<E>::lift_field::<S>(&self.$field),)+
                    $($($cf: self.$cf.clone(),)*)?
                }
            }
            #[inline]
            fn fits<S: $crate::ad::Lift<E>>(&self, st: &$name<$crate::GVar<S>>) -> bool {
                true $(&& $crate::ad::LiftField::<E>::fits_field::<S>(&self.$field, &st.$field))+
                    $($(&& st.$cf == self.$cf)*)?
            }
            #[inline]
            fn refresh<S: $crate::ad::Lift<E>>(&self, st: &mut $name<$crate::GVar<S>>) {
                $($crate::ad::LiftField::<E>::refresh_field::<S>(&self.$field, &mut st.$field);)+
            }
            #[inline]
            fn borrow<S: $crate::ad::Lift<E>>(s: &mut $name<$crate::GVar<S>>) -> &mut $name<$crate::GVar<S>> {
                s
            }
            fn slots<S: $crate::ad::Lift<E>>(s: &mut $name<$crate::GVar<S>>) -> $crate::ad::Slots<'_, S> {
                <&mut $name<E> as $crate::ad::GradArg<E>>::slots(s)
            }
        }
        impl<T: $crate::instr::fresh::Fresh> $crate::instr::fresh::Fresh for $name<T> {
            #[inline]
            fn is_fresh(&self) -> bool {
                true $(&& self.$field.is_fresh())+
            }
            #[inline]
            fn make_fresh(&mut self) {
                $(self.$field.make_fresh();)+
            }
            #[inline]
            fn make_fresh_unchecked(&mut self) {
                $(self.$field.make_fresh_unchecked();)+
            }
            #[inline]
            fn zero_values(&mut self) {
                $(self.$field.zero_values();)+
            }
            const VALUES_SKIPPED: bool = T::VALUES_SKIPPED;
        }
    };
}
