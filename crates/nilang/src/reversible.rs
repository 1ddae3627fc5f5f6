//! [`Reversible`]: a reversible function as a value.

/// A reversible function taking the argument tuple `Args` (references for in-out parameters).
///
/// `#[i] fn norm(...)` generates a unit struct `Norm` implementing this trait, so generic code
/// (gradients, Bennett's schedule) can take any reversible function.
///
/// ```
/// use nilang::{i, Reversible};
/// #[i]
/// fn add_twice(y: &mut f64, x: &f64) {
///     y += x;
///     y += x;
/// }
/// let (mut y, x) = (1.0, 2.0);
/// AddTwice.call((&mut y, &x));
/// assert_eq!(y, 5.0);
/// AddTwice.uncall((&mut y, &x));
/// assert_eq!(y, 1.0);
/// ```
pub trait Reversible<Args> {
    /// Run the function forward; the argument references are handed back.
    fn call(&self, args: Args) -> Args;
    /// Run its inverse; the argument references are handed back.
    fn uncall(&self, args: Args) -> Args;
    /// Bit `k` set: the function is compute–copy–uncompute in argument `k` — its only lasting
    /// effect is `args.k += g(other arguments)`, so the gradient of argument `k` needs no
    /// forward pass (the backward pass starts from the inputs). `#[i]` derives this from the
    /// program; the default (no bit) is always safe.
    fn additive(&self) -> crate::abi::ParamMask {
        0
    }
    /// Bit `k` set: the function may change the value of argument `k`; bit `k` clear: it
    /// never does (forward or inverse), so that argument comes back bit for bit and its values
    /// need no copy of their own (split storage, docs/architecture.md). `#[i]` derives this
    /// from the program (its `WRITES` analysis); the default (every bit) is always safe.
    ///
    /// ```
    /// use nilang::prelude::*;
    /// use nilang::Reversible;
    /// #[i]
    /// fn scaled_add(y: &mut [f64], a: &mut f64, x: &mut [f64]) {
    ///     for k in 0..x.len() {
    ///         y[k] += a * x[k];
    ///     }
    /// }
    /// // `y` (argument 0) is written; `a` and `x` never are
    /// let w = Reversible::<(&mut [f64], &mut f64, &mut [f64])>::writes(&ScaledAdd);
    /// assert_eq!(w, 0b001);
    /// ```
    fn writes(&self) -> crate::abi::ParamMask {
        crate::abi::ALL_PARAMS
    }
    /// Run the function forward when no number it writes carries an adjoint (the forward
    /// pass of a gradient, before the loss is seeded): `#[i]` generates a variant whose
    /// instructions move values only (on gradient numbers, no zero adjoint is propagated).
    /// The default is [`Reversible::call`].
    fn call_primal(&self, args: Args) -> Args {
        self.call(args)
    }
    /// Run the inverse when the values of the arguments in `dead` (bit `k`: argument `k`) are
    /// never read afterwards (the outputs at the end of a backward pass): `#[i]` runs its
    /// adjoint-only variant, in which, on gradient numbers, instructions targeting those
    /// arguments move adjoints only (their values are then left as they were, not restored;
    /// a `zero(..)` workspace among them is not set back to zero).
    /// The default is [`Reversible::uncall`].
    ///
    /// ```
    /// use nilang::prelude::*;
    /// #[i(nocheck)]
    /// fn add_squares<T: Scalar>(y: &mut [T], ix: &[usize], x: &mut [T]) {
    ///     for k in 0..ix.len() {
    ///         y[ix[k]] += abs2(x[k]);
    ///     }
    /// }
    /// let mut y = [GVar { x: 5.0, g: 1.0 }];
    /// let mut x = [GVar { x: 3.0, g: 0.0 }];
    /// // y's value is left as it is (not restored to 5 - 3²); x̄ = ȳ·2x
    /// AddSquares.uncall_dead((&mut y[..], &[0][..], &mut x[..]), 1 << 0);
    /// assert_eq!((y[0].x, x[0].g), (5.0, 6.0));
    /// AddSquares.uncall_dead((&mut y[..], &[0][..], &mut x[..]), 0);
    /// assert_eq!((y[0].x, x[0].g), (-4.0, 12.0));
    /// ```
    fn uncall_dead(&self, args: Args, dead: crate::abi::ParamMask) -> Args {
        let _ = dead;
        self.uncall(args)
    }
    /// Bit `k` set: parameter `k` is a `zero(..)` workspace (`#[i(zero(ws, ..))]`: passed zero,
    /// returned zero). A [`Plan`](crate::ad::Plan), which rewrites every argument at its next
    /// call, passes these bits to [`Reversible::uncall_dead`], so that its backward pass does
    /// not set the workspaces' values back to zero (one pass over them fewer). `#[i]` sets it
    /// where it generates `uncall_dead`; the default (no bit) is always safe.
    ///
    /// ```
    /// use nilang::prelude::*;
    /// #[i(zero(ws))]
    /// fn f<T: Scalar>(y: &mut T, x: &mut T, ws: &mut [T]) {
    ///     routine! {
    ///         ws[0] += abs2(x);
    ///     }
    ///     y += ws[0];
    ///     unroutine!();
    /// }
    /// assert_eq!(<F as Reversible<(&mut f64, &mut f64, &mut [f64])>>::workspaces(&F), 0b100);
    /// ```
    fn workspaces(&self) -> crate::abi::ParamMask {
        0
    }
}

