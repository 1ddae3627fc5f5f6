//! Backward rules of the arithmetic and elementary functions, written in the language.
//!
//! Each `*_rule` function is the `y -= f(a)` direction on gradient numbers; `#[i]` generates
//! `*_rule_inv`, the `y += f(a)` direction.
use super::{Rule1, Rule2};
use crate::ad::{GVar, Scalar};
use crate::i;
use crate::instr::fns::*;
use crate::instr::PlusEq1;

macro_rules! rule1 {
    ($F:ty, $minus:ident, $plus:ident) => {
        impl<T: Scalar> Rule1<T> for $F {
            #[inline(always)]
            fn plus(y: &mut GVar<T>, a: &mut GVar<T>) {
                $plus(y, a)
            }
            #[inline(always)]
            fn minus(y: &mut GVar<T>, a: &mut GVar<T>) {
                $minus(y, a)
            }
        }
    };
}
macro_rules! rule2 {
    ($F:ty, $minus:ident, $plus:ident) => {
        impl<T: Scalar> Rule2<T> for $F {
            #[inline(always)]
            fn plus(y: &mut GVar<T>, a: &mut GVar<T>, b: &mut GVar<T>) {
                $plus(y, a, b)
            }
            #[inline(always)]
            fn minus(y: &mut GVar<T>, a: &mut GVar<T>, b: &mut GVar<T>) {
                $minus(y, a, b)
            }
        }
    };
}

#[i(nocheck, norev)]
fn identity_rule<T: Scalar>(y: &mut GVar<T>, a: &mut GVar<T>) {
    y.x -= a.x;
    a.g += y.g;
}
rule1!(Identity, identity_rule, identity_rule_inv);

#[i(nocheck, norev)]
fn neg_rule<T: Scalar>(y: &mut GVar<T>, a: &mut GVar<T>) {
    y.x -= -a.x;
    a.g -= y.g;
}
rule1!(Neg, neg_rule, neg_rule_inv);

#[i(nocheck, norev)]
fn add_rule<T: Scalar>(y: &mut GVar<T>, a: &mut GVar<T>, b: &mut GVar<T>) {
    y.x -= a.x + b.x;
    a.g += y.g;
    b.g += y.g;
}
rule2!(Add, add_rule, add_rule_inv);

#[i(nocheck, norev)]
fn sub_rule<T: Scalar>(y: &mut GVar<T>, a: &mut GVar<T>, b: &mut GVar<T>) {
    y.x -= a.x - b.x;
    a.g += y.g;
    b.g -= y.g;
}
rule2!(Sub, sub_rule, sub_rule_inv);

#[i(nocheck, norev)]
fn mul_rule<T: Scalar>(y: &mut GVar<T>, a: &mut GVar<T>, b: &mut GVar<T>) {
    y.x -= a.x * b.x;
    a.g += y.g * b.x;
    b.g += y.g * a.x;
}
rule2!(Mul, mul_rule, mul_rule_inv);

#[i(nocheck, norev)]
fn div_rule<T: Scalar>(y: &mut GVar<T>, a: &mut GVar<T>, b: &mut GVar<T>) {
    y.x -= a.x / b.x;
    a.g += y.g / b.x;
    routine! {
        let q = T::default();
        q += a.x / b.x;
        let t = T::default();
        t += y.g * q;
    }
    b.g -= t / b.x;
    unroutine!();
}
rule2!(Div, div_rule, div_rule_inv);

#[i(nocheck, norev)]
fn sin_rule<T: Scalar>(y: &mut GVar<T>, a: &mut GVar<T>) {
    y.x -= sin(a.x);
    routine! {
        let d = T::default();
        d += cos(a.x);
    }
    a.g += y.g * d;
    unroutine!();
}
rule1!(Sin, sin_rule, sin_rule_inv);

