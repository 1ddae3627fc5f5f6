//! [`ULog`]: positive numbers stored as their logarithm (NiLang's `ULogarithmic`).
use crate::check::ErrorKind;
use crate::instr::fns::{self, Add, Convert, Exp, Identity, Ln, Ln1p, Mul, Powf, Powi, PowiN, Sub};
use crate::instr::{FromLiteral, MulEq1, MulEq2, PlusEq1, PlusEq2};
use crate::numbers::Real;
use core::cmp::Ordering;
use core::fmt;

/// A positive number `exp(log)` stored as its logarithm `log: T`.
///
/// Multiplication and division are additions of logarithms, so `*=` and `/=` are the
/// reversible instructions of this type — exact when `T` is fixed point — while `+=` does not
/// exist (it is a compile error). The forms of the language:
///
/// | statement | effect on `out.log` |
/// |---|---|
/// | `out *= a` / `out *= convert(a)` | `+= log a` |
/// | `out *= a * b` | `+= log a + log b` |
/// | `out *= a / b` | `+= log a − log b` |
/// | `out *= a.powf(r)` / `a.powi(n)` | `+= r·log a` / `n·log a` |
/// | `out *= a + b` | `+= max + ln_1p(exp(min − max))` |
/// | `out *= a - b` | `+= log a + ln_1p(−exp(log b − log a))`, requires `a ≥ b` |
/// | `y += convert(s)` (`y: T`) | `y += exp(s.log)` (the value, back into a real) |
///
/// Each operand `a`, `b` may be a `ULog<T>`, a real `T` (its log is taken) or an `i32`/`i64`
/// (see [`LogOperand`]); `/=` is the inverse of `*=`. Everything is written with instructions
/// on the content type `T` (`+=` of `ln`, `exp`, `ln_1p`, `+`, `-`, `*`), so `ULog<GVar<f64>>`
/// is differentiable wherever `GVar<f64>` has those rules.
///
/// `Default` is the number one (`log = 0`), the usual ancilla value. Comparisons and runtime
/// checks look at the logarithm.
///
/// ```
/// use nilang::ULog;
/// use nilang::instr::{MulEq1, MulEq2, fns::{Add, Identity}};
/// let (mut x, mut y, mut z) = (ULog::from_log(7.0_f64), ULog::from_log(2.0), ULog::from_log(3.0));
/// MulEq2::<Add, _, _>::mul_eq(&mut x, &mut y, &mut z); // x *= y + z
/// assert!((x.log - (7.0 + (2f64.exp() + 3f64.exp()).ln())).abs() < 1e-14);
/// MulEq2::<Add, _, _>::div_eq(&mut x, &mut y, &mut z); // x /= y + z
/// assert!((x.log - 7.0).abs() < 1e-14);
/// MulEq1::<Identity, _>::mul_eq(&mut x, &mut 2.0_f64); // x *= 2 (a real factor)
/// assert!((x.value() - 2.0 * 7f64.exp()).abs() < 1e-10);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ULog<T> {
    /// The logarithm of the value.
    pub log: T,
}

impl<T> ULog<T> {
    /// The number `exp(log)`.
    #[inline(always)]
    pub const fn from_log(log: T) -> Self {
        ULog { log }
    }
}
impl<T: Real> ULog<T> {
    /// The number `v > 0` (stores `ln v`).
    #[inline(always)]
    pub fn from_value(v: T) -> Self {
        ULog { log: v.ln() }
    }
    /// `1` (`log = 0`).
    #[inline(always)]
    pub fn one() -> Self {
        ULog { log: T::zero() }
    }
    /// The value `exp(log)`.
    #[inline(always)]
    pub fn value(self) -> T {
        self.log.exp()
    }
}
impl<T: PartialOrd> PartialOrd for ULog<T> {
    /// By logarithm (the order of the values).
    #[inline(always)]
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        self.log.partial_cmp(&other.log)
    }
}
impl<T: fmt::Display> fmt::Display for ULog<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "exp({})", self.log)
    }
}
impl<T: core::ops::Add<Output = T>> core::ops::Mul for ULog<T> {
    type Output = Self;
    /// Exact product (sum of logs).
    #[allow(clippy::suspicious_arithmetic_impl)]
    #[inline(always)]
    fn mul(self, o: Self) -> Self {
        ULog::from_log(self.log + o.log)
    }
}
impl<T: core::ops::Sub<Output = T>> core::ops::Div for ULog<T> {
    type Output = Self;
    /// Exact quotient (difference of logs).
    #[allow(clippy::suspicious_arithmetic_impl)]
    #[inline(always)]
    fn div(self, o: Self) -> Self {
        ULog::from_log(self.log - o.log)
    }
}
impl<T: FromLiteral> FromLiteral for ULog<T> {
    /// The number `v` (so `x *= 3` multiplies by three); `v` must be positive.
    #[inline(always)]
    fn from_f64_lit(v: f64) -> Self {
        ULog::from_log(T::from_f64_lit(v.ln()))
    }
    #[inline(always)]
    fn from_i64_lit(v: i64) -> Self {
        ULog::from_log(T::from_f64_lit((v as f64).ln()))
    }
}
crate::check::almost_same_by_field!(
    /// Compares the logarithms.
    ULog.log
);

