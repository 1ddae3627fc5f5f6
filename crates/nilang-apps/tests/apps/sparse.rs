use nilang::GVar;
use nilang_apps::sparse::*;
use num_complex::{Complex, Complex64};
use rand::{Rng, SeedableRng};

fn random(m: usize, n: usize, density: f64, rng: &mut impl Rng) -> sprs::CsMat<f64> {
    let mut tri = sprs::TriMat::new((m, n));
    for j in 0..n {
        for i in 0..m {
            if rng.gen::<f64>() < density {
                tri.add_triplet(i, j, rng.gen_range(-1.0..1.0));
            }
        }
    }
    tri.to_csc()
}

#[test]
fn sparse_dot_agrees_with_sprs_and_its_gradient_is_the_other_matrix() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(7);
    let (a, b) = (random(60, 50, 0.1, &mut rng), random(60, 50, 0.1, &mut rng));
    let (pa, pb) = (SparseView::of(&a), SparseView::of(&b));
    let (mut av, mut bv) = (a.data().to_vec(), b.data().to_vec());
    let (mut r, mut w) = (0.0, vec![0.0; 60]);
    i_sparse_dot(&mut r, &pa, &mut av, &pb, &mut bv, &mut w);
    let expect: f64 = (&a * &b.transpose_view())
        .diag()
        .iter()
        .map(|(_, v)| *v)
        .sum();
    assert!((r - expect).abs() < 1e-12);
    assert!(w.iter().all(|&v| v == 0.0));
    // gradient: dA = B on the common pattern
    let mut s = SparseDotScratch::new(60);
    let (av0, bv0) = (av.clone(), bv.clone());
    let r2 = sparse_dot_gradient(&pa, &mut av, &pb, &mut bv, &mut s);
    assert_eq!(
        (&av, &bv),
        (&av0, &bv0),
        "the values are read, never changed"
    );
    assert!((r2 - r).abs() < 1e-12);
    let bd = b.to_dense();
    let ga: Vec<f64> = s.grad_a().collect();
    for j in 0..50 {
        for p in pa.indptr[j]..pa.indptr[j + 1] {
            assert_eq!(ga[p], bd[[pa.indices[p], j]]);
        }
    }
    i_sparse_dot_inv(&mut r, &pa, &mut av, &pb, &mut bv, &mut w);
    assert!(r.abs() < 1e-12);
}

fn random_c(n: usize, rng: &mut impl Rng) -> Vec<Complex64> {
    (0..n)
        .map(|_| Complex64::new(rng.gen_range(-1.0..1.0), rng.gen_range(-1.0..1.0)))
        .collect()
}

#[test]
fn complex_matvec_agrees_with_sprs_and_passes_the_gradient_check() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(9);
    let a = random(30, 20, 0.2, &mut rng);
    let p = SparseView::of(&a);
    let mut av = random_c(p.nnz(), &mut rng);
    let mut x = random_c(20, &mut rng);
    let mut y = vec![Complex64::new(0.0, 0.0); 30];
    i_sparse_matvec(&mut y, &p, &mut av, &mut x);
    let ca = sprs::CsMat::new_csc((30, 20), p.indptr.to_vec(), p.indices.to_vec(), av.clone());
    let cy = &ca * &sprs::CsVec::new(20, (0..20).collect(), x.clone()).to_dense();
    for i in 0..30 {
        assert!((cy[i] - y[i]).norm() < 1e-12);
    }
    // backward with ȳ = e_2 (the real part of y[2]), against central differences
    let lift = |z: &Complex64| Complex::new(GVar::from(z.re), GVar::from(z.im));
    let mut gy: Vec<Complex<GVar<f64>>> = y.iter().map(lift).collect();
    gy[2].re.g = 1.0;
    let mut gav: Vec<_> = av.iter().map(lift).collect();
    let mut gx: Vec<_> = x.iter().map(lift).collect();
    i_sparse_matvec_inv(&mut gy, &p, &mut gav, &mut gx);
    let h = 1e-6;
    let re_y2 = |x: &[Complex64]| {
        let mut y = vec![Complex64::new(0.0, 0.0); 30];
        i_sparse_matvec(&mut y, &p, &mut av.clone(), &mut x.to_vec());
        y[2].re
    };
    for k in 0..20 {
        for (part, d) in [(0, Complex64::new(h, 0.0)), (1, Complex64::new(0.0, h))] {
            let (mut xp, mut xm) = (x.clone(), x.clone());
            xp[k] += d;
            xm[k] -= d;
            let fd = (re_y2(&xp) - re_y2(&xm)) / (2.0 * h);
            let ad = [gx[k].re.g, gx[k].im.g][part];
            assert!((ad - fd).abs() < 1e-8, "x[{k}] part {part}: {ad} vs {fd}");
        }
    }
    assert!(gy
        .iter()
        .all(|v| v.re.x.abs() < 1e-12 && v.im.x.abs() < 1e-12));
}

