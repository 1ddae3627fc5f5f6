//! [`Grad`]: the gradient as a reversible function (`Grad(f)` runs `f` on gradient numbers and
//! seeds the loss; `~Grad(f)` undoes it), and the arguments it seeds ([`SeedArgs`]).
use super::GVar;
use crate::Reversible;

/// NiLang's reversible `Grad(f)`: on gradient-number arguments (with zero gradients), `call`
/// runs `f`, seeds the loss and runs `f`'s inverse, leaving the inputs with their gradients;
/// `uncall` is its exact inverse and erases the gradients again.
///
/// ```
/// use nilang::prelude::*;
/// use nilang::ad::Grad;
/// #[i]
/// fn f<T: Scalar>(y: &mut T, x: &mut T) {
///     y += x.sin();
/// }
/// let (mut y, mut x) = (GVar::from(0.0), GVar::from(0.5));
/// Grad::new(F, 0).call((&mut y, &mut x));
/// assert!((x.g - 0.5_f64.cos()).abs() < 1e-15);
/// Grad::new(F, 0).uncall((&mut y, &mut x));
/// assert_eq!((x.g, y.g), (0.0, 0.0));
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Grad<F> {
    /// The function.
    pub f: F,
    /// The index of the (scalar) loss argument.
    pub loss: usize,
}
impl<F> Grad<F> {
    /// `Grad(f)` with loss argument `loss`.
    pub fn new(f: F, loss: usize) -> Self {
        Grad { f, loss }
    }
}

/// Argument tuples of gradient numbers that `Grad` can seed.
pub trait SeedArgs {
    /// Add `sign` (±1) to the adjoint of scalar argument `k`.
    fn seed(&mut self, k: usize, sign: f64);
}
/// One argument for [`SeedArgs`].
pub trait SeedArg {
    /// Add `sign` to the adjoint; false if the argument is not a scalar gradient number.
    fn seed(&mut self, sign: f64) -> bool;
}
impl<T: crate::ad::Scalar> SeedArg for &mut GVar<T> {
    fn seed(&mut self, sign: f64) -> bool {
        let mut s = T::lit(sign);
        <T as crate::instr::PlusEq1<crate::instr::fns::Identity, T>>::plus_eq(&mut self.g, &mut s);
        true
    }
}
impl<T> SeedArg for &mut [GVar<T>] {
    fn seed(&mut self, _: f64) -> bool {
        false
    }
}
impl<T, const N: usize> SeedArg for &mut [GVar<T>; N] {
    fn seed(&mut self, _: f64) -> bool {
        false
    }
}
impl<T, const N: usize> SeedArg for &[GVar<T>; N] {
    fn seed(&mut self, _: f64) -> bool {
        false
    }
}
impl<T> SeedArg for &[GVar<T>] {
    fn seed(&mut self, _: f64) -> bool {
        false
    }
}
impl<T> SeedArg for &GVar<T> {
    fn seed(&mut self, _: f64) -> bool {
        false
    }
}
macro_rules! seed_int {
    ($($t:ty),*) => {$(
        impl SeedArg for $t {
            fn seed(&mut self, _: f64) -> bool { false }
        }
    )*};
}
seed_int!(usize, isize, i32, i64, u32, u64, bool);
macro_rules! seed_tuple {
    ($($i:tt $a:ident),*) => {
        impl<$($a: SeedArg),*> SeedArgs for ($($a,)*) {
            fn seed(&mut self, k: usize, sign: f64) {
                let ok = match k { $($i => self.$i.seed(sign),)* _ => false };
                assert!(ok, "nilang: the loss (argument {k}) must be a scalar `&mut GVar` argument");
            }
        }
    };
}

