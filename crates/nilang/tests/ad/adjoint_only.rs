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

mod dense_primitives {
    //! The library's dense primitives (`i_dense_data`, `i_dense`, `i_map`) in a routine on
    //! `zero(..)` workspaces: their adjoint-only variants skip the values of the
    //! uncomputation (the GEMM `Z -= X·W`, the map `h -= tanh(z)`), and the gradients are
    //! those of the full uncomputation, bit for bit.
    use nilang::ad;
    use nilang::instr::fns::{Mul, SqDiff, Tanh};
    use nilang::instr::PlusEq2;
    use nilang::prelude::*;
    use nilang::stdlib::elementwise::{i_map, i_map_inv};
    use nilang::stdlib::nnlib::{i_dense, i_dense_data, i_dense_data_inv, i_dense_inv};

    macro_rules! mlp {
        ($mode:ident; $name:ident, $Name:ident) => {
            /// `loss += Σ_b (tanh(x_b W₁ + b₁) W₂ + b₂ − t_b)²` (3 inputs, 4 hidden units).
            #[i($mode, zero(z1, h, z2))]
            #[allow(clippy::too_many_arguments)]
            fn $name<T: Scalar + PlusEq2<Mul, f64, T> + PlusEq2<SqDiff, T, f64>>(
                loss: &mut T,
                w1: &mut [T],
                b1: &mut [T],
                w2: &mut [T],
                b2: &mut [T],
                z1: &mut [T],
                h: &mut [T],
                z2: &mut [T],
                x: &[f64],
                t: &[f64],
            ) {
                routine! {
                    i_dense_data(z1, x, w1, b1, t.len(), 3, 4);
                    i_map(h, Tanh, z1);
                    i_dense(z2, h, w2, b2, t.len(), 4, 1);
                }
                for b in 0..t.len() {
                    loss += sqdiff(z2[b], t[b]);
                }
                unroutine!();
            }
        };
    }
    mlp!(nocheck; mlp_fast, MlpFast);
    mlp!(check; mlp_checked, MlpChecked);

    #[test]
    fn gradients_agree_bit_for_bit_and_workspaces_end_zero() {
        // 11 samples: the lanes' tail and the GEMM's edges
        let rows = 11;
        let x: Vec<f64> = (0..rows * 3).map(|i| (i as f64 * 0.71).sin()).collect();
        let t: Vec<f64> = (0..rows).map(|i| (i as f64 * 0.3).cos()).collect();
        let p: Vec<f64> = (0..21).map(|i| (i as f64 * 1.3).sin() * 0.8).collect();
        // the free gradient (which returns the workspaces zero) and a `Plan`'s (which leaves
        // their values: `plan_leaves_the_zero_workspaces_values_with_the_same_gradient_bits`)
        let run = |fast: bool, plan: bool| {
            let (mut w1, mut b1) = (p[..12].to_vec(), p[12..16].to_vec());
            let (mut w2, mut b2) = (p[16..20].to_vec(), p[20..].to_vec());
            let (mut z1, mut h, mut z2) =
                (vec![0.0; rows * 4], vec![0.0; rows * 4], vec![0.0; rows]);
            let args = (
                &mut 0.0,
                &mut w1[..],
                &mut b1[..],
                &mut w2[..],
                &mut b2[..],
                &mut z1[..],
                &mut h[..],
                &mut z2[..],
                &x[..],
                &t[..],
            );
            let gs = |s: &[GVar<f64>]| s.iter().map(|v| v.g.to_bits()).collect::<Vec<_>>();
            let xs = |s: &[GVar<f64>]| s.iter().map(|v| v.x).collect::<Vec<_>>();
            macro_rules! out {
                ($v:expr, $st:expr) => {{
                    let st = $st;
                    (
                        $v,
                        [gs(&st.1), gs(&st.2), gs(&st.3), gs(&st.4)],
                        [xs(&st.5), xs(&st.6), xs(&st.7)],
                    )
                }};
            }
            let mut plan_of = ad::Plan::new();
            match (fast, plan) {
                (true, false) => {
                    let (v, st) = ad::value_and_gradient(&MlpFast, args, 0);
                    out!(v, st)
                }
                (true, true) => {
                    let (v, st) = plan_of.value_and_gradient(&MlpFast, args, 0);
                    out!(v, st)
                }
                (false, _) => {
                    let (v, st) = plan_of.value_and_gradient(&MlpChecked, args, 0);
                    out!(v, st)
                }
            }
        };
        let (vf, gf, wsf) = run(true, false);
        let (vc, gc, wsc) = run(false, true);
        let (vp, gp, _) = run(true, true);
        assert_eq!(vf.to_bits(), vc.to_bits());
        assert_eq!(gf, gc);
        assert_eq!((vp.to_bits(), &gp), (vf.to_bits(), &gf));
        for (a, b) in wsf.iter().zip(&wsc) {
            assert!(a.iter().all(|v| *v == 0.0), "{a:?}");
            assert!(b.iter().all(|v| v.abs() < 1e-12), "{b:?}");
        }
        // the gradient of b₂ is Σ_b 2 (z2_b − t_b), by the plain forward
        let mut want = 0.0;
        for r in 0..rows {
            let mut z2 = p[20];
            for j in 0..4 {
                let mut z = p[12 + j];
                for l in 0..3 {
                    z += x[r * 3 + l] * p[l * 4 + j];
                }
                z2 += z.tanh() * p[16 + j];
            }
            want += 2.0 * (z2 - t[r]);
        }
        let got = f64::from_bits(gf[3][0]);
        assert!(
            (got - want).abs() < 1e-12 * (1.0 + want.abs()),
            "{got} vs {want}"
        );
    }

