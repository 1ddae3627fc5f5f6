//! [`Tropical`]: max-plus numbers.
use crate::instr::fns::{self, Add, Identity, Mul, PowiN, Sub};
use crate::instr::{FromLiteral, MulEq1, MulEq2, PlusEq1, PlusEq2};
use core::cmp::Ordering;
use core::fmt;

/// A tropical (max-plus) number: tropical `a ⊗ b` is the ordinary sum `a.n + b.n`, tropical
/// `a ⊕ b` is `max(a.n, b.n)`.
///
/// Tropical multiplication is invertible, so `*=` and `/=` are the reversible instructions of
/// this type (exact for integer or fixed-point content); `⊕` alone is irreversible and is no
/// instruction (`+=` is a compile error), but `out *= a + b` (multiply `out` by `a ⊕ b`) is:
///
/// | statement | effect on `out.n` |
/// |---|---|
/// | `out *= a` | `+= a.n` |
/// | `out *= a * b` / `out *= a / b` | `+= a.n + b.n` / `+= a.n − b.n` |
/// | `out *= a + b` | `+= max(a.n, b.n)` |
/// | `out *= a.powi(N)` | `+= N·a.n` |
///
/// `Default` is the tropical one (`n = 0`); [`Tropical::zero`] is `−∞`.
///
/// ```
/// use nilang::Tropical;
/// use nilang::instr::{MulEq2, fns::{Add, Mul}};
/// let (mut out, mut a, mut b) = (Tropical::new(1.0), Tropical::new(2.0), Tropical::new(5.0));
/// MulEq2::<Mul, _, _>::mul_eq(&mut out, &mut a, &mut b); // out ⊗= a ⊗ b
/// assert_eq!(out, Tropical::new(8.0));
/// MulEq2::<Add, _, _>::mul_eq(&mut out, &mut a, &mut b); // out ⊗= a ⊕ b
/// assert_eq!(out, Tropical::new(13.0));
/// assert_eq!(a + b, b);
/// assert_eq!(format!("{out}"), "13ₜ");
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Tropical<T> {
    /// The stored (ordinary) value.
    pub n: T,
}
impl<T> Tropical<T> {
    /// The tropical number with stored value `n`.
    #[inline(always)]
    pub const fn new(n: T) -> Self {
        Tropical { n }
    }
}
impl<T: Default> Tropical<T> {
    /// The multiplicative identity (`n = 0`).
    #[inline(always)]
    pub fn one() -> Self {
        Tropical { n: T::default() }
    }
}
impl Tropical<f64> {
    /// The additive identity `−∞`.
    #[inline(always)]
    pub const fn zero() -> Self {
        Tropical {
            n: f64::NEG_INFINITY,
        }
    }
}
impl<T: PartialOrd> PartialOrd for Tropical<T> {
    #[inline(always)]
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        self.n.partial_cmp(&other.n)
    }
}
impl<T: fmt::Display> fmt::Display for Tropical<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}ₜ", self.n)
    }
}
impl<T: PartialOrd> core::ops::Add for Tropical<T> {
    type Output = Self;
    /// Tropical sum: the maximum.
    #[inline(always)]
    fn add(self, o: Self) -> Self {
        if o.n > self.n {
            o
        } else {
            self
        }
    }
}
impl<T: core::ops::Add<Output = T>> core::ops::Mul for Tropical<T> {
    type Output = Self;
    /// Tropical product: the sum.
    #[allow(clippy::suspicious_arithmetic_impl)]
    #[inline(always)]
    fn mul(self, o: Self) -> Self {
        Tropical::new(self.n + o.n)
    }
}
impl<T: core::ops::Sub<Output = T>> core::ops::Div for Tropical<T> {
    type Output = Self;
    /// Tropical quotient: the difference.
    #[allow(clippy::suspicious_arithmetic_impl)]
    #[inline(always)]
    fn div(self, o: Self) -> Self {
        Tropical::new(self.n - o.n)
    }
}
impl<T: FromLiteral> FromLiteral for Tropical<T> {
    /// The tropical number with stored value `v` (so `x *= 2` adds 2).
    #[inline(always)]
    fn from_f64_lit(v: f64) -> Self {
        Tropical::new(T::from_f64_lit(v))
    }
    #[inline(always)]
    fn from_i64_lit(v: i64) -> Self {
        Tropical::new(T::from_i64_lit(v))
    }
}
crate::check::almost_same_by_field!(Tropical.n);