/// An operand of a `*=`/`/=` instruction on [`ULog<T>`]: something with a logarithm in `T`.
///
/// Implemented for `ULog<T>` (its `log`, no computation), for the content type `T` itself
/// (`ln x`, a real factor) and for `i32`/`i64` (converted to `T`, then `ln`).
pub trait LogOperand<T> {
    /// `target += log(self)`.
    fn add_log_to(&mut self, target: &mut T);
    /// `target -= log(self)`.
    fn sub_log_from(&mut self, target: &mut T);
    /// Run `f` on the logarithm (computed into an ancilla and uncomputed afterwards for
    /// non-log operands).
    fn with_log<R>(&mut self, f: impl FnOnce(&mut T) -> R) -> R;
}
impl<T: PlusEq1<Identity, T>> LogOperand<T> for ULog<T> {
    #[inline(always)]
    fn add_log_to(&mut self, target: &mut T) {
        target.plus_eq(&mut self.log)
    }
    #[inline(always)]
    fn sub_log_from(&mut self, target: &mut T) {
        target.minus_eq(&mut self.log)
    }
    #[inline(always)]
    fn with_log<R>(&mut self, f: impl FnOnce(&mut T) -> R) -> R {
        f(&mut self.log)
    }
}
impl<T: Default + PlusEq1<Ln, T>> LogOperand<T> for T {
    #[inline(always)]
    fn add_log_to(&mut self, target: &mut T) {
        PlusEq1::<Ln, T>::plus_eq(target, self)
    }
    #[inline(always)]
    fn sub_log_from(&mut self, target: &mut T) {
        PlusEq1::<Ln, T>::minus_eq(target, self)
    }
    #[inline(always)]
    fn with_log<R>(&mut self, f: impl FnOnce(&mut T) -> R) -> R {
        let mut l = T::default();
        PlusEq1::<Ln, T>::plus_eq(&mut l, self);
        let r = f(&mut l);
        PlusEq1::<Ln, T>::minus_eq(&mut l, self);
        r
    }
}
macro_rules! int_log_operand {
    ($($i:ty),*) => {$(
        impl<T: Default + FromLiteral + PlusEq1<Ln, T>> LogOperand<T> for $i {
            #[inline(always)]
            fn add_log_to(&mut self, target: &mut T) {
                PlusEq1::<Ln, T>::plus_eq(target, &mut T::from_i64_lit(*self as i64))
            }
            #[inline(always)]
            fn sub_log_from(&mut self, target: &mut T) {
                PlusEq1::<Ln, T>::minus_eq(target, &mut T::from_i64_lit(*self as i64))
            }
            #[inline(always)]
            fn with_log<R>(&mut self, f: impl FnOnce(&mut T) -> R) -> R {
                T::from_i64_lit(*self as i64).with_log(f)
            }
        }
    )*};
}
int_log_operand!(i32, i64, usize, u32, u64);

/// `out *= a` (and `out *= convert(a)`): `out.log += log a`.
macro_rules! mul_by_operand {
    ($($m:ty),*) => {$(
        impl<T, A: LogOperand<T>> MulEq1<$m, A> for ULog<T> {
            #[inline(always)]
            fn mul_eq(&mut self, a: &mut A) {
                a.add_log_to(&mut self.log)
            }
            #[inline(always)]
            fn div_eq(&mut self, a: &mut A) {
                a.sub_log_from(&mut self.log)
            }
        }
    )*};
}
mul_by_operand!(Identity, Convert);

