//! Adjoint-only uncomputation: the backward pass uncomputes routines on `fresh!` workspaces
//! without their (never read) value updates, callees run their variant `f::__adj`, and the
//! workspaces' values are then set to zero. Each program is written twice: without checks
//! (where the compiler does this) and with checks (where it does not: the checks read the
//! values). Gradients agree bit for bit; the workspaces end exactly zero, with the same
//! adjoints.
use nilang::ad;
use nilang::prelude::*;

macro_rules! programs {
    ($($attr:meta)?; $inner:ident, $stage:ident, $obj:ident, $Obj:ident) => {
        /// `y[j] += l[j] · v`: `y` is a target only (its value is never read).
        #[$($attr)?]
        fn $inner<T: Scalar>(y: &mut [T], l: &mut [T], v: &mut T) {
            for j in 0..y.len() {
                y[j] += l[j] * v;
            }
        }

        /// One block of `n` points: loop-private elements and ranges, a chain that reads the
        /// previous element, and a place changed after it was read.
        #[$($attr)?]
        #[allow(clippy::too_many_arguments)]
        fn $stage<T: Scalar>(
            t: &mut [T],
            u: &mut [T],
            y: &mut [T],
            q: &mut T,
            s: &mut T,
            p: &mut [T],
            x: &mut [T],
            n: usize,
        ) {
            for i in 0..n {
                t[i] += x[i] - p[0];
            }
            // `u[i]` reads `u[i − 1]`: not loop-private
            u[0] += t[0];
            for i in 1..n {
                u[i] += u[i - 1] * p[1];
                u[i] += t[i];
            }
            for i in 0..n {
                $inner(&mut y[i * 2..(i + 1) * 2], &mut p[1..3], &mut u[i]);
            }
            // `q` is read by `s += q · p[2]` and changed afterwards
            q += y[0] * p[2];
            s += q * p[2];
            q += y[1];
            for i in 0..2 * n {
                s += abs2(y[i]);
            }
        }

        /// `out += Σ_blocks (s · p[0] + exp(q))` over blocks of `n` points, the workspaces
        /// made fresh after each block.
        #[$($attr)?]
        #[allow(clippy::too_many_arguments)]
        fn $obj<T: Scalar>(
            out: &mut T,
            p: &mut [T],
            x: &mut [T],
            t: &mut [T],
            u: &mut [T],
            y: &mut [T],
            qs: &mut [T],
            n: usize,
        ) {
            for b in 0..x.len() / n {
                routine! {
                    $stage(t, u, y, &mut qs[0], &mut qs[1], p, &mut x[b * n..(b + 1) * n], n);
                }
                out += qs[1] * p[0];
                out += exp(qs[0]);
                unroutine!();
                fresh!(t, u, y, qs);
            }
        }
    };
}
programs!(i(nocheck); inner_fast, stage_fast, obj_fast, ObjFast);
programs!(i; inner_checked, stage_checked, obj_checked, ObjChecked);

#[test]
fn reads_masks_name_the_parameters_whose_values_are_read() {
    // `inner` never reads `y` (a target only), and reads `l` and `v`
    assert_eq!(inner_fast::READS & 1, 0);
    assert_eq!(inner_fast::READS >> 1 & 0b11, 0b11);
    assert_eq!(inner_checked::READS, inner_fast::READS);
}

type Args<'a> = (
    &'a mut f64,
    &'a mut [f64],
    &'a mut [f64],
    &'a mut [f64],
    &'a mut [f64],
    &'a mut [f64],
    &'a mut [f64],
    usize,
);

