//! BA: residuals and the hand-written sparse Jacobian against ADBench's golden
//! values, the JAX oracle (full CSR for `test.txt`, summaries for `ba1`/`ba2`), and
//! finite differences.
use crate::assert_all_close;

use nilang_adbench::ba::{
    ba_jacobian, ba_jacobian_into, ba_objective, ba_reproj, ba_reproj_jacobian, BaInput,
};
use nilang_adbench::oracle::{
    adbench_close, check_ba_test, data_dir, load_ba_summaries, VecSummary,
};
use nilang_adbench::sparse::SparseJacobian;
use rand::{Rng, SeedableRng};

fn test_instance() -> BaInput {
    BaInput::from_file(data_dir().join("adbench/ba/test.txt")).unwrap()
}

#[test]
fn loader_replicates_as_adbench() {
    let b = test_instance();
    assert_eq!((b.n, b.m, b.p), (2, 10, 10));
    b.validate().unwrap();
    assert_eq!(b.cams.len(), 22);
    assert_eq!(&b.cams[..11], &b.cams[11..]);
    assert_eq!(b.cams[6], 211.628116);
    assert_eq!(b.x.len(), 30);
    assert_eq!(&b.x[27..], &[4.173048, 5.586898, 1.403869]);
    assert_eq!(b.w, vec![0.417022; 10]);
    assert_eq!(&b.feats[18..], &[-525.672849, 161.811929]);
    let expected_obs: Vec<(usize, usize)> = (0..10).map(|i| (i % 2, i % 10)).collect();
    assert_eq!(b.obs, expected_obs);
}

#[test]
fn test_instance_matches_adbench_golden_values_and_the_jax_oracle() {
    let b = test_instance();
    let (e, z) = ba_objective(&b);
    check_ba_test(&e, &z, &ba_jacobian(&b)).unwrap();
}

fn usize_summary(v: &[usize]) -> VecSummary {
    VecSummary::of(v.iter().map(|&e| e as f64))
}

#[test]
fn real_instances_match_oracle_summaries() {
    let summaries = load_ba_summaries().unwrap();
    assert!(summaries.contains_key("ba1_n49_m7776_p31843"));
    assert!(summaries.contains_key("ba2_n21_m11315_p36455"));
    for (stem, s) in &summaries {
        let b =
            BaInput::from_file(data_dir().join("adbench/ba").join(format!("{stem}.txt"))).unwrap();
        assert_eq!((b.n, b.m, b.p), (s.n, s.m, s.p), "{stem}");
        let (e, z) = ba_objective(&b);
        assert_all_close(stem, &e[..2], &s.reproj_err_first_pair);
        assert!(
            e.chunks(2).all(|pair| pair == &e[..2]),
            "{stem}: all pairs identical"
        );
        assert!(adbench_close(z[0], s.w_err_first));
        assert!(z.iter().all(|&v| v == z[0]));

        let j = ba_jacobian(&b);
        assert_eq!(
            (j.nrows, j.ncols, j.nnz()),
            (s.nrows, s.ncols, s.nnz),
            "{stem}"
        );
        assert_all_close(stem, &j.vals[..30], &s.first_block_2x15_row_major);
        assert!(adbench_close(j.vals[j.nnz() - 1], s.w_row_value));

        // Row pointers and columns are integers: their sums are exact.
        let rows = usize_summary(&j.rows);
        let cols = usize_summary(&j.cols);
        for (name, got, want) in [
            ("rows", &rows, &s.rows_summary),
            ("cols", &cols, &s.cols_summary),
        ] {
            assert_eq!(got.len, want.len, "{stem} {name}");
            assert_eq!(got.head, want.head, "{stem} {name}");
            assert_eq!(got.tail, want.tail, "{stem} {name}");
            assert_eq!(got.sum, want.sum, "{stem} {name}");
            assert_eq!(got.max_abs, want.max_abs, "{stem} {name}");
            assert!(adbench_close(got.l2, want.l2), "{stem} {name} l2");
        }
        let vals = VecSummary::of(j.vals.iter().copied());
        vals.compare(&s.vals_summary)
            .unwrap_or_else(|e| panic!("{stem} vals: {e}"));
    }
}

