//! The gradient API on small programs: NiLang's AD cases 2, 28, 30, 36 and 37.
use nilang::ad::{self, Grad};
use nilang::prelude::*;

#[i]
fn norm<T: Scalar>(res: &mut T, y: &mut T, x: &mut [T]) {
    for i in 0..x.len() {
        y += x[i].powi(2);
    }
    res += y.sqrt();
}

#[test]
fn norm_gradient_case_2() {
    let (mut res, mut y, mut x) = (0.0, 0.0, vec![1.0, 2.0, 3.0]);
    let (gres, gy, gx) = nilang::gradient(&Norm, (&mut res, &mut y, &mut x[..]), 0);
    assert_eq!(gres.g, 1.0);
    assert!((gy.g - 0.1336306209562122).abs() < 1e-15);
    let expect = [0.2672612419124244, 0.5345224838248488, 0.8017837257372732];
    for (g, e) in gx.iter().zip(expect) {
        assert!((g.g - e).abs() < 1e-15, "{} vs {}", g.g, e);
    }
    // the inputs are restored
    assert_eq!((res, y, x), (0.0, 0.0, vec![1.0, 2.0, 3.0]));
}

#[i]
fn mul_acc<T: Scalar>(out: &mut T, a: &mut T, b: &mut T) {
    out += a * b;
}

#[test]
fn instruction_gradient_case_28() {
    let (mut o, mut a, mut b) = (0.0, 2.0, 3.0);
    let (go, ga, gb) = nilang::gradient(&MulAcc, (&mut o, &mut a, &mut b), 0);
    assert_eq!((go.g, ga.g, gb.g), (1.0, 3.0, 2.0));
    // MinusEq(*)(GVar(0.0, 1.0), GVar(0.4), GVar(0.6)) == (GVar(-0.24, 1.0), GVar(0.4, 0.6), GVar(0.6, 0.4))
    let (mut o, mut a, mut b) = (GVar::new(0.0, 1.0), GVar::from(0.4), GVar::from(0.6));
    mul_acc_inv(&mut o, &mut a, &mut b);
    assert!((o.x + 0.24).abs() < 1e-15 && o.g == 1.0);
    assert_eq!((a.g, b.g), (0.6, 0.4));
}

#[i]
fn test1<T: Scalar>(a: &mut T, b: &mut T, out: &mut T) {
    a += b;
    out += a * b;
}

#[test]
fn derived_gradient_case_30() {
    let (mut a, mut b, mut out) = (3.0, 4.0, 0.0);
    let (ga, gb, go) = nilang::gradient(&Test1, (&mut a, &mut b, &mut out), 2);
    assert_eq!((ga.g, gb.g, go.g), (4.0, 11.0, 1.0));
    nilang::ad::check_grad(&Test1, (&mut a, &mut b, &mut out), 2, 1, 1e-8, 1e-6).unwrap();
}

#[test]
fn grad_is_reversible_and_its_inverse_erases_gradients() {
    let (mut a, mut b, mut out) = (GVar::from(3.0), GVar::from(4.0), GVar::from(0.0));
    Grad::new(Test1, 2).call((&mut a, &mut b, &mut out));
    assert_eq!((a.x, b.x, out.x), (3.0, 4.0, 0.0));
    assert_eq!((a.g, b.g, out.g), (4.0, 11.0, 1.0));
    Grad::new(Test1, 2).uncall((&mut a, &mut b, &mut out));
    assert_eq!(
        (a, b, out),
        (GVar::from(3.0), GVar::from(4.0), GVar::from(0.0))
    );
}

#[i]
fn poly<T: Scalar>(y: &mut T, x: &mut [T; 3]) {
    // y = x0^2 x1 + sin(x2) x0 + x1^3
    let t = T::default();
    t += x[0].powi(2);
    y += t * x[1];
    t -= x[0].powi(2);
    dealloc!(t = T::default());
    let s = T::default();
    s += sin(x[2]);
    y += s * x[0];
    s -= sin(x[2]);
    dealloc!(s = T::default());
    y += x[1].powi(3);
}

fn poly_hessian(x: [f64; 3]) -> [[f64; 3]; 3] {
    let [a, b, c] = x;
    [
        [2.0 * b, 2.0 * a, c.cos()],
        [2.0 * a, 6.0 * b, 0.0],
        [c.cos(), 0.0, -a * c.sin()],
    ]
}

