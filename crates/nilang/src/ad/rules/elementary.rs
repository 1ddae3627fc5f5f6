//! Backward rules of the arithmetic and elementary functions, written in the language.
//!
//! Each `*_rule` function is the `y -= f(a)` direction on gradient numbers; `#[i]` generates
//! `*_rule_inv`, the `y += f(a)` direction.
use super::{Rule1, Rule2};
use crate::ad::{GVar, Scalar};
use crate::i;
use crate::instr::fns::*;
use crate::instr::{PlusEq1, PlusEq2};

macro_rules! rule1 {
    ($F:ty, $minus:ident, $plus:ident; $minus_adj:ident, $plus_adj:ident) => {
        rule1!(@impl $F, $minus, $plus {
            #[inline(always)]
            fn plus_adjoint(y: &mut GVar<T>, a: &mut GVar<T>) {
                $plus_adj(y, a)
            }
            #[inline(always)]
            fn minus_adjoint(y: &mut GVar<T>, a: &mut GVar<T>) {
                $minus_adj(y, a)
            }
        });
    };
    ($F:ty, $minus:ident, $plus:ident) => {
        rule1!(@impl $F, $minus, $plus {});
    };
    (@impl $F:ty, $minus:ident, $plus:ident { $($adj:tt)* }) => {
        impl<T: Scalar> Rule1<T> for $F {
            $($adj)*
            #[inline(always)]
            fn plus(y: &mut GVar<T>, a: &mut GVar<T>) {
                $plus(y, a)
            }
            #[inline(always)]
            fn minus(y: &mut GVar<T>, a: &mut GVar<T>) {
                $minus(y, a)
            }
            const VALUE: bool = true;
            #[inline(always)]
            fn plus_value(y: &mut T, a: &mut T) {
                <T as PlusEq1<$F, T>>::plus_eq(y, a)
            }
            #[inline(always)]
            fn minus_value(y: &mut T, a: &mut T) {
                <T as PlusEq1<$F, T>>::minus_eq(y, a)
            }
        }
    };
}
macro_rules! rule2 {
    ($F:ty, $minus:ident, $plus:ident; $minus_adj:ident, $plus_adj:ident) => {
        rule2!(@impl $F, $minus, $plus {
            #[inline(always)]
            fn plus_adjoint(y: &mut GVar<T>, a: &mut GVar<T>, b: &mut GVar<T>) {
                $plus_adj(y, a, b)
            }
            #[inline(always)]
            fn minus_adjoint(y: &mut GVar<T>, a: &mut GVar<T>, b: &mut GVar<T>) {
                $minus_adj(y, a, b)
            }
        });
    };
    ($F:ty, $minus:ident, $plus:ident) => {
        rule2!(@impl $F, $minus, $plus {});
    };
    (@impl $F:ty, $minus:ident, $plus:ident { $($adj:tt)* }) => {
        impl<T: Scalar> Rule2<T> for $F {
            $($adj)*
            #[inline(always)]
            fn plus(y: &mut GVar<T>, a: &mut GVar<T>, b: &mut GVar<T>) {
                $plus(y, a, b)
            }
            #[inline(always)]
            fn minus(y: &mut GVar<T>, a: &mut GVar<T>, b: &mut GVar<T>) {
                $minus(y, a, b)
            }
            const VALUE: bool = true;
            #[inline(always)]
            fn plus_value(y: &mut T, a: &mut T, b: &mut T) {
                <T as PlusEq2<$F, T, T>>::plus_eq(y, a, b)
            }
            #[inline(always)]
            fn minus_value(y: &mut T, a: &mut T, b: &mut T) {
                <T as PlusEq2<$F, T, T>>::minus_eq(y, a, b)
            }
        }
    };
}