/// `out *= a * b`: `out.log += log a + log b`.
impl<T: PlusEq2<Add, T, T>, A: LogOperand<T>, B: LogOperand<T>> MulEq2<Mul, A, B> for ULog<T> {
    #[inline(always)]
    fn mul_eq(&mut self, a: &mut A, b: &mut B) {
        let out = &mut self.log;
        a.with_log(|la| b.with_log(|lb| PlusEq2::<Add, T, T>::plus_eq(out, la, lb)))
    }
    #[inline(always)]
    fn div_eq(&mut self, a: &mut A, b: &mut B) {
        let out = &mut self.log;
        a.with_log(|la| b.with_log(|lb| PlusEq2::<Add, T, T>::minus_eq(out, la, lb)))
    }
}
/// `out *= a / b`: `out.log += log a − log b`.
impl<T: PlusEq2<Sub, T, T>, A: LogOperand<T>, B: LogOperand<T>> MulEq2<fns::Div, A, B> for ULog<T> {
    #[inline(always)]
    fn mul_eq(&mut self, a: &mut A, b: &mut B) {
        let out = &mut self.log;
        a.with_log(|la| b.with_log(|lb| PlusEq2::<Sub, T, T>::plus_eq(out, la, lb)))
    }
    #[inline(always)]
    fn div_eq(&mut self, a: &mut A, b: &mut B) {
        let out = &mut self.log;
        a.with_log(|la| b.with_log(|lb| PlusEq2::<Sub, T, T>::minus_eq(out, la, lb)))
    }
}
/// `out *= a.powi(N)` with a literal exponent: `out.log += N·log a`.
impl<T: FromLiteral + PlusEq2<Mul, T, T>, A: LogOperand<T>, const N: i32> MulEq1<PowiN<N>, A>
    for ULog<T>
{
    #[inline(always)]
    fn mul_eq(&mut self, a: &mut A) {
        let out = &mut self.log;
        let mut n = T::from_i64_lit(N as i64);
        a.with_log(|la| PlusEq2::<Mul, T, T>::plus_eq(out, la, &mut n))
    }
    #[inline(always)]
    fn div_eq(&mut self, a: &mut A) {
        let out = &mut self.log;
        let mut n = T::from_i64_lit(N as i64);
        a.with_log(|la| PlusEq2::<Mul, T, T>::minus_eq(out, la, &mut n))
    }
}
/// `out *= a.powi(n)`: `out.log += n·log a`.
impl<T: FromLiteral + PlusEq2<Mul, T, T>, A: LogOperand<T>> MulEq2<Powi, A, i32> for ULog<T> {
    #[inline(always)]
    fn mul_eq(&mut self, a: &mut A, n: &mut i32) {
        let out = &mut self.log;
        let mut n = T::from_i64_lit(*n as i64);
        a.with_log(|la| PlusEq2::<Mul, T, T>::plus_eq(out, la, &mut n))
    }
    #[inline(always)]
    fn div_eq(&mut self, a: &mut A, n: &mut i32) {
        let out = &mut self.log;
        let mut n = T::from_i64_lit(*n as i64);
        a.with_log(|la| PlusEq2::<Mul, T, T>::minus_eq(out, la, &mut n))
    }
}
/// `out *= a.powf(r)` with a real exponent `r: T`: `out.log += r·log a`.
impl<T: PlusEq2<Mul, T, T>, A: LogOperand<T>> MulEq2<Powf, A, T> for ULog<T> {
    #[inline(always)]
    fn mul_eq(&mut self, a: &mut A, r: &mut T) {
        let out = &mut self.log;
        a.with_log(|la| PlusEq2::<Mul, T, T>::plus_eq(out, la, r))
    }
    #[inline(always)]
    fn div_eq(&mut self, a: &mut A, r: &mut T) {
        let out = &mut self.log;
        a.with_log(|la| PlusEq2::<Mul, T, T>::minus_eq(out, la, r))
    }
}
/// `out *= a.powf(e)` with the exponent given as a `ULog` (this is what a literal exponent
/// becomes, since literals take the target's type: `out *= a.powf(3.4)`): the exponent is
/// its value `exp(e.log)`, computed into an ancilla.
impl<T, A> MulEq2<Powf, A, ULog<T>> for ULog<T>
where
    T: Default + PlusEq1<Exp, T> + PlusEq2<Mul, T, T>,
    A: LogOperand<T>,
{
    #[inline(always)]
    fn mul_eq(&mut self, a: &mut A, e: &mut ULog<T>) {
        let out = &mut self.log;
        let mut r = T::default();
        PlusEq1::<Exp, T>::plus_eq(&mut r, &mut e.log);
        a.with_log(|la| PlusEq2::<Mul, T, T>::plus_eq(out, la, &mut r));
        PlusEq1::<Exp, T>::minus_eq(&mut r, &mut e.log);
    }
    #[inline(always)]
    fn div_eq(&mut self, a: &mut A, e: &mut ULog<T>) {
        let out = &mut self.log;
        let mut r = T::default();
        PlusEq1::<Exp, T>::plus_eq(&mut r, &mut e.log);
        a.with_log(|la| PlusEq2::<Mul, T, T>::minus_eq(out, la, &mut r));
        PlusEq1::<Exp, T>::minus_eq(&mut r, &mut e.log);
    }
}

