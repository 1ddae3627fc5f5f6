//! Table 2: sparse matrices, 1000×1000 with density 0.05: the Frobenius dot product tr(AᵀB)
//! of two real CSC matrices, and the complex sparse matrix-vector product `y = A x` (`mul!`).
//! Measures: objective (O) and the backward pass (B).

pub mod nilang;

use crate::cli::Mode;
use crate::harness::{named_cases, Harness, Suite};
use crate::report::Measure;
use echidna::Reverse;
use num_complex::Complex64;
use rand::Rng;

/// The suite's name (`--suite sparse`, the `suite` of its cells).
pub const SUITE: &str = "sparse";

/// The sparse suite (Table 2).
pub struct SparseSuite;

impl Suite for SparseSuite {
    const NAME: &'static str = SUITE;
    const WORK: &'static str = "stored entries (nnz of the operands)";
    type Case = SparseCase;
    fn steps(_: Mode) -> u64 {
        2
    }
    fn cases(h: &mut Harness) -> Vec<SparseCase> {
        cases(h)
    }
    fn run_case(h: &mut Harness, case: &SparseCase) {
        match case.kind {
            SparseKind::Dot => run_dot(h, case),
            SparseKind::MatVec => run_matvec(h, case),
        }
    }
}
named_cases!(SparseCase);

/// A compressed-sparse-column matrix (0-based, sorted row indices), like Julia's `SparseMatrixCSC`.
#[derive(Clone, Debug, PartialEq)]
pub struct Csc<T> {
    /// Rows.
    pub m: usize,
    /// Columns.
    pub n: usize,
    /// Where each column starts in `rowval` and `nzval` (`n + 1` offsets).
    pub colptr: Vec<usize>,
    /// The row of each stored entry.
    pub rowval: Vec<usize>,
    /// The value of each stored entry.
    pub nzval: Vec<T>,
}

impl<T> Csc<T> {
    /// The number of stored entries.
    pub fn nnz(&self) -> usize {
        self.nzval.len()
    }
    /// Random pattern (each entry present with probability `density`), values from `val`.
    pub fn random(
        m: usize,
        n: usize,
        density: f64,
        rng: &mut impl Rng,
        mut val: impl FnMut(&mut dyn rand::RngCore) -> T,
    ) -> Csc<T> {
        let mut colptr = Vec::with_capacity(n + 1);
        let mut rowval = Vec::new();
        let mut nzval = Vec::new();
        colptr.push(0);
        for _ in 0..n {
            for i in 0..m {
                if rng.gen::<f64>() < density {
                    rowval.push(i);
                    nzval.push(val(rng));
                }
            }
            colptr.push(rowval.len());
        }
        Csc {
            m,
            n,
            colptr,
            rowval,
            nzval,
        }
    }
}

/// The Frobenius dot product tr(AᵀB) = Σ A_ij B_ij, merging the sorted row indices of each
/// column (the paper's `dot` for `SparseMatrixCSC`).
pub fn dot(a: &Csc<f64>, b: &Csc<f64>) -> f64 {
    assert!(a.m == b.m && a.n == b.n, "dimension mismatch");
    dot_generic(a, b, &a.nzval, &b.nzval)
}

/// `tr(AᵀB)` by scatter–gather (the best plain version, and the algorithm of the reversible
/// program): each column of `B` is scattered into the zero work vector `w` (length `m`),
/// gathered against `A`'s column, and cleared again. No branches on the sparsity pattern.
pub fn dot_scatter(a: &Csc<f64>, b: &Csc<f64>, w: &mut [f64]) -> f64 {
    assert!(
        a.m == b.m && a.n == b.n && w.len() == a.m,
        "dimension mismatch"
    );
    let mut r = 0.0;
    for j in 0..a.n {
        let (qb, qa) = (b.colptr[j]..b.colptr[j + 1], a.colptr[j]..a.colptr[j + 1]);
        for q in qb.clone() {
            w[b.rowval[q]] = b.nzval[q];
        }
        for p in qa {
            r += a.nzval[p] * w[a.rowval[p]];
        }
        for q in qb {
            w[b.rowval[q]] = 0.0;
        }
    }
    r
}