#[i(nocheck, norev)]
fn cos_rule<T: Scalar>(y: &mut GVar<T>, a: &mut GVar<T>) {
    y.x -= cos(a.x);
    routine! {
        let d = T::default();
        d += sin(a.x);
    }
    a.g -= y.g * d;
    unroutine!();
}
rule1!(Cos, cos_rule, cos_rule_inv);

#[i(nocheck, norev)]
fn tan_rule<T: Scalar>(y: &mut GVar<T>, a: &mut GVar<T>) {
    y.x -= tan(a.x);
    routine! {
        let t = T::default();
        t += tan(a.x);
        let d = T::default();
        d += abs2(t);
        d += 1.0;
    }
    a.g += y.g * d;
    unroutine!();
}
rule1!(Tan, tan_rule, tan_rule_inv);

#[i(nocheck, norev)]
fn asin_rule<T: Scalar>(y: &mut GVar<T>, a: &mut GVar<T>) {
    y.x -= asin(a.x);
    routine! {
        let u = T::default();
        u += 1.0;
        u -= abs2(a.x);
        let v = T::default();
        v += sqrt(u);
    }
    a.g += y.g / v;
    unroutine!();
}
rule1!(Asin, asin_rule, asin_rule_inv);

#[i(nocheck, norev)]
fn acos_rule<T: Scalar>(y: &mut GVar<T>, a: &mut GVar<T>) {
    y.x -= acos(a.x);
    routine! {
        let u = T::default();
        u += 1.0;
        u -= abs2(a.x);
        let v = T::default();
        v += sqrt(u);
    }
    a.g -= y.g / v;
    unroutine!();
}
rule1!(Acos, acos_rule, acos_rule_inv);

#[i(nocheck, norev)]
fn atan_rule<T: Scalar>(y: &mut GVar<T>, a: &mut GVar<T>) {
    y.x -= atan(a.x);
    routine! {
        let u = T::default();
        u += abs2(a.x);
        u += 1.0;
    }
    a.g += y.g / u;
    unroutine!();
}
rule1!(Atan, atan_rule, atan_rule_inv);

#[i(nocheck, norev)]
fn sinh_rule<T: Scalar>(y: &mut GVar<T>, a: &mut GVar<T>) {
    y.x -= sinh(a.x);
    routine! {
        let d = T::default();
        d += cosh(a.x);
    }
    a.g += y.g * d;
    unroutine!();
}
rule1!(Sinh, sinh_rule, sinh_rule_inv);

#[i(nocheck, norev)]
fn cosh_rule<T: Scalar>(y: &mut GVar<T>, a: &mut GVar<T>) {
    y.x -= cosh(a.x);
    routine! {
        let d = T::default();
        d += sinh(a.x);
    }
    a.g += y.g * d;
    unroutine!();
}
rule1!(Cosh, cosh_rule, cosh_rule_inv);

#[i(nocheck, norev)]
fn tanh_rule<T: Scalar>(y: &mut GVar<T>, a: &mut GVar<T>) {
    y.x -= tanh(a.x);
    routine! {
        let t = T::default();
        t += tanh(a.x);
        let d = T::default();
        d += 1.0;
        d -= abs2(t);
    }
    a.g += y.g * d;
    unroutine!();
}
rule1!(Tanh, tanh_rule, tanh_rule_inv);

#[i(nocheck, norev)]
#[inline(always)]
fn exp_rule<T: Scalar>(y: &mut GVar<T>, a: &mut GVar<T>) {
    y.x -= exp(a.x);
    routine! {
        let d = T::default();
        d += exp(a.x);
    }
    a.g += y.g * d;
    unroutine!();
}
rule1!(Exp, exp_rule, exp_rule_inv);

#[i(nocheck, norev)]
fn expm1_rule<T: Scalar>(y: &mut GVar<T>, a: &mut GVar<T>) {
    y.x -= exp_m1(a.x);
    routine! {
        let d = T::default();
        d += exp(a.x);
    }
    a.g += y.g * d;
    unroutine!();
}
rule1!(ExpM1, expm1_rule, expm1_rule_inv);

