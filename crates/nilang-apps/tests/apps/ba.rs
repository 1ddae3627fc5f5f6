//! The reversible bundle adjustment (`nilang_apps::ba`): residuals and the reverse-mode
//! sparse Jacobian against ADBench's golden values, the JAX oracle (full CSR for `test.txt`,
//! summaries for `ba1`/`ba2`) and the hand-written Jacobian; the inverse restores inputs.
use crate::assert_all_close;
use nilang::GVar;
use nilang_apps::adbench::ba::{ba_reproj, ba_reproj_jacobian, BaInput};
use nilang_apps::adbench::oracle::{
    adbench_close, check_ba_test, data_dir, load_ba_summaries, VecSummary,
};
use nilang_apps::adbench::sparse::SparseJacobian;
use nilang_apps::ba::{
    ba_block, ba_jacobian_into, ba_objective_into, ba_reproj_i, ba_reproj_i_inv, jacobian, BaAnc,
};
use rand::{Rng, SeedableRng};

fn load(stem: &str) -> BaInput {
    BaInput::from_file(data_dir().join("adbench/ba").join(format!("{stem}.txt"))).unwrap()
}

fn objective(b: &BaInput) -> (Vec<f64>, Vec<f64>) {
    let (mut e, mut z) = (vec![0.0; 2 * b.p], vec![0.0; b.p]);
    ba_objective_into(b, &mut e, &mut z);
    (e, z)
}

#[test]
fn test_instance_matches_adbench_golden_values_and_the_jax_oracle() {
    let b = load("test");
    let (e, z) = objective(&b);
    check_ba_test(&e, &z, &jacobian(&b)).unwrap();
}

#[test]
fn real_instances_match_oracle_summaries() {
    let summaries = load_ba_summaries().unwrap();
    for stem in ["ba1_n49_m7776_p31843", "ba2_n21_m11315_p36455"] {
        let s = &summaries[stem];
        let b = load(stem);
        let (e, z) = objective(&b);
        assert_all_close(stem, &e[..2], &s.reproj_err_first_pair);
        assert!(adbench_close(z[0], s.w_err_first));
        let mut j = SparseJacobian::with_layout(&b);
        ba_jacobian_into(&b, &mut j);
        assert_eq!((j.nrows, j.ncols, j.nnz()), (s.nrows, s.ncols, s.nnz));
        assert_all_close(stem, &j.vals[..30], &s.first_block_2x15_row_major);
        assert!(adbench_close(j.vals[j.nnz() - 1], s.w_row_value));
        let vals = VecSummary::of(j.vals.iter().copied());
        vals.compare(&s.vals_summary)
            .unwrap_or_else(|e| panic!("{stem} vals: {e}"));
    }
}

fn random_block(rng: &mut impl Rng, zero_rotation: bool) -> ([f64; 11], [f64; 3], f64, [f64; 2]) {
    let mut cam = [0.0; 11];
    for (t, e) in cam.iter_mut().enumerate() {
        *e = match t {
            0..=2 if zero_rotation => 0.0,
            0..=2 => rng.gen_range(-0.5..0.5),
            3..=5 => rng.gen_range(-1.0..1.0),
            6 => rng.gen_range(0.5..3.0),
            7 | 8 => rng.gen_range(-0.5..0.5),
            _ => rng.gen_range(-0.1..0.1),
        };
    }
    let x = [
        rng.gen_range(-1.0..1.0),
        rng.gen_range(-1.0..1.0),
        rng.gen_range(6.0..10.0),
    ];
    let feat = [rng.gen_range(-1.0..1.0), rng.gen_range(-1.0..1.0)];
    (cam, x, rng.gen_range(0.2..1.5), feat)
}

/// Random observations, both branches of the rotation: residuals equal the plain ones and the
/// reverse-mode block equals the hand-written one.
#[test]
fn blocks_match_hand_written_jacobian() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(7);
    for trial in 0..40 {
        let (cam, x, w, feat) = random_block(&mut rng, trial % 4 == 0);
        let (e0, hand) = ba_reproj_jacobian(&cam, &x, w, &feat);
        let (mut c, mut xx, mut ww, mut e) = (cam, x, w, [0.0; 2]);
        let mut a = BaAnc::default();
        ba_reproj_i(&mut e, &mut c, &mut xx, &mut ww, &feat, &mut a);
        assert_all_close("e", &e, &e0);
        assert_all_close("e vs ba_reproj", &e, &ba_reproj(&cam, &x, w, &feat));
        let j = ba_block(&cam, &x, w, &feat);
        for r in 0..2 {
            assert_all_close(&format!("trial {trial} row {r}"), &j[r], &hand[r]);
        }
    }
}

/// Forward then inverse restores the inputs exactly and the outputs and ancillas to rounding.
#[test]
fn inverse_restores_inputs() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(3);
    for trial in 0..10 {
        let (cam, x, w, feat) = random_block(&mut rng, trial % 2 == 0);
        let (mut c, mut xx, mut ww, mut e) = (cam, x, w, [0.25, -1.0]);
        let mut a = BaAnc::default();
        ba_reproj_i(&mut e, &mut c, &mut xx, &mut ww, &feat, &mut a);
        ba_reproj_i_inv(&mut e, &mut c, &mut xx, &mut ww, &feat, &mut a);
        assert_eq!((c, xx, ww), (cam, x, w));
        assert!((e[0] - 0.25).abs() < 1e-12 && (e[1] + 1.0).abs() < 1e-12);
        assert!(a.iter().all(|v| v.abs() < 1e-12), "{a:?}");
    }
}

/// The lane-adjoint block equals two plain reverse passes of the whole compute–copy–uncompute
/// program on `GVar<f64>` (one per output).
#[test]
fn lanes_block_equals_two_reverse_passes() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(11);
    let (cam, x, w, feat) = random_block(&mut rng, false);
    let j = ba_block(&cam, &x, w, &feat);
    for r in 0..2 {
        let mut e = [GVar::from(0.0); 2];
        e[r].g = 1.0;
        let mut c = cam.map(GVar::from);
        let mut xx = x.map(GVar::from);
        let mut ww = GVar::from(w);
        let mut a = BaAnc::default();
        ba_reproj_i_inv(&mut e, &mut c, &mut xx, &mut ww, &feat, &mut a);
        let got: Vec<f64> = c
            .iter()
            .chain(&xx)
            .chain(std::iter::once(&ww))
            .map(|v| v.g)
            .collect();
        assert_all_close(&format!("row {r}"), &got, &j[r]);
    }
}

/// The named ancilla offsets tile `BaAnc` in order, without gaps or overlaps.
#[test]
fn ancilla_offsets_tile_the_workspace() {
    use nilang_apps::ba::anc::*;
    let fields = [
        (P, 3),
        (SQ, 1),
        (THETA, 1),
        (ST, 1),
        (CT, 1),
        (INV, 1),
        (V, 3),
        (VXP, 3),
        (VDP, 1),
        (OMC, 1),
        (TMP, 1),
        (Y, 3),
        (IZ, 1),
        (U, 2),
        (RSQ, 1),
        (R4, 1),
        (LK, 1),
        (UL, 2),
        (PR, 2),
    ];
    let mut next = 0;
    for (off, len) in fields {
        assert_eq!(off, next);
        next += len;
    }
    assert_eq!(next, LEN);
}