/// Central differences of `ba_reproj` with respect to all 15 inputs at random
/// points, including the `theta == 0` branch.
#[test]
fn jacobian_block_matches_central_differences() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(2024);
    for trial in 0..40 {
        let mut v = [0.0; 15];
        for (t, e) in v.iter_mut().enumerate() {
            *e = match t {
                0..=2 => rng.gen_range(-0.5..0.5),
                3..=5 => rng.gen_range(-1.0..1.0),
                6 => rng.gen_range(0.5..3.0),
                7 | 8 => rng.gen_range(-0.5..0.5),
                9 | 10 => rng.gen_range(-0.1..0.1),
                11 | 12 => rng.gen_range(-1.0..1.0),
                13 => rng.gen_range(6.0..10.0),
                _ => rng.gen_range(0.2..1.5),
            };
        }
        if trial % 5 == 0 {
            v[0] = 0.0;
            v[1] = 0.0;
            v[2] = 0.0;
        }
        let feat = [rng.gen_range(-1.0..1.0), rng.gen_range(-1.0..1.0)];
        let split = |v: &[f64; 15]| -> ([f64; 11], [f64; 3], f64) {
            (
                v[..11].try_into().unwrap(),
                v[11..14].try_into().unwrap(),
                v[14],
            )
        };
        let (cam, x, w) = split(&v);
        let (e, jac) = ba_reproj_jacobian(&cam, &x, w, &feat);
        assert_eq!(e, ba_reproj(&cam, &x, w, &feat));
        for col in 0..15 {
            let at_zero_rotation = trial % 5 == 0 && col < 3;
            // The theta == 0 branch is a first-order formula, so the derivative with
            // respect to r there is a one-sided limit; use a tiny forward step.
            let h = if at_zero_rotation { 1e-9 } else { 1e-6 };
            let eval = |delta: f64| {
                let mut u = v;
                u[col] += delta;
                let (c, x, w) = split(&u);
                ba_reproj(&c, &x, w, &feat)
            };
            let fd: Vec<f64> = if at_zero_rotation {
                let (ep, e0) = (eval(h), eval(0.0));
                (0..2).map(|r| (ep[r] - e0[r]) / h).collect()
            } else {
                let (ep, em) = (eval(h), eval(-h));
                (0..2).map(|r| (ep[r] - em[r]) / (2.0 * h)).collect()
            };
            for r in 0..2 {
                let tol = 1e-5 * (1.0 + fd[r].abs());
                assert!(
                    (jac[r][col] - fd[r]).abs() < tol,
                    "trial {trial} row {r} col {col}: analytic {} vs fd {}",
                    jac[r][col],
                    fd[r]
                );
            }
        }
    }
}

/// Builds a small instance with distinct cameras, points, weights and features and
/// checks the whole sparse Jacobian (including the weight rows) against finite
/// differences of `ba_objective` over all `11n + 3m + p` variables.
#[test]
#[allow(clippy::needless_range_loop)] // index loops mirror the matrix notation
fn sparse_jacobian_matches_finite_differences_on_a_random_instance() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(7);
    let mut b = BaInput::parse("3 4 7\n0 0 0 0 0 0 1 0 0 0 0\n0 0 5\n1\n0 0").unwrap();
    for c in 0..b.n {
        let cam = &mut b.cams[11 * c..11 * c + 11];
        for (t, e) in cam.iter_mut().enumerate() {
            *e = match t {
                6 => rng.gen_range(0.5..2.0),
                9 | 10 => rng.gen_range(-0.05..0.05),
                _ => rng.gen_range(-0.5..0.5),
            };
        }
    }
    for j in 0..b.m {
        b.x[3 * j] = rng.gen_range(-1.0..1.0);
        b.x[3 * j + 1] = rng.gen_range(-1.0..1.0);
        b.x[3 * j + 2] = rng.gen_range(4.0..6.0);
    }
    for i in 0..b.p {
        b.w[i] = rng.gen_range(0.2..1.2);
        b.feats[2 * i] = rng.gen_range(-0.5..0.5);
        b.feats[2 * i + 1] = rng.gen_range(-0.5..0.5);
    }
    b.validate().unwrap();
    let j = ba_jacobian(&b);
    let dense = j.to_dense();
    let nvars = 11 * b.n + 3 * b.m + b.p;
    assert_eq!(j.ncols, nvars);
    let residuals = |b: &BaInput| {
        let (mut e, z) = ba_objective(b);
        e.extend(z);
        e
    };
    for var in 0..nvars {
        let bump = |delta: f64| {
            let mut c = b.clone();
            let slot = if var < 11 * b.n {
                &mut c.cams[var]
            } else if var < 11 * b.n + 3 * b.m {
                &mut c.x[var - 11 * b.n]
            } else {
                &mut c.w[var - 11 * b.n - 3 * b.m]
            };
            *slot += delta;
            residuals(&c)
        };
        let h = 1e-6;
        let (rp, rm) = (bump(h), bump(-h));
        for row in 0..j.nrows {
            let fd = (rp[row] - rm[row]) / (2.0 * h);
            assert!(
                (dense[row][var] - fd).abs() < 1e-5 * (1.0 + fd.abs()),
                "J[{row}][{var}] = {} vs fd {fd}",
                dense[row][var]
            );
        }
    }
    assert_eq!(j.get(2 * b.p + 3, nvars - b.p + 3), -2.0 * b.w[3]);
}

#[test]
fn layout_is_reusable_without_reallocation() {
    let b = test_instance();
    let mut j = SparseJacobian::with_layout(&b);
    assert!(j.vals.iter().all(|&v| v == 0.0));
    let ptr = j.vals.as_ptr();
    ba_jacobian_into(&b, &mut j);
    assert_eq!(ptr, j.vals.as_ptr());
    assert_eq!(j, ba_jacobian(&b));
    assert_eq!(j.rows.len(), 31);
    assert_eq!(&j.rows[..3], &[0, 15, 30]);
    assert_eq!(
        &j.rows[20..],
        &[300, 301, 302, 303, 304, 305, 306, 307, 308, 309, 310]
    );
    // Observation 3 uses camera 1 and point 3.
    assert_eq!(
        &j.cols[90..105],
        &[11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 31, 32, 33, 55]
    );
}