#[test]
fn gradients_agree_bit_for_bit_and_workspaces_end_zero() {
    let n = 3;
    let p0 = [0.3, -0.7, 0.45];
    let x0: Vec<f64> = (0..4 * n).map(|i| (i as f64 * 0.37).sin()).collect();
    let run = |fast: bool| {
        let (mut p, mut x) = (p0.to_vec(), x0.clone());
        let (mut t, mut u, mut y, mut qs) =
            (vec![0.0; n], vec![0.0; n], vec![0.0; 2 * n], vec![0.0; 2]);
        let args: Args = (&mut 0.0, &mut p, &mut x, &mut t, &mut u, &mut y, &mut qs, n);
        let (v, st) = if fast {
            ad::value_and_gradient(&ObjFast, args, 0)
        } else {
            ad::value_and_gradient(&ObjChecked, args, 0)
        };
        let g = |s: &[GVar<f64>]| s.iter().map(|v| v.g).collect::<Vec<_>>();
        let xs = |s: &[GVar<f64>]| s.iter().map(|v| v.x).collect::<Vec<_>>();
        (
            v,
            [g(&st.1), g(&st.2)],
            [xs(&st.3), xs(&st.4), xs(&st.5), xs(&st.6)],
            [g(&st.3), g(&st.4), g(&st.5), g(&st.6)],
        )
    };
    let (vf, gf, wsf, wgf) = run(true);
    let (vc, gc, wsc, wgc) = run(false);
    assert_eq!(vf, vc);
    assert_eq!(gf, gc);
    // the workspaces: exactly zero (the values reset), the checked run zero up to rounding
    for (a, b) in wsf.iter().zip(&wsc) {
        assert!(a.iter().all(|v| *v == 0.0), "{a:?}");
        assert!(b.iter().all(|v| v.abs() < 1e-12), "{b:?}");
    }
    // and the same adjoints (of the first block, whose routine read them)
    assert_eq!(wgf, wgc);
    // the gradient against finite differences of the plain objective
    let f = |p: &[f64], x: &[f64]| {
        let mut out = 0.0;
        for b in 0..x.len() / n {
            let xb = &x[b * n..(b + 1) * n];
            let t: Vec<f64> = xb.iter().map(|v| v - p[0]).collect();
            let mut u = vec![0.0; n];
            u[0] = t[0];
            for i in 1..n {
                u[i] = u[i - 1] * p[1] + t[i];
            }
            let mut y = vec![0.0; 2 * n];
            for i in 0..n {
                y[2 * i] = p[1] * u[i];
                y[2 * i + 1] = p[2] * u[i];
            }
            let mut q = y[0] * p[2];
            let mut s = q * p[2];
            q += y[1];
            s += y.iter().map(|v| v * v).sum::<f64>();
            out += s * p[0] + q.exp();
        }
        out
    };
    assert!((vf - f(&p0, &x0)).abs() < 1e-12 * vf.abs().max(1.0));
    let h = 1e-6;
    for k in 0..3 {
        let (mut pp, mut pm) = (p0, p0);
        pp[k] += h;
        pm[k] -= h;
        let fd = (f(&pp, &x0) - f(&pm, &x0)) / (2.0 * h);
        assert!(
            (gf[0][k] - fd).abs() < 1e-6 * (1.0 + fd.abs()),
            "{k}: {} {fd}",
            gf[0][k]
        );
    }
}

#[test]
fn the_inverse_on_plain_numbers_is_unchanged() {
    // on `f64` the adjoint-only instructions compute the values (there is no adjoint)
    let n = 2;
    let mut p = [0.3, -0.7, 0.45];
    let mut x: Vec<f64> = (0..2 * n).map(|i| i as f64 * 0.5 - 0.2).collect();
    let (mut t, mut u, mut y, mut qs) =
        (vec![0.0; n], vec![0.0; n], vec![0.0; 2 * n], vec![0.0; 2]);
    let mut out = 0.0;
    obj_fast(&mut out, &mut p, &mut x, &mut t, &mut u, &mut y, &mut qs, n);
    let mut out2 = 0.0;
    obj_checked(
        &mut out2, &mut p, &mut x, &mut t, &mut u, &mut y, &mut qs, n,
    );
    assert_eq!(out, out2);
    obj_fast_inv(&mut out, &mut p, &mut x, &mut t, &mut u, &mut y, &mut qs, n);
    assert!(out.abs() < 1e-12);
    assert!(t
        .iter()
        .chain(&u)
        .chain(&y)
        .chain(&qs)
        .all(|v| v.abs() < 1e-12));
}