    /// The `zero(..)` workspaces of a function: the parameters a `Plan` leaves.
    #[test]
    fn workspaces_names_the_zero_parameters() {
        type Args<'a> = (
            &'a mut f64,
            &'a mut [f64],
            &'a mut [f64],
            &'a mut [f64],
            &'a mut [f64],
            &'a mut [f64],
            &'a mut [f64],
            &'a mut [f64],
            &'a [f64],
            &'a [f64],
        );
        assert_eq!(
            <MlpFast as Reversible<Args<'_>>>::workspaces(&MlpFast),
            0b1110_0000
        );
        assert_eq!(
            <MlpChecked as Reversible<Args<'_>>>::workspaces(&MlpChecked),
            0b1110_0000
        );
    }

    /// A `Plan` (which rewrites every argument at its next call) leaves the values of the
    /// `zero(..)` workspaces as the adjoint-only uncomputation leaves them, not set back to zero
    /// (one pass over them fewer); its gradients are the free gradient's bits, at the first call
    /// and at the next ones (from the values left), `value_and_gradient` and `gradient` alike.
    #[test]
    fn plan_leaves_the_zero_workspaces_values_with_the_same_gradient_bits() {
        let rows = 13;
        let x: Vec<f64> = (0..rows * 3).map(|i| (i as f64 * 0.53).cos()).collect();
        let t: Vec<f64> = (0..rows).map(|i| (i as f64 * 0.8).sin()).collect();
        let mut plan = ad::Plan::new();
        let mut plan_g = ad::Plan::new();
        for step in 0..3 {
            let p: Vec<f64> = (0..21)
                .map(|i| ((i + 7 * step) as f64 * 1.1).sin() * 0.7)
                .collect();
            let (mut w1, mut b1) = (p[..12].to_vec(), p[12..16].to_vec());
            let (mut w2, mut b2) = (p[16..20].to_vec(), p[20..].to_vec());
            let (mut z1, mut h, mut z2) =
                (vec![0.0; rows * 4], vec![0.0; rows * 4], vec![0.0; rows]);
            macro_rules! args {
                () => {
                    (
                        &mut 0.0,
                        &mut w1[..],
                        &mut b1[..],
                        &mut w2[..],
                        &mut b2[..],
                        &mut z1[..],
                        &mut h[..],
                        &mut z2[..],
                        &x[..],
                        &t[..],
                    )
                };
            }
            let bits = |s: &[GVar<f64>]| s.iter().map(|v| v.g.to_bits()).collect::<Vec<_>>();
            let (v0, st0) = ad::value_and_gradient(&MlpFast, args!(), 0);
            let want = [bits(&st0.1), bits(&st0.2), bits(&st0.3), bits(&st0.4)];
            // the free gradient sets the workspaces back to zero
            assert!(st0.6.iter().all(|v| v.x == 0.0));
            let (v, st) = plan.value_and_gradient(&MlpFast, args!(), 0);
            assert_eq!(v.to_bits(), v0.to_bits());
            assert_eq!([bits(&st.1), bits(&st.2), bits(&st.3), bits(&st.4)], want);
            // the plan left `h` holding tanh(z1) (the recomputed values)
            for (h, z) in st.6.iter().zip(&st.5) {
                let want = z.x.tanh();
                assert!(
                    (h.x - want).abs() <= 2.0 * f64::EPSILON * want.abs(),
                    "{step}"
                );
            }
            assert!(st.6.iter().any(|v| v.x != 0.0));
            let st = plan_g.gradient(&MlpFast, args!(), 0);
            assert_eq!([bits(&st.1), bits(&st.2), bits(&st.3), bits(&st.4)], want);
        }
    }

    /// The adjoints' bits of the parameters and the workspaces in an `mlp` gradient's storage.
    #[allow(clippy::type_complexity)]
    fn adjoint_bits<D, E>(
        st: &(
            GVar<f64>,
            Vec<GVar<f64>>,
            Vec<GVar<f64>>,
            Vec<GVar<f64>>,
            Vec<GVar<f64>>,
            Vec<GVar<f64>>,
            Vec<GVar<f64>>,
            Vec<GVar<f64>>,
            D,
            E,
        ),
    ) -> [Vec<u64>; 7] {
        [&st.1, &st.2, &st.3, &st.4, &st.5, &st.6, &st.7]
            .map(|s| s.iter().map(|v| v.g.to_bits()).collect())
    }

    /// A `Plan` refreshes the `zero(..)` workspaces with zeros (values and adjoints in one
    /// store stream, the caller's zeros not read) where the last call left their values dirty
    /// and their adjoints nonzero: three calls in a row of `value_and_gradient`, `gradient`
    /// and `vjp`, checked and unchecked, give the free gradient's bits, the workspaces'
    /// adjoints included (so none carried over from the call before).
    #[test]
    fn plan_refreshes_the_zero_workspaces_with_zeros_for_the_free_gradient_bits() {
        let rows = 10;
        let x: Vec<f64> = (0..rows * 3).map(|i| (i as f64 * 0.37).sin()).collect();
        let t: Vec<f64> = (0..rows).map(|i| (i as f64 * 0.9).cos()).collect();
        let (mut plan_v, mut plan_g, mut plan_j) =
            (ad::Plan::new(), ad::Plan::new(), ad::Plan::new());
        let mut plan_c = ad::Plan::new();
        for step in 0..3 {
            let p: Vec<f64> = (0..21)
                .map(|i| ((i + 5 * step) as f64 * 0.7).cos() * 0.9)
                .collect();
            let (mut w1, mut b1) = (p[..12].to_vec(), p[12..16].to_vec());
            let (mut w2, mut b2) = (p[16..20].to_vec(), p[20..].to_vec());
            let (mut z1, mut h, mut z2) =
                (vec![0.0; rows * 4], vec![0.0; rows * 4], vec![0.0; rows]);
            macro_rules! args {
                () => {
                    (
                        &mut 0.0,
                        &mut w1[..],
                        &mut b1[..],
                        &mut w2[..],
                        &mut b2[..],
                        &mut z1[..],
                        &mut h[..],
                        &mut z2[..],
                        &x[..],
                        &t[..],
                    )
                };
            }
            let (v0, st0) = ad::value_and_gradient(&MlpFast, args!(), 0);
            let want = adjoint_bits(&st0);
            assert!(st0.5.iter().any(|v| v.g != 0.0) && st0.6.iter().any(|v| v.g != 0.0));
            let (v, st) = plan_v.value_and_gradient(&MlpFast, args!(), 0);
            assert_eq!(v.to_bits(), v0.to_bits());
            assert_eq!(adjoint_bits(st), want, "{step}");
            let st = plan_g.gradient(&MlpFast, args!(), 0);
            assert_eq!(adjoint_bits(st), want, "{step}");
            let st = plan_j.vjp(&MlpFast, args!(), 0, &[1.0]);
            assert_eq!(adjoint_bits(st), want, "{step}");
            let (v, st) = plan_c.value_and_gradient(&MlpChecked, args!(), 0);
            assert_eq!(v.to_bits(), v0.to_bits());
            assert_eq!(adjoint_bits(st), want, "{step}");
        }
    }

    /// A release build's `Plan` never reads the caller's `zero(..)` workspaces (the caller
    /// passes them zero): given nonzero ones, at the first call and the next, its gradient is
    /// that of zero workspaces. A debug build reads them once and reports nonzero ones as the
    /// function's own entry check does (a typed `Argument` error); the plan stays usable.
    #[test]
    fn plan_takes_the_zero_workspaces_as_zero() {
        let rows = 6;
        let x: Vec<f64> = (0..rows * 3).map(|i| (i as f64 * 0.61).cos()).collect();
        let t: Vec<f64> = (0..rows).map(|i| (i as f64 * 0.4).sin()).collect();
        let p: Vec<f64> = (0..21).map(|i| (i as f64 * 1.7).sin() * 0.5).collect();
        let (mut w1, mut b1) = (p[..12].to_vec(), p[12..16].to_vec());
        let (mut w2, mut b2) = (p[16..20].to_vec(), p[20..].to_vec());
        let mut run = |fill: f64, plan: &mut ad::Plan<_>| {
            let (mut z1, mut h, mut z2) = (
                vec![fill; rows * 4],
                vec![-fill; rows * 4],
                vec![fill; rows],
            );
            let args = (
                &mut 0.0,
                &mut w1[..],
                &mut b1[..],
                &mut w2[..],
                &mut b2[..],
                &mut z1[..],
                &mut h[..],
                &mut z2[..],
                &x[..],
                &t[..],
            );
            let (v, st) = plan.value_and_gradient(&MlpFast, args, 0);
            (v.to_bits(), adjoint_bits(st))
        };
        let want = run(0.0, &mut ad::Plan::new());
        let mut plan = ad::Plan::new();
        for fill in [3.0, 0.0, -2.5] {
            if cfg!(debug_assertions) && fill != 0.0 {
                // debug builds read them once: a workspace passed nonzero is an error
                let e = nilang::check::catch(|| run(fill, &mut plan)).unwrap_err();
                assert_eq!(e.kind, nilang::check::ErrorKind::Argument, "{e}");
                assert!(e.to_string().contains("not zero on entry"), "{e}");
            } else {
                assert_eq!(run(fill, &mut plan), want, "{fill}");
            }
        }
    }

    /// Two batches through the network, each on its own `zero(..)` workspaces, inside a
    /// function whose own `zero(..)` they are: the outer adjoint-only variant tells each
    /// inner one that nothing reads its workspaces afterwards, so neither resets them; a
    /// `Plan`'s gradient is the free one's bit for bit (at the next call too, from the values
    /// left) and the sum of the two networks' gradients.
    #[i(nocheck, zero(z1, h, z2, y1, g, y2))]
    #[allow(clippy::too_many_arguments)]
    fn two_batches<T: Scalar + PlusEq2<Mul, f64, T> + PlusEq2<SqDiff, T, f64>>(
        loss: &mut T,
        w1: &mut [T],
        b1: &mut [T],
        w2: &mut [T],
        b2: &mut [T],
        z1: &mut [T],
        h: &mut [T],
        z2: &mut [T],
        y1: &mut [T],
        g: &mut [T],
        y2: &mut [T],
        x: &[f64],
        t: &[f64],
        x2: &[f64],
        t2: &[f64],
    ) {
        mlp_fast(loss, w1, b1, w2, b2, z1, h, z2, x, t);
        mlp_fast(loss, w1, b1, w2, b2, y1, g, y2, x2, t2);
    }

    #[test]
    fn nested_calls_leave_their_workspaces_with_the_same_bits_through_a_plan() {
        let rows = 9;
        let x: Vec<f64> = (0..rows * 3).map(|i| (i as f64 * 0.41).sin()).collect();
        let x2: Vec<f64> = (0..rows * 3).map(|i| (i as f64 * 0.29).cos()).collect();
        let t: Vec<f64> = (0..rows).map(|i| (i as f64 * 0.6).cos()).collect();
        let t2: Vec<f64> = (0..rows).map(|i| (i as f64 * 0.2).sin()).collect();
        let p: Vec<f64> = (0..21).map(|i| (i as f64 * 0.9).cos() * 0.6).collect();
        let (mut w1, mut b1) = (p[..12].to_vec(), p[12..16].to_vec());
        let (mut w2, mut b2) = (p[16..20].to_vec(), p[20..].to_vec());
        let mut ws: Vec<Vec<f64>> = [4, 4, 1, 4, 4, 1].map(|w| vec![0.0; rows * w]).to_vec();
        let [z1, h, z2, y1, g, y2] = &mut ws[..] else {
            unreachable!()
        };
        macro_rules! args {
            () => {
                (
                    &mut 0.0,
                    &mut w1[..],
                    &mut b1[..],
                    &mut w2[..],
                    &mut b2[..],
                    &mut z1[..],
                    &mut h[..],
                    &mut z2[..],
                    &mut y1[..],
                    &mut g[..],
                    &mut y2[..],
                    &x[..],
                    &t[..],
                    &x2[..],
                    &t2[..],
                )
            };
        }
        let bits = |s: &[GVar<f64>]| s.iter().map(|v| v.g.to_bits()).collect::<Vec<_>>();
        let (v0, st0) = ad::value_and_gradient(&TwoBatches, args!(), 0);
        let want = [bits(&st0.1), bits(&st0.2), bits(&st0.3), bits(&st0.4)];
        assert!(st0.6.iter().chain(st0.9.iter()).all(|v| v.x == 0.0));
        let mut plan = ad::Plan::new();
        for _ in 0..2 {
            let (v, st) = plan.value_and_gradient(&TwoBatches, args!(), 0);
            assert_eq!(v.to_bits(), v0.to_bits());
            assert_eq!([bits(&st.1), bits(&st.2), bits(&st.3), bits(&st.4)], want);
            // both hidden layers left holding their values
            assert!(st.6.iter().any(|v| v.x != 0.0) && st.9.iter().any(|v| v.x != 0.0));
        }
        // the sum of the two batches' gradients, each by the checked network alone
        let mut sum = [0.0; 4];
        for (xs, ts) in [(&x, &t), (&x2, &t2)] {
            let (mut u1, mut u, mut u2) =
                (vec![0.0; rows * 4], vec![0.0; rows * 4], vec![0.0; rows]);
            let (_, st) = ad::value_and_gradient(
                &MlpChecked,
                (
                    &mut 0.0,
                    &mut w1[..],
                    &mut b1[..],
                    &mut w2[..],
                    &mut b2[..],
                    &mut u1[..],
                    &mut u[..],
                    &mut u2[..],
                    &xs[..],
                    &ts[..],
                ),
                0,
            );
            for (s, v) in sum.iter_mut().zip(st.3.iter()) {
                *s += v.g;
            }
        }
        for (a, b) in sum.iter().zip(&st0.3) {
            assert!((a - b.g).abs() <= 1e-12 * (1.0 + a.abs()), "{a} vs {}", b.g);
        }
    }

    macro_rules! maps {
        ($mode:ident; $name:ident, $Name:ident) => {
            /// `loss += Σ (exp(z) + exp_m1(z)) · exp(exp_m1(z))`: `e`, `m` written once each
            /// from zero (their uncomputation reads `exp(z)`, `exp_m1(z)` from them), `q`
            /// too, from `m`.
            #[i($mode, zero(e, m, q))]
            fn $name<T: Scalar>(loss: &mut T, z: &mut [T], e: &mut [T], m: &mut [T], q: &mut [T]) {
                routine! {
                    i_map(e, nilang::instr::fns::Exp, z);
                    i_map(m, nilang::instr::fns::ExpM1, z);
                    i_map(q, nilang::instr::fns::Exp, m);
                }
                for i in 0..z.len() {
                    loss += e[i] * q[i];
                    loss += m[i] * q[i];
                }
                unroutine!();
            }
        };
    }
    maps!(nocheck; maps_fast, MapsFast);
    maps!(check; maps_checked, MapsChecked);

    #[test]
    fn maps_reading_their_results_from_fresh_targets_give_the_recomputed_bits() {
        // 21 elements: two chunks of eight and a tail; zeros, a large and a tiny input
        let mut z: Vec<f64> = (0..18).map(|i| (i as f64 * 0.9).sin() * 3.0).collect();
        z.extend([0.0, -0.0, 1e-300]);
        let run = |fast: bool| {
            let n = z.len();
            let (mut z, mut e, mut m, mut q) =
                (z.clone(), vec![0.0; n], vec![0.0; n], vec![0.0; n]);
            let args = (&mut 0.0, &mut z[..], &mut e[..], &mut m[..], &mut q[..]);
            let mut plan = ad::Plan::new();
            let (v, st) = if fast {
                plan.value_and_gradient(&MapsFast, args, 0)
            } else {
                plan.value_and_gradient(&MapsChecked, args, 0)
            };
            let g: Vec<u64> = st.1.iter().map(|v| v.g.to_bits()).collect();
            (v.to_bits(), g)
        };
        let (fast, checked) = (run(true), run(false));
        assert_eq!(fast, checked);
        // d/dz [(e^z + e^z − 1) e^(e^z − 1)] = (2e^z + (2e^z − 1) e^z) e^(e^z − 1)
        for (k, &zk) in z.iter().enumerate() {
            let (ez, q) = (zk.exp(), zk.exp_m1().exp());
            let want = (2.0 * ez + (2.0 * ez - 1.0) * ez) * q;
            let got = f64::from_bits(fast.1[k]);
            assert!(
                (got - want).abs() < 1e-12 * want.abs(),
                "{k}: {got} vs {want}"
            );
        }
    }

    #[test]
    fn adjoint_only_variants_leave_a_dead_target_and_move_the_same_adjoints() {
        let (rows, n_in, n_out) = (5, 3, 2);
        let x: Vec<f64> = (0..rows * n_in).map(|i| i as f64 * 0.25 - 1.0).collect();
        let gv = |n: usize, s: f64| -> Vec<GVar<f64>> {
            (0..n)
                .map(|i| GVar::new((i as f64 * s).sin(), (i as f64 * s).cos()))
                .collect()
        };
        let (y0, w0, b0) = (gv(rows * n_out, 0.7), gv(n_in * n_out, 1.1), gv(n_out, 0.4));
        let (mut y, mut w, mut b) = (y0.clone(), w0.clone(), b0.clone());
        i_dense_data_inv::__adj(
            i_dense_data_inv,
            1,
            (
                &mut y[..],
                &x[..],
                &mut w[..],
                &mut b[..],
                rows,
                n_in,
                n_out,
            ),
        );
        let (mut yf, mut wf, mut bf) = (y0.clone(), w0.clone(), b0.clone());
        i_dense_data_inv(&mut yf, &x, &mut wf, &mut bf, rows, n_in, n_out);
        // `y` dead: its values as given; the adjoints as the full inverse moves them
        assert_eq!(y, y0);
        assert_ne!(yf, y0);
        assert_eq!((w.clone(), b.clone()), (wf.clone(), bf.clone()));
        assert_ne!(w, w0);
        // bit 0 clear: the full inverse
        let (mut y2, mut w2, mut b2) = (y0.clone(), w0.clone(), b0.clone());
        i_dense_data_inv::__adj(
            i_dense_data_inv,
            0,
            (
                &mut y2[..],
                &x[..],
                &mut w2[..],
                &mut b2[..],
                rows,
                n_in,
                n_out,
            ),
        );
        assert_eq!((y2, w2, b2), (yf, wf, bf));

        // `i_dense` (`X` with adjoints too) and `i_map`
        let (xv0, wv0) = (gv(rows * n_in, 0.3), gv(n_in * n_out, 0.9));
        let (mut y, mut xv, mut w, mut b) = (y0.clone(), xv0.clone(), wv0.clone(), b0.clone());
        i_dense_inv::__adj(
            i_dense_inv,
            1,
            (
                &mut y[..],
                &mut xv[..],
                &mut w[..],
                &mut b[..],
                rows,
                n_in,
                n_out,
            ),
        );
        let (mut yf, mut xf, mut wf, mut bf) = (y0.clone(), xv0.clone(), wv0.clone(), b0.clone());
        i_dense_inv(&mut yf, &mut xf, &mut wf, &mut bf, rows, n_in, n_out);
        assert_eq!(y, y0);
        assert_eq!((xv, w, b), (xf, wf, bf));
        let z0 = gv(13, 0.5);
        let (mut h, mut z) = (
            y0.iter().chain(&y0[..3]).copied().collect::<Vec<_>>(),
            z0.clone(),
        );
        let h0 = h.clone();
        i_map_inv::__adj(i_map_inv, 1, (&mut h[..], Tanh, &mut z[..]));
        let (mut hf, mut zf) = (h0.clone(), z0.clone());
        i_map_inv(&mut hf, Tanh, &mut zf);
        assert_eq!(h, h0);
        assert_eq!(z, zf);
        assert_ne!(z, z0);

        // plain numbers: the instruction itself
        let mut yp: Vec<f64> = y0.iter().map(|v| v.x).collect();
        let (mut wp, mut bp): (Vec<f64>, Vec<f64>) = (
            w0.iter().map(|v| v.x).collect(),
            b0.iter().map(|v| v.x).collect(),
        );
        let yp0 = yp.clone();
        i_dense_data_inv::__adj(
            i_dense_data_inv,
            1,
            (
                &mut yp[..],
                &x[..],
                &mut wp[..],
                &mut bp[..],
                rows,
                n_in,
                n_out,
            ),
        );
        i_dense_data(&mut yp, &x, &mut wp, &mut bp, rows, n_in, n_out);
        assert!(yp.iter().zip(&yp0).all(|(a, b)| (a - b).abs() < 1e-12));
    }
}

