//! Reversible sparse linear algebra on 1000×1000 matrices of density 0.05: the Frobenius dot
//! product and the complex matrix-vector product, their inverses and gradients, checked
//! against `sprs`. `cargo run --release -p nilang-apps --example sparse`
use nilang::GVar;
use nilang_apps::sparse::*;
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

    // complex y = A x with interleaved (re, im) storage
    let mut cav: Vec<f64> = (0..2 * pa.nnz())
        .map(|_| rng.gen_range(-1.0..1.0))
        .collect();
    let mut x: Vec<f64> = (0..2 * n).map(|_| rng.gen_range(-1.0..1.0)).collect();
    let mut y = vec![0.0; 2 * n];
    let t = Instant::now();
    i_sparse_matvec(&mut y, &pa, &mut cav, &mut x);
    println!(
        "\ncomplex y = A x: forward {:?}, |y|² = {:.6}",
        t.elapsed(),
        y.iter().map(|v| v * v).sum::<f64>()
    );
    // gradient of L = |y|²/2 : ȳ = y
    let mut gy: Vec<GVar<f64>> = y.iter().map(|&v| GVar::new(v, v)).collect();
    let mut ga: Vec<GVar<f64>> = cav.iter().map(|&v| GVar::from(v)).collect();
    let mut gx: Vec<GVar<f64>> = x.iter().map(|&v| GVar::from(v)).collect();
    let t = Instant::now();
    i_sparse_matvec_inv(&mut gy, &pa, &mut ga, &mut gx);
    println!(
        "backward pass {:?}: |∂L/∂x| = {:.6}, y restored to zero: {}",
        t.elapsed(),
        gx.iter().map(|v| v.g * v.g).sum::<f64>().sqrt(),
        gy.iter().all(|v| v.x.abs() < 1e-12)
    );
}
