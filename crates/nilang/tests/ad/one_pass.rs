//! One-pass gradients (the compiler's compute–copy–uncompute analysis), the plan, `fresh!`
//! workspaces, argument validation, and zero allocation per plan call (the binary's counting
//! allocator).
use nilang::ad::{self, Plan};
use nilang::prelude::*;
// allocations are counted per thread (the binary's counting allocator): the tests run in
// parallel
use nilang_testkit::alloc::allocs;

/// Model parameters: scalars, an array and a `Vec`.
#[derive(Clone, Debug, Default)]
struct Model<T> {
    a: T,
    b: T,
    w: [T; 2],
    v: Vec<T>,
}
nilang::grad_struct!(Model { a, b, w, v });

/// A workspace of ancillas, zero between uses.
#[derive(Clone, Debug, Default)]
struct Work<T> {
    t: Vec<T>,
    s: T,
    n: usize,
}
nilang::grad_struct!(Work { t, s } copy { n });

/// The per-point routine: `t[i] = a·x_i + v[i] + w0`, `s = Σ t²`.
#[i]
fn fit_routine<T: Scalar>(ws: &mut Work<T>, m: &mut Model<T>, x: &[f64], c0: &mut T, c1: &mut T) {
    for i in 0..x.len() {
        ws.t[i] += m.a * cst!(T::lit(x[i]));
        ws.t[i] += m.v[i];
        ws.t[i] += m.w[0];
        ws.t[i] += c0 * c1;
        ws.s += abs2(ws.t[i]);
    }
}

/// A compute–copy–uncompute loss with 12 parameters (a struct with a `Vec` field, a data
/// slice, sizes, a workspace): `out += 0.5·s·b + w1·s + Σ sin(e_k)`, repeated over `reps`
/// passes, each ending with its workspace fresh.
#[i]
#[allow(clippy::too_many_arguments)]
fn fit_loss<T: Scalar>(
    out: &mut T,
    m: &mut Model<T>,
    x: &[f64],
    reps: usize,
    scale: f64,
    e: &mut [T],
    c0: &mut T,
    c1: &mut T,
    ws: &mut Work<T>,
    k: i64,
    flag: bool,
    aux: &mut T,
) {
    for r in 0..reps {
        routine! {
            fit_routine(ws, m, &x, c0, c1);
        }
        out += ws.s * m.b;
        out += ws.s * m.w[1];
        if (flag, _) {
            out += aux * cst!(T::lit(scale + k as f64 + r as f64));
        }
        unroutine!();
        fresh!(ws);
    }
    for j in 0..e.len() {
        out += sin(e[j]);
    }
}

/// Not compute–copy–uncompute: `y` is changed and read.
#[i]
fn norm<T: Scalar>(res: &mut T, y: &mut T, x: &mut [T]) {
    for i in 0..x.len() {
        y += x[i].powi(2);
    }
    res += y.sqrt();
}

/// The data points of the fit.
const X: [f64; 3] = [0.5, -1.5, 2.0];

/// The arguments of `fit_loss` that are not data or sizes, owned: the fixture of the tests.
struct Fit<T> {
    out: T,
    m: Model<T>,
    e: Vec<T>,
    c0: T,
    c1: T,
    ws: Work<T>,
    aux: T,
}

/// `fit_loss`'s argument tuple.
type FitArgs<'a, T> = (
    &'a mut T,
    &'a mut Model<T>,
    &'static [f64],
    usize,
    f64,
    &'a mut [T],
    &'a mut T,
    &'a mut T,
    &'a mut Work<T>,
    i64,
    bool,
    &'a mut T,
);

impl<T: From<f64> + Default + Clone> Fit<T> {
    /// The starting point: `a = 0.7`, `b = -0.4`, `w = [0.3, 1.1]`, `v = [0.2, -0.5, 0.9]`,
    /// `e = [0.1, 0.4]`, `c0 = 0.6`, `c1 = -0.8`, `aux = 1.3`, a zero workspace of 3.
    fn new() -> Self {
        let l = T::from;
        Fit {
            out: T::default(),
            m: Model {
                a: l(0.7),
                b: l(-0.4),
                w: [l(0.3), l(1.1)],
                v: vec![l(0.2), l(-0.5), l(0.9)],
            },
            e: vec![l(0.1), l(0.4)],
            c0: l(0.6),
            c1: l(-0.8),
            ws: Work {
                t: vec![T::default(); 3],
                s: T::default(),
                n: 3,
            },
            aux: l(1.3),
        }
    }

