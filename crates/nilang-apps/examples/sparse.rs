//! Reversible sparse linear algebra on 1000×1000 matrices of density 0.05: the Frobenius dot
//! product and the complex matrix-vector product, their inverses and gradients, checked
//! against `sprs`. `cargo run --release -p nilang-apps --example sparse`
use nilang::GVar;
use nilang_apps::sparse::*;
use num_complex::{Complex, Complex64};
use rand::{Rng, SeedableRng};
use std::time::Instant;

fn random(n: usize, density: f64, rng: &mut impl Rng) -> sprs::CsMat<f64> {
    let mut tri = sprs::TriMat::new((n, n));
    for j in 0..n {
        for i in 0..n {
            if rng.gen::<f64>() < density {
                tri.add_triplet(i, j, rng.gen_range(-1.0..1.0));
            }
        }
    }
    tri.to_csc()
}

fn main() {
    let (n, density) = (1000, 0.05);
    let mut rng = rand::rngs::StdRng::seed_from_u64(2020);
    let (a, b) = (random(n, density, &mut rng), random(n, density, &mut rng));
    let (pa, pb) = (SparseView::of(&a), SparseView::of(&b));
    println!(
        "A, B: {n}×{n}, density {density}: {} and {} stored values",
        pa.nnz(),
        pb.nnz()
    );

    let (mut av, mut bv, mut w) = (a.data().to_vec(), b.data().to_vec(), vec![0.0; n]);
    let mut r = 0.0;
    let t = Instant::now();
    i_sparse_dot(&mut r, &pa, &mut av, &pb, &mut bv, &mut w);
    let t_fwd = t.elapsed();
    let reference: f64 = (&a * &b.transpose_view())
        .diag()
        .iter()
        .map(|(_, v)| *v)
        .sum();
    println!("tr(AᵀB) = {r:.12} (sprs: {reference:.12}), forward {t_fwd:?}");
    let mut s = SparseDotScratch::new(n);
    let t = Instant::now();
    sparse_dot_gradient(&pa, &mut av, &pb, &mut bv, &mut s);
    println!(
        "gradient (one backward pass) {:?}: ∂/∂A = B on the common pattern ({} nonzero adjoints)",
        t.elapsed(),
        s.grad_a().filter(|&g| g != 0.0).count()
    );
    i_sparse_dot_inv(&mut r, &pa, &mut av, &pb, &mut bv, &mut w);
    println!(
        "inverse: r back to {r:e}, work vector zero: {}",
        w.iter().all(|&v| v == 0.0)
    );

    // complex y = A x
    let mut cz = || Complex64::new(rng.gen_range(-1.0..1.0), rng.gen_range(-1.0..1.0));
    let mut cav: Vec<Complex64> = (0..pa.nnz()).map(|_| cz()).collect();
    let mut x: Vec<Complex64> = (0..n).map(|_| cz()).collect();
    let mut y = vec![Complex64::new(0.0, 0.0); n];
    let t = Instant::now();
    i_sparse_matvec(&mut y, &pa, &mut cav, &mut x);
    println!(
        "\ncomplex y = A x: forward {:?}, |y|² = {:.6}",
        t.elapsed(),
        y.iter().map(|v| v.norm_sqr()).sum::<f64>()
    );
    // gradient of L = |y|²/2 : ȳ = y (∂L/∂Re y, ∂L/∂Im y)
    let g = |z: &Complex64, seed: bool| {
        let s = if seed { *z } else { Complex64::new(0.0, 0.0) };
        Complex::new(GVar::new(z.re, s.re), GVar::new(z.im, s.im))
    };
    let mut gy: Vec<Complex<GVar<f64>>> = y.iter().map(|z| g(z, true)).collect();
    let mut ga: Vec<Complex<GVar<f64>>> = cav.iter().map(|z| g(z, false)).collect();
    let mut gx: Vec<Complex<GVar<f64>>> = x.iter().map(|z| g(z, false)).collect();
    let t = Instant::now();
    i_sparse_matvec_inv(&mut gy, &pa, &mut ga, &mut gx);
    println!(
        "backward pass {:?}: |∂L/∂x| = {:.6}, y restored to zero: {}",
        t.elapsed(),
        gx.iter()
            .map(|v| v.re.g * v.re.g + v.im.g * v.im.g)
            .sum::<f64>()
            .sqrt(),
        gy.iter()
            .all(|v| v.re.x.abs() < 1e-12 && v.im.x.abs() < 1e-12)
    );
}