/// [`dot`] over A's and B's values, generic over the scalar (`f64` for the plain objective,
/// echidna's numbers for its gradient).
#[inline]
fn dot_generic<T: crate::real::Real>(a: &Csc<f64>, b: &Csc<f64>, av: &[T], bv: &[T]) -> T {
    let mut r = T::zero();
    common_entries(a, b, |ia, ib| r = r + av[ia] * bv[ib]);
    r
}

/// `f(ia, ib)` for every entry that `A` and `B` share (value indices), column by column, by
/// merging the sorted row indices.
#[inline]
fn common_entries<T, U>(a: &Csc<T>, b: &Csc<U>, mut f: impl FnMut(usize, usize)) {
    for j in 0..a.n {
        let (mut ia, ea) = (a.colptr[j], a.colptr[j + 1]);
        let (mut ib, eb) = (b.colptr[j], b.colptr[j + 1]);
        while ia < ea && ib < eb {
            let (ra, rb) = (a.rowval[ia], b.rowval[ib]);
            if ra < rb {
                ia += 1;
            } else if rb < ra {
                ib += 1;
            } else {
                f(ia, ib);
                ia += 1;
                ib += 1;
            }
        }
    }
}

/// The hand-written backward pass of `dot` with output adjoint `g`: Ā = g·B and B̄ = g·A, each
/// on its own pattern. Writes `[Ā values | B̄ values]` into `out` (length nnz(A) + nnz(B)).
pub fn dot_backward(a: &Csc<f64>, b: &Csc<f64>, g: f64, out: &mut [f64]) {
    let na = a.nnz();
    out.iter_mut().for_each(|x| *x = 0.0);
    let (ga, gb) = out.split_at_mut(na);
    common_entries(a, b, |ia, ib| {
        ga[ia] += g * b.nzval[ib];
        gb[ib] += g * a.nzval[ia];
    });
}

/// [`dot_backward`] by scatter–gather with the zero work vector `w` (length `m`): each
/// column of `B` scattered and gathered at `A`'s rows, then `A`'s at `B`'s. Every entry is
/// written (zero off the common pattern).
pub fn dot_backward_scatter(a: &Csc<f64>, b: &Csc<f64>, g: f64, out: &mut [f64], w: &mut [f64]) {
    let (ga, gb) = out.split_at_mut(a.nnz());
    for j in 0..a.n {
        let (qa, qb) = (a.colptr[j]..a.colptr[j + 1], b.colptr[j]..b.colptr[j + 1]);
        for q in qb.clone() {
            w[b.rowval[q]] = b.nzval[q];
        }
        for p in qa.clone() {
            ga[p] = g * w[a.rowval[p]];
        }
        for q in qb.clone() {
            w[b.rowval[q]] = 0.0;
        }
        for p in qa.clone() {
            w[a.rowval[p]] = a.nzval[p];
        }
        for q in qb {
            gb[q] = g * w[b.rowval[q]];
        }
        for p in qa {
            w[a.rowval[p]] = 0.0;
        }
    }
}

/// `y = A x` (Julia's `mul!(y, A, x)`), complex.
pub fn matvec(a: &Csc<Complex64>, x: &[Complex64], y: &mut [Complex64]) {
    y.iter_mut().for_each(|v| *v = Complex64::new(0.0, 0.0));
    for (j, &xj) in x.iter().enumerate() {
        for p in a.colptr[j]..a.colptr[j + 1] {
            y[a.rowval[p]] += a.nzval[p] * xj;
        }
    }
}

/// The hand-written backward pass of `y = A x` for a real loss with ȳ = ∂L/∂Re y + i ∂L/∂Im y:
/// x̄ = Aᴴ ȳ, Ā_ij = ȳ_i conj(x_j) on A's pattern. Writes x̄ and Ā.
pub fn matvec_backward(
    a: &Csc<Complex64>,
    x: &[Complex64],
    ybar: &[Complex64],
    xbar: &mut [Complex64],
    abar: &mut [Complex64],
) {
    for (j, &xj) in x.iter().enumerate() {
        let mut acc = Complex64::new(0.0, 0.0);
        for p in a.colptr[j]..a.colptr[j + 1] {
            let yb = ybar[a.rowval[p]];
            acc += a.nzval[p].conj() * yb;
            abar[p] = yb * xj.conj();
        }
        xbar[j] = acc;
    }
}