#[i(nocheck, norev)]
#[inline(always)] // a leaf: compiled into its caller (its SIMD width, `crate::simd`)
fn identity_rule<T: Scalar>(y: &mut GVar<T>, a: &mut GVar<T>) {
    y.x -= a.x;
    a.g += y.g;
}
// the adjoint part alone (the target's value is not read afterwards)
#[i(nocheck, norev)]
#[inline(always)] // a leaf: compiled into its caller (its SIMD width, `crate::simd`)
fn identity_adj<T: Scalar>(y: &mut GVar<T>, a: &mut GVar<T>) {
    a.g += y.g;
}
rule1!(Identity, identity_rule, identity_rule_inv; identity_adj, identity_adj_inv);

#[i(nocheck, norev)]
#[inline(always)] // a leaf: compiled into its caller (its SIMD width, `crate::simd`)
fn neg_rule<T: Scalar>(y: &mut GVar<T>, a: &mut GVar<T>) {
    y.x -= -a.x;
    a.g -= y.g;
}
// the adjoint part alone (the target's value is not read afterwards)
#[i(nocheck, norev)]
#[inline(always)] // a leaf: compiled into its caller (its SIMD width, `crate::simd`)
fn neg_adj<T: Scalar>(y: &mut GVar<T>, a: &mut GVar<T>) {
    a.g -= y.g;
}
rule1!(Neg, neg_rule, neg_rule_inv; neg_adj, neg_adj_inv);

#[i(nocheck, norev)]
#[inline(always)] // a leaf: compiled into its caller (its SIMD width, `crate::simd`)
fn add_rule<T: Scalar>(y: &mut GVar<T>, a: &mut GVar<T>, b: &mut GVar<T>) {
    y.x -= a.x + b.x;
    a.g += y.g;
    b.g += y.g;
}
// the adjoint part alone (the target's value is not read afterwards)
#[i(nocheck, norev)]
#[inline(always)] // a leaf: compiled into its caller (its SIMD width, `crate::simd`)
fn add_adj<T: Scalar>(y: &mut GVar<T>, a: &mut GVar<T>, b: &mut GVar<T>) {
    a.g += y.g;
    b.g += y.g;
}
rule2!(Add, add_rule, add_rule_inv; add_adj, add_adj_inv);

#[i(nocheck, norev)]
#[inline(always)] // a leaf: compiled into its caller (its SIMD width, `crate::simd`)
fn sub_rule<T: Scalar>(y: &mut GVar<T>, a: &mut GVar<T>, b: &mut GVar<T>) {
    y.x -= a.x - b.x;
    a.g += y.g;
    b.g -= y.g;
}
// the adjoint part alone (the target's value is not read afterwards)
#[i(nocheck, norev)]
#[inline(always)] // a leaf: compiled into its caller (its SIMD width, `crate::simd`)
fn sub_adj<T: Scalar>(y: &mut GVar<T>, a: &mut GVar<T>, b: &mut GVar<T>) {
    a.g += y.g;
    b.g -= y.g;
}
rule2!(Sub, sub_rule, sub_rule_inv; sub_adj, sub_adj_inv);

#[i(nocheck, norev)]
#[inline(always)] // a leaf: compiled into its caller (its SIMD width, `crate::simd`)
fn mul_rule<T: Scalar>(y: &mut GVar<T>, a: &mut GVar<T>, b: &mut GVar<T>) {
    y.x -= a.x * b.x;
    a.g += y.g * b.x;
    b.g += y.g * a.x;
}
// the adjoint part alone (the target's value is not read afterwards)
#[i(nocheck, norev)]
#[inline(always)] // a leaf: compiled into its caller (its SIMD width, `crate::simd`)
fn mul_adj<T: Scalar>(y: &mut GVar<T>, a: &mut GVar<T>, b: &mut GVar<T>) {
    a.g += y.g * b.x;
    b.g += y.g * a.x;
}
rule2!(Mul, mul_rule, mul_rule_inv; mul_adj, mul_adj_inv);

