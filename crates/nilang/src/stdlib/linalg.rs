//! Reversible linear algebra: the affine map, and the matrix primitives inverse, determinant
//! and log-determinant with their backward rules.
//!
//! `inv`, `det` and `logdet` are not sequences of scalar instructions: they are *primitives*,
//! a hand-written forward/backward pair on whole (small, dense, row-major `n × n`) matrices,
//! computed by LU decomposition with partial pivoting. [`MatrixPrimitive`] implements them
//! for plain floats (`out += f(A)` / `out -= f(A)`) and for gradient numbers `GVar<f64>`
//! (`GVar<f32>`), where `out -= f(A)` also accumulates the adjoint of `A`:
//!
//! | primitive | adjoint of `A` (for `out -= f(A)`) |
//! |---|---|
//! | `out += A⁻¹` | `Ā += −A⁻ᵀ Ō A⁻ᵀ` |
//! | `out += det A` | `Ā += ō det(A) A⁻ᵀ` |
//! | `out += ln\|det A\|` | `Ā += ō A⁻ᵀ` |
//!
//! They are called from `#[i]` code like any reversible function (`i_det(&mut d, a, n)`, whose
//! inverse is `i_det_inv`), so programs using them are differentiable as a whole.
use crate::ad::{GVar, Scalar};
use crate::i;
use crate::stdlib::matmul::{self, Operand, Step};
use num_traits::Float;

/// Affine map `y += W x + b` (`W` is `y.len() × x.len()`, row-major): a primitive, one GEMV
/// of [`i_gemv`](crate::stdlib::blas::i_gemv) plus the bias on `f64`, `f32`, `GVar<f64>`,
/// `GVar<f32>`, the instruction loop on other numbers.
///
/// ```
/// use nilang::stdlib::linalg::{i_affine, i_affine_inv};
/// let (mut y, mut w, mut b, mut x) = (vec![0.0; 2], vec![1.0, 2.0, 3.0, 4.0], vec![0.5, -0.5], vec![1.0, 1.0]);
/// i_affine(&mut y, &mut w, &mut b, &mut x);
/// assert_eq!(y, [3.5, 6.5]);
/// i_affine_inv(&mut y, &mut w, &mut b, &mut x);
/// assert_eq!(y, [0.0, 0.0]);
/// ```
#[inline]
pub fn i_affine<T: Scalar>(y: &mut [T], w: &mut [T], b: &mut [T], x: &mut [T]) {
    affine(Step::Forward, y, w, b, x)
}
/// The inverse of [`i_affine`]: `y -= W x + b`.
#[inline]
pub fn i_affine_inv<T: Scalar>(y: &mut [T], w: &mut [T], b: &mut [T], x: &mut [T]) {
    affine(Step::Inverse, y, w, b, x)
}
fn affine<T: Scalar>(step: Step, y: &mut [T], w: &mut [T], b: &mut [T], x: &mut [T]) {
    let (m, n) = (y.len(), x.len());
    affine_dims(w.len(), b.len(), m, n);
    if matmul::gemm(step, y, Operand::Var(w.as_mut_ptr()), x, (m, n, 1)) {
        matmul::add_rows(step, y, b, 1, m);
        return;
    }
    match step {
        Step::Forward | Step::ForwardAdjoints => affine_loop(y, w, b, x),
        Step::Inverse | Step::InverseAdjoints => affine_loop_inv(y, w, b, x),
        Step::ForwardValues => affine_loop::__primal(affine_loop, (y, w, b, x)),
    }
}
crate::stdlib::matmul::dense_markers!(
    i_affine,
    i_affine_inv,
    /// Values only (`y` carries no adjoint).
    #[doc(hidden)]
    #[inline]
    pub fn __primal<
        'a,
        F: crate::CallTuple<(&'a mut [T], &'a mut [T], &'a mut [T], &'a mut [T])>,
        T: Scalar,
    >(
        _f: F,
        (y, w, b, x): (&'a mut [T], &'a mut [T], &'a mut [T], &'a mut [T]),
    ) {
        affine(Step::ForwardValues, y, w, b, x)
    },
    /// Adjoint-only where bit 0 of `dead` is set (`y`'s value afterwards is never read).
    #[doc(hidden)]
    #[inline]
    pub fn __adj<
        'a,
        F: crate::CallTuple<(&'a mut [T], &'a mut [T], &'a mut [T], &'a mut [T])>,
        T: Scalar,
    >(
        _f: F,
        dead: crate::abi::ParamMask,
        (y, w, b, x): (&'a mut [T], &'a mut [T], &'a mut [T], &'a mut [T]),
    ) {
        affine(Step::Forward.dead_target(dead), y, w, b, x)
    },
    /// Adjoint-only where bit 0 of `dead` is set (`y`'s value afterwards is never read).
    #[doc(hidden)]
    #[inline]
    pub fn __adj<
        'a,
        F: crate::CallTuple<(&'a mut [T], &'a mut [T], &'a mut [T], &'a mut [T])>,
        T: Scalar,
    >(
        _f: F,
        dead: crate::abi::ParamMask,
        (y, w, b, x): (&'a mut [T], &'a mut [T], &'a mut [T], &'a mut [T]),
    ) {
        affine(Step::Inverse.dead_target(dead), y, w, b, x)
    }
);
crate::stdlib::matmul::dense_reversible!(
    /// [`i_affine`] as a reversible value.
    IAffine, i_affine, i_affine_inv, ['y, 'w, 'b, 'x, T: Scalar],
    (y: &'y mut [T] => &mut *y, w: &'w mut [T] => &mut *w, b: &'b mut [T] => &mut *b, x: &'x mut [T] => &mut *x)
);

