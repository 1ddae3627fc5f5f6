//! Gradients of ordinary programs against 5-point finite differences (rtol 1e-9).
use nilang::ad;

/// The 5-point central difference of `f` at `x` in coordinate `k`.
fn fd(f: &dyn Fn(&[f64]) -> f64, x: &[f64], k: usize) -> f64 {
    let h = 1e-3 * x[k].abs().max(1.0);
    let at = |d: f64| {
        let mut y = x.to_vec();
        y[k] += d;
        f(&y)
    };
    (-at(2.0 * h) + 8.0 * at(h) - 8.0 * at(-h) + at(-2.0 * h)) / (12.0 * h)
}

pub(crate) fn check(name: &str, f: &dyn Fn(&[f64]) -> f64, grad: &[f64], x: &[f64]) {
    for k in 0..x.len() {
        let n = fd(f, x, k);
        // rtol 1e-9 (atol 1e-9 below magnitude one)
        let scale = n.abs().max(grad[k].abs()).max(1.0);
        assert!(
            (grad[k] - n).abs() <= 1e-9 * scale,
            "{name}: d/dx{k} = {} by #[ad], {n} by finite differences",
            grad[k]
        );
    }
}

#[ad]
fn straight(x: &[f64]) -> f64 {
    let a = x[0] * x[1];
    let b = a.sin() + x[1].exp();
    let c = b / (x[0] * x[0] + 1.0);
    c.sqrt() * a.tanh() - x[1].ln_1p()
}

#[test]
fn straight_line() {
    let x = [0.7, 1.3];
    let (y, back) = straight_forward(&x);
    assert_eq!(y, straight(&x));
    let (g,) = back(1.0);
    check("straight", &|x| straight(x), &g, &x);
}

/// Check `f` (through its pullback `grad`) at `x`.
macro_rules! fd_case {
    ($test:ident, $f:ident, $fwd:ident, $x:expr) => {
        #[test]
        fn $test() {
            let x: Vec<f64> = $x;
            let (y, back) = $fwd(&x);
            assert_eq!(y, $f(&x), "the forward value is the function's");
            let (g,) = back(1.0);
            check(stringify!($f), &|x| $f(x), &g, &x);
        }
    };
}

#[ad]
fn product_loop(x: &[f64]) -> f64 {
    // overwrites a scalar accumulator that the adjoint reads
    let mut p = 1.0;
    for i in 0..x.len() {
        p = p * x[i].cos() + 0.1 * x[i];
    }
    p
}
fd_case!(
    loop_overwriting_accumulator,
    product_loop,
    product_loop_forward,
    vec![0.3, -0.8, 1.1, 0.45, 2.0]
);

#[ad]
fn sum_squares(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        s += x[i] * x[i];
    }
    s
}
fd_case!(
    read_only_loop,
    sum_squares,
    sum_squares_forward,
    vec![0.3, -0.8, 1.1]
);

#[ad]
fn branches(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        if x[i] > 0.5 {
            s += x[i].exp();
        } else if x[i] > -0.5 {
            s = s * x[i] + 1.0;
        } else {
            s -= x[i].powi(3);
        }
    }
    s
}
fd_case!(
    data_dependent_branches,
    branches,
    branches_forward,
    vec![0.9, 0.1, -1.2, 0.3, 2.0, -0.2]
);

#[ad]
fn early(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        s = s + x[i].sin() * s + x[i];
        if s > 2.0 {
            return s * s;
        }
    }
    s.exp()
}
fd_case!(
    early_return_in_loop,
    early,
    early_forward,
    vec![0.5, 0.6, 0.9, 0.3, 0.2]
);
fd_case!(
    early_return_not_taken,
    early,
    early_forward,
    vec![0.1, 0.2, 0.1]
);

#[ad]
fn guarded(x: &[f64]) -> f64 {
    if x[0] < 0.0 {
        return -x[0] * x[1];
    }
    let y = x[0].sqrt();
    y * x[1].atan()
}
fd_case!(early_return_top, guarded, guarded_forward, vec![-0.4, 1.5]);
fd_case!(
    early_return_skipped,
    guarded,
    guarded_forward,
    vec![0.4, 1.5]
);

