//! A differentiable variable passed to a read-only parameter: its derivative would be dropped.
//!
//! In `#[i]` code, `g(y, &z)` passes `z` by shared reference: a callee parameter `h: &T` reads
//! it, and in a gradient program the adjoint `h` receives is dropped (NiLang's `NoGrad`). When
//! `z` is a variable of the caller that can change (an `&mut` parameter or an ancilla), that
//! is a silently wrong gradient unless meant, so the compiler emits, before such a call,
//! `(&Probe(&z)).nilang_read_only(..)`: on gradient numbers (`Adjoints::HAS_ADJOINT`) it
//! raises [`ErrorKind::DroppedDerivative`]; on plain numbers it is a constant `false` branch
//! and compiles to nothing. A caller that means "constant here" writes `g(y, cst!(&z))`,
//! which emits exactly the code of `g(y, &z)` without the probe.
//!
//! ```
//! use nilang::prelude::*;
//! #[i]
//! fn square_into<T: Scalar>(out: &mut T, h: &T) {
//!     out += h * h;
//! }
//! #[i]
//! fn outer<T: Scalar>(out: &mut T, z: &mut T) {
//!     square_into(out, &z); // `z`'s derivative would be dropped here
//! }
//! #[i]
//! fn outer_constant<T: Scalar>(out: &mut T, z: &mut T) {
//!     square_into(out, cst!(&z)); // declared constant: no derivative through it
//! }
//! // plain numbers run as before
//! let mut out = 0.0;
//! outer(&mut out, &mut 3.0);
//! assert_eq!(out, 9.0);
//! // the gradient reports the dropped derivative
//! let e = nilang::check::catch(|| nilang::gradient(&Outer, (&mut 0.0, &mut 3.0), 0)).unwrap_err();
//! assert_eq!(e.kind, nilang::check::ErrorKind::DroppedDerivative);
//! // declared constant: the derivative through `z` is 0 by declaration
//! let (_, gz) = nilang::gradient(&OuterConstant, (&mut 0.0, &mut 3.0), 0);
//! assert_eq!(gz.g, 0.0);
//! ```
use super::Adjoints;
use crate::check::{fail, ErrorKind};

/// A borrowed argument passed read-only.
#[doc(hidden)]
pub struct Probe<'a, T: ?Sized>(pub &'a T);

/// Numbers that know whether they carry an adjoint (preferred by method resolution).
#[doc(hidden)]
pub trait ViaAdjoints {
    /// Raise [`ErrorKind::DroppedDerivative`] if the argument is a gradient number.
    fn nilang_read_only(&self, location: &'static str, statement: &'static str, arg: &'static str);
}
impl<T: Adjoints> ViaAdjoints for Probe<'_, T> {
    #[inline(always)]
    fn nilang_read_only(&self, location: &'static str, statement: &'static str, arg: &'static str) {
        if T::HAS_ADJOINT {
            dropped(location, statement, arg)
        }
    }
}

/// Every other type (containers, integers, user structs): not checked.
#[doc(hidden)]
pub trait Unchecked {
    /// Nothing.
    #[inline(always)]
    fn nilang_read_only(&self, _: &'static str, _: &'static str, _: &'static str) {}
}
impl<T: ?Sized> Unchecked for &Probe<'_, T> {}

#[cold]
#[inline(never)]
fn dropped(location: &'static str, statement: &'static str, arg: &'static str) -> ! {
    fail(
        ErrorKind::DroppedDerivative,
        location,
        statement,
        format!(
            "`&{arg}` passes a differentiable variable to a read-only parameter: the derivative \
             through it would be dropped (a `&T` parameter is NoGrad). Declare the callee's \
             parameter `&mut` to differentiate through it, or write `cst!(&{arg})` if `{arg}` \
             is meant as a constant here."
        ),
    )
}
