//! Parallel gradients: the same result, bit for bit, for 1 and 2 threads, and equal to the
//! serial gradient up to the order of summation.
use nilang_apps::adbench::ba::BaInput;
use nilang_apps::adbench::gmm::{gmm_generate, gmm_objective_and_gradient};
use nilang_apps::adbench::oracle::data_dir;
use nilang_apps::adbench::sparse::SparseJacobian;
use nilang_apps::{ba, gmm};

fn pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
}

#[test]
fn gmm_parallel_gradient_is_deterministic_and_correct() {
    let g = gmm_generate(3, 4, 2500, 7);
    let runs: Vec<(f64, Vec<f64>)> = [1, 2, 3]
        .into_iter()
        .map(|t| {
            let mut work = gmm::GmmParWork::new(3, 4, 2500);
            let mut grad = vec![0.0; g.n_params()];
            let f = pool(t).install(|| gmm::gmm_value_grad_par(&g, &mut work, &mut grad));
            // a second call reuses the buffers and gives the same bits
            let mut again = vec![0.0; g.n_params()];
            let f2 = pool(t).install(|| gmm::gmm_value_grad_par(&g, &mut work, &mut again));
            assert_eq!((f, &grad), (f2, &again));
            (f, grad)
        })
        .collect();
    assert_eq!(runs[0], runs[1]);
    assert_eq!(runs[0], runs[2]);
    let (f0, g0) = gmm_objective_and_gradient(&g);
    let close = |a: f64, b: f64| (a - b).abs() <= 1e-11 * (1.0 + a.abs().max(b.abs()));
    assert!(close(runs[0].0, f0), "{} vs {f0}", runs[0].0);
    for (a, b) in runs[0].1.iter().zip(&g0) {
        assert!(close(*a, *b), "{a} vs {b}");
    }
}

#[test]
fn ba_parallel_jacobian_equals_the_serial_one() {
    let path = data_dir().join("adbench/ba/ba1_n49_m7776_p31843.txt");
    let b = BaInput::from_file(path).unwrap();
    let mut serial = SparseJacobian::with_layout(&b);
    ba::ba_jacobian_into(&b, &mut serial);
    for t in [1, 2] {
        let mut par = SparseJacobian::with_layout(&b);
        pool(t).install(|| ba::ba_jacobian_into_par(&b, &mut par));
        assert_eq!(serial.vals, par.vals);
    }
}