#[ad]
fn newton_sqrt(x: &[f64]) -> f64 {
    // while with a data-dependent trip count, overwriting its iterate
    let a = x[0];
    let mut r = a;
    let mut k = 0;
    while k < 30 && (r * r - a).abs() > 1e-14 * a {
        r = 0.5 * (r + a / r);
        k += 1;
    }
    r * x[1]
}
fd_case!(while_loop, newton_sqrt, newton_sqrt_forward, vec![2.7, 1.3]);

#[ad]
fn inner(a: f64, b: f64) -> f64 {
    let mut t = a * b;
    t = t.sin() + a;
    t * t
}

#[ad]
fn outer(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 1..x.len() {
        s += inner(x[i - 1], x[i] * 2.0) * x[i];
    }
    s + inner(s, 0.5)
}
fd_case!(
    nested_calls,
    outer,
    outer_forward,
    vec![0.2, 0.7, -0.3, 0.5]
);

#[ad]
fn dot(x: &[f64], y: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        s += x[i] * y[i];
    }
    s
}

#[ad]
fn uses_arrays(x: &[f64]) -> f64 {
    let mut a = x.to_vec();
    for i in 1..a.len() {
        a[i] = a[i] * a[i - 1] + a[i].sin();
    }
    let mut b = [0.0; 3];
    b[0] = a[0];
    b[1] = a[1].exp();
    b[2] = b[1] * b[0];
    b[2] = b[2] * b[2];
    dot(&a, x) + b[2] + dot(&b, &b)
}
fd_case!(
    local_arrays_and_array_calls,
    uses_arrays,
    uses_arrays_forward,
    vec![0.3, 0.5, -0.4]
);

#[ad]
fn over_slice(x: &[f64]) -> f64 {
    let mut m: f64 = 0.0;
    for &v in x.iter() {
        m = m.max(v) + v * 0.1;
    }
    let mut s = 0.0;
    for v in x {
        s += (v - m).exp();
    }
    s.ln() + m
}
fd_case!(
    for_over_slices,
    over_slice,
    over_slice_forward,
    vec![0.3, 1.5, -0.4, 0.9]
);

#[ad]
fn many_methods(x: &[f64]) -> f64 {
    let a = x[0];
    let b = x[1];
    let t = a.sin() * b.cos() + a.tan() - b.atan() + a.sinh() * 0.5 + b.cosh() * 0.25;
    let u = a.tanh() + b.asinh() + a.exp_m1() + b.ln() + a.ln_1p() + a.asin() + b.recip();
    let v = (a * 0.5).acos() + a.abs() + b.powf(a) + a.powi(3) + b.min(a) - a.max(b * 0.1);
    t * u - v
}
fd_case!(
    methods_of_f64,
    many_methods,
    many_methods_forward,
    vec![0.4, 1.7]
);

#[ad]
fn scalars(a: f64, x: &[f64], n: usize) -> f64 {
    let mut s = a;
    for i in 0..n {
        s = s * a + x[i % x.len()];
    }
    s / (1.0 + a * a)
}

#[test]
fn scalar_and_integer_parameters() {
    let x = [0.3, -0.2];
    let (y, back) = scalars_forward(1.2, &x, 5);
    assert_eq!(y, scalars(1.2, &x, 5));
    let (ga, gx, ()) = back(1.0);
    let mut all = vec![1.2];
    all.extend_from_slice(&x);
    let mut grad = vec![ga];
    grad.extend(gx);
    check("scalars", &|v| scalars(v[0], &v[1..], 5), &grad, &all);
}

#[ad]
fn shadows(x: &[f64]) -> f64 {
    let y = x[0] * 2.0;
    let y = y.sin() * y;
    let mut acc = 0.0;
    for i in 0..3 {
        let t = y * (i as f64) + x[1];
        let t = t * t;
        acc += t.sqrt();
    }
    acc * y
}
fd_case!(redeclared_locals, shadows, shadows_forward, vec![0.6, 0.2]);