/// `y[2·ix] += a·x_j` over the nonzeros of a pattern: `y` is a target only.
#[i(nocheck)]
fn scatter<T: Scalar>(
    y: &mut [T],
    pat: &nilang::stdlib::sparse::SparseView<'_>,
    a: &mut [T],
    x: &mut [T],
) {
    for j in 0..pat.ncols {
        for p in pat.indptr[j]..pat.indptr[j + 1] {
            y[pat.indices[p]] += a[p] * x[j];
        }
    }
}

#[test]
fn one_pass_vjp_and_jacobian_run_the_adjoint_only_inverse() {
    // compute–copy–uncompute in `y`: the backward pass starts from the inputs and runs
    // `Reversible::uncall_dead` with `y` dead, so `y`'s values stay as given (the whole
    // inverse would leave `y − A x`); the adjoints are those of the whole inverse
    let (indptr, indices) = ([0, 2, 3], [0, 1, 1]);
    let pat = nilang::stdlib::sparse::SparseView {
        nrows: 2,
        ncols: 2,
        indptr: &indptr,
        indices: &indices,
    };
    let (mut y, mut a, mut x) = (vec![0.5, -1.0], vec![1.0, 2.0, 3.0], vec![4.0, 5.0]);
    let mut plan = ad::Plan::new();
    let (gy, _, ga, gx) = plan.vjp(
        &Scatter,
        (&mut y[..], &pat, &mut a[..], &mut x[..]),
        0,
        &[10.0, 100.0],
    );
    assert_eq!(gy.iter().map(|v| v.x).collect::<Vec<_>>(), [0.5, -1.0]);
    assert_eq!(gy.iter().map(|v| v.g).collect::<Vec<_>>(), [10.0, 100.0]);
    // ā_p = ȳ_ix · x_j; x̄_j = Σ ȳ_ix · a_p
    assert_eq!(
        ga.iter().map(|v| v.g).collect::<Vec<_>>(),
        [40.0, 400.0, 500.0]
    );
    assert_eq!(gx.iter().map(|v| v.g).collect::<Vec<_>>(), [210.0, 300.0]);
    // the same through the whole inverse
    let lift = |v: &[f64], g: &[f64]| -> Vec<GVar<f64>> {
        v.iter().zip(g).map(|(&x, &g)| GVar { x, g }).collect()
    };
    let mut gv = lift(&y, &[10.0, 100.0]);
    let (mut gav, mut gxv) = (lift(&a, &[0.0; 3]), lift(&x, &[0.0; 2]));
    Scatter.uncall((&mut gv[..], &pat, &mut gav[..], &mut gxv[..]));
    assert_eq!(
        gav.iter().map(|v| v.g).collect::<Vec<_>>(),
        [40.0, 400.0, 500.0]
    );
    assert_eq!(gxv.iter().map(|v| v.g).collect::<Vec<_>>(), [210.0, 300.0]);
    assert_eq!(
        gv.iter().map(|v| v.x).collect::<Vec<_>>(),
        [0.5 - 4.0, -1.0 - 8.0 - 15.0]
    );
    // the Jacobian's lanes: rows of ∂y/∂(a, x), y's values as given
    let st = plan_jacobian(&pat, &mut y, &mut a, &mut x);
    assert_eq!(st, ([0.5, -1.0], [4.0, 0.0], [0.0, 4.0]));
}

/// The Jacobian of `scatter` by the plan: `y`'s values after it, and the lanes of `ā_0`, `ā_1`.
fn plan_jacobian(
    pat: &nilang::stdlib::sparse::SparseView<'_>,
    y: &mut [f64],
    a: &mut [f64],
    x: &mut [f64],
) -> ([f64; 2], [f64; 2], [f64; 2]) {
    let mut plan = ad::Plan::new();
    let (gy, _, ga, _) = plan.jacobian::<_, _, 2>(&Scatter, (y, pat, a, x), 0);
    ([gy[0].x.0[0], gy[1].x.0[0]], ga[0].g.0, ga[1].g.0)
}
