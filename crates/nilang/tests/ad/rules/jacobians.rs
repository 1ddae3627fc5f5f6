//! Jacobians: the dot-product test `<J u, w> = <u, Jᵀ w>`, with `J u` by forward mode (dual
//! numbers) and `Jᵀ w` from the reverse-mode Jacobians (one pass with lanes, and one pass per
//! output).
use super::{close, Num, Rng};
use nilang::ad;
use nilang::prelude::*;

#[i(rev = JRotChain)]
fn j_rot_chain<T: Num>(out: &mut [T; 3], x: &mut [T; 4]) {
    ROT(&mut x[0], &mut x[1], &mut x[3]);
    ROT(&mut x[1], &mut x[2], &mut x[0]);
    IROT(&mut x[2], &mut x[0], &mut cst!(T::lit(0.7)));
    HADAMARD(&mut x[0], &mut x[2]);
    out[0] += x[0] * x[1];
    out[1] += sin(x[2]);
    out[2] += x[3] / x[1];
    ROT(&mut out[0], &mut out[2], &mut x[3]);
    HADAMARD(&mut out[1], &mut out[2]);
}
#[i(rev = JInPlace)]
fn j_in_place<T: Num>(x: &mut [T; 4]) {
    for i in 0..3 {
        ROT(
            &mut x[i],
            &mut x[i + 1],
            &mut cst!(T::lit(0.3 * (i as f64) + 0.2)),
        );
        HADAMARD(&mut x[i], &mut x[i + 1]);
    }
    ROT(&mut x[0], &mut x[3], &mut x[1]);
    NEG(&mut x[2]);
}
#[i(rev = JElem)]
fn j_elem<T: Num>(out: &mut [T; 4], x: &mut [T; 4]) {
    for i in 0..4 {
        out[i] += exp(x[i]);
        out[i] += x[i] * x[(i + 1) % 4];
    }
    out[0] += atan2(x[1], x[2]);
    out[3] += hypot(x[0], x[3]);
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// `J u` by forward mode: `f` run on dual numbers.
fn jvp<F, const M: usize, const K: usize>(
    f: &F,
    out: [f64; M],
    x: [f64; K],
    u: [f64; K],
) -> Vec<f64>
where
    F: for<'b> Reversible<(&'b mut [Dual<f64>; M], &'b mut [Dual<f64>; K])>,
{
    let mut o = out.map(|v| Dual::new(v, 0.0));
    let mut xx: [Dual<f64>; K] = core::array::from_fn(|k| Dual::new(x[k], u[k]));
    f.call((&mut o, &mut xx));
    o.iter().map(|v| v.eps).collect()
}

fn transpose_apply(j: &[Vec<f64>], w: &[f64]) -> Vec<f64> {
    (0..j[0].len())
        .map(|i| j.iter().zip(w).map(|(row, wj)| row[i] * wj).sum())
        .collect()
}

fn dot_test<F, const M: usize, const K: usize>(name: &str, f: &F, seed: u64)
where
    F: for<'b> Reversible<(&'b mut [f64; M], &'b mut [f64; K])>
        + for<'b> Reversible<(&'b mut [GVar<f64>; M], &'b mut [GVar<f64>; K])>
        + for<'b> Reversible<(
            &'b mut [GVar<ad::Lanes<M>>; M],
            &'b mut [GVar<ad::Lanes<M>>; K],
        )> + for<'b> Reversible<(&'b mut [Dual<f64>; M], &'b mut [Dual<f64>; K])>,
{
    let mut rng = Rng(seed);
    for _ in 0..3 {
        let out: [f64; M] = core::array::from_fn(|_| rng.uniform(-1.0, 1.0));
        let x: [f64; K] = core::array::from_fn(|_| rng.uniform(-1.0, 1.0));
        let u: [f64; K] = core::array::from_fn(|_| rng.uniform(-1.0, 1.0));
        let w: [f64; M] = core::array::from_fn(|_| rng.uniform(-1.0, 1.0));
        let (mut o, mut xx) = (out, x);
        let j1 = ad::jacobian::<F, (&mut [f64; M], &mut [f64; K]), M>(f, (&mut o, &mut xx), 1, 0);
        let j2 = ad::jacobian_repeat::<F, (&mut [f64; M], &mut [f64; K]), f64>(
            f,
            (&mut o, &mut xx),
            1,
            0,
        );
        assert!(close(&o, &out) && close(&xx, &x));
        let ju = jvp(f, out, x, u);
        let lhs = dot(&ju, &w);
        for (which, j) in [("lanes", &j1), ("repeat", &j2)] {
            let rhs = dot(&u, &transpose_apply(j, &w));
            let rel = (lhs - rhs).abs() / lhs.abs().max(rhs.abs());
            assert!(
                rel <= 1e-12,
                "{name} ({which}): <J u, w> = {lhs} vs <u, J^T w> = {rhs} (relative {rel:e})"
            );
        }
    }
}

#[i(rev = JInPlaceWrap)]
fn j_in_place_wrap<T: Num>(out: &mut [T; 4], x: &mut [T; 4]) {
    j_in_place(x);
    for i in 0..4 {
        out[i] += x[i];
    }
}

#[test]
fn jacobian_dot_product_tests() {
    dot_test("ROT chain + HADAMARD", &JRotChain, 71);
    dot_test("elementwise", &JElem, 72);
    dot_test("in-place rotations", &JInPlaceWrap, 73);
}

#[test]
fn jacobian_of_in_place_program() {
    // the Jacobian of an in-place orthogonal transform is orthogonal (up to the angle input)
    let x0 = [0.3, -0.2, 0.9, 0.5];
    let mut x = x0;
    let j1 = ad::jacobian::<_, _, 4>(&JInPlace, (&mut x,), 0, 0);
    let j2 = ad::jacobian_repeat(&JInPlace, (&mut x,), 0, 0);
    assert!(close(&x, &x0));
    for r in 0..4 {
        for c in 0..4 {
            assert!((j1[r][c] - j2[r][c]).abs() < 1e-14);
        }
    }
}