#[i(nocheck, norev)]
#[inline(always)]
fn ln_rule<T: Scalar>(y: &mut GVar<T>, a: &mut GVar<T>) {
    y.x -= ln(a.x);
    a.g += y.g / a.x;
}
rule1!(Ln, ln_rule, ln_rule_inv);

#[i(nocheck, norev)]
fn ln1p_rule<T: Scalar>(y: &mut GVar<T>, a: &mut GVar<T>) {
    y.x -= ln_1p(a.x);
    routine! {
        let u = T::default();
        u += a.x;
        u += 1.0;
    }
    a.g += y.g / u;
    unroutine!();
}
rule1!(Ln1p, ln1p_rule, ln1p_rule_inv);

#[i(nocheck, norev)]
fn sqrt_rule<T: Scalar>(y: &mut GVar<T>, a: &mut GVar<T>) {
    y.x -= sqrt(a.x);
    routine! {
        let s = T::default();
        s += sqrt(a.x);
        let u = T::default();
        u += s * 2.0;
        // sqrt'(0) is infinite: no gradient flows at 0 (as NiLang). Lane masks instead of a
        // branch (exact on batches): `m = [u > 0]`, `a.g += (y.g·m) / (u + (1 − m))`, the
        // same bits as `a.g += y.g / u` where `u > 0`, and `+= 0` elsewhere.
        let m = T::default();
        m += cst!(T::default().lt_mask(&u));
        let t = T::default();
        t += y.g * m;
        let v = T::default();
        v += u;
        v += cst!(u.le_mask(&T::default()));
    }
    a.g += t / v;
    unroutine!();
}
rule1!(Sqrt, sqrt_rule, sqrt_rule_inv);

#[i(nocheck, norev)]
fn abs_rule<T: Scalar>(y: &mut GVar<T>, a: &mut GVar<T>) {
    y.x -= abs(a.x);
    // `a.g += ȳ·[a ≥ 0] − ȳ·[a < 0]` (lane masks, exact on batches)
    a.g += y.g * cst!(T::default().le_mask(&a.x));
    a.g -= y.g * cst!(a.x.lt_mask(&T::default()));
}
rule1!(Abs, abs_rule, abs_rule_inv);

#[i(nocheck, norev)]
fn abs2_rule<T: Scalar>(y: &mut GVar<T>, a: &mut GVar<T>) {
    y.x -= abs2(a.x);
    a.g += y.g * a.x;
    a.g += y.g * a.x;
}
rule1!(Abs2, abs2_rule, abs2_rule_inv);

#[i(nocheck, norev)]
fn sqdiff_rule<T: Scalar>(y: &mut GVar<T>, a: &mut GVar<T>, b: &mut GVar<T>) {
    y.x -= sqdiff(a.x, b.x);
    routine! {
        let t = T::default();
        t += a.x - b.x;
        let u = T::default();
        u += y.g * t;
    }
    a.g += u * 2.0;
    b.g -= u * 2.0;
    unroutine!();
}
rule2!(SqDiff, sqdiff_rule, sqdiff_rule_inv);

#[i(nocheck, norev)]
fn recip_rule<T: Scalar>(y: &mut GVar<T>, a: &mut GVar<T>) {
    y.x -= recip(a.x);
    routine! {
        let d = T::default();
        d += abs2(a.x);
    }
    a.g -= y.g / d;
    unroutine!();
}
rule1!(Recip, recip_rule, recip_rule_inv);

