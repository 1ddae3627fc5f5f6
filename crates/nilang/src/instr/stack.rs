//! Typed stacks: `push!`, `pop!`, `copy_push!`, `copy_pop!` on a `Vec<T>`.
//!
//! `push!(st, x)` moves `x` onto the stack and zero-clears it (`x = T::default()`); its inverse
//! `pop!(st, x)` requires `x` to be zero and moves the top back. `copy_push!` keeps `x`;
//! `copy_pop!` checks that the popped value equals `x`.
use crate::check::{fail, AlmostSame, ErrorKind};
use core::fmt::Debug;

/// `push!(st, x)`.
#[inline]
pub fn push<T: Default>(st: &mut Vec<T>, x: &mut T) {
    st.push(core::mem::take(x));
}
/// `pop!(st, x)` with checks: `x` must be zero, the stack non-empty.
#[inline]
pub fn pop<T: Default + AlmostSame + Debug>(
    st: &mut Vec<T>,
    x: &mut T,
    location: &'static str,
    statement: &'static str,
) {
    if !(*x).almost_same(&T::default()) {
        fail(
            ErrorKind::Stack,
            location,
            statement,
            format!("pop into a variable that is not zero: {x:?}"),
        );
    }
    match st.pop() {
        Some(v) => *x = v,
        None => empty_stack(location, statement),
    }
}
/// `pop!(st, x)` without checks (the stack must still be non-empty).
#[inline]
pub fn pop_unchecked<T>(st: &mut Vec<T>, x: &mut T) {
    *x = st.pop().expect("nilang: pop from an empty stack");
}
/// `copy_push!(st, x)`.
#[inline]
pub fn copy_push<T: Clone>(st: &mut Vec<T>, x: &mut T) {
    st.push(x.clone());
}
/// `copy_pop!(st, x)` with checks: the popped value must equal `x`.
#[inline]
pub fn copy_pop<T: AlmostSame + Debug>(
    st: &mut Vec<T>,
    x: &mut T,
    location: &'static str,
    statement: &'static str,
) {
    match st.pop() {
        Some(v) => {
            if !v.almost_same(&*x) {
                fail(
                    ErrorKind::Stack,
                    location,
                    statement,
                    format!("copy-pop of {v:?} into a variable holding {x:?}"),
                );
            }
            *x = v;
        }
        None => empty_stack(location, statement),
    }
}
/// `copy_pop!(st, x)` without the equality check.
#[inline]
pub fn copy_pop_unchecked<T>(st: &mut Vec<T>, x: &mut T) {
    *x = st.pop().expect("nilang: pop from an empty stack");
}

/// The error of a pop from an empty stack.
fn empty_stack(location: &'static str, statement: &'static str) -> ! {
    fail(
        ErrorKind::Stack,
        location,
        statement,
        "pop from an empty stack".into(),
    )
}
