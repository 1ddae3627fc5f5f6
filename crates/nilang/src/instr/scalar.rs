//! [`Scalar`]: a number on which every instruction runs, and [`Ordered`], a scalar with an
//! order and a value (the numbers that programs and backward rules compute with).
use super::basic::{Hadamard, Increment, Negate, Reciprocate, Rotate};
use super::fns::*;
use super::fresh::Fresh;
use super::{FromLiteral, PlusEq1, PlusEq2};
use crate::check::AlmostSame;
use crate::number::{Adjoints, LaneOrd, Value};
use core::fmt::Debug;

/// A [`Scalar`] with an order and a single value: what a generic program needs for a
/// data-dependent condition (`if x > y`, `while x.value() > eps`). Every scalar except the
/// batch numbers.
///
/// ```
/// fn takes<T: nilang::ad::Ordered>(_: T) {}
/// takes(1.0_f64);
/// takes(nilang::GVar::from(1.0_f64));
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no order: a data-dependent condition cannot be evaluated on it",
    label = "`{Self}` is not `Ordered`",
    note = "a batch number (`F64x4`, `F64x8`, or a `GVar` of one) holds independent lanes that could take different branches: programs with data-dependent `if`/`while` conditions do not run on batches",
    note = "make the condition depend on integers or flags only, or write the branch with lane masks (`nilang::ad::LaneOrd`)"
)]
pub trait Ordered: Scalar + PartialOrd + Value {}
impl<T: Scalar + PartialOrd + Value> Ordered for T {}

macro_rules! scalar_trait {
    // the markers of the table of elementary functions ([`nilang_functions`]) join the unary ones
    (@table unary: [$($u:ty),*], binary: [$($b:ty),*]; $($F:ident { $($row:tt)* },)*) => {
        scalar_trait!(unary: [$($u,)* $($F),*], binary: [$($b),*]);
    };
    (unary: [$($u:ty),*], binary: [$($b:ty),*]) => {
        /// A number on which every accumulating instruction is available with operands of its
        /// own type, and the instructions `NEG`, `INV`, `INC`/`DEC`, `ROT`/`IROT` (angle of the
        /// same type), `HADAMARD`: `f32`, `f64`, `Dual<T>`, `Lanes<N>`, the batches `F64x4`,
        /// `F64x8`, and recursively `GVar<T>` of a `Scalar` (which is what makes gradients of
        /// gradients work).
        ///
        /// A `Scalar` need not be ordered: a batch has no order and no single value, so a
        /// generic program over `T: Scalar` cannot branch on its numbers (bound
        /// `T: nilang::ad::Ordered` for that; such a program does not run on batches).
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
            Copy + Debug + Default + FromLiteral + AlmostSame + Negate + LaneOrd + Adjoints + 'static
            + Fresh + Reciprocate + Increment + Rotate<Self> + Hadamard
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
            T: Copy + Debug + Default + FromLiteral + AlmostSame + Negate + LaneOrd + Adjoints + 'static
            + Fresh + Reciprocate + Increment + Rotate<T> + Hadamard
            $(+ PlusEq1<$u, T>)*
            $(+ PlusEq2<$b, T, T>)*
            + PlusEq1<PowiN<2>, T> + PlusEq1<PowiN<3>, T> + PlusEq1<PowiN<4>, T>
            + PlusEq1<PowiN<-1>, T> + PlusEq1<PowiN<-2>, T>
        {}
    };
}
nilang_functions::elementary_functions!(scalar_trait! { @table
    unary: [Identity, Neg, Sqrt, Abs, Abs2, Recip],
    binary: [Add, Sub, Mul, Div, Atan2, Powf, Hypot, Min, Max, SqDiff];
});
