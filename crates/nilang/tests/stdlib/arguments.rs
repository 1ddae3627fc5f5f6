//! Standard-library preconditions: the generated inverses validate their arguments first, like
//! the forwards (nothing is modified before the error), and the mean of an empty slice is a
//! typed error, not NaN.
use nilang::check::{catch, ErrorKind};
use nilang::stdlib::base::i_sqdistance_inv;
use nilang::stdlib::blas::{i_axpy_inv, i_dot_inv, i_gemm_inv, i_gemv_inv, i_umm_inv};
use nilang::stdlib::linalg::i_affine_inv;
use nilang::stdlib::statistics::{
    i_cor_cov, i_cor_cov_inv, i_mean_sum, i_mean_sum_inv, i_var_mean_sum, i_var_mean_sum_inv,
};

/// Runs `f`, which must raise a typed [`ErrorKind::Length`] error whose message contains `msg`.
fn panics_with(msg: &str, f: impl FnOnce()) {
    let e = catch(f).expect_err("must raise a length error");
    assert_eq!(e.kind, ErrorKind::Length, "{e}");
    let text = e.to_string();
    assert!(text.contains(msg), "error `{text}` lacks `{msg}`");
}

#[test]
fn inverses_check_lengths_before_modifying_anything() {
    // y is longer than x: the inverse loop alone would run without an index error
    let (mut out, mut x, mut y) = (5.0, vec![1.0, 2.0], vec![3.0, 4.0, 5.0]);
    panics_with(
        "`i_dot(out, x, y)`: lengths differ: x.len() = 2, y.len() = 3",
        || {
            i_dot_inv(&mut out, &mut x, &mut y);
        },
    );
    assert_eq!(out, 5.0);

    let (mut a, mut x, mut y) = (2.0, vec![1.0, 2.0], vec![3.0, 4.0, 5.0]);
    panics_with(
        "`i_axpy(a, x, y)`: lengths differ: x.len() = 2, y.len() = 3",
        || {
            i_axpy_inv(&mut a, &mut x, &mut y);
        },
    );
    assert_eq!(y, [3.0, 4.0, 5.0]);

    let (mut d, mut x1, mut x2) = (1.0, vec![1.0, 2.0], vec![3.0, 4.0, 5.0]);
    panics_with("lengths differ: x1.len() = 2, x2.len() = 3", || {
        i_sqdistance_inv(&mut d, &mut x1, &mut x2);
    });
    assert_eq!(d, 1.0);

    // y has 2 entries, A is 2x2, x has 3: wrong
    let (mut y, mut a, mut x) = (vec![1.0, 1.0], vec![1.0; 4], vec![1.0; 3]);
    panics_with(
        "i_gemv: dimension mismatch: y has 2, A has 4, x has 3 elements for m=2, n=2",
        || i_gemv_inv(&mut y, &mut a, &mut x, 2, 2),
    );
    assert_eq!(y, [1.0, 1.0]);

    let (mut c, mut a, mut b) = (vec![1.0; 4], vec![1.0; 4], vec![1.0; 5]);
    panics_with("B has 5 elements for m=2, k=2, n=2", || {
        i_gemm_inv(&mut c, &mut a, &mut b, 2, 2, 2)
    });
    assert_eq!(c, [1.0; 4]);

    let (mut x, mut theta) = (vec![1.0, 0.0, 0.0], vec![0.1; 2]);
    panics_with("theta has 2 (expected m(m-1)/2 = 3)", || {
        i_umm_inv(&mut x, &mut theta, 3, 1)
    });
    assert_eq!(x, [1.0, 0.0, 0.0]);

    let (mut y, mut w, mut b, mut x) = (vec![1.0; 2], vec![1.0; 3], vec![0.0; 2], vec![1.0; 2]);
    panics_with("i_affine: dimension mismatch", || {
        i_affine_inv(&mut y, &mut w, &mut b, &mut x)
    });
    assert_eq!(y, [1.0, 1.0]);

    let (mut rho, mut cov, mut a, mut b) = (0.0, 0.0, vec![1.0, 2.0], vec![1.0, 2.0, 3.0]);
    panics_with(
        "`i_cor_cov(rho, cov, a, b)`: lengths differ: a.len() = 2, b.len() = 3",
        || i_cor_cov_inv(&mut rho, &mut cov, &mut a, &mut b),
    );
    assert_eq!((rho, cov), (0.0, 0.0));
}

#[test]
fn mean_of_an_empty_slice_is_a_typed_error_in_both_directions() {
    let (mut mean, mut sum) = (0.0_f64, 0.0_f64);
    let mut empty: Vec<f64> = vec![];
    let e = catch(|| i_mean_sum(&mut mean, &mut sum, &mut empty)).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Argument);
    assert_eq!(e.location, "nilang::stdlib::statistics::i_mean_sum");
    assert!(e.detail.contains("x is empty"), "{}", e.detail);
    assert!(e.to_string().contains("i_mean_sum(mean, sum, x)"), "{e}");
    assert_eq!((mean, sum), (0.0, 0.0));
    let e = catch(|| i_mean_sum_inv(&mut mean, &mut sum, &mut empty)).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Argument);
    assert!(!mean.is_nan() && !sum.is_nan());
    // one value is fine
    i_mean_sum(&mut mean, &mut sum, &mut [4.0]);
    assert_eq!((mean, sum), (4.0, 4.0));
}

#[test]
fn sample_statistics_need_two_values() {
    let (mut var, mut vs, mut mean, mut sum) = (0.0_f64, 0.0, 0.0, 0.0);
    let e =
        catch(|| i_var_mean_sum(&mut var, &mut vs, &mut mean, &mut sum, &mut [1.0])).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Argument);
    assert!(e.detail.contains("1 value(s)"), "{}", e.detail);
    assert_eq!((var, vs, mean, sum), (0.0, 0.0, 0.0, 0.0));
    let e = catch(|| i_var_mean_sum_inv(&mut var, &mut vs, &mut mean, &mut sum, &mut [1.0]))
        .unwrap_err();
    assert_eq!(e.kind, ErrorKind::Argument);
    let (mut rho, mut cov) = (0.0_f64, 0.0_f64);
    let e = catch(|| i_cor_cov(&mut rho, &mut cov, &mut [1.0], &mut [2.0])).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Argument);
    assert_eq!((rho, cov), (0.0, 0.0));
}
