//! Thread scaling of the parallel gradients (GMM 10k points d=2 K=5, BA ba1): min of 15 runs
//! with 1 and 2 threads, and whether the results are bit-identical.
//! `cargo run --release -p nilang-apps --example scaling`
use nilang_apps::adbench::ba::BaInput;
use nilang_apps::adbench::gmm::gmm_generate;
use nilang_apps::adbench::oracle::data_dir;
use nilang_apps::adbench::sparse::SparseJacobian;
use nilang_apps::{ba, gmm};
use std::time::Instant;

fn best(mut f: impl FnMut()) -> f64 {
    f();
    (0..15)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64()
        })
        .fold(f64::INFINITY, f64::min)
}

fn main() {
    let threads = [1, 2];
    let g = gmm_generate(2, 5, 10_000, 1);
    let b = BaInput::from_file(data_dir().join("adbench/ba/ba1_n49_m7776_p31843.txt"))
        .expect("BA data (set NILANG_DATA)");
    println!("| case | threads | time (s) | speed-up | identical |\n|---|---:|---:|---:|---|");
    let (mut t1, mut g1) = (0.0, vec![]);
    for &t in &threads {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(t)
            .build()
            .unwrap();
        let mut work = gmm::GmmParWork::new(2, 5, 10_000);
        let mut grad = vec![0.0; g.n_params()];
        let s = best(|| {
            pool.install(|| gmm::gmm_value_grad_par(&g, &mut work, &mut grad));
        });
        if t == 1 {
            (t1, g1) = (s, grad.clone());
        }
        println!(
            "| GMM 10k d=2 K=5 G | {t} | {s:.3e} | {:.2} | {} |",
            t1 / s,
            grad == g1
        );
    }
    let (mut t1, mut j1) = (0.0, vec![]);
    for &t in &threads {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(t)
            .build()
            .unwrap();
        let mut jac = SparseJacobian::with_layout(&b);
        let s = best(|| pool.install(|| ba::ba_jacobian_into_par(&b, &mut jac)));
        if t == 1 {
            (t1, j1) = (s, jac.vals.clone());
        }
        println!(
            "| BA ba1 J | {t} | {s:.3e} | {:.2} | {} |",
            t1 / s,
            jac.vals == j1
        );
    }
}
