//! Tape-free reverse-mode automatic differentiation.
//!
//! Reverse mode without a tape: run `f` forward on plain numbers, wrap the outputs in
//! [`GVar`] with the loss's adjoint seeded to one, and run the inverse `f_inv` on them: every
//! instruction's inverse uncomputes its value and accumulates adjoints.
pub mod args;
pub mod complex;
mod grad;
mod gvar;
mod lanes;
pub mod primitive;
mod promote;
pub mod rules;
mod scalar;

pub use args::{Elem, FieldSlots, GradArg, GradArgs, Lift, LiftField, Slots, SlotsIterMut};
pub use complex::{CPromote, ComplexOps};
pub use grad::{
    check_grad, gradient, gradient_numeric, grads, hessian_fwd_rev, hessian_numeric,
    hessian_rev_rev, jacobian, jacobian_repeat, loss_value, value_and_gradient, Grad, Plan,
    SeedArg, SeedArgs, Store,
};
pub use gvar::GVar;
pub use lanes::Lanes;
pub use primitive::{Partials1, Partials2, Partials3};
pub use promote::Promote;
pub use rules::{Rule1, Rule2, Rule3};
pub use scalar::{max_of, Adjoints, LaneOrd, Ordered, Scalar, Value};