/// L = Re Σ conj(ȳ_i) y_i, with y = A x, over interleaved real inputs
/// `[A (re, im per nonzero) | x (re, im)]` (for echidna).
fn matvec_loss<T: crate::real::Real>(a: &Csc<Complex64>, ybar: &[Complex64], v: &[T]) -> T {
    let nnz = a.nnz();
    let mut yre = vec![T::zero(); a.m];
    let mut yim = vec![T::zero(); a.m];
    for j in 0..a.n {
        let (xr, xi) = (v[2 * nnz + 2 * j], v[2 * nnz + 2 * j + 1]);
        for p in a.colptr[j]..a.colptr[j + 1] {
            let (ar, ai) = (v[2 * p], v[2 * p + 1]);
            let i = a.rowval[p];
            yre[i] = yre[i] + (ar * xr - ai * xi);
            yim[i] = yim[i] + (ar * xi + ai * xr);
        }
    }
    let mut l = T::zero();
    for i in 0..a.m {
        l = l + T::cst(ybar[i].re) * yre[i] + T::cst(ybar[i].im) * yim[i];
    }
    l
}

fn interleave(z: &[Complex64]) -> Vec<f64> {
    z.iter().flat_map(|c| [c.re, c.im]).collect()
}

/// What a sparse case computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SparseKind {
    /// `dot(A, B)`, real.
    Dot,
    /// `mul!(y, A, x)`, complex.
    MatVec,
}

/// One sparse case. Result layouts for the checks:
/// * `Dot`: O: `[dot(A, B)]`; B (output adjoint 1): `[Ā values (A's nonzero order) | B̄ values]`.
/// * `MatVec`: O: `y` as `[re, im]` pairs; B (output adjoint `ybar`): `[x̄ (re, im pairs) | Ā (re, im pairs, A's nonzero order)]`
///   (gradients of a real loss: ∂L/∂Re + i ∂L/∂Im).
/// * U: the inputs restored: `Dot`: `[A values | B values]`; `MatVec`: `[A (re, im) | x (re, im)]`.
pub struct SparseCase {
    /// The case's name.
    pub name: String,
    /// Which operation: the Frobenius dot or the complex mat-vec.
    pub kind: SparseKind,
    /// `A` of the dot.
    pub a: Csc<f64>,
    /// `B` of the dot.
    pub b: Csc<f64>,
    /// `A` of the mat-vec.
    pub ca: Csc<Complex64>,
    /// `x` of the mat-vec.
    pub x: Vec<Complex64>,
    /// The output adjoint `ȳ` of the mat-vec's backward pass.
    pub ybar: Vec<Complex64>,
}

fn cases(h: &Harness) -> Vec<SparseCase> {
    let (n, density) = match h.mode {
        Mode::Smoke => (100, 0.05),
        _ => (1000, 0.05),
    };
    let mut rng = crate::suites::rng(2);
    let a = Csc::random(n, n, density, &mut rng, |r| r.gen::<f64>());
    let b = Csc::random(n, n, density, &mut rng, |r| r.gen::<f64>());
    let ca = Csc::random(n, n, density, &mut rng, |r| {
        Complex64::new(r.gen::<f64>(), r.gen::<f64>())
    });
    let x: Vec<Complex64> = (0..n)
        .map(|_| Complex64::new(rng.gen::<f64>(), rng.gen::<f64>()))
        .collect();
    let ybar: Vec<Complex64> = (0..n)
        .map(|_| Complex64::new(rng.gen::<f64>(), rng.gen::<f64>()))
        .collect();
    let mk = |name: &str, kind| SparseCase {
        name: name.into(),
        kind,
        a: a.clone(),
        b: b.clone(),
        ca: ca.clone(),
        x: x.clone(),
        ybar: ybar.clone(),
    };
    vec![
        mk(&format!("dot {n}x{n} d={density}"), SparseKind::Dot),
        mk(
            &format!("mul! complex {n}x{n} d={density}"),
            SparseKind::MatVec,
        ),
    ]
}

