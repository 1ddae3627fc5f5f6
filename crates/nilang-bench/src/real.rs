//! One scalar trait for the generic objectives, implemented for `f64` (the plain objective),
//! num-dual's forward types and echidna's tape variable.

use echidna::Reverse;
use num_dual::{Dual64, DualNum, DualSVec64, HyperDualSVec64};

/// A differentiable real scalar.
pub trait Real: nilang::numbers::Arithmetic {
    /// A constant (zero derivative).
    fn cst(x: f64) -> Self;
    /// The primal value.
    fn val(&self) -> f64;
    /// The square root.
    fn sqrt(self) -> Self;
    /// The exponential.
    fn exp(self) -> Self;
    /// The natural logarithm.
    fn ln(self) -> Self;
    /// The sine.
    fn sin(self) -> Self;
    /// The cosine.
    fn cos(self) -> Self;
    #[inline]
    /// The constant `0`.
    fn zero() -> Self {
        Self::cst(0.0)
    }
    #[inline]
    /// `self²`.
    fn sq(self) -> Self {
        self * self
    }
}

impl Real for f64 {
    #[inline]
    fn cst(x: f64) -> Self {
        x
    }
    #[inline]
    fn val(&self) -> f64 {
        *self
    }
    #[inline]
    fn sqrt(self) -> Self {
        f64::sqrt(self)
    }
    #[inline]
    fn exp(self) -> Self {
        f64::exp(self)
    }
    #[inline]
    fn ln(self) -> Self {
        f64::ln(self)
    }
    #[inline]
    fn sin(self) -> Self {
        f64::sin(self)
    }
    #[inline]
    fn cos(self) -> Self {
        f64::cos(self)
    }
}

macro_rules! real_for_num_dual {
    ($({$($gen:tt)*} $t:ty),* $(,)?) => {$(
        impl<$($gen)*> Real for $t {
            #[inline]
            fn cst(x: f64) -> Self {
                <$t>::from(x)
            }
            #[inline]
            fn val(&self) -> f64 {
                self.re
            }
            #[inline]
            fn sqrt(self) -> Self {
                DualNum::sqrt(&self)
            }
            #[inline]
            fn exp(self) -> Self {
                DualNum::exp(&self)
            }
            #[inline]
            fn ln(self) -> Self {
                DualNum::ln(&self)
            }
            #[inline]
            fn sin(self) -> Self {
                DualNum::sin(&self)
            }
            #[inline]
            fn cos(self) -> Self {
                DualNum::cos(&self)
            }
        }
    )*};
}

real_for_num_dual!(
    {} Dual64,
    {const N: usize} DualSVec64<N>,
    {const M: usize, const N: usize} HyperDualSVec64<M, N>,
);

impl Real for Reverse<f64> {
    #[inline]
    fn cst(x: f64) -> Self {
        Reverse::constant(x)
    }
    #[inline]
    fn val(&self) -> f64 {
        echidna::Scalar::value(self)
    }
    #[inline]
    fn sqrt(self) -> Self {
        num_traits::Float::sqrt(self)
    }
    #[inline]
    fn exp(self) -> Self {
        num_traits::Float::exp(self)
    }
    #[inline]
    fn ln(self) -> Self {
        num_traits::Float::ln(self)
    }
    #[inline]
    fn sin(self) -> Self {
        num_traits::Float::sin(self)
    }
    #[inline]
    fn cos(self) -> Self {
        num_traits::Float::cos(self)
    }
}
