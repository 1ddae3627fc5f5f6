//! [`Scalar`]: the numbers that backward rules compute with.
use crate::check::AlmostSame;
use crate::instr::basic::{Hadamard, Increment, Negate, Reciprocate, Rotate};
use crate::instr::fns::*;
use crate::instr::{FromLiteral, PlusEq1, PlusEq2};
use core::fmt::Debug;

/// The primal value of a number as `f64` (NiLang's `unwrap`), for conditions and printing:
/// `while (anc.value().abs() > 1e-8, ...)` works the same on plain and gradient numbers.
pub trait Value {
    /// The value, with every derivative part dropped.
    fn value(&self) -> f64;
    /// Whether the number carries adjoints (a [`GVar`](crate::GVar) at some level): then an
    /// instruction on a gradient number of it moves second-order adjoints even where the
    /// first-order adjoint is zero, and value-only instructions do not apply.
    const HAS_ADJOINT: bool = false;
}
impl Value for f64 {
    #[inline(always)]
    fn value(&self) -> f64 {
        *self
    }
}
impl Value for f32 {
    #[inline(always)]
    fn value(&self) -> f64 {
        *self as f64
    }
}
impl<T: Value> Value for crate::ad::GVar<T> {
    const HAS_ADJOINT: bool = true;
    #[inline(always)]
    fn value(&self) -> f64 {
        self.x.value()
    }
}
impl<T: Value> Value for crate::numbers::Dual<T> {
    const HAS_ADJOINT: bool = T::HAS_ADJOINT;
    #[inline(always)]
    fn value(&self) -> f64 {
        self.x.value()
    }
}
impl<const N: usize> Value for crate::ad::Lanes<N> {
    #[inline(always)]
    fn value(&self) -> f64 {
        if N == 0 {
            0.0
        } else {
            self.0[0]
        }
    }
}

macro_rules! scalar_trait {
    (unary: [$($u:ty),*], binary: [$($b:ty),*]) => {
        /// A number on which every accumulating instruction is available with operands of its
        /// own type, and the instructions `NEG`, `INV`, `INC`/`DEC`, `ROT`/`IROT` (angle of the
        /// same type), `HADAMARD`: `f32`, `f64`, `Dual<T>`, `Lanes<N>`, and recursively `GVar<T>`
        /// of a `Scalar` (which is what makes gradients of gradients work).
        ///
        /// Backward rules are reversible programs over a `Scalar`, so the gradient program is
        /// itself reversible and differentiable.
        ///
        /// ```
        /// fn takes<T: nilang::ad::Scalar>(_: T) {}
        /// takes(1.0_f64);
        /// takes(nilang::GVar::from(1.0_f64));
        /// takes(nilang::GVar::<nilang::GVar<f64>>::from(nilang::GVar::from(1.0_f64)));
        /// ```
        pub trait Scalar:
            Copy + Debug + Default + PartialOrd + FromLiteral + AlmostSame + Negate + Value + 'static
            + crate::instr::fresh::Fresh + Reciprocate + Increment + Rotate<Self> + Hadamard
            $(+ PlusEq1<$u, Self>)*
            $(+ PlusEq2<$b, Self, Self>)*
            + PlusEq1<PowiN<2>, Self> + PlusEq1<PowiN<3>, Self> + PlusEq1<PowiN<4>, Self>
            + PlusEq1<PowiN<-1>, Self> + PlusEq1<PowiN<-2>, Self>
        {
            /// A constant of this type.
            #[inline(always)]
            fn lit(v: f64) -> Self {
                Self::from_f64_lit(v)
            }
        }
        impl<T> Scalar for T where
            T: Copy + Debug + Default + PartialOrd + FromLiteral + AlmostSame + Negate + Value + 'static
            + crate::instr::fresh::Fresh + Reciprocate + Increment + Rotate<T> + Hadamard
            $(+ PlusEq1<$u, T>)*
            $(+ PlusEq2<$b, T, T>)*
            + PlusEq1<PowiN<2>, T> + PlusEq1<PowiN<3>, T> + PlusEq1<PowiN<4>, T>
            + PlusEq1<PowiN<-1>, T> + PlusEq1<PowiN<-2>, T>
        {}
    };
}
scalar_trait!(
    unary: [Identity, Neg, Sin, Cos, Tan, Asin, Acos, Atan, Sinh, Cosh, Tanh, Exp, Ln, Ln1p, ExpM1, Sqrt, Abs, Abs2, Recip],
    binary: [Add, Sub, Mul, Div, Atan2, Powf, Hypot, Min, Max, SqDiff]
);