/// Value-dead recomputation: in a gradient that does not return the loss's value
/// (`Plan::gradient`), a recomputed call whose results flow only into the loss (`s =
/// softplus(z)`, read by `loss += s[i]`; `e = exp(z)`, whose uncomputation must then compute
/// `exp(z)` itself, not read it from `e`) is skipped; one whose results are read otherwise
/// (`t = tanh(z)`, read by the product `loss += t[i] · z[i]`) runs. The gradients are the bits
/// of `value_and_gradient` (which reads the loss, so skips nothing) and of the checked program
/// (where nothing is skipped), and the workspaces come back zero.
mod value_dead {
    use nilang::ad;
    use nilang::instr::fns::{Exp, Softplus, Tanh};
    use nilang::prelude::*;
    use nilang::stdlib::elementwise::{i_map, i_map_inv};

    macro_rules! soft {
        ($attr:ident; $name:ident, $Name:ident) => {
            #[i($attr, zero(s, t, e))]
            #[allow(clippy::too_many_arguments)]
            fn $name<T: Scalar>(loss: &mut T, z: &mut [T], s: &mut [T], t: &mut [T], e: &mut [T]) {
                routine! {
                    i_map(s, Softplus, z);
                    i_map(t, Tanh, z);
                    i_map(e, Exp, z);
                }
                for i in 0..z.len() {
                    loss += s[i];
                    loss += e[i];
                    loss -= 0.5 * t[i];
                    loss += t[i] * z[i];
                }
                unroutine!();
            }
        };
    }
    soft!(nocheck; soft_fast, SoftFast);
    soft!(check; soft_checked, SoftChecked);