/// The instruction loop of [`i_affine`] (lengths checked by the caller).
#[i(nocheck)]
fn affine_loop<T: Scalar>(y: &mut [T], w: &mut [T], b: &mut [T], x: &mut [T]) {
    for i in 0..y.len() {
        y[i] += b[i];
        for j in 0..x.len() {
            y[i] += w[i * x.len() + j] * x[j];
        }
    }
}

/// [`i_affine`]'s precondition: `W` has `outputs × inputs` elements and `b` has `outputs`.
fn affine_dims(w: usize, b: usize, outputs: usize, inputs: usize) {
    crate::check::dimensions(
        Some(w) == outputs.checked_mul(inputs) && b == outputs,
        "nilang::stdlib::linalg::i_affine",
        "i_affine(y, w, b, x)",
        || {
            format!(
                "i_affine: dimension mismatch: W has {w}, b has {b} elements for {outputs} outputs and {inputs} inputs"
            )
        },
    );
}

/// LU decomposition with partial pivoting of a row-major `n × n` matrix.
#[derive(Clone, Debug)]
pub struct Lu<T> {
    n: usize,
    lu: Vec<T>,
    perm: Vec<usize>,
    sign: T,
}

impl<T: Float> Lu<T> {
    /// Factorise `a` (panics with a clear message when `a` is not `n × n`).
    pub fn new(a: &[T], n: usize) -> Self {
        assert_eq!(
            a.len(),
            n * n,
            "nilang linalg: expected an {n}×{n} matrix, got {} elements",
            a.len()
        );
        let mut lu = a.to_vec();
        let mut perm: Vec<usize> = (0..n).collect();
        let mut sign = T::one();
        for k in 0..n {
            let mut p = k;
            for r in k + 1..n {
                if lu[r * n + k].abs() > lu[p * n + k].abs() {
                    p = r;
                }
            }
            if p != k {
                for c in 0..n {
                    lu.swap(k * n + c, p * n + c);
                }
                perm.swap(k, p);
                sign = -sign;
            }
            let piv = lu[k * n + k];
            if piv == T::zero() {
                continue;
            }
            for r in k + 1..n {
                let f = lu[r * n + k] / piv;
                lu[r * n + k] = f;
                for c in k + 1..n {
                    let v = lu[k * n + c];
                    lu[r * n + c] = lu[r * n + c] - f * v;
                }
            }
        }
        Lu { n, lu, perm, sign }
    }
    /// The determinant.
    pub fn det(&self) -> T {
        (0..self.n).fold(self.sign, |d, k| d * self.lu[k * self.n + k])
    }
    /// `ln|det|`.
    pub fn logabsdet(&self) -> T {
        (0..self.n).fold(T::zero(), |d, k| d + self.lu[k * self.n + k].abs().ln())
    }
    /// The inverse (row-major); panics if the matrix is singular.
    pub fn inverse(&self) -> Vec<T> {
        let n = self.n;
        assert!(
            (0..n).all(|k| self.lu[k * n + k] != T::zero()),
            "nilang linalg: the matrix is singular"
        );
        let mut inv = vec![T::zero(); n * n];
        let mut col = vec![T::zero(); n];
        for j in 0..n {
            // solve A x = e_j: P A = L U
            for (r, c) in col.iter_mut().enumerate() {
                *c = if self.perm[r] == j {
                    T::one()
                } else {
                    T::zero()
                };
            }
            for r in 0..n {
                let row = &self.lu[r * n..r * n + r];
                col[r] = row
                    .iter()
                    .zip(&col[..r])
                    .fold(col[r], |s, (l, c)| s - *l * *c);
            }
            for r in (0..n).rev() {
                let row = &self.lu[r * n + r + 1..(r + 1) * n];
                let s = row
                    .iter()
                    .zip(&col[r + 1..])
                    .fold(col[r], |s, (u, c)| s - *u * *c);
                col[r] = s / self.lu[r * n + r];
            }
            for r in 0..n {
                inv[r * n + j] = col[r];
            }
        }
        inv
    }
}

