//! Random straight-line programs: a program is a list of instructions `r[d] = op(r[a],
//! r[b])` on registers, run by an `#[ad]` interpreter (a data-dependent branch per
//! instruction, registers overwritten); its gradient must match the derivative computed by
//! forward-mode dual numbers of the same program.
use nilang::prelude::*;
use proptest::prelude::*;

#[ad]
fn interpret(x: &[f64], code: &[usize]) -> f64 {
    let mut r = x.to_vec();
    let n = r.len();
    let mut k = 0;
    while k + 3 < code.len() {
        let op = code[k] % 6;
        let a = code[k + 1] % n;
        let b = code[k + 2] % n;
        let d = code[k + 3] % n;
        if op == 0 {
            r[d] = r[a] + r[b];
        } else if op == 1 {
            r[d] = r[a] * r[b];
        } else if op == 2 {
            r[d] = r[a].sin() - r[b];
        } else if op == 3 {
            r[d] = r[a] / (1.0 + r[b] * r[b]);
        } else if op == 4 {
            r[d] = (r[a] * 0.5).tanh() * r[b].exp();
        } else {
            r[d] = (1.0 + r[a] * r[a]).sqrt() + r[b].cos();
        }
        k += 4;
    }
    let mut s = 0.0;
    for i in 0..n {
        s += r[i];
    }
    s
}

/// The same program on dual numbers: the derivative in direction `dir`, and the sum of the
/// magnitudes of the terms that make it up (the scale its rounding errors are relative to: where
/// large terms cancel, the derivative is small but its error is not), infinite where an
/// intermediate value is.
fn directional(x: &[f64], dir: &[f64], code: &[usize]) -> (f64, f64) {
    let mut r: Vec<(f64, f64, f64)> = x.iter().zip(dir).map(|(&v, &d)| (v, d, d.abs())).collect();
    let n = r.len();
    let mut finite = true;
    for c in code.chunks_exact(4) {
        let (a, b) = (r[c[1] % n], r[c[2] % n]);
        r[c[3] % n] = match c[0] % 6 {
            0 => (a.0 + b.0, a.1 + b.1, a.2 + b.2),
            1 => (
                a.0 * b.0,
                a.1 * b.0 + a.0 * b.1,
                (a.2 * b.0).abs() + (a.0 * b.2).abs(),
            ),
            2 => (
                a.0.sin() - b.0,
                a.0.cos() * a.1 - b.1,
                (a.0.cos() * a.2).abs() + b.2,
            ),
            3 => {
                let q = 1.0 + b.0 * b.0;
                (
                    a.0 / q,
                    a.1 / q - a.0 * 2.0 * b.0 * b.1 / (q * q),
                    a.2 / q + (a.0 * 2.0 * b.0 * b.2 / (q * q)).abs(),
                )
            }
            4 => {
                let t = (a.0 * 0.5).tanh();
                let e = b.0.exp();
                (
                    t * e,
                    0.5 * (1.0 - t * t) * a.1 * e + t * e * b.1,
                    (0.5 * (1.0 - t * t) * a.2 * e).abs() + (t * e * b.2).abs(),
                )
            }
            _ => {
                let s = (1.0 + a.0 * a.0).sqrt();
                (
                    s + b.0.cos(),
                    a.0 * a.1 / s - b.0.sin() * b.1,
                    (a.0 * a.2 / s).abs() + (b.0.sin() * b.2).abs(),
                )
            }
        };
        finite &= r[c[3] % n].0.is_finite();
    }
    // An infinite intermediate (an overflowing `exp`, later overwritten) makes `0 · ∞` in
    // either mode: no scale, the case is not a test of the rules.
    let scale = if finite {
        r.iter().map(|v| v.2).sum()
    } else {
        f64::INFINITY
    };
    (r.iter().map(|v| v.1).sum(), scale)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]
    #[test]
    fn random_straight_line_programs(
        x in proptest::collection::vec(-1.0f64..1.0, 1..6),
        code in proptest::collection::vec(0usize..1000, 0..48),
    ) {
        let (y, back) = interpret_forward(&x, &code);
        prop_assume!(y.is_finite());
        prop_assert_eq!(y, interpret(&x, &code));
        let (g, ()) = back(1.0);
        for k in 0..x.len() {
            let mut dir = vec![0.0; x.len()];
            dir[k] = 1.0;
            let (want, scale) = directional(&x, &dir, &code);
            prop_assume!(want.is_finite() && scale < 1e12);
            // Both sides round each term once per operation: their difference is a few ulp of
            // the terms' magnitudes (a wrong rule is off by a term, far above this bound).
            prop_assert!(
                (g[k] - want).abs() <= 1e-12 * scale.max(1.0),
                "d/dx{} = {} vs {} (terms' magnitude {})", k, g[k], want, scale
            );
        }
    }
}