    #[test]
    fn a_call_read_only_by_the_dead_loss_is_skipped_with_the_same_gradient_bits() {
        // 19 elements: two chunks of eight and a tail; zeros, large margins (the checked
        // program's zero workspaces must come back zero: no infinities)
        let mut z: Vec<f64> = (0..15).map(|i| (i as f64 * 0.7).sin() * 4.0).collect();
        z.extend([0.0, -0.0, 40.0, -800.0]);
        let n = z.len();
        let bits = |v: &[GVar<f64>]| v.iter().map(|v| v.g.to_bits()).collect::<Vec<_>>();
        {
            let mut runs = vec![];
            for way in 0..3 {
                let (mut zc, mut s, mut t, mut e) =
                    (z.clone(), vec![0.0; n], vec![0.0; n], vec![0.0; n]);
                let args = (&mut 0.0, &mut zc[..], &mut s[..], &mut t[..], &mut e[..]);
                let mut plan = ad::Plan::new();
                let st = match way {
                    0 => plan.gradient(&SoftFast, args, 0),
                    1 => plan.value_and_gradient(&SoftFast, args, 0).1,
                    _ => plan.gradient(&SoftChecked, args, 0),
                };
                let ws = st.2.iter().chain(st.3.iter()).chain(st.4.iter());
                if way == 2 {
                    assert!(ws.clone().all(|v| v.x == 0.0), "{way}");
                } else {
                    // unchecked, a `Plan` leaves its `zero(..)` workspaces' values (the next
                    // call rewrites them): the recomputed ones, and zero where the call was
                    // skipped (the gradient alone computes neither `softplus` nor `exp`, read
                    // only into the dead loss)
                    let near = |a: f64, b: f64| (a - b).abs() <= 4.0 * f64::EPSILON * b.abs();
                    for (k, &zk) in z.iter().enumerate() {
                        let soft = zk.max(0.0) + (-zk.abs()).exp().ln_1p();
                        let (s, t, e) = (st.2[k].x, st.3[k].x, st.4[k].x);
                        if way == 0 {
                            assert!(s == 0.0 && e == 0.0, "{k}: {s} {e}");
                        } else {
                            assert!(near(s, soft) && near(e, zk.exp()), "{k}: {s} {e}");
                        }
                        assert!(near(t, zk.tanh()), "{way} {k}: {t}");
                    }
                }
                runs.push(bits(&st.1));
            }
            assert_eq!(runs[0], runs[1], "gradient vs value_and_gradient");
            assert_eq!(runs[0], runs[2], "unchecked vs checked");
            for (k, &zk) in z.iter().enumerate() {
                let (sig, th) = (1.0 / ((-zk).exp() + 1.0), zk.tanh());
                let want = sig + zk.exp() - 0.5 * (1.0 - th * th) + (1.0 - th * th) * zk + th;
                let got = f64::from_bits(runs[0][k]);
                assert!(
                    (got - want).abs() <= 1e-14 * (1.0 + want.abs()),
                    "{k}: {got} vs {want}"
                );
            }
        }
    }
}