/// Numbers on which the matrix primitives are defined: plain floats, and gradient numbers
/// whose `minus_*` direction (the one the backward pass runs) accumulates adjoints.
pub trait MatrixPrimitive: Sized {
    /// `out += A⁻¹` (`out` and `a` are `n × n`).
    fn inv_plus(out: &mut [Self], a: &mut [Self], n: usize);
    /// `out -= A⁻¹`.
    fn inv_minus(out: &mut [Self], a: &mut [Self], n: usize);
    /// `out += det A`.
    fn det_plus(out: &mut Self, a: &mut [Self], n: usize);
    /// `out -= det A`.
    fn det_minus(out: &mut Self, a: &mut [Self], n: usize);
    /// `out += ln|det A|`.
    fn logdet_plus(out: &mut Self, a: &mut [Self], n: usize);
    /// `out -= ln|det A|`.
    fn logdet_minus(out: &mut Self, a: &mut [Self], n: usize);
}

macro_rules! float_primitive {
    ($($t:ty),*) => {$(
        impl MatrixPrimitive for $t {
            fn inv_plus(out: &mut [$t], a: &mut [$t], n: usize) {
                check_out(out.len(), n);
                for (o, v) in out.iter_mut().zip(Lu::new(a, n).inverse()) {
                    *o += v;
                }
            }
            fn inv_minus(out: &mut [$t], a: &mut [$t], n: usize) {
                check_out(out.len(), n);
                for (o, v) in out.iter_mut().zip(Lu::new(a, n).inverse()) {
                    *o -= v;
                }
            }
            fn det_plus(out: &mut $t, a: &mut [$t], n: usize) {
                *out += Lu::new(a, n).det();
            }
            fn det_minus(out: &mut $t, a: &mut [$t], n: usize) {
                *out -= Lu::new(a, n).det();
            }
            fn logdet_plus(out: &mut $t, a: &mut [$t], n: usize) {
                *out += Lu::new(a, n).logabsdet();
            }
            fn logdet_minus(out: &mut $t, a: &mut [$t], n: usize) {
                *out -= Lu::new(a, n).logabsdet();
            }
        }
    )*};
}
float_primitive!(f32, f64);