fn to_sprs(a: &Csc<f64>) -> sprs::CsMat<f64> {
    sprs::CsMat::new_csc(
        (a.m, a.n),
        a.colptr.clone(),
        a.rowval.clone(),
        a.nzval.clone(),
    )
}

fn run_dot(h: &mut Harness, c: &SparseCase) {
    let (a, b) = (&c.a, &c.b);
    let name = c.name.as_str();
    let size = (a.nnz() + b.nnz()) as f64;
    let f = dot(a, b);
    // Second method for the objective: sprs (Aᵀ B trace via elementwise product).
    let f_sprs: f64 = {
        let (sa, sb) = (to_sprs(a), to_sprs(b));
        let prod = &sa.view() * &sb.transpose_view(); // A Bᵀ: its trace is Σ A_ij B_ij
        prod.diag().iter().map(|(_, v)| *v).sum()
    };
    h.check("sparse dot: rust-O vs sprs", &[f], &[f_sprs], 1e-12);
    let mut man = vec![0.0; a.nnz() + b.nnz()];
    dot_backward(a, b, 1.0, &mut man);
    let mut v: Vec<f64> = a.nzval.clone();
    v.extend_from_slice(&b.nzval);
    let na = a.nnz();
    let ech_grad = |v: &[f64]| {
        echidna::grad(
            |x: &[Reverse<f64>]| dot_generic(a, b, &x[..na], &x[na..]),
            v,
        )
    };
    let ge = ech_grad(&v);
    let ok = h.check("sparse dot: manual-B vs echidna", &man, &ge, 1e-12);
    // rust-O: the faster of the two plain versions is scatter–gather (3–4× the merge loop)
    let mut w = vec![0.0; a.m];
    h.check(
        "sparse dot: scatter-gather vs merge loop",
        &[dot_scatter(a, b, &mut w)],
        &[f],
        1e-12,
    );
    // rust-O, then timed in turns with every later cell of the case (its own work vector)
    let mut w_base = vec![0.0; a.m];
    let h = &mut h.in_turns(SUITE, name, size, 1.0, || dot_scatter(a, b, &mut w_base));
    if ok {
        // the faster hand-written backward pass, checked against the merge-loop one
        let mut man2 = vec![0.0; man.len()];
        dot_backward_scatter(a, b, 1.0, &mut man2, &mut w);
        h.check("sparse dot: manual-B scatter vs merge", &man2, &man, 1e-12);
        h.time(SUITE, name, size, "manual", Measure::B, 1.0, || {
            dot_backward_scatter(a, b, 1.0, &mut man2, &mut w)
        });
        // echidna cannot separate the backward pass from the recording: forward + backward.
        h.time(SUITE, name, size, "echidna", Measure::G, 1.0, || {
            ech_grad(&v)
        });
    }
    let reference = |m: Measure| match m {
        Measure::O => Some(std::borrow::Cow::Owned(vec![f])),
        Measure::B => Some(std::borrow::Cow::Borrowed(&ge[..])),
        Measure::U => Some(std::borrow::Cow::Borrowed(&v[..])),
        _ => None,
    };
    let ks = nilang::kernels(c);
    h.external(SUITE, name, size, 1.0, "nilang", ks, &reference, 1e-10);
    if h.jax.active() {
        // the Enzyme peer's O and B (peers/enzyme/sparse.cpp); indices sent as f64
        let idx = |v: &[usize]| -> Vec<f64> { v.iter().map(|&i| i as f64).collect() };
        let (acp, ari, bcp, bri) = (
            idx(&a.colptr),
            idx(&a.rowval),
            idx(&b.colptr),
            idx(&b.rowval),
        );
        let arrays: [(&str, &[f64]); 6] = [
            ("acp", &acp),
            ("ari", &ari),
            ("av", &a.nzval),
            ("bcp", &bcp),
            ("bri", &bri),
            ("bv", &b.nzval),
        ];
        let scalars = serde_json::json!({"kind": "dot", "m": a.m});
        crate::harness::jax::run_case(
            h, SUITE, name, size, 1.0, scalars, &arrays, &reference, None, 1e-10,
        );
    }
}

