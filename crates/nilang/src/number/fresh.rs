//! [`Fresh`]: numbers and workspaces that can be checked for zero and zeroed (`fresh!`, ancillas).

/// Numbers and containers of numbers that can be checked for zero and zeroed.
pub trait Fresh {
    /// Whether every number is zero (up to the float tolerance).
    fn is_fresh(&self) -> bool;
    /// Set every number, with every adjoint, to zero.
    fn make_fresh(&mut self);
    /// What `fresh!` does without checks: [`Fresh::make_fresh`] (every number set to exact
    /// zero, so that reusing a workspace is bit-identical to a fresh one).
    #[inline(always)]
    fn make_fresh_unchecked(&mut self) {
        self.make_fresh()
    }
    /// Set the value part of every gradient number to zero, its adjoint kept: what the
    /// uncomputation of a routine computed on a fresh workspace leaves there. The compiler
    /// emits it after an uncomputation that skipped the (never read) value updates (see
    /// [`PlusEq1::plus_eq_adjoint`](crate::instr::PlusEq1::plus_eq_adjoint)). Numbers whose
    /// instructions compute values anyway leave it as it is (the default).
    #[inline(always)]
    fn zero_values(&mut self) {}
    /// [`Fresh::zero_values`] of every element of `v` (what it does on a slice, an array, a
    /// `Vec`): element by element unless the type has a vector form (gradient numbers of
    /// `f64`: whole vectors of them, the same bits).
    #[doc(hidden)]
    #[inline(always)]
    fn zero_values_slice(v: &mut [Self])
    where
        Self: Sized,
    {
        v.iter_mut().for_each(Fresh::zero_values)
    }
    /// Whether the adjoint-only instructions on these numbers skip value work, so that
    /// uncomputing a routine adjoint-only and then [`Fresh::zero_values`] is cheaper than
    /// uncomputing it: gradient numbers of plain numbers. On every other number the two
    /// compute the same, and the compiler emits the ordinary uncomputation (an inverse program
    /// on `f64` then costs what its forward costs).
    ///
    /// ```
    /// use nilang::instr::fresh::Fresh;
    /// assert!(!<Vec<f64> as Fresh>::VALUES_SKIPPED);
    /// assert!(<Vec<nilang::GVar<f64>> as Fresh>::VALUES_SKIPPED);
    /// ```
    const VALUES_SKIPPED: bool = false;
    /// The number an ancilla allocated with `self` starts from (`let t = T::default();` in
    /// `#[i]` code): `self`, except that a gradient number's zero adjoint is −0.0, the
    /// identity of IEEE addition ([`Fresh::neg_zero`]), so that the first `t.g += v` of a
    /// backward pass compiles to `t.g = v` (`0.0 + v` is an addition: it makes `-0.0` zero).
    /// The value is kept as it is. Adjoints that sum to zero may come out as −0.0 where they
    /// were +0.0 (equal under `==`); every other adjoint has the same bits.
    ///
    /// ```
    /// use nilang::instr::fresh::Fresh;
    /// let t = nilang::GVar::new(0.0_f64, 0.0).ancilla();
    /// assert!(t.x.is_sign_positive() && t.g.is_sign_negative() && t.g == 0.0);
    /// assert!(0.0_f64.ancilla().is_sign_positive());
    /// ```
    #[inline(always)]
    fn ancilla(self) -> Self
    where
        Self: Sized,
    {
        self
    }
    /// `self` with a zero made −0.0 (`f64`, `f32`); every other number as it is. What
    /// [`Fresh::ancilla`] does to a gradient number's adjoint.
    #[inline(always)]
    fn neg_zero(self) -> Self
    where
        Self: Sized,
    {
        self
    }
}
