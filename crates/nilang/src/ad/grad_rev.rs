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

for_tuples!(seed_tuple);

/// `f`, a seed and `f⁻¹`, on a store tape of their own (what `f`'s `#[store]` routines keep
/// between the two runs; nothing of it outlives the call).
impl<F: Reversible<B>, B: SeedArgs> Reversible<B> for Grad<F> {
    fn call(&self, args: B) -> B {
        crate::tape::Tape::new().scope(|| {
            let mut args = self.f.call(args);
            args.seed(self.loss, 1.0);
            self.f.uncall(args)
        })
    }
    fn uncall(&self, args: B) -> B {
        crate::tape::Tape::new().scope(|| {
            let mut args = self.f.call(args);
            args.seed(self.loss, -1.0);
            self.f.uncall(args)
        })
    }
}