/// `out *= a`: `out.n += a.n`.
impl<T: PlusEq1<Identity, T>> MulEq1<Identity, Tropical<T>> for Tropical<T> {
    #[inline(always)]
    fn mul_eq(&mut self, a: &mut Tropical<T>) {
        self.n.plus_eq(&mut a.n)
    }
    #[inline(always)]
    fn div_eq(&mut self, a: &mut Tropical<T>) {
        self.n.minus_eq(&mut a.n)
    }
}
/// `out *= a.powi(N)`: `out.n += N·a.n`.
impl<T: FromLiteral + PlusEq2<Mul, T, T>, const N: i32> MulEq1<PowiN<N>, Tropical<T>>
    for Tropical<T>
{
    #[inline(always)]
    fn mul_eq(&mut self, a: &mut Tropical<T>) {
        PlusEq2::<Mul, T, T>::plus_eq(&mut self.n, &mut a.n, &mut T::from_i64_lit(N as i64))
    }
    #[inline(always)]
    fn div_eq(&mut self, a: &mut Tropical<T>) {
        PlusEq2::<Mul, T, T>::minus_eq(&mut self.n, &mut a.n, &mut T::from_i64_lit(N as i64))
    }
}
macro_rules! tropical_binary {
    ($($m:ty => $f:ty),*) => {$(
        impl<T: PlusEq2<$f, T, T>> MulEq2<$m, Tropical<T>, Tropical<T>> for Tropical<T> {
            #[inline(always)]
            fn mul_eq(&mut self, a: &mut Tropical<T>, b: &mut Tropical<T>) {
                PlusEq2::<$f, T, T>::plus_eq(&mut self.n, &mut a.n, &mut b.n)
            }
            #[inline(always)]
            fn div_eq(&mut self, a: &mut Tropical<T>, b: &mut Tropical<T>) {
                PlusEq2::<$f, T, T>::minus_eq(&mut self.n, &mut a.n, &mut b.n)
            }
        }
    )*};
}
tropical_binary!(Mul => Add, fns::Div => Sub);
/// `out *= a + b` (tropical sum): `out.n += max(a.n, b.n)` (the branch is taken on values,
/// which the instruction does not change, so the inverse takes the same branch).
impl<T: PartialOrd + PlusEq1<Identity, T>> MulEq2<Add, Tropical<T>, Tropical<T>> for Tropical<T> {
    #[inline(always)]
    fn mul_eq(&mut self, a: &mut Tropical<T>, b: &mut Tropical<T>) {
        if b.n > a.n {
            self.n.plus_eq(&mut b.n)
        } else {
            self.n.plus_eq(&mut a.n)
        }
    }
    #[inline(always)]
    fn div_eq(&mut self, a: &mut Tropical<T>, b: &mut Tropical<T>) {
        if b.n > a.n {
            self.n.minus_eq(&mut b.n)
        } else {
            self.n.minus_eq(&mut a.n)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::AlmostSame;
    use crate::instr::lit_i;

    #[test]
    fn instructions() {
        let t = Tropical::new;
        let (mut out, mut a, mut b) = (t(3_i64), t(-2_i64), t(7_i64));
        MulEq1::<Identity, _>::mul_eq(&mut out, &mut a);
        assert_eq!(out, t(1));
        MulEq2::<fns::Div, _, _>::mul_eq(&mut out, &mut a, &mut b);
        assert_eq!(out, t(-8));
        MulEq2::<Add, _, _>::mul_eq(&mut out, &mut a, &mut b);
        assert_eq!(out, t(-1));
        let mut two = lit_i(&out, 2);
        MulEq1::<Identity, _>::mul_eq(&mut out, &mut two);
        assert_eq!(out, t(1));
        MulEq1::<Identity, _>::div_eq(&mut out, &mut two);
        MulEq2::<Add, _, _>::div_eq(&mut out, &mut a, &mut b);
        MulEq2::<fns::Div, _, _>::div_eq(&mut out, &mut a, &mut b);
        MulEq1::<Identity, _>::div_eq(&mut out, &mut a);
        assert_eq!(out, t(3));

        let (mut x, mut y) = (Tropical::new(0.5_f64), Tropical::new(1.5));
        MulEq1::<PowiN<3>, _>::mul_eq(&mut x, &mut y);
        assert_eq!(x, Tropical::new(5.0));
        MulEq1::<PowiN<3>, _>::div_eq(&mut x, &mut y);
        assert_eq!(x, Tropical::new(0.5));
        assert!(x.almost_same(&Tropical::new(0.5 + 1e-12)));
    }

    #[test]
    fn semiring() {
        let (a, b) = (Tropical::new(2.0), Tropical::new(-1.0));
        assert_eq!(a + b, a);
        assert_eq!(a + Tropical::zero(), a);
        assert_eq!(a * Tropical::one(), a);
        assert_eq!(a * b, Tropical::new(1.0));
        assert_eq!((a * b) / b, a);
        assert!(b < a);
    }
}