/// A function called with its arguments as one tuple: how the value-only variant of a
/// hand-written pair declared with [`additive!`](crate::additive) runs the function itself.
#[doc(hidden)]
pub trait CallTuple<A> {
    /// The instruction-set level of the `#[i]` code that passes this function value
    /// ([`simd::Level`](crate::simd::Level)), `u8::MAX` where none tagged it.
    const LEVEL: u8 = u8::MAX;
    /// `self(args.0, args.1, ..)`.
    fn call_tuple(self, args: A);
}
macro_rules! call_tuple {
    ($($i:tt $a:ident),*) => {
        impl<Func: FnOnce($($a),*), $($a),*> CallTuple<($($a,)*)> for Func {
            #[inline(always)]
            #[allow(non_snake_case)]
            fn call_tuple(self, ($($a,)*): ($($a,)*)) {
                self($($a),*)
            }
        }
    };
}
call_tuple!();
for_tuples!(call_tuple);

// `additive!` and the dense primitives (`stdlib`) spell the names of the generated-item ABI
// (macros cannot compute identifiers): they must be the ABI's
const _: () = {
    use crate::abi::{same, ADDITIVE, ADJOINT, PRIMAL, READS, WRITES};
    assert!(same(stringify!(ADDITIVE), ADDITIVE));
    assert!(same(stringify!(WRITES), WRITES));
    assert!(same(stringify!(READS), READS));
    assert!(same(stringify!(__primal), PRIMAL));
    assert!(same(stringify!(__adj), ADJOINT));
};

/// Declare a hand-written reversible pair `f`/`f_inv` to `#[i]` code that calls it, with the
/// analyses `#[i]` generates for its own functions: bit `k` of the mask says that `f` is
/// compute–copy–uncompute in parameter `k` (its only lasting effect is `args.k += g(other
/// arguments)`; `0` is always safe); it may write and read every parameter (`WRITES`,
/// `READS`), and its value-only and adjoint-only variants are the function itself. `#[i]` code
/// calling `f` needs this.
///
/// ```
/// // `out += 2·a`, hand-written: additive in `out` (parameter 0)
/// pub fn twice(out: &mut f64, a: &mut f64) { *out += 2.0 * *a }
/// pub fn twice_inv(out: &mut f64, a: &mut f64) { *out -= 2.0 * *a }
/// nilang::additive!(twice, twice_inv: 0b1);
///
/// use nilang::prelude::*;
/// #[i]
/// fn uses(out: &mut f64, a: &mut f64) {
///     twice(out, a);
/// }
/// assert_eq!(uses::ADDITIVE, 0b1);
/// ```
#[macro_export]
macro_rules! additive {
    ($f:ident, $f_inv:ident : $mask:expr) => {
        $crate::additive!(@marker $f, $mask, $crate::abi::ALL_PARAMS, {
            /// No value-only variant: the function itself.
            #[doc(hidden)]
            #[inline(always)]
            pub fn __primal<F: $crate::CallTuple<A>, A>(f: F, args: A) {
                f.call_tuple(args)
            }
        });
        $crate::additive!(@marker $f_inv, $mask, $crate::abi::ALL_PARAMS, {});
    };
    // the marker of one direction: its analyses (`ADDITIVE` and `WRITES` given, `READS`
    // conservative) and extra items (e.g. a value-only variant `__primal`)
    (@marker $name:ident, $mask:expr, $writes:expr, { $($extra:item)* }) => {
        $crate::additive!(@marker_adj $name, $mask, $writes, {
            /// No adjoint-only variant: the function itself.
            #[doc(hidden)]
            #[inline(always)]
            pub fn __adj<F: $crate::CallTuple<A>, A>(f: F, _dead: $crate::abi::ParamMask, args: A) {
                f.call_tuple(args)
            }
            $($extra)*
        });
    };
    // the same with the adjoint-only variant `__adj` among the extra items
    (@marker_adj $name:ident, $mask:expr, $writes:expr, { $($extra:item)* }) => {
        $crate::additive!(@marker_adj $name, $mask, $writes, $crate::abi::ALL_PARAMS, { $($extra)* });
    };
    // the same with `READS` given
    (@marker_adj $name:ident, $mask:expr, $writes:expr, $reads:expr, { $($extra:item)* }) => {
        #[doc(hidden)]
        #[allow(non_camel_case_types, dead_code)]
        pub enum $name {}
        impl $name {
            #[doc(hidden)]
            pub const ADDITIVE: $crate::abi::ParamMask = $mask;
            #[doc(hidden)]
            pub const WRITES: $crate::abi::ParamMask = $writes;
            #[doc(hidden)]
            pub const READS: $crate::abi::ParamMask = $reads;
            $($extra)*
        }
    };
}
