//! Function markers: the `f` of `y += f(args)`.
//!
//! Each marker is a zero-sized type implementing [`Func`] (plain evaluation). The compiler maps
//! `sin(x)`, `x.sin()`, `a * b`, ... to these markers; automatic differentiation attaches a
//! backward rule to each marker (see `crate::ad::rules`). Users add their own with
//! `#[nilang::primitive]`.
use crate::number::Real;

/// Plain evaluation of a pure function on an argument tuple.
///
/// ```
/// use nilang::instr::{Func, fns::Mul};
/// assert_eq!(<Mul as Func<(f64, f64)>>::eval((2.0, 3.0)), 6.0);
/// ```
pub trait Func<Args> {
    /// Result type.
    type Out;
    /// Evaluate the function.
    fn eval(args: Args) -> Self::Out;
}

/// The built-in function markers.
pub mod fns {
    use super::*;
    use core::ops;

    macro_rules! marker {
        ($($name:ident: $doc:expr),* $(,)?) => {$(
            #[doc = $doc]
            #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
            pub struct $name;
        )*};
    }
    marker!(
        Identity: "`identity(x) = x` (also a bare operand: `y += x`).",
        Add: "`a + b`.", Sub: "`a - b`.", Mul: "`a * b`.", Div: "`a / b`.", Neg: "`-a`.",
        Atan2: "`atan2(y, x)`.", Sqrt: "`sqrt(x)`.", Abs: "`abs(x)`.",
        Abs2: "`abs2(x) = x * x`.", SqDiff: "`sqdiff(a, b) = (a − b)²` (squared distance term).", Powf: "`powf(x, e)`.", Powi: "`powi(x, n)`, `n: i32`.",
        Hypot: "`hypot(x, y)`.", Recip: "`inv(x) = 1 / x` (also `recip`).",
        Min: "`min(a, b)`.", Max: "`max(a, b)`.", SinCos: "`sincos(x) = (sin x, cos x)` (tuple target).",
        Convert: "`convert(x)`: numeric conversion into the target's type.",
        And: "`a && b` (bools).", Or: "`a || b` (bools).", Not: "`!a`.",
        BitAnd: "`a & b`.", BitOr: "`a | b`.",
    );
    impl Func<(bool, bool)> for And {
        type Out = bool;
        #[inline(always)]
        #[track_caller]
        fn eval((a, b): (bool, bool)) -> bool {
            a && b
        }
    }
    impl Func<(bool, bool)> for Or {
        type Out = bool;
        #[inline(always)]
        #[track_caller]
        fn eval((a, b): (bool, bool)) -> bool {
            a || b
        }
    }
    impl<A: ops::Not> Func<(A,)> for Not {
        type Out = A::Output;
        #[inline(always)]
        #[track_caller]
        fn eval(a: (A,)) -> A::Output {
            !a.0
        }
    }

    impl<A> Func<(A,)> for Identity {
        type Out = A;
        #[inline(always)]
        #[track_caller]
        fn eval(a: (A,)) -> A {
            a.0
        }
    }
    macro_rules! binop {
        ($m:ident, $tr:ident, $op:tt) => {
            impl<A: ops::$tr<B>, B> Func<(A, B)> for $m {
                type Out = A::Output;
                #[inline(always)]
                #[track_caller]
                fn eval((a, b): (A, B)) -> A::Output {
                    a $op b
                }
            }
        };
    }
    binop!(Add, Add, +);
    binop!(Sub, Sub, -);
    binop!(Mul, Mul, *);
    binop!(Div, Div, /);
    binop!(BitAnd, BitAnd, &);
    binop!(BitOr, BitOr, |);
    impl<A: ops::Neg> Func<(A,)> for Neg {
        type Out = A::Output;
        #[inline(always)]
        #[track_caller]
        fn eval(a: (A,)) -> A::Output {
            -a.0
        }
    }
    macro_rules! unary {
        ($($m:ident => $f:ident),*) => {$(
            impl<T: Real> Func<(T,)> for $m {
                type Out = T;
                #[inline(always)]
                #[track_caller]
                fn eval(a: (T,)) -> T {
                    a.0.$f()
                }
            }
        )*};
    }
    unary!(Sqrt => sqrt, Abs => abs, Recip => recip);

    /// The markers of the table of elementary functions ([`nilang_functions`]), each
    /// evaluated by its method of [`Real`].
    macro_rules! elementary_markers {
        ($($F:ident { names: [$f:ident $(, $alias:ident)*], c: $c:ident, domain: $dom:literal, $($rest:tt)* },)*) => {$(
            marker!($F: concat!("`", stringify!($f), "(x)`", $(" (also `", stringify!($alias), "`)",)* ", defined for ", $dom, "."));
            unary!($F => $f);
        )*};
    }
    nilang_functions::elementary_functions!(elementary_markers! {});
    macro_rules! binary {
        ($($m:ident => $f:ident),*) => {$(
            impl<T: Real> Func<(T, T)> for $m {
                type Out = T;
                #[inline(always)]
                #[track_caller]
                fn eval((a, b): (T, T)) -> T {
                    a.$f(b)
                }
            }
        )*};
    }
    binary!(Atan2 => atan2, Powf => powf, Hypot => hypot, Min => min, Max => max);
    impl<T: Real> Func<(T,)> for Abs2 {
        type Out = T;
        #[inline(always)]
        #[track_caller]
        fn eval(a: (T,)) -> T {
            a.0 * a.0
        }
    }
    impl<T: Real> Func<(T, T)> for SqDiff {
        type Out = T;
        #[inline(always)]
        #[track_caller]
        fn eval((a, b): (T, T)) -> T {
            let d = a - b;
            d * d
        }
    }
    impl<T: Real> Func<(T, i32)> for Powi {
        type Out = T;
        #[inline(always)]
        #[track_caller]
        fn eval((a, n): (T, i32)) -> T {
            a.powi(n)
        }
    }
    /// `powi(x, N)` with a literal exponent (the compiler's form of `x.powi(3)`).
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
    pub struct PowiN<const N: i32>;
    impl<T: Real, const N: i32> Func<(T,)> for PowiN<N> {
        type Out = T;
        #[inline(always)]
        #[track_caller]
        fn eval(a: (T,)) -> T {
            a.0.powi(N)
        }
    }
    impl<T: Real> Func<(T,)> for SinCos {
        type Out = (T, T);
        #[inline(always)]
        #[track_caller]
        fn eval(a: (T,)) -> (T, T) {
            (a.0.sin(), a.0.cos())
        }
    }
}