    /// `fit_loss`'s arguments for `reps` passes over [`X`] (scale 0.25, `k = 3`, the flag set).
    fn args(&mut self, reps: usize) -> FitArgs<'_, T> {
        (
            &mut self.out,
            &mut self.m,
            &X[..],
            reps,
            0.25,
            &mut self.e[..],
            &mut self.c0,
            &mut self.c1,
            &mut self.ws,
            3,
            true,
            &mut self.aux,
        )
    }
}

#[test]
fn the_compiler_marks_compute_copy_uncompute_parameters() {
    assert_eq!(fit_loss::ADDITIVE, 0b1, "additive in `out` only");
    assert_eq!(fit_routine::ADDITIVE, 0);
    assert_eq!(norm::ADDITIVE, 0);
    assert_eq!(fit_loss_inv::ADDITIVE, fit_loss::ADDITIVE);
}

#[test]
fn one_pass_equals_forward_then_backward() {
    let mut p = Fit::<f64>::new();
    let (v, st) = ad::value_and_gradient(&FitLoss, p.args(2), 0);
    // forward, then backward, by hand on gradient numbers
    let mut g = Fit::<GVar<f64>>::new();
    FitLoss.call(g.args(2));
    let v2 = g.out.x;
    g.out.g = 1.0;
    FitLoss.uncall(g.args(2));
    let close = |a: f64, b: f64| (a - b).abs() <= 1e-14 * a.abs().max(b.abs()).max(1e-300);
    assert!(close(v, v2), "{v} vs {v2}");
    let one: Vec<f64> = [st.1.a.g, st.1.b.g, st.1.w[0].g, st.1.w[1].g]
        .into_iter()
        .chain(st.1.v.iter().map(|g| g.g))
        .chain(st.5.iter().map(|g| g.g))
        .chain([st.6.g, st.7.g, st.11.g])
        .collect();
    let two: Vec<f64> = [g.m.a.g, g.m.b.g, g.m.w[0].g, g.m.w[1].g]
        .into_iter()
        .chain(g.m.v.iter().map(|d| d.g))
        .chain(g.e.iter().map(|d| d.g))
        .chain([g.c0.g, g.c1.g, g.aux.g])
        .collect();
    for (a, b) in one.iter().zip(&two) {
        assert!(close(*a, *b), "{one:?}\n{two:?}");
    }
    assert!(
        one.iter().all(|g| *g != 0.0),
        "every parameter matters: {one:?}"
    );
    // and a central difference on `b`
    let f = |b: f64| {
        let mut q = Fit::<f64>::new();
        q.m.b = b;
        FitLoss.call(q.args(2));
        q.out
    };
    let fd = (f(-0.4 + 1e-6) - f(-0.4 - 1e-6)) / 2e-6;
    assert!((fd - st.1.b.g).abs() < 1e-6 * fd.abs().max(1.0));
    // the caller's arguments are untouched
    assert_eq!(
        (p.out, p.m.a, p.m.v[2], p.e[1], p.ws.s, p.ws.t[0]),
        (0.0, 0.7, 0.9, 0.4, 0.0, 0.0)
    );
}

#[test]
fn a_function_that_is_not_compute_copy_uncompute_still_gets_its_gradient() {
    let (mut res, mut y, mut x) = (0.0, 0.5, vec![1.0, 2.0, 3.0]);
    let (v, (_, gy, gx)) = ad::value_and_gradient(&Norm, (&mut res, &mut y, &mut x[..]), 0);
    let r = 14.5_f64.sqrt();
    assert!((v - r).abs() < 1e-15);
    assert!((gy.g - 0.5 / r).abs() < 1e-15);
    for (g, xi) in gx.iter().zip([1.0, 2.0, 3.0]) {
        assert!((g.g - xi / r).abs() < 1e-15);
    }
    assert_eq!((res, y), (0.0, 0.5));
    ad::check_grad(&Norm, (&mut res, &mut y, &mut x[..]), 0, 2, 1e-8, 1e-6).unwrap();
}

#[test]
fn hessians_and_jacobians_take_the_one_pass_path_too() {
    let mut p = Fit::<f64>::new();
    let hf = ad::hessian_fwd_rev(&FitLoss, p.args(1), 0, 1);
    let hr = ad::hessian_rev_rev(&FitLoss, p.args(1), 0, 1);
    let hn = ad::hessian_numeric(&FitLoss, p.args(1), 0, 1, 1e-5);
    for i in 0..hf.len() {
        for j in 0..hf.len() {
            assert!(
                (hf[i][j] - hr[i][j]).abs() < 1e-10,
                "{i}{j}: {} vs {}",
                hf[i][j],
                hr[i][j]
            );
            assert!((hf[i][j] - hn[i][j]).abs() < 1e-5 * hf[i][j].abs().max(1.0));
        }
    }
}

