use nilang::GVar;
use nilang_apps::sparse::*;
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

#[test]
fn complex_matvec_agrees_with_sprs_and_passes_the_gradient_check() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(9);
    let a = random(30, 20, 0.2, &mut rng);
    let p = SparseView::of(&a);
    let mut av: Vec<f64> = (0..2 * p.nnz()).map(|_| rng.gen_range(-1.0..1.0)).collect();
    let mut x: Vec<f64> = (0..40).map(|_| rng.gen_range(-1.0..1.0)).collect();
    let mut y = vec![0.0; 60];
    i_sparse_matvec(&mut y, &p, &mut av, &mut x);
    let ca = sprs::CsMat::new_csc(
        (30, 20),
        p.indptr.to_vec(),
        p.indices.to_vec(),
        (0..p.nnz())
            .map(|k| num_complex::Complex64::new(av[2 * k], av[2 * k + 1]))
            .collect(),
    );
    let cx: Vec<_> = (0..20)
        .map(|j| num_complex::Complex64::new(x[2 * j], x[2 * j + 1]))
        .collect();
    let cy = &ca * &sprs::CsVec::new(20, (0..20).collect(), cx.clone()).to_dense();
    for i in 0..30 {
        assert!((cy[i].re - y[2 * i]).abs() < 1e-12 && (cy[i].im - y[2 * i + 1]).abs() < 1e-12);
    }
    // backward with ybar = e_0 (real part): x̄ = conj? check against finite differences
    let mut gy: Vec<GVar<f64>> = y.iter().map(|&v| GVar::from(v)).collect();
    gy[4].g = 1.0;
    let mut gav: Vec<GVar<f64>> = av.iter().map(|&v| GVar::from(v)).collect();
    let mut gx: Vec<GVar<f64>> = x.iter().map(|&v| GVar::from(v)).collect();
    i_sparse_matvec_inv(&mut gy, &p, &mut gav, &mut gx);
    let h = 1e-6;
    for k in 0..40 {
        let mut xp = x.clone();
        xp[k] += h;
        let mut yp = vec![0.0; 60];
        i_sparse_matvec(&mut yp, &p, &mut av.clone(), &mut xp);
        let mut xm = x.clone();
        xm[k] -= h;
        let mut ym = vec![0.0; 60];
        i_sparse_matvec(&mut ym, &p, &mut av.clone(), &mut xm);
        let fd = (yp[4] - ym[4]) / (2.0 * h);
        assert!((gx[k].g - fd).abs() < 1e-8, "x[{k}]: {} vs {fd}", gx[k].g);
    }
    assert!(gy.iter().all(|v| v.x.abs() < 1e-12));
}