/// `y += A x` written on the real and imaginary parts of interleaved `(re, im)` arrays: the
/// program the library had before its complex instruction, the reference of the gradients.
#[nilang::i(nocheck)]
fn matvec_parts<T: nilang::Scalar>(y: &mut [T], a: &SparseView<'_>, av: &mut [T], x: &mut [T]) {
    for j in 0..a.ncols {
        for p in a.indptr[j]..a.indptr[j + 1] {
            y[2 * a.indices[p]] += av[2 * p] * x[2 * j];
            y[2 * a.indices[p]] -= av[2 * p + 1] * x[2 * j + 1];
            y[2 * a.indices[p] + 1] += av[2 * p] * x[2 * j + 1];
            y[2 * a.indices[p] + 1] += av[2 * p + 1] * x[2 * j];
        }
    }
}

#[test]
fn complex_matvec_vjp_equals_the_program_on_real_parts() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(11);
    let a = random(40, 30, 0.15, &mut rng);
    let p = SparseView::of(&a);
    let (mut av, mut x) = (random_c(p.nnz(), &mut rng), random_c(30, &mut rng));
    let ybar: Vec<f64> = (0..80).map(|_| rng.gen_range(-1.0..1.0)).collect();
    let mut s = SparseMatvecScratch::new(40);
    let (av0, x0) = (av.clone(), x.clone());
    for _ in 0..2 {
        // twice: the plan's second call reuses (and refreshes) its storage
        sparse_matvec_vjp(&ybar, &p, &mut av, &mut x, &mut s);
    }
    assert_eq!((&av, &x), (&av0, &x0), "the inputs are read, never changed");
    let parts = |z: &[Complex64]| -> Vec<f64> { z.iter().flat_map(|c| [c.re, c.im]).collect() };
    let (mut pav, mut px, mut py) = (parts(&av), parts(&x), vec![0.0; 80]);
    let st = nilang::ad::Plan::new()
        .vjp(
            &MatvecParts,
            (&mut py[..], &p, &mut pav[..], &mut px[..]),
            0,
            &ybar,
        )
        .clone();
    let close = |got: Vec<f64>, want: Vec<f64>| {
        assert_eq!(got.len(), want.len());
        for (k, (g, w)) in got.iter().zip(&want).enumerate() {
            assert!((g - w).abs() <= 1e-14 * (1.0 + w.abs()), "{k}: {g} vs {w}");
        }
    };
    close(s.grad_x().collect(), st.3.iter().map(|v| v.g).collect());
    close(
        s.grad_values().collect(),
        st.2.iter().map(|v| v.g).collect(),
    );
    // and the hand-written adjoint x̄ = Aᴴ ȳ, ā = ȳ conj(x)
    let yb: Vec<Complex64> = (0..40)
        .map(|i| Complex64::new(ybar[2 * i], ybar[2 * i + 1]))
        .collect();
    let mut xbar = vec![Complex64::new(0.0, 0.0); 30];
    let mut abar = vec![Complex64::new(0.0, 0.0); p.nnz()];
    for j in 0..30 {
        for q in p.indptr[j]..p.indptr[j + 1] {
            xbar[j] += av[q].conj() * yb[p.indices[q]];
            abar[q] = yb[p.indices[q]] * x[j].conj();
        }
    }
    close(s.grad_x().collect(), parts(&xbar));
    close(s.grad_values().collect(), parts(&abar));
}

#[test]
fn the_sparse_products_say_which_arguments_they_write() {
    // what split storage relies on (docs/architecture.md, "The plan's storage"): the matrix
    // values and the input vector are never written, so their values could be borrowed
    use nilang::Reversible;
    type C = Complex<GVar<f64>>;
    let w = Reversible::<(&mut [C], &SparseView<'_>, &mut [C], &mut [C])>::writes(&ISparseMatvec);
    assert_eq!(w, 0b0001);
    type G = GVar<f64>;
    let w = Reversible::<(
        &mut G,
        &SparseView<'_>,
        &mut [G],
        &SparseView<'_>,
        &mut [G],
        &mut [G],
    )>::writes(&ISparseDot);
    // `r` and the work vector `w` (compute–copy–uncompute through it); `av`, `bv` never
    assert_eq!(w, 0b100001, "{w:#b}");
    // a hand-written value: every argument may be written (the safe default)
    struct Twice;
    impl<'a> Reversible<(&'a mut f64,)> for Twice {
        fn call(&self, (y,): (&'a mut f64,)) -> (&'a mut f64,) {
            *y *= 2.0;
            (y,)
        }
        fn uncall(&self, (y,): (&'a mut f64,)) -> (&'a mut f64,) {
            *y /= 2.0;
            (y,)
        }
    }
    assert_eq!(Twice.writes(), nilang::abi::ALL_PARAMS);
}