#[track_caller]
fn check_out(len: usize, n: usize) {
    assert_eq!(
        len,
        n * n,
        "nilang linalg: the output must be {n}×{n}, got {len} elements"
    );
}

/// The values of a gradient-number matrix.
fn values<T: Copy>(a: &[GVar<T>]) -> Vec<T> {
    a.iter().map(|v| v.x).collect()
}

/// `a.g += s · A⁻ᵀ`, with `inv` = A⁻¹ (row-major): `(A⁻ᵀ)[i][j] = inv[j][i]`.
fn add_scaled_inv_t<T: Float>(a: &mut [GVar<T>], inv: &[T], n: usize, s: T) {
    for i in 0..n {
        for j in 0..n {
            a[i * n + j].g = a[i * n + j].g + s * inv[j * n + i];
        }
    }
}

/// `a.g += sign · (−A⁻ᵀ Ḡ A⁻ᵀ)` with `Ḡ` the adjoint of the output.
fn inv_adjoint<T: Float>(out: &[GVar<T>], a: &mut [GVar<T>], inv: &[T], n: usize, sign: T) {
    // M = Ḡ A⁻ᵀ: M[i][j] = Σ_k Ḡ[i][k] inv[j][k]
    let mut m = vec![T::zero(); n * n];
    for i in 0..n {
        for j in 0..n {
            let mut s = T::zero();
            for k in 0..n {
                s = s + out[i * n + k].g * inv[j * n + k];
            }
            m[i * n + j] = s;
        }
    }
    // A⁻ᵀ M: [i][j] = Σ_k inv[k][i] M[k][j]
    for i in 0..n {
        for j in 0..n {
            let mut s = T::zero();
            for k in 0..n {
                s = s + inv[k * n + i] * m[k * n + j];
            }
            a[i * n + j].g = a[i * n + j].g - sign * s;
        }
    }
}

impl<T: Float + Default> MatrixPrimitive for GVar<T> {
    fn inv_plus(out: &mut [Self], a: &mut [Self], n: usize) {
        check_out(out.len(), n);
        let inv = Lu::new(&values(a), n).inverse();
        for (o, v) in out.iter_mut().zip(&inv) {
            o.x = o.x + *v;
        }
        inv_adjoint(out, a, &inv, n, -T::one());
    }
    fn inv_minus(out: &mut [Self], a: &mut [Self], n: usize) {
        check_out(out.len(), n);
        let inv = Lu::new(&values(a), n).inverse();
        for (o, v) in out.iter_mut().zip(&inv) {
            o.x = o.x - *v;
        }
        inv_adjoint(out, a, &inv, n, T::one());
    }
    fn det_plus(out: &mut Self, a: &mut [Self], n: usize) {
        let lu = Lu::new(&values(a), n);
        let d = lu.det();
        out.x = out.x + d;
        if out.g != T::zero() {
            add_scaled_inv_t(a, &lu.inverse(), n, -(out.g * d));
        }
    }
    fn det_minus(out: &mut Self, a: &mut [Self], n: usize) {
        let lu = Lu::new(&values(a), n);
        let d = lu.det();
        out.x = out.x - d;
        if out.g != T::zero() {
            add_scaled_inv_t(a, &lu.inverse(), n, out.g * d);
        }
    }
    fn logdet_plus(out: &mut Self, a: &mut [Self], n: usize) {
        let lu = Lu::new(&values(a), n);
        out.x = out.x + lu.logabsdet();
        if out.g != T::zero() {
            add_scaled_inv_t(a, &lu.inverse(), n, -out.g);
        }
    }
    fn logdet_minus(out: &mut Self, a: &mut [Self], n: usize) {
        let lu = Lu::new(&values(a), n);
        out.x = out.x - lu.logabsdet();
        if out.g != T::zero() {
            add_scaled_inv_t(a, &lu.inverse(), n, out.g);
        }
    }
}