// The ancillas of the rules start from −0.0, the identity of IEEE addition (`−0.0 + v` is
// `v` for every `v`, where `0.0 + (−0.0)` is `+0.0`): so `t += v` into a new ancilla compiles
// to `t = v`, with no addition left. It is zero for every check (`−0.0 == 0.0`).

/// The one reversible rule of an elementary function, instantiated from tables of (function,
/// derivative) rows.
///
/// `y -= f(a, ..)` runs as: compute `fx = f(a.x, ..)` and what the adjoints need (the
/// derivative) in a routine, `y.x -= fx` (the routine's value: `f` is evaluated once, and once
/// more to uncompute), the adjoint updates, uncompute. `#[i]` writes the inverse (the
/// `y += f(a, ..)` direction); the routine keeps it reversible over every [`Scalar`] (so
/// `GVar<GVar<_>>` has second derivatives). The names of the parameters, of `fx` (and, for one
/// argument, of the derivative `d`) are given once at the top of a table (macro hygiene: the
/// rows use them).
macro_rules! rules {
    // one argument: a row is `F f { d = f'(x) from a.x and fx } { ā update }`
    (|$y:ident, $a:ident; $fx:ident, $d:ident| $($F:ident $f:ident { $($deriv:tt)* } { $($adjoint:tt)* })*) => {$(
        rules!(@rule ($y: &mut GVar<T>, $a: &mut GVar<T>) $y $fx rule1 $F [$f($a.x)]
            { let $d = T::lit(-0.0); $($deriv)* } { $($adjoint)* });
    )*};
    // two arguments: a row is `F [f(a.x, b.x)] { what the adjoints need } { ā, b̄ updates }`
    (|$y:ident, $a:ident, $b:ident; $fx:ident| $($F:ident [$($f:tt)*] { $($routine:tt)* } { $($adjoint:tt)* })*) => {$(
        rules!(@rule ($y: &mut GVar<T>, $a: &mut GVar<T>, $b: &mut GVar<T>) $y $fx rule2 $F
            [$($f)*] { $($routine)* } { $($adjoint)* });
    )*};
    (@rule $params:tt $y:ident $fx:ident $impl:ident $F:ident [$($f:tt)*] { $($routine:tt)* } { $($adjoint:tt)* }) => {
        const _: () = {
            #[i(nocheck, norev)]
            #[inline(always)]
            fn rule<T: Scalar> $params {
                routine! {
                    let $fx = T::lit(-0.0);
                    $fx += $($f)*;
                    $($routine)*
                }
                $y.x -= $fx;
                $($adjoint)*
                unroutine!();
            }
            $impl!($F, rule, rule_inv);
        };
    };
}