/// The content types on which `out *= a + b` and `out *= a - b` work.
pub trait LogSumContent:
    Default
    + PartialOrd
    + fmt::Debug
    + PlusEq1<Identity, Self>
    + PlusEq1<Exp, Self>
    + PlusEq1<Ln1p, Self>
    + PlusEq2<Sub, Self, Self>
{
}
impl<T> LogSumContent for T where
    T: Default
        + PartialOrd
        + fmt::Debug
        + PlusEq1<Identity, T>
        + PlusEq1<Exp, T>
        + PlusEq1<Ln1p, T>
        + PlusEq2<Sub, T, T>
{
}

/// `out ±= log(exp(la) ± exp(lb))` as a reversible sequence of instructions on `T`:
/// `d = lo − hi; e = ±exp(d); out += hi; out += ln_1p(e);` then `e`, `d` uncomputed.
#[inline(always)]
fn log_sum_exp<T: LogSumContent>(out: &mut T, la: &mut T, lb: &mut T, sub: bool, inverse: bool) {
    let (hi, lo) = if *la >= *lb {
        (la, lb)
    } else {
        if sub {
            crate::check::fail(
                ErrorKind::Other,
                "ULog",
                "out *= a - b",
                format!("a ULog difference needs a >= b: log a = {la:?} < log b = {lb:?}"),
            );
        }
        (lb, la)
    };
    let mut d = T::default();
    let mut e = T::default();
    PlusEq2::<Sub, T, T>::plus_eq(&mut d, lo, hi);
    if sub {
        PlusEq1::<Exp, T>::minus_eq(&mut e, &mut d);
    } else {
        PlusEq1::<Exp, T>::plus_eq(&mut e, &mut d);
    }
    if inverse {
        PlusEq1::<Ln1p, T>::minus_eq(out, &mut e);
        PlusEq1::<Identity, T>::minus_eq(out, hi);
    } else {
        PlusEq1::<Identity, T>::plus_eq(out, hi);
        PlusEq1::<Ln1p, T>::plus_eq(out, &mut e);
    }
    if sub {
        PlusEq1::<Exp, T>::plus_eq(&mut e, &mut d);
    } else {
        PlusEq1::<Exp, T>::minus_eq(&mut e, &mut d);
    }
    PlusEq2::<Sub, T, T>::minus_eq(&mut d, lo, hi);
}
/// `out *= a + b`: `out.log += log(exp(log a) + exp(log b))`.
impl<T: LogSumContent, A: LogOperand<T>, B: LogOperand<T>> MulEq2<Add, A, B> for ULog<T> {
    #[inline(always)]
    fn mul_eq(&mut self, a: &mut A, b: &mut B) {
        let out = &mut self.log;
        a.with_log(|la| b.with_log(|lb| log_sum_exp(out, la, lb, false, false)))
    }
    #[inline(always)]
    fn div_eq(&mut self, a: &mut A, b: &mut B) {
        let out = &mut self.log;
        a.with_log(|la| b.with_log(|lb| log_sum_exp(out, la, lb, false, true)))
    }
}
/// `out *= a - b` (requires `a >= b`, an [`crate::InvertibilityError`] otherwise).
impl<T: LogSumContent, A: LogOperand<T>, B: LogOperand<T>> MulEq2<Sub, A, B> for ULog<T> {
    #[inline(always)]
    fn mul_eq(&mut self, a: &mut A, b: &mut B) {
        let out = &mut self.log;
        a.with_log(|la| b.with_log(|lb| log_sum_exp(out, la, lb, true, false)))
    }
    #[inline(always)]
    fn div_eq(&mut self, a: &mut A, b: &mut B) {
        let out = &mut self.log;
        a.with_log(|la| b.with_log(|lb| log_sum_exp(out, la, lb, true, true)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::AlmostSame;
    use crate::instr::lit_i;
    use crate::numbers::Fixed43;

    fn l(v: f64) -> ULog<f64> {
        ULog::from_log(v)
    }
    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-12 * (1.0 + b.abs())
    }

    #[test]
    fn inventory_case_25() {
        // integer content: logs 1, 2 -> x *= y gives log 3, y unchanged
        let (mut x, mut y) = (ULog::from_log(1_i64), ULog::from_log(2_i64));
        MulEq1::<Identity, _>::mul_eq(&mut x, &mut y);
        assert_eq!((x.log, y.log), (3, 2));
        MulEq1::<Identity, _>::div_eq(&mut x, &mut y);
        assert_eq!(x.log, 1);

        let (mut x, mut y, mut z) = (l(7.0), l(2.0), l(3.0));
        MulEq2::<Add, _, _>::mul_eq(&mut x, &mut y, &mut z);
        assert!(close(x.log, (7f64.exp() * (2f64.exp() + 3f64.exp())).ln()));
        MulEq2::<Add, _, _>::div_eq(&mut x, &mut y, &mut z);
        assert!(close(x.log, 7.0));
        // the other branch (b > a)
        MulEq2::<Add, _, _>::mul_eq(&mut x, &mut z, &mut y);
        assert!(close(x.log, (7f64.exp() * (2f64.exp() + 3f64.exp())).ln()));

        let (mut x, mut y, mut z) = (l(7.0), l(5.0), l(3.0));
        MulEq2::<Sub, _, _>::mul_eq(&mut x, &mut y, &mut z);
        assert!(close(x.log, (7f64.exp() * (5f64.exp() - 3f64.exp())).ln()));
        MulEq2::<Sub, _, _>::div_eq(&mut x, &mut y, &mut z);
        assert!(close(x.log, 7.0));
        let err = crate::check::catch(|| MulEq2::<Sub, _, _>::mul_eq(&mut x, &mut z, &mut y));
        assert_eq!(err.unwrap_err().kind, ErrorKind::Other);

        let (mut x, mut y) = (l(7.0), l(5.0));
        MulEq2::<Powf, _, _>::mul_eq(&mut x, &mut y, &mut 3.4);
        assert!(close(x.log, 5.0 * 3.4 + 7.0));
        MulEq2::<Powf, _, _>::div_eq(&mut x, &mut y, &mut 3.4);
        assert!(close(x.log, 7.0));
        // literal exponent: takes the target's type
        let mut e = crate::instr::lit_f(&x, 3.4);
        MulEq2::<Powf, _, _>::mul_eq(&mut x, &mut y, &mut e);
        assert!(close(x.log, 5.0 * 3.4 + 7.0));

        let mut x = l(7.0);
        let mut three = lit_i(&x, 3);
        MulEq1::<Identity, _>::mul_eq(&mut x, &mut three);
        assert!(close(x.log, (3.0 * 7f64.exp()).ln()));
        MulEq1::<Identity, _>::mul_eq(&mut x, &mut 3_i32);
        assert!(close(x.log, (9.0 * 7f64.exp()).ln()));

        // ulog_muleq(ULog(1.0), ULog(3.0)) === ULog(3.0): values
        let (mut a, mut b) = (ULog::from_value(1.0_f64), ULog::from_value(3.0));
        MulEq1::<Identity, _>::mul_eq(&mut a, &mut b);
        assert_eq!(a, ULog::from_value(3.0));
        // power3: out *= x^3 with x = 3 -> 27
        let mut out = ULog::<f64>::default();
        MulEq1::<PowiN<3>, _>::mul_eq(&mut out, &mut b);
        assert!(close(out.value(), 27.0));
        MulEq2::<Powi, _, _>::div_eq(&mut out, &mut b, &mut 3);
        assert!(close(out.log, 0.0));
    }

    #[test]
    fn mixed_operands() {
        let mut out = ULog::<f64>::default();
        let (mut a, mut b) = (l(1.5), 4.0_f64);
        MulEq2::<Mul, _, _>::mul_eq(&mut out, &mut a, &mut b);
        assert!(close(out.log, 1.5 + 4f64.ln()));
        MulEq2::<fns::Div, _, _>::mul_eq(&mut out, &mut b, &mut 2_i32);
        assert!(close(out.log, 1.5 + 2.0 * 4f64.ln() - 2f64.ln()));
        MulEq2::<fns::Div, _, _>::div_eq(&mut out, &mut b, &mut 2_i32);
        MulEq2::<Mul, _, _>::div_eq(&mut out, &mut a, &mut b);
        assert!(close(out.log, 0.0));
        // a + b with a real operand
        MulEq2::<Add, _, _>::mul_eq(&mut out, &mut a, &mut b);
        assert!(close(out.value(), 1.5f64.exp() + 4.0));
        // conversion factor
        MulEq1::<Convert, _>::mul_eq(&mut out, &mut b);
        assert!(close(out.value(), 4.0 * (1.5f64.exp() + 4.0)));
        assert_eq!(b, 4.0);
        assert_eq!(a, l(1.5));
    }

    #[test]
    fn fixed_content_is_bit_exact() {
        let f = Fixed43::from_num;
        let mut x = ULog::from_log(f(0.5));
        let x0 = x;
        let (mut a, mut b) = (ULog::from_log(f(1.25)), ULog::from_log(f(-0.75)));
        let mut r = f(0.3);
        for _ in 0..20 {
            MulEq2::<Add, _, _>::mul_eq(&mut x, &mut a, &mut b);
            MulEq2::<Sub, _, _>::mul_eq(&mut x, &mut a, &mut b);
            MulEq2::<Powf, _, _>::mul_eq(&mut x, &mut a, &mut r);
            MulEq2::<fns::Div, _, _>::mul_eq(&mut x, &mut r, &mut 3_i32);
        }
        assert!(x.log > x0.log);
        for _ in 0..20 {
            MulEq2::<fns::Div, _, _>::div_eq(&mut x, &mut r, &mut 3_i32);
            MulEq2::<Powf, _, _>::div_eq(&mut x, &mut a, &mut r);
            MulEq2::<Sub, _, _>::div_eq(&mut x, &mut a, &mut b);
            MulEq2::<Add, _, _>::div_eq(&mut x, &mut a, &mut b);
        }
        assert_eq!(x.log.to_bits(), x0.log.to_bits());
    }

    #[test]
    fn gradients_through_gvar_content() {
        use crate::GVar;
        // out *= a + b, then the backward pass (div_eq on gradient numbers) seeded at out.
        let (a0, b0) = (2.0_f64, 3.0_f64);
        let mut x = l(7.0);
        MulEq2::<Add, _, _>::mul_eq(&mut x, &mut l(a0), &mut l(b0));
        let mut gx = ULog::from_log(GVar::new(x.log, 1.0));
        let (mut ga, mut gb) = (
            ULog::from_log(GVar::from(a0)),
            ULog::from_log(GVar::from(b0)),
        );
        MulEq2::<Add, _, _>::div_eq(&mut gx, &mut ga, &mut gb);
        let s = a0.exp() + b0.exp();
        assert!(close(gx.log.x, 7.0) && gx.log.g == 1.0);
        assert!(close(ga.log.g, a0.exp() / s), "{:?}", ga);
        assert!(close(gb.log.g, b0.exp() / s), "{:?}", gb);
        assert_eq!((ga.log.x, gb.log.x), (a0, b0));
        // out *= a.powf(r) with a real factor: d/dr = log a, d/da = r
        let (mut gx, mut ga, mut gr) = (
            ULog::from_log(GVar::new(7.0 + 1.5 * 2.0, 1.0)),
            ULog::from_log(GVar::from(2.0)),
            GVar::from(1.5),
        );
        MulEq2::<Powf, _, _>::div_eq(&mut gx, &mut ga, &mut gr);
        assert!(close(gx.log.x, 7.0));
        assert_eq!((ga.log.g, gr.g), (1.5, 2.0));
    }

    #[test]
    fn misc() {
        let x = ULog::from_value(2.0_f64);
        assert!(close((x * x).value(), 4.0));
        assert!(close((x / x).value(), 1.0));
        assert!(ULog::from_log(1.0) > ULog::from_log(0.5));
        assert_eq!(format!("{}", ULog::from_log(1.5)), "exp(1.5)");
        assert!(l(1.0).almost_same(&l(1.0 + 1e-12)));
        assert_eq!(ULog::<f64>::one(), ULog::default());
    }
}
