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

fn check(name: &str, f: &dyn Fn(&[f64]) -> f64, grad: &[f64], x: &[f64]) {
    for k in 0..x.len() {
        let n = fd(f, x, k);
        let scale = n.abs().max(grad[k].abs()).max(1e-3);
        assert!(
            (grad[k] - n).abs() <= 1e-9 * scale.max(1.0) * 10.0,
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