/// The rules of the table of elementary functions ([`nilang_functions`]), one per row, in the
/// form of [`rules!`]: `d` is computed from the row's derivative expression in a routine, one
/// instruction per term (`d += 1.0`, `d -= abs2(fx)`, ..; a term whose argument is a sum gets
/// its ancilla `u` first), then `ā ±= ȳ ∘ d`.
macro_rules! table_rules {
    ($($F:ident { names: [$f:ident $(, $alias:ident)*], c: $c:ident, domain: $dom:literal, d: $s:tt $op:tt ($($d:tt)*), lanes: $l:ident },)*) => {$(
        table_rules!(@row $F $f [y a fx d u] $s $op + $($d)*);
    )*};
    // `ā ±= ȳ ∘ d`: the update and the operator
    (@row $F:ident $f:ident [$y:ident $a:ident $fx:ident $d:ident $u:ident] + * $($e:tt)*) => { table_rules!(@sum [$F $f [+=] [*]] [$y $a $fx $d $u] [$d] [] [] $($e)*); };
    (@row $F:ident $f:ident [$y:ident $a:ident $fx:ident $d:ident $u:ident] - * $($e:tt)*) => { table_rules!(@sum [$F $f [-=] [*]] [$y $a $fx $d $u] [$d] [] [] $($e)*); };
    (@row $F:ident $f:ident [$y:ident $a:ident $fx:ident $d:ident $u:ident] + / $($e:tt)*) => { table_rules!(@sum [$F $f [+=] [/]] [$y $a $fx $d $u] [$d] [] [] $($e)*); };
    (@row $F:ident $f:ident [$y:ident $a:ident $fx:ident $d:ident $u:ident] - / $($e:tt)*) => { table_rules!(@sum [$F $f [-=] [/]] [$y $a $fx $d $u] [$d] [] [] $($e)*); };
    // a sum into the target `$t`: its next term, with its sign
    (@sum $row:tt $names:tt [$t:ident] $stack:tt $out:tt + $($rest:tt)*) => {
        table_rules!(@term $row $names [$t] $stack $out [+=] $($rest)*);
    };
    (@sum $row:tt $names:tt [$t:ident] $stack:tt $out:tt - $($rest:tt)*) => {
        table_rules!(@term $row $names [$t] $stack $out [-=] $($rest)*);
    };
    // the end of a sum that is a function's argument: the term of the enclosing sum
    (@sum $row:tt $names:tt [$t:ident] [{ $pt:ident $po:tt $g:ident [$($prest:tt)*] } $($stack:tt)*] [$($out:tt)*]) => {
        table_rules!(@sum $row $names [$pt] [$($stack)*] [$($out)* $pt $po $g($t);] $($prest)*);
    };
    // the end of the derivative: the rule
    (@sum [$F:ident $f:ident [$up:tt] [$op:tt]] [$y:ident $a:ident $fx:ident $d:ident $u:ident] [$t:ident] [] [$($out:tt)*]) => {
        const _: () = {
            #[i(nocheck, norev)]
            #[inline(always)]
            fn rule<T: Scalar>($y: &mut GVar<T>, $a: &mut GVar<T>) {
                routine! {
                    let $fx = T::lit(-0.0);
                    $fx += $f($a.x);
                    let $d = T::lit(-0.0);
                    $($out)*
                }
                $y.x -= $fx;
                $a.g $up $y.g $op $d;
                unroutine!();
            }
            rule1!($F, rule, rule_inv);
        };
    };
    // terms: `1`, `x`, `r`, `g(x)`, `g(r)`, `g(sum)` (the sum into the ancilla `u` first)
    (@term $row:tt $names:tt [$t:ident] $stack:tt [$($out:tt)*] [$o:tt] 1 $($rest:tt)*) => {
        table_rules!(@sum $row $names [$t] $stack [$($out)* $t $o 1.0;] $($rest)*);
    };
    (@term $row:tt [$y:ident $a:ident $fx:ident $d:ident $u:ident] [$t:ident] $stack:tt [$($out:tt)*] [$o:tt] x $($rest:tt)*) => {
        table_rules!(@sum $row [$y $a $fx $d $u] [$t] $stack [$($out)* $t $o $a.x;] $($rest)*);
    };
    (@term $row:tt [$y:ident $a:ident $fx:ident $d:ident $u:ident] [$t:ident] $stack:tt [$($out:tt)*] [$o:tt] r $($rest:tt)*) => {
        table_rules!(@sum $row [$y $a $fx $d $u] [$t] $stack [$($out)* $t $o $fx;] $($rest)*);
    };
    (@term $row:tt [$y:ident $a:ident $fx:ident $d:ident $u:ident] [$t:ident] $stack:tt [$($out:tt)*] [$o:tt] $g:ident (x) $($rest:tt)*) => {
        table_rules!(@sum $row [$y $a $fx $d $u] [$t] $stack [$($out)* $t $o $g($a.x);] $($rest)*);
    };
    (@term $row:tt [$y:ident $a:ident $fx:ident $d:ident $u:ident] [$t:ident] $stack:tt [$($out:tt)*] [$o:tt] $g:ident (r) $($rest:tt)*) => {
        table_rules!(@sum $row [$y $a $fx $d $u] [$t] $stack [$($out)* $t $o $g($fx);] $($rest)*);
    };
    // a sum starting with `-` (`g(-x)`): its first term subtracted from the ancilla's `−0`
    (@term $row:tt [$y:ident $a:ident $fx:ident $d:ident $u:ident] [$t:ident] [$($stack:tt)*] [$($out:tt)*] [$o:tt] $g:ident (- $($e:tt)*) $($rest:tt)*) => {
        table_rules!(@sum $row [$y $a $fx $d $u] [$u] [{ $t $o $g [$($rest)*] } $($stack)*]
            [$($out)* let $u = T::lit(-0.0);] - $($e)*);
    };
    (@term $row:tt [$y:ident $a:ident $fx:ident $d:ident $u:ident] [$t:ident] [$($stack:tt)*] [$($out:tt)*] [$o:tt] $g:ident ($($e:tt)*) $($rest:tt)*) => {
        table_rules!(@sum $row [$y $a $fx $d $u] [$u] [{ $t $o $g [$($rest)*] } $($stack)*]
            [$($out)* let $u = T::lit(-0.0);] + $($e)*);
    };
}
nilang_functions::elementary_functions!(table_rules! {});