#[ad]
fn nested_loops(x: &[f64]) -> f64 {
    let n = 3;
    let mut s = 0.0;
    for i in 0..n {
        let mut row = 1.0;
        for j in 0..n {
            row = row * (x[i * n + j] + 1.5);
        }
        s = s + row.ln() * s + row;
    }
    s
}
fd_case!(
    nested_loops_2d,
    nested_loops,
    nested_loops_forward,
    (0..9).map(|k| 0.1 * k as f64 - 0.3).collect()
);

#[ad]
fn while_index(x: &[f64]) -> f64 {
    // an integer index that the adjoint reads, changed in a while loop
    let mut k = 0;
    let mut s = 1.0;
    while k < x.len() {
        s = s * x[k] + x[k];
        k += 2;
    }
    s
}
fd_case!(
    while_with_index,
    while_index,
    while_index_forward,
    vec![0.5, 0.7, 1.2, -0.3, 0.8]
);

#[ad]
fn compound(x: &[f64]) -> f64 {
    let mut s = x[0];
    s *= x[1];
    s /= x[2] + 2.0;
    s -= x[0].powi(2);
    s += -s * 0.5;
    s
}
fd_case!(
    compound_assignments,
    compound,
    compound_forward,
    vec![0.5, 0.7, 1.2]
);

#[ad]
fn piecewise(x: &[f64]) -> f64 {
    let t = x[0];
    let mut y = 0.0;
    if t < 0.0 {
        y = t * t;
    } else {
        if t < 1.0 {
            y = t.sin();
        }
        y += t;
    }
    y * x[1]
}
fd_case!(
    nested_branches_neg,
    piecewise,
    piecewise_forward,
    vec![-0.5, 1.5]
);
fd_case!(
    nested_branches_mid,
    piecewise,
    piecewise_forward,
    vec![0.5, 1.5]
);
fd_case!(
    nested_branches_high,
    piecewise,
    piecewise_forward,
    vec![1.5, 1.5]
);

#[ad]
fn recurse_calls(x: &[f64]) -> f64 {
    let a = outer(x);
    let b = inner(a, x[0]);
    b * dot(x, x)
}
fd_case!(
    calls_of_calls,
    recurse_calls,
    recurse_calls_forward,
    vec![0.2, 0.4, -0.1]
);

#[ad]
fn fixed_array(x: &[f64; 3]) -> f64 {
    x[0] * x[1] * x[2] + (x[0] - x[2]).powi(2)
}

#[test]
fn array_parameter() {
    let x = [0.3, 0.9, -0.5];
    let (_, back) = fixed_array_forward(&x);
    let (g,) = back(2.0);
    check(
        "fixed_array",
        &|v| 2.0 * fixed_array(&[v[0], v[1], v[2]]),
        &g,
        &x,
    );
}

/// `softplus` in ordinary functions (`nilang::Real`'s method: std has none).
mod softplus {
    use super::check;
    use nilang::ad;
    use nilang::Real;

    /// `softplus` (a row of the table that `f64` lacks as a method: `nilang::Real`'s) in an
    /// ordinary function: its derivative from the row (`1 / (exp(−x) + 1)`), also at a margin where
    /// `eˣ` overflows (`x₁ = 800`: the derivative 1, no `NaN`).
    #[ad]
    fn softplus_margin(x: &[f64]) -> f64 {
        let z = x[0] * x[1] - 0.5;
        z.softplus() + (x[1] * 800.0).softplus()
    }

    #[test]
    fn softplus_of_the_table() {
        let x = [0.7, 1.3];
        let (y, back) = softplus_margin_forward(&x);
        assert_eq!(y, softplus_margin(&x));
        let (g,) = back(1.0);
        check("softplus", &|x| softplus_margin(x), &g, &x);
        let (_, back) = softplus_margin_forward(&[0.7, 1.0]);
        let (g,) = back(1.0);
        let s = 1.0 / (1.0 + (0.5 - 0.7_f64).exp());
        assert!((g[1] - (0.7 * s + 800.0)).abs() < 1e-12, "{g:?}");
    }
}