#[test]
fn hessians_forward_over_reverse_and_reverse_over_reverse() {
    let x = [0.7, -1.3, 0.4];
    let (mut y, mut xx) = (0.0, x);
    let hf = ad::hessian_fwd_rev(&Poly, (&mut y, &mut xx), 0, 1);
    let hr = ad::hessian_rev_rev(&Poly, (&mut y, &mut xx), 0, 1);
    let exact = poly_hessian(x);
    for i in 0..3 {
        for j in 0..3 {
            assert!(
                (hf[i][j] - exact[i][j]).abs() < 1e-12,
                "fwd-rev {i}{j}: {} vs {}",
                hf[i][j],
                exact[i][j]
            );
            assert!(
                (hr[i][j] - exact[i][j]).abs() < 1e-12,
                "rev-rev {i}{j}: {} vs {}",
                hr[i][j],
                exact[i][j]
            );
        }
    }
}

#[i]
fn two_out<T: Scalar>(out: &mut [T; 2], x: &mut [T; 3]) {
    out[0] += x[0] * x[1];
    out[1] += exp(x[2]);
    out[1] += x[0] / x[2];
}

#[test]
fn jacobian_one_pass_equals_repeat_and_passes_dot_product_test() {
    let (mut out, mut x) = ([0.0; 2], [0.5, -2.0, 1.5]);
    let j1 = ad::jacobian::<_, _, 2>(&TwoOut, (&mut out, &mut x), 1, 0);
    let j2 = ad::jacobian_repeat(&TwoOut, (&mut out, &mut x), 1, 0);
    assert_eq!(j1, j2);
    let exact = [
        [-2.0, 0.5, 0.0],
        [1.0 / 1.5, 0.0, 1.5_f64.exp() - 0.5 / 2.25],
    ];
    for r in 0..2 {
        for c in 0..3 {
            assert!((j1[r][c] - exact[r][c]).abs() < 1e-14);
        }
    }
    assert_eq!((out, x), ([0.0; 2], [0.5, -2.0, 1.5]));
}

#[i]
fn sqd<T: Scalar>(y: &mut T, a: &mut T, b: &mut T) {
    y += sqdiff(a, b);
}

#[test]
fn sqdiff_value_gradient_and_hessian() {
    let (mut y, mut a, mut b) = (0.0, 1.5, -0.5);
    sqd(&mut y, &mut a, &mut b);
    assert_eq!(y, 4.0);
    sqd_inv(&mut y, &mut a, &mut b);
    assert_eq!(y, 0.0);
    let (_, ga, gb) = nilang::gradient(&Sqd, (&mut y, &mut a, &mut b), 0);
    assert_eq!((ga.g, gb.g), (4.0, -4.0));
    let h = ad::hessian_rev_rev(&Sqd, (&mut y, &mut a, &mut b), 0, 1);
    assert_eq!(h, vec![vec![2.0]]);
}

#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Gauss<T> {
    mu: T,
    log_sigma: T,
}
nilang::grad_struct!(Gauss { mu, log_sigma });

/// Negative log-likelihood of `x` under N(mu, exp(log_sigma)²), up to a constant.
#[i]
fn gauss_nll<T: Scalar>(out: &mut T, p: &mut Gauss<T>, x: &T) {
    routine! {
        let z = T::default();
        z += x - p.mu;
        let s = T::default();
        s += exp(p.log_sigma);
        let r = T::default();
        r += z / s;
        let q = T::default();
        q += abs2(r);
    }
    out += q * 0.5;
    out += p.log_sigma;
    unroutine!();
}

#[test]
fn user_struct_gradient_and_hessian() {
    let (mut out, mut p, x) = (
        0.0,
        Gauss {
            mu: 0.3,
            log_sigma: -0.2,
        },
        1.1,
    );
    let (_, gp, _) = nilang::gradient(&GaussNll, (&mut out, &mut p, &x), 0);
    let s = (-0.2f64).exp();
    let z = 1.1 - 0.3;
    assert!((gp.mu.g - (-z / (s * s))).abs() < 1e-14);
    assert!((gp.log_sigma.g - (1.0 - z * z / (s * s))).abs() < 1e-14);
    assert_eq!(
        p,
        Gauss {
            mu: 0.3,
            log_sigma: -0.2
        }
    );
    let hf = ad::hessian_fwd_rev(&GaussNll, (&mut out, &mut p, &x), 0, 1);
    let hr = ad::hessian_rev_rev(&GaussNll, (&mut out, &mut p, &x), 0, 1);
    let hn = ad::hessian_numeric(&GaussNll, (&mut out, &mut p, &x), 0, 1, 1e-4);
    let exact = [
        [1.0 / (s * s), 2.0 * z / (s * s)],
        [2.0 * z / (s * s), 2.0 * z * z / (s * s)],
    ];
    for i in 0..2 {
        for j in 0..2 {
            assert!((hf[i][j] - exact[i][j]).abs() < 1e-12);
            assert!((hr[i][j] - exact[i][j]).abs() < 1e-12);
            assert!((hn[i][j] - exact[i][j]).abs() < 1e-6);
        }
    }
}