#[rustfmt::skip]
rules! { |y, a; fx, d|
    // f     d from x = a.x and fx = f(x)                                    ā ±= ȳ ∘ d
    // (the functions of the table of elementary functions: `table_rules!`)
    Recip recip  { d += abs2(fx); }                                            { a.g -= y.g * d; }
    // sqrt'(0) is infinite: no gradient flows at 0 (as NiLang)
    // lane masks instead of a branch (exact on batches): `m = [d > 0]`, `ā += (ȳ·m) / (d + (1 − m))`
    Sqrt  sqrt   { d += fx * 2.0;
                   let m = T::lit(-0.0); m += cst!(T::default().lt_mask(&d));
                   let t = T::lit(-0.0); t += y.g * m;
                   let v = T::lit(-0.0); v += d; v += cst!(d.le_mask(&T::default())); } { a.g += t / v; }
}

#[rustfmt::skip]
rules! { |y, a, b; fx|
    // f = …               what the adjoints need                               ā, b̄ updates
    // one division for the adjoints, `r = 1/b` (`ā += ȳ·r`, `b̄ -= ȳ·r·fx`): with a constant
    // numerator 1 (`u += 1.0 / x`) it is `fx` itself, and the whole rule divides once
    Div   [a.x / b.x]       { let r = T::lit(-0.0); r += 1.0 / b.x;
                              let t = T::lit(-0.0); t += y.g * r; }              { a.g += t; b.g -= t * fx; }
    Hypot [hypot(a.x, b.x)] { let t = T::lit(-0.0); t += y.g / fx; }             { a.g += t * a.x; b.g += t * b.x; }
    Atan2 [atan2(a.x, b.x)] { let r = T::lit(-0.0); r += abs2(a.x); r += abs2(b.x);
                              let t = T::lit(-0.0); t += y.g / r; }              { a.g += t * b.x; b.g -= t * a.x; }
}

#[i(nocheck, norev)]
#[inline(always)] // a leaf: compiled into its caller (its SIMD width, `crate::simd`)
fn abs_rule<T: Scalar>(y: &mut GVar<T>, a: &mut GVar<T>) {
    y.x -= abs(a.x);
    // `a.g += ȳ·[a ≥ 0] − ȳ·[a < 0]` (lane masks, exact on batches)
    a.g += y.g * cst!(T::default().le_mask(&a.x));
    a.g -= y.g * cst!(a.x.lt_mask(&T::default()));
}
rule1!(Abs, abs_rule, abs_rule_inv);

