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
}
