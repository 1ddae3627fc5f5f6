//! One element read twice by one instruction: `lap += x[a] + x[b]` with `a == b` at run time
//! is a legal program (both places are read, none written), and its gradient must count both
//! reads, in every build (checked, default, `nocheck`), on `f64`, on nested gradient numbers
//! and on lanes. The copy-in/write-back of the shared root `x` once lost one of the two
//! adjoints with `nocheck`, and the checks rejected the program.
use nilang::check::catch;
use nilang::numbers::F64x4;
use nilang::prelude::*;

/// The same two programs in three builds: `+` (both derivatives 1) and `*` (`x[b]`, `x[a]`).
macro_rules! two_reads {
    ($sum:ident, $prod:ident, $($opt:tt)*) => {
        #[i($($opt)*)]
        fn $sum<T: Scalar>(lap: &mut T, x: &mut [T], a: usize, b: usize) {
            lap += x[a] + x[b];
        }
        #[i($($opt)*)]
        fn $prod<T: Scalar>(lap: &mut T, x: &mut [T], a: usize, b: usize) {
            lap += x[a] * x[b];
        }
    };
}
two_reads!(sum_default, prod_default,);
two_reads!(sum_nocheck, prod_nocheck, nocheck);
two_reads!(sum_check, prod_check, check);

/// Every build of both programs: the gradient of `lap` in `x`, at `a`, `b`.
fn gradients(x0: &[f64], a: usize, b: usize) -> Vec<(&'static str, Vec<f64>, Vec<f64>)> {
    macro_rules! grad {
        ($f:expr) => {{
            let (mut lap, mut x) = (0.0, x0.to_vec());
            let (_, gx, _, _) = nilang::gradient(&$f, (&mut lap, &mut x[..], a, b), 0);
            assert_eq!(x, x0, "the gradient leaves its arguments unchanged");
            gx.iter().map(|g| g.g).collect::<Vec<f64>>()
        }};
    }
    vec![
        ("default", grad!(SumDefault), grad!(ProdDefault)),
        ("nocheck", grad!(SumNocheck), grad!(ProdNocheck)),
        ("check", grad!(SumCheck), grad!(ProdCheck)),
    ]
}

#[test]
fn same_element_read_twice_gets_both_adjoints() {
    let x0 = [0.5, -1.25, 3.0];
    for (build, sum, prod) in gradients(&x0, 1, 1) {
        assert_eq!(sum, [0.0, 2.0, 0.0], "{build}: d(2 x1)/dx");
        assert_eq!(prod, [0.0, 2.0 * x0[1], 0.0], "{build}: d(x1^2)/dx");
    }
    // against central differences of the plain program
    let (mut lap, mut x) = (0.0, x0.to_vec());
    let num = nilang::ad::gradient_numeric(&ProdNocheck, &(&mut lap, &mut x[..], 1, 1), 0, 1, 1e-6);
    for (build, _, prod) in gradients(&x0, 1, 1) {
        for (g, n) in prod.iter().zip(&num) {
            assert!((g - n).abs() < 1e-8, "{build}: {prod:?} vs numeric {num:?}");
        }
    }
}

#[test]
fn distinct_elements_unchanged() {
    let x0 = [0.5, -1.25, 3.0];
    for (build, sum, prod) in gradients(&x0, 0, 2) {
        assert_eq!(sum, [1.0, 0.0, 1.0], "{build}");
        assert_eq!(prod, [x0[2], 0.0, x0[0]], "{build}");
    }
}

#[test]
fn plain_forward_and_uncall_with_equal_indices() {
    let x0 = vec![0.5, -1.25, 3.0];
    macro_rules! run {
        ($f:ident, $finv:ident, $want:expr) => {{
            let (mut lap, mut x) = (0.25, x0.clone());
            catch(|| $f(&mut lap, &mut x, 2, 2)).expect("reading one element twice is legal");
            assert_eq!((lap, &x), (0.25 + $want, &x0), stringify!($f));
            catch(|| $finv(&mut lap, &mut x, 2, 2)).expect("and so is its inverse");
            assert_eq!((lap, &x), (0.25, &x0), stringify!($finv));
        }};
    }
    run!(sum_default, sum_default_inv, 6.0);
    run!(sum_nocheck, sum_nocheck_inv, 6.0);
    run!(sum_check, sum_check_inv, 6.0);
    run!(prod_default, prod_default_inv, 9.0);
    run!(prod_nocheck, prod_nocheck_inv, 9.0);
    run!(prod_check, prod_check_inv, 9.0);
}

/// The adjoint program run by hand on four lanes and on second-order gradient numbers: the
/// element read twice collects both adjoints in every lane.
#[test]
fn lanes_and_nested_gradient_numbers() {
    let xs = [0.5, -1.25, 3.0, 2.0];
    let mut lap = GVar::new(F64x4::splat(0.0), F64x4::splat(1.0));
    let mut x = vec![GVar::from(F64x4::splat(7.0)), GVar::from(F64x4::new(xs))];
    lap.x = F64x4::new(xs) * F64x4::new(xs); // the forward's result, undone by the inverse
    prod_nocheck_inv(&mut lap, &mut x, 1, 1);
    let twice: Vec<f64> = xs.iter().map(|v| 2.0 * v).collect();
    assert_eq!(x[1].g.to_array().to_vec(), twice);
    assert_eq!((lap.x.to_array(), x[0].g.to_array()), ([0.0; 4], [0.0; 4]));
    let mut lap = GVar::new(F64x4::splat(0.0), F64x4::splat(1.0));
    let mut x = vec![GVar::from(F64x4::new(xs))];
    sum_check_inv(&mut lap, &mut x, 0, 0);
    assert_eq!(x[0].g.to_array(), [2.0; 4]);

    // second order: x1^2 differentiated twice by reverse over reverse is 2
    let (mut lap, mut x) = (0.0, [0.5, -1.25]);
    let h = nilang::ad::hessian_rev_rev(&ProdNocheck, (&mut lap, &mut x[..], 1, 1), 0, 1);
    assert_eq!(h[1][1], 2.0, "{h:?}");
    assert_eq!((h[0][0], h[0][1], h[1][0]), (0.0, 0.0, 0.0), "{h:?}");
}

#[i(nocheck)]
fn diff_nocheck<T: Scalar>(lap: &mut T, x: &mut [T], a: usize, b: usize) {
    lap += x[a] - x[b];
}
#[i(check, norev)]
fn scaled_into<T: Scalar>(x: &mut [T], c: usize, a: usize, b: usize) {
    x[c] += x[a] * x[b];
}

/// `x[a] - x[b]` at `a == b` is constant: the two adjoints (1 and -1) cancel. A target of the
/// same root still needs an element of its own (checked), while its two reads may meet.
#[test]
fn cancelling_reads_and_a_written_element() {
    let (mut lap, mut x) = (0.0, vec![1.0, 2.0]);
    let (_, gx, _, _) = nilang::gradient(&DiffNocheck, (&mut lap, &mut x[..], 1, 1), 0);
    assert_eq!((gx[0].g, gx[1].g), (0.0, 0.0));
    let mut x = vec![1.0, 2.0, 3.0];
    scaled_into(&mut x, 0, 2, 2);
    assert_eq!(x, [10.0, 2.0, 3.0]);
    scaled_into_inv(&mut x, 0, 2, 2);
    assert_eq!(x, [1.0, 2.0, 3.0]);
    let e = catch(|| scaled_into(&mut x, 2, 2, 1)).unwrap_err();
    assert_eq!(e.kind, nilang::check::ErrorKind::SharedElement);
    assert_eq!(x, [1.0, 2.0, 3.0]);
}
