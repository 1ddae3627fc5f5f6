//! The [`Real`] trait: ordered scalars with elementary functions (plain math, no tracking).
use core::fmt::Debug;
use core::ops::{Add, AddAssign, Div, DivAssign, Mul, MulAssign, Neg, Sub, SubAssign};

/// The arithmetic of a number type by value: `Copy` and `+ − × ÷` and negation, each giving
/// `Self` (every number of this crate; implemented for every type that has them).
///
/// ```
/// fn mean<T: nilang::numbers::Arithmetic>(a: T, b: T, two: T) -> T {
///     (a + b) / two
/// }
/// assert_eq!(mean(1.0, 2.0, 2.0), 1.5);
/// ```
pub trait Arithmetic:
    Copy
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Neg<Output = Self>
{
}

impl<T> Arithmetic for T where
    T: Copy
        + Add<Output = T>
        + Sub<Output = T>
        + Mul<Output = T>
        + Div<Output = T>
        + Neg<Output = T>
{
}

/// The methods of the table of elementary functions ([`nilang_functions`]), declared in [`Real`].
macro_rules! real_methods {
    ($($F:ident { names: [$f:ident $(, $alias:ident)*], c: $c:ident, domain: $dom:literal, $($rest:tt)* },)*) => {$(
        #[doc = concat!("`", stringify!($f), "(x)`, defined for ", $dom, ".")]
        fn $f(self) -> Self;
    )*};
}

/// The methods of the table of elementary functions on `f32`/`f64`: their own, and
/// `softplus` (which std lacks) from theirs.
macro_rules! real_float_methods {
    ($t:ty; $($F:ident { names: [$f:ident $(, $alias:ident)*], $($rest:tt)* },)*) => {$(
        real_float_methods!(@one $t; $F $f);
    )*};
    (@one $t:ty; Softplus $f:ident) => {
        /// `ln(1 + eˣ)` as `max(x, 0) + ln_1p(e^(−|x|))`: no overflow where `eˣ` does, no
        /// cancellation (both terms are positive), `ln_1p` accurate where `eˣ` is tiny.
        #[inline(always)]
        fn $f(self) -> Self {
            self.max(0.0) + (-self.abs()).exp().ln_1p()
        }
    };
    (@one $t:ty; $F:ident $f:ident) => {
        #[inline(always)]
        fn $f(self) -> Self {
            <$t>::$f(self)
        }
    };
}

/// An ordered real scalar with elementary functions: `f32`, `f64`, [`crate::Dual`].
///
/// Plain instructions (`y += sin(x)`) on a `Real` evaluate the function and accumulate.
///
/// ```
/// use nilang::Real;
/// assert_eq!(<f64 as Real>::from_f64(2.0).powi(3), 8.0);
/// ```
pub trait Real:
    Arithmetic + Debug + PartialOrd + Default + AddAssign + SubAssign + MulAssign + DivAssign + 'static
{
    /// Lossy conversion from `f64`.
    fn from_f64(x: f64) -> Self;
    /// The (primal) value as `f64`.
    fn to_f64(self) -> f64;
    /// `0`.
    fn zero() -> Self {
        Self::from_f64(0.0)
    }
    /// `1`.
    fn one() -> Self {
        Self::from_f64(1.0)
    }
    nilang_functions::elementary_functions!(real_methods! {});
    /// The angle of the point `(x, self)` in `[−π, π]` (four-quadrant arctangent of `self / x`).
    fn atan2(self, x: Self) -> Self;
    /// The square root.
    fn sqrt(self) -> Self;
    /// The absolute value.
    fn abs(self) -> Self;
    /// `self` raised to the power `e`.
    fn powf(self, e: Self) -> Self;
    /// `self` raised to the integer power `n`.
    fn powi(self, n: i32) -> Self;
    /// `√(self² + y²)`.
    fn hypot(self, y: Self) -> Self;
    /// `1 / self`.
    fn recip(self) -> Self {
        Self::one() / self
    }
    /// The smaller of `self` and `o` (`self` when they are equal or unordered).
    fn min(self, o: Self) -> Self {
        if o < self {
            o
        } else {
            self
        }
    }
    /// The larger of `self` and `o` (`self` when they are equal or unordered).
    fn max(self, o: Self) -> Self {
        if o > self {
            o
        } else {
            self
        }
    }
}

macro_rules! impl_real_float {
    ($t:ty) => {
        impl Real for $t {
            #[inline(always)]
            fn from_f64(x: f64) -> Self {
                x as $t
            }
            #[inline(always)]
            fn to_f64(self) -> f64 {
                self as f64
            }
            nilang_functions::elementary_functions!(real_float_methods! { $t; });
            #[inline(always)]
            fn atan2(self, x: Self) -> Self {
                <$t>::atan2(self, x)
            }
            #[inline(always)]
            fn sqrt(self) -> Self {
                <$t>::sqrt(self)
            }
            #[inline(always)]
            fn abs(self) -> Self {
                <$t>::abs(self)
            }
            #[inline(always)]
            fn powf(self, e: Self) -> Self {
                <$t>::powf(self, e)
            }
            #[inline(always)]
            fn powi(self, n: i32) -> Self {
                <$t>::powi(self, n)
            }
            #[inline(always)]
            fn hypot(self, y: Self) -> Self {
                <$t>::hypot(self, y)
            }
            #[inline(always)]
            fn recip(self) -> Self {
                <$t>::recip(self)
            }
            #[inline(always)]
            fn min(self, o: Self) -> Self {
                <$t>::min(self, o)
            }
            #[inline(always)]
            fn max(self, o: Self) -> Self {
                <$t>::max(self, o)
            }
        }
    };
}
impl_real_float!(f32);
impl_real_float!(f64);