#[i(nocheck, norev)]
fn powf_rule<T: Scalar>(y: &mut GVar<T>, a: &mut GVar<T>, b: &mut GVar<T>) {
    y.x -= powf(a.x, b.x);
    // d/da a^b = b a^(b-1)
    routine! {
        let bm1 = T::default();
        bm1 += b.x - 1.0;
        let p = T::default();
        p += powf(a.x, bm1);
        let s = T::default();
        s += p * b.x;
    }
    a.g += y.g * s;
    unroutine!();
    // d/db a^b = a^b ln a (only where a > 0): lane masks, `m = [a > 0]`, `w = a·m + (1 − m)`
    // (`a` where `a > 0`, else 1, so `ln w = 0` there)
    routine! {
        let m = T::default();
        m += cst!(T::default().lt_mask(&a.x));
        let w = T::default();
        w += a.x * m;
        w += cst!(a.x.le_mask(&T::default()));
        let p = T::default();
        p += powf(a.x, b.x);
        let l = T::default();
        l += ln(w);
        let q = T::default();
        q += p * l;
        let r = T::default();
        r += q * m;
    }
    b.g += y.g * r;
    unroutine!();
}
rule2!(Powf, powf_rule, powf_rule_inv);

#[i(nocheck, norev)]
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
    } else {
        // lane masks: `z = [a = 0]`, `q = a^N / (a + z)` (0 where a = 0: the derivative there)
        routine! {
            let z = T::default();
            z += cst!(a.x.le_mask(&T::default()));
            z -= cst!(a.x.lt_mask(&T::default()));
            let v = T::default();
            v += a.x;
            v += z;
            let p = T::default();
            p += PowiN::<N>(a.x);
            let q = T::default();
            q += p / v;
            let s = T::default();
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
}

#[i(nocheck, norev)]
fn hypot_rule<T: Scalar>(y: &mut GVar<T>, a: &mut GVar<T>, b: &mut GVar<T>) {
    y.x -= hypot(a.x, b.x);
    routine! {
        let h = T::default();
        h += hypot(a.x, b.x);
        let t = T::default();
        t += y.g / h;
    }
    a.g += t * a.x;
    b.g += t * b.x;
    unroutine!();
}
rule2!(Hypot, hypot_rule, hypot_rule_inv);

#[i(nocheck, norev)]
fn atan2_rule<T: Scalar>(y: &mut GVar<T>, a: &mut GVar<T>, b: &mut GVar<T>) {
    y.x -= atan2(a.x, b.x);
    routine! {
        let r = T::default();
        r += abs2(a.x);
        r += abs2(b.x);
        let t = T::default();
        t += y.g / r;
    }
    a.g += t * b.x;
    b.g -= t * a.x;
    unroutine!();
}
rule2!(Atan2, atan2_rule, atan2_rule_inv);

#[i(nocheck, norev)]
fn min_rule<T: Scalar>(y: &mut GVar<T>, a: &mut GVar<T>, b: &mut GVar<T>) {
    y.x -= min(a.x, b.x);
    // lane masks: `ā += ȳ·[a ≤ b]`, `b̄ += ȳ·[b < a]`
    a.g += y.g * cst!(a.x.le_mask(&b.x));
    b.g += y.g * cst!(b.x.lt_mask(&a.x));
}
rule2!(Min, min_rule, min_rule_inv);

#[i(nocheck, norev)]
fn max_rule<T: Scalar>(y: &mut GVar<T>, a: &mut GVar<T>, b: &mut GVar<T>) {
    y.x -= max(a.x, b.x);
    // lane masks: `ā += ȳ·[a ≥ b]`, `b̄ += ȳ·[a < b]`
    a.g += y.g * cst!(b.x.le_mask(&a.x));
    b.g += y.g * cst!(a.x.lt_mask(&b.x));
}
rule2!(Max, max_rule, max_rule_inv);

/// `(s, c) -= sincos(a)` on gradient numbers.
#[i(nocheck, norev)]
pub(crate) fn sincos_rule<T: Scalar>(s: &mut GVar<T>, c: &mut GVar<T>, a: &mut GVar<T>) {
    s.x -= sin(a.x);
    c.x -= cos(a.x);
    routine! {
        let dc = T::default();
        dc += cos(a.x);
        let ds = T::default();
        ds += sin(a.x);
    }
    a.g += s.g * dc;
    a.g -= c.g * ds;
    unroutine!();
}
