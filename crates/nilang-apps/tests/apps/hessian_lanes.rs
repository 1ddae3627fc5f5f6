//! Hessian columns in SIMD lanes (`Duals<F64x4>`, `Duals<F64x8>` under `GVar`): the embedding
//! Hessian equals the one-column-per-pass forward-over-reverse Hessian bit for bit (every
//! column count, including a last partial group of lanes), and the oracle's.
use nilang::numbers::{F64x4, F64x8};
use nilang_apps::adbench::oracle::{adbench_rel_err, data_dir};
use nilang_apps::embedding::*;

#[test]
fn lanes_hessian_is_the_dual_hessian_and_the_oracle() {
    for file in ["petersen_k2_seed0.json", "petersen_k5_seed0.json"] {
        let o = load_oracle(&data_dir().join("oracle-reference").join(file)).unwrap();
        let h = hessian(&o.x, o.k);
        // n = 20 and 50 columns: 50 is not a multiple of 4 or 8
        assert_eq!(hessian_lanes::<F64x4>(&o.x, o.k), h, "{file}: 4 lanes");
        let h8 = hessian_lanes::<F64x8>(&o.x, o.k);
        assert_eq!(h8, h, "{file}: 8 lanes");
        let worst = (0..h8.len())
            .flat_map(|i| (0..h8.len()).map(move |j| (i, j)))
            .map(|(i, j)| adbench_rel_err(h8[i][j], o.hess[i][j]))
            .fold(0.0, f64::max);
        assert!(worst < 1e-12, "{file}: {worst:e}");
    }
    // k = 3: 30 columns, the penalty's branch taken or not depending on x
    for seed in 0..4u64 {
        let x: Vec<f64> = (0..30)
            .map(|i| ((i as f64 + 1.0) * (0.37 + seed as f64)).sin())
            .collect();
        assert_eq!(hessian_lanes::<F64x8>(&x, 3), hessian(&x, 3), "seed {seed}");
    }
}