#[test]
fn a_plan_reuses_its_storage_and_allocates_nothing_per_call() {
    let mut p = Fit::<f64>::new();
    let mut plan = Plan::new();
    let mut first = 0.0;
    let mut mark = allocs();
    for call in 0..3 {
        if call == 1 {
            assert!(
                allocs() > mark,
                "the first call makes the storage (the counter counts)"
            );
            mark = allocs();
        }
        p.m.a = 0.7 + call as f64;
        let (v, st) = plan.value_and_gradient(&FitLoss, p.args(2), 0);
        if call == 0 {
            first = st.1.a.g;
        } else {
            assert!(v.is_finite() && st.1.a.g != first);
        }
    }
    assert_eq!(
        allocs() - mark,
        0,
        "plan calls after the first allocate nothing"
    );
    // the plan's result equals the one-off API's
    let (_, st) = ad::value_and_gradient(&FitLoss, p.args(2), 0);
    let (_, sp) = plan.value_and_gradient(&FitLoss, p.args(2), 0);
    assert_eq!(
        st.1.v.iter().map(|g| g.g).collect::<Vec<_>>(),
        sp.1.v.iter().map(|g| g.g).collect::<Vec<_>>()
    );
}

#[i]
fn polar<T: Scalar>(xy: &mut [T; 2], rt: &mut [T; 2]) {
    routine! {
        let (c, s) = (T::default(), T::default());
        c += cos(rt[1]);
        s += sin(rt[1]);
    }
    xy[0] += rt[0] * c;
    xy[1] += rt[0] * s;
    unroutine!();
}

#[test]
fn a_plan_jacobian_allocates_nothing_per_call() {
    let mut plan = Plan::new();
    let (mut xy, mut rt) = ([0.0; 2], [2.0, 0.3]);
    plan.jacobian::<_, _, 2>(&Polar, (&mut xy, &mut rt), 0);
    let mark = allocs();
    for t in [0.1, 0.2, 0.3] {
        rt[1] = t;
        let (_, grt) = plan.jacobian::<_, _, 2>(&Polar, (&mut xy, &mut rt), 0);
        assert!(
            (grt[0].g.0[0] - t.cos()).abs() < 1e-15
                && (grt[1].g.0[1] - 2.0 * t.cos()).abs() < 1e-15
        );
    }
    assert_eq!(allocs() - mark, 0);
}

#[test]
fn a_bad_loss_index_is_reported_before_anything_runs() {
    let (mut res, mut y, mut x) = (0.0, 0.5, vec![1.0, 2.0]);
    let err = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        nilang::gradient(&Norm, (&mut res, &mut y, &mut x[..]), 5)
    }))
    .unwrap_err();
    let msg = err.downcast_ref::<String>().unwrap();
    assert!(
        msg.contains("argument 5") && msg.contains("3 arguments"),
        "{msg}"
    );
    let err = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        nilang::gradient(&Norm, (&mut res, &mut y, &mut x[..]), 2)
    }))
    .unwrap_err();
    assert!(err
        .downcast_ref::<String>()
        .unwrap()
        .contains("scalar `&mut`"));
    assert_eq!((res, y, x), (0.0, 0.5, vec![1.0, 2.0]));
}

#[i]
fn leaves_work_dirty<T: Scalar>(out: &mut T, a: &mut T, ws: &mut Work<T>) {
    ws.s += a;
    out += ws.s;
    fresh!(ws);
}

#[test]
#[cfg_attr(
    not(any(debug_assertions, feature = "release-checks")),
    ignore = "tests a run-time check that release builds leave out (`nilang::check`)"
)]
fn fresh_rejects_a_workspace_that_is_not_zero() {
    let mut ws = Work {
        t: vec![0.0; 2],
        s: 0.0,
        n: 2,
    };
    let r = nilang::check::catch(|| leaves_work_dirty(&mut 0.0, &mut 2.0, &mut ws));
    let e = r.unwrap_err();
    assert!(e.detail.contains("workspace is not zero"), "{}", e.detail);
    assert_eq!(
        leaves_work_dirty::ADDITIVE,
        0,
        "writes `ws` outside a routine"
    );
}
