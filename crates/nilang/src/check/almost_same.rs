//! [`AlmostSame`]: equality as the runtime checks understand it, for the standard types.
use super::tolerance::{close_slow, float_close, float_close_at};
#[cfg(doc)]
use super::Tolerance;

/// Equality as the runtime checks understand it: exact for integers and bools, within the
/// tolerance for floats, value-only for gradient numbers.
pub trait AlmostSame {
    /// Whether `self` and `other` are the same up to the tolerance (unknown history).
    fn almost_same(&self, other: &Self) -> bool;
    /// Whether `self` and `other` are the same, knowing the value's round-off budget
    /// `history` (the sum of the magnitudes it held after each statement, see
    /// [`track`](crate::check::track); NaN: unknown). Types that do not track magnitudes
    /// ignore `history`.
    #[inline]
    fn almost_same_at(&self, other: &Self, history: f64) -> bool {
        let _ = history;
        self.almost_same(other)
    }
    /// The largest finite magnitude in the value, for tracking an ancilla's history; NaN
    /// (the default) when the type does not track it. Non-finite parts count as 0, so that a
    /// value that went through infinity does not widen the tolerance.
    #[inline]
    fn magnitude(&self) -> f64 {
        f64::NAN
    }
    /// Whether the value holds a NaN or an infinity (a failed check then says that a
    /// non-finite value arrived, not that the tolerance is too small); `false` by default.
    #[inline]
    fn non_finite(&self) -> bool {
        false
    }
}
macro_rules! exact {
    ($($t:ty),*) => {$( impl AlmostSame for $t {
        #[inline] fn almost_same(&self, other: &Self) -> bool { self == other }
    } )*};
}
exact!(
    i8,
    i16,
    i32,
    i64,
    i128,
    isize,
    u8,
    u16,
    u32,
    u64,
    u128,
    usize,
    bool,
    char,
    String,
    &str,
    ()
);
impl AlmostSame for f64 {
    #[inline]
    fn almost_same(&self, other: &Self) -> bool {
        float_close(*self, *other)
    }
    #[inline]
    fn almost_same_at(&self, other: &Self, history: f64) -> bool {
        float_close_at(*self, *other, history)
    }
    #[inline]
    fn magnitude(&self) -> f64 {
        let m = self.abs();
        if m.is_finite() {
            m
        } else {
            0.0
        }
    }
    #[inline]
    fn non_finite(&self) -> bool {
        !self.is_finite()
    }
}
/// `64 * f32::EPSILON`: the least relative tolerance for `f32`.
const F32_REL_FLOOR: f64 = 64.0 * f32::EPSILON as f64;
impl AlmostSame for f32 {
    #[inline]
    fn almost_same(&self, other: &Self) -> bool {
        self.almost_same_at(other, f64::NAN)
    }
    #[inline]
    fn almost_same_at(&self, other: &Self, history: f64) -> bool {
        self == other || close_slow(*self as f64, *other as f64, history, F32_REL_FLOOR)
    }
    #[inline]
    fn magnitude(&self) -> f64 {
        (*self as f64).magnitude()
    }
    #[inline]
    fn non_finite(&self) -> bool {
        !self.is_finite()
    }
}
/// `AlmostSame` of a wrapper `$ty<T>` by its field `$field`: the field is what the checks
/// compare and whose magnitude they track (the number types' value-only comparisons).
macro_rules! almost_same_by_field {
    ($(#[$attr:meta])* $ty:ident . $field:tt) => {
        $(#[$attr])*
        impl<T: $crate::check::AlmostSame> $crate::check::AlmostSame for $ty<T> {
            #[inline]
            fn almost_same(&self, other: &Self) -> bool {
                $crate::check::AlmostSame::almost_same(&self.$field, &other.$field)
            }
            #[inline]
            fn almost_same_at(&self, other: &Self, history: f64) -> bool {
                $crate::check::AlmostSame::almost_same_at(&self.$field, &other.$field, history)
            }
            #[inline]
            fn magnitude(&self) -> f64 {
                $crate::check::AlmostSame::magnitude(&self.$field)
            }
            #[inline]
            fn non_finite(&self) -> bool {
                $crate::check::AlmostSame::non_finite(&self.$field)
            }
        }
    };
}
pub(crate) use almost_same_by_field;

use core::num::Wrapping;
almost_same_by_field!(Wrapping.0);
impl<T: AlmostSame> AlmostSame for num_complex::Complex<T> {
    fn almost_same(&self, other: &Self) -> bool {
        self.re.almost_same(&other.re) && self.im.almost_same(&other.im)
    }
    fn almost_same_at(&self, other: &Self, history: f64) -> bool {
        self.re.almost_same_at(&other.re, history) && self.im.almost_same_at(&other.im, history)
    }
    fn magnitude(&self) -> f64 {
        let (a, b) = (self.re.magnitude(), self.im.magnitude());
        if a.is_nan() || b.is_nan() {
            f64::NAN
        } else {
            a.max(b)
        }
    }
    fn non_finite(&self) -> bool {
        self.re.non_finite() || self.im.non_finite()
    }
}
impl<T: AlmostSame> AlmostSame for [T] {
    fn almost_same(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().zip(other).all(|(a, b)| a.almost_same(b))
    }
    fn non_finite(&self) -> bool {
        self.iter().any(T::non_finite)
    }
}
impl<T: AlmostSame, const N: usize> AlmostSame for [T; N] {
    fn almost_same(&self, other: &Self) -> bool {
        self[..].almost_same(&other[..])
    }
    fn non_finite(&self) -> bool {
        self[..].non_finite()
    }
}
impl<T: AlmostSame> AlmostSame for Vec<T> {
    fn almost_same(&self, other: &Self) -> bool {
        self[..].almost_same(&other[..])
    }
    fn non_finite(&self) -> bool {
        self[..].non_finite()
    }
}
/// Through references: what they point to.
macro_rules! almost_same_by_ref {
    ($($r:ty),*) => {$(
        impl<T: AlmostSame + ?Sized> AlmostSame for $r {
            fn almost_same(&self, other: &Self) -> bool {
                (**self).almost_same(&**other)
            }
            fn almost_same_at(&self, other: &Self, history: f64) -> bool {
                (**self).almost_same_at(&**other, history)
            }
            fn magnitude(&self) -> f64 {
                (**self).magnitude()
            }
            fn non_finite(&self) -> bool {
                (**self).non_finite()
            }
        }
    )*};
}
almost_same_by_ref!(&T, &mut T);
macro_rules! tuple_same {
    ($($n:tt $t:ident),*) => {
        impl<$($t: AlmostSame),*> AlmostSame for ($($t,)*) {
            fn almost_same(&self, other: &Self) -> bool { true $(&& self.$n.almost_same(&other.$n))* }
        }
    };
}
for_tuples!(tuple_same);