macro_rules! primitive_pair {
    ($(#[$doc:meta])* $name:ident, $inv:ident, $S:ident, $plus:ident, $minus:ident, $Out:ty) => {
        $(#[$doc])*
        #[inline]
        pub fn $name<T: MatrixPrimitive>(out: &mut $Out, a: &mut [T], n: usize) {
            T::$plus(out, a, n)
        }
        #[doc = concat!("The inverse of [`", stringify!($name), "`].")]
        #[inline]
        pub fn $inv<T: MatrixPrimitive>(out: &mut $Out, a: &mut [T], n: usize) {
            T::$minus(out, a, n)
        }
        // compute–copy–uncompute in `out` (the one-pass analysis of calling `#[i]` code)
        crate::additive!($name, $inv: 0b1);
        #[doc = concat!("[`", stringify!($name), "`] as a reversible value.")]
        #[derive(Clone, Copy, Debug, Default)]
        pub struct $S;
        impl<'a, 'b, T: MatrixPrimitive> crate::Reversible<(&'a mut $Out, &'b mut [T], usize)> for $S {
            fn call(&self, (out, a, n): (&'a mut $Out, &'b mut [T], usize)) -> (&'a mut $Out, &'b mut [T], usize) {
                $name(out, a, n);
                (out, a, n)
            }
            fn uncall(&self, (out, a, n): (&'a mut $Out, &'b mut [T], usize)) -> (&'a mut $Out, &'b mut [T], usize) {
                $inv(out, a, n);
                (out, a, n)
            }
            fn additive(&self) -> $crate::abi::ParamMask {
                1
            }
        }
    };
}

primitive_pair!(
    /// `out += A⁻¹` for an `n × n` row-major matrix (a primitive with the rule
    /// `Ā += −A⁻ᵀ Ō A⁻ᵀ`; panics if `A` is singular).
    ///
    /// ```
    /// use nilang::stdlib::linalg::{i_inv, i_inv_inv};
    /// let (mut out, mut a) = (vec![0.0; 4], vec![2.0, 0.0, 0.0, 4.0]);
    /// i_inv(&mut out, &mut a, 2);
    /// assert_eq!(out, [0.5, 0.0, 0.0, 0.25]);
    /// i_inv_inv(&mut out, &mut a, 2);
    /// assert_eq!(out, [0.0; 4]);
    /// ```
    i_inv, i_inv_inv, IInv, inv_plus, inv_minus, [T]
);
primitive_pair!(
    /// `out += det A` for an `n × n` row-major matrix (a primitive with the rule
    /// `Ā += ō det(A) A⁻ᵀ`).
    ///
    /// ```
    /// use nilang::stdlib::linalg::i_det;
    /// let (mut d, mut a) = (0.0_f64, vec![1.0, 2.0, 3.0, 4.0]);
    /// i_det(&mut d, &mut a, 2);
    /// assert!((d + 2.0).abs() < 1e-15);
    /// ```
    i_det, i_det_inv, IDet, det_plus, det_minus, T
);
primitive_pair!(
    /// `out += ln|det A|` for an `n × n` row-major matrix (a primitive with the rule
    /// `Ā += ō A⁻ᵀ`). Julia's `logdet` rejects a negative determinant; this is `logabsdet`.
    ///
    /// ```
    /// use nilang::stdlib::linalg::i_logdet;
    /// let (mut l, mut a) = (0.0, vec![2.0, 0.0, 0.0, 3.0]);
    /// i_logdet(&mut l, &mut a, 2);
    /// assert!((l - 6.0_f64.ln()).abs() < 1e-15);
    /// ```
    i_logdet, i_logdet_inv, ILogdet, logdet_plus, logdet_minus, T
);