seed_tuple!(0 A0);
seed_tuple!(0 A0, 1 A1);
seed_tuple!(0 A0, 1 A1, 2 A2);
seed_tuple!(0 A0, 1 A1, 2 A2, 3 A3);
seed_tuple!(0 A0, 1 A1, 2 A2, 3 A3, 4 A4);
seed_tuple!(0 A0, 1 A1, 2 A2, 3 A3, 4 A4, 5 A5);
seed_tuple!(0 A0, 1 A1, 2 A2, 3 A3, 4 A4, 5 A5, 6 A6);
seed_tuple!(0 A0, 1 A1, 2 A2, 3 A3, 4 A4, 5 A5, 6 A6, 7 A7);
seed_tuple!(0 A0, 1 A1, 2 A2, 3 A3, 4 A4, 5 A5, 6 A6, 7 A7, 8 A8);
seed_tuple!(0 A0, 1 A1, 2 A2, 3 A3, 4 A4, 5 A5, 6 A6, 7 A7, 8 A8, 9 A9);
seed_tuple!(0 A0, 1 A1, 2 A2, 3 A3, 4 A4, 5 A5, 6 A6, 7 A7, 8 A8, 9 A9, 10 A10);
seed_tuple!(0 A0, 1 A1, 2 A2, 3 A3, 4 A4, 5 A5, 6 A6, 7 A7, 8 A8, 9 A9, 10 A10, 11 A11);
seed_tuple!(0 A0, 1 A1, 2 A2, 3 A3, 4 A4, 5 A5, 6 A6, 7 A7, 8 A8, 9 A9, 10 A10, 11 A11, 12 A12);
seed_tuple!(0 A0, 1 A1, 2 A2, 3 A3, 4 A4, 5 A5, 6 A6, 7 A7, 8 A8, 9 A9, 10 A10, 11 A11, 12 A12, 13 A13);
seed_tuple!(0 A0, 1 A1, 2 A2, 3 A3, 4 A4, 5 A5, 6 A6, 7 A7, 8 A8, 9 A9, 10 A10, 11 A11, 12 A12, 13 A13, 14 A14);
seed_tuple!(0 A0, 1 A1, 2 A2, 3 A3, 4 A4, 5 A5, 6 A6, 7 A7, 8 A8, 9 A9, 10 A10, 11 A11, 12 A12, 13 A13, 14 A14, 15 A15);
seed_tuple!(0 A0, 1 A1, 2 A2, 3 A3, 4 A4, 5 A5, 6 A6, 7 A7, 8 A8, 9 A9, 10 A10, 11 A11, 12 A12, 13 A13, 14 A14, 15 A15, 16 A16);
seed_tuple!(0 A0, 1 A1, 2 A2, 3 A3, 4 A4, 5 A5, 6 A6, 7 A7, 8 A8, 9 A9, 10 A10, 11 A11, 12 A12, 13 A13, 14 A14, 15 A15, 16 A16, 17 A17);
seed_tuple!(0 A0, 1 A1, 2 A2, 3 A3, 4 A4, 5 A5, 6 A6, 7 A7, 8 A8, 9 A9, 10 A10, 11 A11, 12 A12, 13 A13, 14 A14, 15 A15, 16 A16, 17 A17, 18 A18);
seed_tuple!(0 A0, 1 A1, 2 A2, 3 A3, 4 A4, 5 A5, 6 A6, 7 A7, 8 A8, 9 A9, 10 A10, 11 A11, 12 A12, 13 A13, 14 A14, 15 A15, 16 A16, 17 A17, 18 A18, 19 A19);
seed_tuple!(0 A0, 1 A1, 2 A2, 3 A3, 4 A4, 5 A5, 6 A6, 7 A7, 8 A8, 9 A9, 10 A10, 11 A11, 12 A12, 13 A13, 14 A14, 15 A15, 16 A16, 17 A17, 18 A18, 19 A19, 20 A20);
seed_tuple!(0 A0, 1 A1, 2 A2, 3 A3, 4 A4, 5 A5, 6 A6, 7 A7, 8 A8, 9 A9, 10 A10, 11 A11, 12 A12, 13 A13, 14 A14, 15 A15, 16 A16, 17 A17, 18 A18, 19 A19, 20 A20, 21 A21);
seed_tuple!(0 A0, 1 A1, 2 A2, 3 A3, 4 A4, 5 A5, 6 A6, 7 A7, 8 A8, 9 A9, 10 A10, 11 A11, 12 A12, 13 A13, 14 A14, 15 A15, 16 A16, 17 A17, 18 A18, 19 A19, 20 A20, 21 A21, 22 A22);
seed_tuple!(0 A0, 1 A1, 2 A2, 3 A3, 4 A4, 5 A5, 6 A6, 7 A7, 8 A8, 9 A9, 10 A10, 11 A11, 12 A12, 13 A13, 14 A14, 15 A15, 16 A16, 17 A17, 18 A18, 19 A19, 20 A20, 21 A21, 22 A22, 23 A23);
seed_tuple!(0 A0, 1 A1, 2 A2, 3 A3, 4 A4, 5 A5, 6 A6, 7 A7, 8 A8, 9 A9, 10 A10, 11 A11, 12 A12, 13 A13, 14 A14, 15 A15, 16 A16, 17 A17, 18 A18, 19 A19, 20 A20, 21 A21, 22 A22, 23 A23, 24 A24);
seed_tuple!(0 A0, 1 A1, 2 A2, 3 A3, 4 A4, 5 A5, 6 A6, 7 A7, 8 A8, 9 A9, 10 A10, 11 A11, 12 A12, 13 A13, 14 A14, 15 A15, 16 A16, 17 A17, 18 A18, 19 A19, 20 A20, 21 A21, 22 A22, 23 A23, 24 A24, 25 A25);
seed_tuple!(0 A0, 1 A1, 2 A2, 3 A3, 4 A4, 5 A5, 6 A6, 7 A7, 8 A8, 9 A9, 10 A10, 11 A11, 12 A12, 13 A13, 14 A14, 15 A15, 16 A16, 17 A17, 18 A18, 19 A19, 20 A20, 21 A21, 22 A22, 23 A23, 24 A24, 25 A25, 26 A26);
seed_tuple!(0 A0, 1 A1, 2 A2, 3 A3, 4 A4, 5 A5, 6 A6, 7 A7, 8 A8, 9 A9, 10 A10, 11 A11, 12 A12, 13 A13, 14 A14, 15 A15, 16 A16, 17 A17, 18 A18, 19 A19, 20 A20, 21 A21, 22 A22, 23 A23, 24 A24, 25 A25, 26 A26, 27 A27);
seed_tuple!(0 A0, 1 A1, 2 A2, 3 A3, 4 A4, 5 A5, 6 A6, 7 A7, 8 A8, 9 A9, 10 A10, 11 A11, 12 A12, 13 A13, 14 A14, 15 A15, 16 A16, 17 A17, 18 A18, 19 A19, 20 A20, 21 A21, 22 A22, 23 A23, 24 A24, 25 A25, 26 A26, 27 A27, 28 A28);
seed_tuple!(0 A0, 1 A1, 2 A2, 3 A3, 4 A4, 5 A5, 6 A6, 7 A7, 8 A8, 9 A9, 10 A10, 11 A11, 12 A12, 13 A13, 14 A14, 15 A15, 16 A16, 17 A17, 18 A18, 19 A19, 20 A20, 21 A21, 22 A22, 23 A23, 24 A24, 25 A25, 26 A26, 27 A27, 28 A28, 29 A29);
seed_tuple!(0 A0, 1 A1, 2 A2, 3 A3, 4 A4, 5 A5, 6 A6, 7 A7, 8 A8, 9 A9, 10 A10, 11 A11, 12 A12, 13 A13, 14 A14, 15 A15, 16 A16, 17 A17, 18 A18, 19 A19, 20 A20, 21 A21, 22 A22, 23 A23, 24 A24, 25 A25, 26 A26, 27 A27, 28 A28, 29 A29, 30 A30);
seed_tuple!(0 A0, 1 A1, 2 A2, 3 A3, 4 A4, 5 A5, 6 A6, 7 A7, 8 A8, 9 A9, 10 A10, 11 A11, 12 A12, 13 A13, 14 A14, 15 A15, 16 A16, 17 A17, 18 A18, 19 A19, 20 A20, 21 A21, 22 A22, 23 A23, 24 A24, 25 A25, 26 A26, 27 A27, 28 A28, 29 A29, 30 A30, 31 A31);

impl<F: Reversible<B>, B: SeedArgs> Reversible<B> for Grad<F> {
    fn call(&self, args: B) -> B {
        let mut args = self.f.call(args);
        args.seed(self.loss, 1.0);
        self.f.uncall(args)
    }
    fn uncall(&self, args: B) -> B {
        let mut args = self.f.call(args);
        args.seed(self.loss, -1.0);
        self.f.uncall(args)
    }
}