#[i(nocheck, norev)]
#[inline(always)] // a leaf: compiled into its caller (its SIMD width, `crate::simd`)
fn abs2_rule<T: Scalar>(y: &mut GVar<T>, a: &mut GVar<T>) {
    y.x -= abs2(a.x);
    a.g += y.g * a.x;
    a.g += y.g * a.x;
}
// the adjoint part alone (the target's value is not read afterwards)
#[i(nocheck, norev)]
#[inline(always)] // a leaf: compiled into its caller (its SIMD width, `crate::simd`)
fn abs2_adj<T: Scalar>(y: &mut GVar<T>, a: &mut GVar<T>) {
    a.g += y.g * a.x;
    a.g += y.g * a.x;
}
rule1!(Abs2, abs2_rule, abs2_rule_inv; abs2_adj, abs2_adj_inv);

#[i(nocheck, norev)]
#[inline(always)] // a leaf: compiled into its caller (its SIMD width, `crate::simd`)
fn sqdiff_rule<T: Scalar>(y: &mut GVar<T>, a: &mut GVar<T>, b: &mut GVar<T>) {
    y.x -= sqdiff(a.x, b.x);
    routine! {
        let t = T::lit(-0.0);
        t += a.x - b.x;
        let u = T::lit(-0.0);
        u += y.g * t;
    }
    a.g += u * 2.0;
    b.g -= u * 2.0;
    unroutine!();
}
rule2!(SqDiff, sqdiff_rule, sqdiff_rule_inv);

#[i(nocheck, norev)]
#[inline(always)] // a leaf: compiled into its caller (its SIMD width, `crate::simd`)
fn powf_rule<T: Scalar>(y: &mut GVar<T>, a: &mut GVar<T>, b: &mut GVar<T>) {
    routine! {
        let p = T::lit(-0.0);
        p += powf(a.x, b.x);
    }
    y.x -= p;
    // d/da a^b = b a^(b-1)
    routine! {
        let bm1 = T::lit(-0.0);
        bm1 += b.x - 1.0;
        let pm = T::lit(-0.0);
        pm += powf(a.x, bm1);
        let s = T::lit(-0.0);
        s += pm * b.x;
    }
    a.g += y.g * s;
    unroutine!();
    // d/db a^b = a^b ln a (only where a > 0): lane masks, `m = [a > 0]`, `w = a·m + (1 − m)`
    // (`a` where `a > 0`, else 1, so `ln w = 0` there)
    routine! {
        let m = T::lit(-0.0);
        m += cst!(T::default().lt_mask(&a.x));
        let w = T::lit(-0.0);
        w += a.x * m;
        w += cst!(a.x.le_mask(&T::default()));
        let l = T::lit(-0.0);
        l += ln(w);
        let q = T::lit(-0.0);
        q += p * l;
        let r = T::lit(-0.0);
        r += q * m;
    }
    b.g += y.g * r;
    unroutine!();
    unroutine!();
}
rule2!(Powf, powf_rule, powf_rule_inv);

