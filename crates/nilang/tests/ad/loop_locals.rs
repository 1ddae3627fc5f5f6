//! Places that a loop of instructions reads at a fixed position (`x[2 * j]` in a loop over
//! `p`) are kept in locals for the loop and written back after it: on gradient numbers they
//! accumulate adjoints. The gradients are those of the program as written, whether or not the
//! places could be kept (places that may be the same element at run time are not).
use nilang::ad;
use nilang::prelude::*;

/// `y += A x` for a dense complex `n × n` matrix on interleaved `(re, im)` pairs (row-major):
/// the inner loop reads `x[2j]` and `x[2j + 1]`, two fixed places of one slice.
#[i]
fn cmatvec<T: Scalar>(y: &mut [T], a: &mut [T], x: &mut [T], n: usize) {
    for j in 0..n {
        for i in 0..n {
            y[2 * i] += a[2 * (i * n + j)] * x[2 * j];
            y[2 * i] -= a[2 * (i * n + j) + 1] * x[2 * j + 1];
            y[2 * i + 1] += a[2 * (i * n + j)] * x[2 * j + 1];
            y[2 * i + 1] += a[2 * (i * n + j) + 1] * x[2 * j];
        }
    }
}

/// `y[c] += (x[i] + x[k]) · w[c]`: `x[i]` and `x[k]` are the same element when `i == k`.
#[i]
fn two_places<T: Scalar>(y: &mut [T], x: &mut [T], w: &mut [T], i: usize, k: usize) {
    for c in 0..y.len() {
        y[c] += x[i] * w[c];
        y[c] += x[k] * w[c];
    }
}

#[test]
fn complex_matvec_vjp_accumulates_the_vector_adjoint() {
    let n = 3;
    let z = |k: usize| (0.25 + 0.5 * k as f64, 1.0 - 0.125 * k as f64);
    let a: Vec<f64> = (0..n * n).flat_map(|k| [z(k).0, z(k).1]).collect();
    let x: Vec<f64> = (0..n).flat_map(|k| [z(k + 7).1, -z(k + 3).0]).collect();
    let ybar: Vec<f64> = (0..n)
        .flat_map(|k| [1.0 + k as f64, 0.5 - k as f64])
        .collect();
    let (mut y, mut av, mut xv) = (vec![0.0; 2 * n], a.clone(), x.clone());
    let mut plan = ad::Plan::new();
    let (_, ga, gx, _) = plan.vjp(
        &Cmatvec,
        (&mut y[..], &mut av[..], &mut xv[..], n),
        0,
        &ybar,
    );
    // x̄_j = Σ_i conj(a_ij) ȳ_i, ā_ij = ȳ_i conj(x_j) (∂/∂Re + i ∂/∂Im of a real loss)
    for j in 0..n {
        let (mut re, mut im) = (0.0, 0.0);
        for i in 0..n {
            let (ar, ai) = (a[2 * (i * n + j)], a[2 * (i * n + j) + 1]);
            let (yr, yi) = (ybar[2 * i], ybar[2 * i + 1]);
            re += ar * yr + ai * yi;
            im += ar * yi - ai * yr;
            let (xr, xi) = (x[2 * j], x[2 * j + 1]);
            let p = i * n + j;
            assert!((ga[2 * p].g - (yr * xr + yi * xi)).abs() < 1e-14);
            assert!((ga[2 * p + 1].g - (yi * xr - yr * xi)).abs() < 1e-14);
        }
        assert!((gx[2 * j].g - re).abs() < 1e-13, "{} {re}", gx[2 * j].g);
        assert!(
            (gx[2 * j + 1].g - im).abs() < 1e-13,
            "{} {im}",
            gx[2 * j + 1].g
        );
    }
    // the values are the inputs' (the backward pass starts from them)
    assert_eq!(ga.iter().map(|v| v.x).collect::<Vec<_>>(), a);
    assert_eq!(gx.iter().map(|v| v.x).collect::<Vec<_>>(), x);
}

#[test]
fn places_that_may_coincide_accumulate_into_one_element() {
    let w = [2.0, -3.0, 0.5];
    let ybar = [1.0, 10.0, 100.0];
    let dot: f64 = w.iter().zip(ybar).map(|(w, y)| w * y).sum();
    for (i, k) in [(0, 1), (1, 1), (2, 0)] {
        let (mut y, mut x, mut wv) = (vec![0.0; 3], vec![1.0, 2.0, 3.0], w.to_vec());
        let mut plan = ad::Plan::new();
        let args = (&mut y[..], &mut x[..], &mut wv[..], i, k);
        let (_, gx, gw, _, _) = plan.vjp(&TwoPlaces, args, 0, &ybar).clone();
        let mut want = [0.0; 3];
        want[i] += dot;
        want[k] += dot;
        assert_eq!(gx.iter().map(|v| v.g).collect::<Vec<_>>(), want, "{i} {k}");
        let s = x[i] + x[k];
        let gw: Vec<f64> = gw.iter().map(|v| v.g).collect();
        assert_eq!(gw, ybar.iter().map(|y| y * s).collect::<Vec<_>>());
        // the forward and the inverse on plain numbers
        two_places(&mut y, &mut x, &mut wv, i, k);
        assert_eq!(y, w.iter().map(|w| s * w).collect::<Vec<_>>());
        two_places_inv(&mut y, &mut x, &mut wv, i, k);
        assert_eq!(y, [0.0; 3]);
    }
}

/// A fixed place `x[i]` and a place `x[j]` that moves, over a body of ancillas and a routine:
/// for `j` from `i + 1` up they are kept apart (`x[i]` in a local), `e += Σ_j (x[i]·x[j])²`; for
/// `j` from `i` they are the same element once (read in place), `e += Σ_j (x[i] + x[j])·w[j]`.
#[i]
fn row_products<T: Scalar>(e: &mut T, x: &mut [T], w: &mut [T], i: usize, from_i: bool) {
    if (from_i, from_i) {
        for j in i..x.len() {
            e += x[i] * w[j];
            e += x[j] * w[j];
        }
    } else {
        for j in i + 1..x.len() {
            routine! {
                let (p, q) = (T::default(), T::default());
                p += x[i] * x[j];
                q += abs2(p);
            }
            e += q;
            unroutine!();
        }
    }
}

#[test]
fn a_fixed_place_and_places_kept_apart_by_the_range_get_the_gradient_as_written() {
    let (x0, w0) = ([0.5, -1.25, 2.0, 0.75], [3.0, -0.5, 0.25, 2.0]);
    for i in 0..4 {
        for from_i in [false, true] {
            let (mut e, mut x, mut w) = (0.0, x0.to_vec(), w0.to_vec());
            let mut plan = ad::Plan::new();
            let args = (&mut e, &mut x[..], &mut w[..], i, from_i);
            let (_, st) = plan.value_and_gradient(&RowProducts, args, 0);
            let gx = &st.1;
            let mut want = [0.0; 4];
            for j in (if from_i { i } else { i + 1 })..4 {
                if from_i {
                    want[i] += w0[j];
                    want[j] += w0[j];
                } else {
                    let p = x0[i] * x0[j];
                    want[i] += 2.0 * p * x0[j];
                    want[j] += 2.0 * p * x0[i];
                }
            }
            let got: Vec<f64> = gx.iter().map(|v| v.g).collect();
            for k in 0..4 {
                assert!(
                    (got[k] - want[k]).abs() < 1e-14,
                    "{i} {from_i}: {got:?} vs {want:?}"
                );
            }
            assert_eq!(gx.iter().map(|v| v.x).collect::<Vec<_>>(), x0);
        }
    }
}
