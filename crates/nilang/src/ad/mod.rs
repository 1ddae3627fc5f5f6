//! Tape-free reverse-mode automatic differentiation.
//!
//! Reverse mode without a tape: run `f` forward on plain numbers, wrap the outputs in
//! [`GVar`] with the loss's adjoint seeded to one, and run the inverse `f_inv` on them: every
//! instruction's inverse uncomputes its value and accumulates adjoints.
pub mod args;
pub mod complex;
mod fields;
mod grad;
mod grad_rev;
mod gvar;
#[allow(unsafe_code)] // `GVar<f64>`, complex slices as reals; `#[target_feature]` copies
pub(crate) mod gvar_slices;
#[cfg(feature = "argmin")]
pub mod interop_argmin;
#[cfg(feature = "nalgebra")]
pub mod interop_nalgebra;
#[cfg(feature = "ndarray")]
pub mod interop_ndarray;
mod jacobian;
mod lanes;
mod numeric;
pub mod ordinary;
#[allow(unsafe_code)] // one bounds check for both planes of a `Split`
pub mod places;
pub mod primitive;
mod promote;
#[doc(hidden)]
pub mod read_only;
pub mod rules;
mod scalar;
pub mod term_sum;
pub mod time_loop;

pub use crate::instr::{Ordered, Scalar};
pub use crate::number::{AbsAbove, Adjoints, LaneOrd, Value};
pub use args::{Elem, FieldSlots, GradArg, GradArgs, Lift, LiftField, Slots, SlotsIterMut};
pub use complex::{CPromote, ComplexOps};
pub use grad::{gradient, grads, value_and_gradient, Differentiable, Plan, Store};
pub use grad_rev::{Grad, SeedArg, SeedArgs};
pub use gvar::GVar;
pub use jacobian::{
    hessian_fwd_rev, hessian_fwd_rev_lanes, hessian_rev_rev, jacobian, jacobian_repeat,
};
pub use lanes::Lanes;
pub use numeric::{check_grad, gradient_numeric, hessian_numeric, loss_value};
pub use places::{Split, SplitRef}; // `Places`, `SplitNum`: by their module path only (see `places`)
pub use primitive::{Partials1, Partials2, Partials3};
pub use promote::Promote;
pub use rules::{Rule1, Rule2, Rule3};
pub use scalar::max_of;
pub use term_sum::{Shared, SharedArg, TermArgs, TermProgram, TermSum};