#[i(nocheck, norev)]
#[inline(always)] // a leaf: compiled into its caller (its SIMD width, `crate::simd`)
fn powin_rule<T: Scalar, const N: i32>(y: &mut GVar<T>, a: &mut GVar<T>)
where
    T: PlusEq1<PowiN<N>, T>,
{
    y.x -= PowiN::<N>(a.x);
    // d/da a^N = N a^(N-1): for N = 2 as for abs2; otherwise N·(a^N / a) (no `powf` on the
    // hot path), and the derivative at 0 is 0 for N ≥ 2 (for N < 0 there is no value at 0)
    if N == 2 {
        a.g += y.g * a.x;
        a.g += y.g * a.x;
    } else if N == 1 {
        a.g += y.g;
    } else if N == 3 || N == 4 {
        // N a^(N-1) by products (no division on the hot path: a cubic term's adjoint is
        // three multiplications)
        routine! {
            let sq = T::lit(-0.0);
            sq += abs2(a.x);
            let pw = T::lit(-0.0);
            if N == 3 {
                pw += sq * cst!(T::lit(N as f64));
            } else {
                pw += sq * a.x;
            }
            let s = T::lit(-0.0);
            if N == 3 {
                s += pw;
            } else {
                s += pw * cst!(T::lit(N as f64));
            }
        }
        a.g += y.g * s;
        unroutine!();
    } else {
        // lane masks: `z = [a = 0]`, `q = a^N / (a + z)` (0 where a = 0: the derivative there)
        routine! {
            let z = T::lit(-0.0);
            z += cst!(a.x.le_mask(&T::default()));
            z -= cst!(a.x.lt_mask(&T::default()));
            let v = T::lit(-0.0);
            v += a.x;
            v += z;
            let p = T::lit(-0.0);
            p += PowiN::<N>(a.x);
            let q = T::lit(-0.0);
            q += p / v;
            let s = T::lit(-0.0);
            s += q * cst!(T::lit(N as f64));
        }
        a.g += y.g * s;
        unroutine!();
    }
}
impl<T: Scalar + PlusEq1<PowiN<N>, T>, const N: i32> Rule1<T> for PowiN<N> {
    #[inline(always)]
    fn plus(y: &mut GVar<T>, a: &mut GVar<T>) {
        powin_rule_inv::<T, N>(y, a)
    }
    #[inline(always)]
    fn minus(y: &mut GVar<T>, a: &mut GVar<T>) {
        powin_rule::<T, N>(y, a)
    }
    const VALUE: bool = true;
    #[inline(always)]
    fn plus_value(y: &mut T, a: &mut T) {
        <T as PlusEq1<PowiN<N>, T>>::plus_eq(y, a)
    }
    #[inline(always)]
    fn minus_value(y: &mut T, a: &mut T) {
        <T as PlusEq1<PowiN<N>, T>>::minus_eq(y, a)
    }
}

#[i(nocheck, norev)]
#[inline(always)] // a leaf: compiled into its caller (its SIMD width, `crate::simd`)
fn min_rule<T: Scalar>(y: &mut GVar<T>, a: &mut GVar<T>, b: &mut GVar<T>) {
    y.x -= min(a.x, b.x);
    // lane masks: `ā += ȳ·[a ≤ b]`, `b̄ += ȳ·[b < a]`
    a.g += y.g * cst!(a.x.le_mask(&b.x));
    b.g += y.g * cst!(b.x.lt_mask(&a.x));
}
rule2!(Min, min_rule, min_rule_inv);

#[i(nocheck, norev)]
#[inline(always)] // a leaf: compiled into its caller (its SIMD width, `crate::simd`)
fn max_rule<T: Scalar>(y: &mut GVar<T>, a: &mut GVar<T>, b: &mut GVar<T>) {
    y.x -= max(a.x, b.x);
    // lane masks: `ā += ȳ·[a ≥ b]`, `b̄ += ȳ·[a < b]`
    a.g += y.g * cst!(b.x.le_mask(&a.x));
    b.g += y.g * cst!(a.x.lt_mask(&b.x));
}
rule2!(Max, max_rule, max_rule_inv);

/// `(s, c) -= sincos(a)` on gradient numbers.
#[i(nocheck, norev)]
#[inline(always)] // a leaf: compiled into its caller (its SIMD width, `crate::simd`)
pub(crate) fn sincos_rule<T: Scalar>(s: &mut GVar<T>, c: &mut GVar<T>, a: &mut GVar<T>) {
    s.x -= sin(a.x);
    c.x -= cos(a.x);
    routine! {
        let dc = T::lit(-0.0);
        dc += cos(a.x);
        let ds = T::lit(-0.0);
        ds += sin(a.x);
    }
    a.g += s.g * dc;
    a.g -= c.g * ds;
    unroutine!();
}