fn run_matvec(h: &mut Harness, c: &SparseCase) {
    let (a, x, ybar) = (&c.ca, &c.x, &c.ybar);
    let name = c.name.as_str();
    let size = a.nnz() as f64;
    let mut y = vec![Complex64::new(0.0, 0.0); a.m];
    matvec(a, x, &mut y);
    // Second method for the objective: sprs.
    let y_sprs = {
        let sa = sprs::CsMat::new_csc(
            (a.m, a.n),
            a.colptr.clone(),
            a.rowval.clone(),
            a.nzval.clone(),
        );
        &sa * &sprs::CsVec::new(x.len(), (0..x.len()).collect(), x.clone()).to_dense()
    };
    h.check(
        "sparse mul!: rust-O vs sprs",
        &interleave(&y),
        &interleave(y_sprs.as_slice().unwrap()),
        1e-12,
    );
    let mut xbar = vec![Complex64::new(0.0, 0.0); a.n];
    let mut abar = vec![Complex64::new(0.0, 0.0); a.nnz()];
    matvec_backward(a, x, ybar, &mut xbar, &mut abar);
    let mut man = interleave(&xbar);
    man.extend(interleave(&abar));
    // echidna on the real loss L = Re Σ conj(ȳ) y over [A | x] (re, im interleaved).
    let mut v = interleave(&a.nzval);
    v.extend(interleave(x));
    let ech = |v: &[f64]| echidna::grad(|z: &[Reverse<f64>]| matvec_loss(a, ybar, z), v);
    let ge = ech(&v);
    let nnz2 = 2 * a.nnz();
    let mut ge_perm = ge[nnz2..].to_vec();
    ge_perm.extend_from_slice(&ge[..nnz2]);
    let ok = h.check("sparse mul!: manual-B vs echidna", &man, &ge_perm, 1e-12);
    // rust-O, then timed in turns with every later cell of the case
    let mut y_base = y.clone();
    let h = &mut h.in_turns(SUITE, name, size, 1.0, || matvec(a, x, &mut y_base));
    if ok {
        h.time(SUITE, name, size, "manual", Measure::B, 1.0, || {
            matvec_backward(a, x, ybar, &mut xbar, &mut abar)
        });
        h.time(SUITE, name, size, "echidna", Measure::G, 1.0, || ech(&v));
    }
    let yref = interleave(&y);
    let reference = |m: Measure| match m {
        Measure::O => Some(std::borrow::Cow::Borrowed(&yref[..])),
        Measure::B => Some(std::borrow::Cow::Borrowed(&man[..])),
        Measure::U => Some(std::borrow::Cow::Borrowed(&v[..])),
        _ => None,
    };
    let ks = nilang::kernels(c);
    h.external(SUITE, name, size, 1.0, "nilang", ks, &reference, 1e-10);
    if h.jax.active() {
        // the Enzyme peer's O and B (peers/enzyme/sparse.cpp); indices sent as f64
        let idx = |v: &[usize]| -> Vec<f64> { v.iter().map(|&i| i as f64).collect() };
        let (cp, ri, av, xv, yb) = (
            idx(&a.colptr),
            idx(&a.rowval),
            interleave(&a.nzval),
            interleave(x),
            interleave(ybar),
        );
        let arrays: [(&str, &[f64]); 5] = [
            ("cp", &cp),
            ("ri", &ri),
            ("a", &av),
            ("x", &xv),
            ("ybar", &yb),
        ];
        let scalars = serde_json::json!({"kind": "matvec"});
        crate::harness::jax::run_case(
            h, SUITE, name, size, 1.0, scalars, &arrays, &reference, None, 1e-10,
        );
    }
}
