//! The generated-item ABI: what `#[i]` generates next to a function `f`, and what hand-written
//! code (`nilang::additive!`, the dense primitives of `nilang::stdlib`) must provide so that
//! `#[i]` code can call it. The compiler (`nilang_compiler::abi`) writes its items from these
//! constants; the runtime re-exports them as `nilang::abi`.
//!
//! For a function `f`, `#[i]` generates the inverse `f_inv` ([`INVERSE_SUFFIX`]) and, in the
//! type namespace, an item `f` (and `f_inv`) holding
//!
//! - the analyses, constant [`ParamMask`]s (bit `k` for parameter `k`, [`MASK_BITS`] bits;
//!   a parameter past them gets the conservative answer): [`ADDITIVE`] (compute–copy–uncompute
//!   in `k`), [`WRITES`] (may write `k`), [`READS`] (may read `k`'s value);
//! - the variants, taking the function itself and its arguments as one tuple (at most
//!   [`MAX_CALL_TUPLE`] elements go through `nilang::CallTuple`): [`PRIMAL`]`(f, args)`
//!   (value-only) and [`ADJOINT`]`(f, dead, args)` (adjoint-only; bit `k` of `dead`: the value
//!   of parameter `k` after the call is never read; its last bit, [`FRESH_TARGET`], says that
//!   the first argument holds the result of the call being undone).
//!
//! ```
//! use nilang_functions::abi;
//! assert_eq!(abi::ALL_PARAMS.count_ones() as usize, abi::MASK_BITS);
//! assert!(abi::same(abi::PRIMAL, "__primal"));
//! ```

/// A set of parameters as a bit mask (bit `k`: parameter `k`).
pub type ParamMask = u64;

/// The name of [`ParamMask`]'s type, as the compiler writes it in generated code.
pub const MASK_TYPE: &str = "u64";

/// How many parameters a [`ParamMask`] can name.
pub const MASK_BITS: usize = ParamMask::BITS as usize;

/// Every parameter (the conservative answer of [`WRITES`] and [`READS`]).
pub const ALL_PARAMS: ParamMask = ParamMask::MAX;

/// The inverse of `f` is `f_inv`.
pub const INVERSE_SUFFIX: &str = "_inv";

/// The value-only variant: `f::__primal(f, (args..))`.
pub const PRIMAL: &str = "__primal";

/// The adjoint-only variant: `f::__adj(f, dead, (args..))`.
pub const ADJOINT: &str = "__adj";

/// How many parameters the `dead` mask of an adjoint-only variant ([`ADJOINT`]) names: its
/// last bit is [`FRESH_TARGET`].
pub const DEAD_BITS: usize = MASK_BITS - 1;

/// The last bit of an adjoint-only call's `dead` mask: the call undoes a call whose first
/// argument (the target `y` of `y += f(..)`) was exactly zero before it and has been written by
/// nothing else since, so `y` now holds what that call added (up to the sign of a zero) and
/// this call leaves it zero. A backward rule may read the forward result from `y` instead of
/// recomputing it (`i_map_inv`'s `x̄ += ȳ·(1 − y²)` for `tanh`); others ignore the bit.
pub const FRESH_TARGET: ParamMask = 1 << DEAD_BITS;

/// The one-pass analysis: `f::ADDITIVE`.
pub const ADDITIVE: &str = "ADDITIVE";

/// The parameters `f` may write: `f::WRITES`.
pub const WRITES: &str = "WRITES";

/// The parameters whose values `f` may read: `f::READS`.
pub const READS: &str = "READS";

/// The longest argument tuple `nilang::CallTuple` (and the gradient API's tuples) is
/// implemented for; a longer parameter list is passed as a plain tuple.
pub const MAX_CALL_TUPLE: usize = 32;

/// Whether two names are the same (a `const fn`, for compile-time checks of hand-written
/// items: `const _: () = assert!(abi::same(stringify!(__primal), abi::PRIMAL));`).
pub const fn same(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut k = 0;
    while k < a.len() {
        if a[k] != b[k] {
            return false;
        }
        k += 1;
    }
    true
}
