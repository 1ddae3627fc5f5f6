//! `sparse` suite: `nilang_apps::sparse` (branch-free reversible Frobenius dot, complex
//! mat-vec on complex values): objective (O), uncall (U) and the backward pass
//! (B) from the output state.
use super::{Csc, SparseCase, SparseKind};
use crate::harness::Kernel;
use crate::report::Measure;
use nilang_apps::sparse::*;
use num_complex::Complex64;

fn pattern<T>(a: &Csc<T>) -> SparseView<'_> {
    SparseView {
        nrows: a.m,
        ncols: a.n,
        indptr: &a.colptr,
        indices: &a.rowval,
    }
}

fn interleave(z: &[Complex64]) -> Vec<f64> {
    z.iter().flat_map(|c| [c.re, c.im]).collect()
}

/// The kernels of one case.
pub fn kernels(case: &SparseCase) -> Vec<Kernel<'_>> {
    match case.kind {
        SparseKind::Dot => dot(case),
        SparseKind::MatVec => matvec(case),
    }
}

fn dot(case: &SparseCase) -> Vec<Kernel<'_>> {
    let (a, b) = (&case.a, &case.b);
    // the gradient plan keeps references to the patterns: they live as long as the process
    // (two small structs per benchmark case)
    let (pa, pb): (&SparseView<'_>, &SparseView<'_>) = (
        Box::leak(Box::new(pattern(a))),
        Box::leak(Box::new(pattern(b))),
    );
    let m = a.m;
    struct S {
        r: f64,
        av: Vec<f64>,
        bv: Vec<f64>,
        w: Vec<f64>,
    }
    let state = || S {
        r: 0.0,
        av: a.nzval.clone(),
        bv: b.nzval.clone(),
        w: vec![0.0; m],
    };
    let mut r0 = 0.0;
    i_sparse_dot(
        &mut r0,
        pa,
        &mut a.nzval.clone(),
        pb,
        &mut b.nzval.clone(),
        &mut vec![0.0; m],
    );
    vec![
        Kernel::with_state(
            Measure::O,
            state(),
            move |s: &mut S| {
                s.r = 0.0;
                i_sparse_dot(&mut s.r, pa, &mut s.av, pb, &mut s.bv, &mut s.w);
            },
            |s| vec![s.r],
        ),
        Kernel::with_state(
            Measure::U,
            state(),
            move |s: &mut S| {
                s.r = r0;
                i_sparse_dot_inv(&mut s.r, pa, &mut s.av, pb, &mut s.bv, &mut s.w);
            },
            |s| s.av.iter().chain(&s.bv).copied().collect(),
        ),
        Kernel::with_state(
            Measure::B,
            (SparseDotScratch::new(m), a.nzval.clone(), b.nzval.clone()),
            move |s: &mut (SparseDotScratch, Vec<f64>, Vec<f64>)| {
                sparse_dot_gradient(pa, &mut s.1, pb, &mut s.2, &mut s.0);
            },
            |s| s.0.grad_a().chain(s.0.grad_b()).collect(),
        ),
    ]
}

fn matvec(case: &SparseCase) -> Vec<Kernel<'_>> {
    let a = &case.ca;
    // the gradient plan keeps a reference to the pattern: it lives as long as the process
    let p: &SparseView<'_> = Box::leak(Box::new(pattern(a)));
    let zero = Complex64::new(0.0, 0.0);
    let (av0, x0) = (a.nzval.clone(), case.x.clone());
    let ybar = interleave(&case.ybar);
    let mut y0 = vec![zero; a.m];
    i_sparse_matvec(&mut y0, p, &mut av0.clone(), &mut x0.clone());
    struct S {
        y: Vec<Complex64>,
        av: Vec<Complex64>,
        x: Vec<Complex64>,
    }
    let (av1, x1, av2, x2, y2) = (av0.clone(), x0.clone(), av0.clone(), x0.clone(), y0.clone());
    vec![
        Kernel::with_state(
            Measure::O,
            S {
                y: vec![zero; a.m],
                av: av0.clone(),
                x: x0.clone(),
            },
            move |s: &mut S| {
                s.y.iter_mut().for_each(|v| *v = zero);
                i_sparse_matvec(&mut s.y, p, &mut s.av, &mut s.x);
            },
            |s| interleave(&s.y),
        ),
        Kernel::with_state(
            Measure::U,
            S {
                y: y0.clone(),
                av: av1,
                x: x1,
            },
            move |s: &mut S| {
                s.y.copy_from_slice(&y2);
                i_sparse_matvec_inv(&mut s.y, p, &mut s.av, &mut s.x);
            },
            |s| {
                interleave(&s.av)
                    .into_iter()
                    .chain(interleave(&s.x))
                    .collect()
            },
        ),
        Kernel::with_state(
            Measure::B,
            (SparseMatvecScratch::new(a.m), av2, x2),
            move |g: &mut (SparseMatvecScratch, Vec<Complex64>, Vec<Complex64>)| {
                sparse_matvec_vjp(&ybar, p, &mut g.1, &mut g.2, &mut g.0);
            },
            |g| g.0.grad_x().chain(g.0.grad_values()).collect(),
        ),
    ]
}
