//! The generic gradient API against the hand-written drivers it replaced, same run,
//! interleaved (min of `R` rounds of each). Used once, before the hand drivers were deleted.
use nilang_apps::adbench::ba::BaInput;
use nilang_apps::adbench::gmm::gmm_generate;
use nilang_apps::adbench::sparse::SparseJacobian;
use nilang_apps::{ba, bessel, embedding, gmm};
use std::hint::black_box;
use std::time::Instant;

fn min_time(rounds: usize, mut a: impl FnMut(), mut b: impl FnMut()) -> (f64, f64) {
    let (mut ta, mut tb) = (f64::INFINITY, f64::INFINITY);
    for _ in 0..rounds {
        let t = Instant::now();
        a();
        ta = ta.min(t.elapsed().as_secs_f64());
        let t = Instant::now();
        b();
        tb = tb.min(t.elapsed().as_secs_f64());
    }
    (ta, tb)
}

fn row(name: &str, per: f64, (hand, generic): (f64, f64)) {
    println!(
        "| {name} | {:.3e} | {:.3e} | {:.3} |",
        hand / per,
        generic / per,
        generic / hand
    );
}

fn main() {
    let data = std::env::var("NILANG_DATA").unwrap_or_else(|_| "../shared/data".into());
    println!("| case | hand (s) | generic (s) | generic / hand |\n|---|---:|---:|---:|");
    let reps = 200_000;
    row(
        "Bessel J2(1) G",
        reps as f64,
        min_time(
            15,
            || {
                for _ in 0..reps {
                    black_box(bessel::besselj_n_value_grad_hand::<2>(black_box(1.0)));
                }
            },
            || {
                for _ in 0..reps {
                    black_box(bessel::besselj_n_value_grad::<2>(black_box(1.0)));
                }
            },
        ),
    );
    for k in [2, 4, 6, 8, 10] {
        let x: Vec<f64> = (0..10 * k).map(|i| (i as f64 * 0.37).sin()).collect();
        let (mut g, mut g2) = (vec![0.0; 10 * k], vec![0.0; 10 * k]);
        let mut wh = embedding::HandWorkspace::new(k);
        let mut wg = embedding::Workspace::new(k);
        let reps = 20_000;
        let (th, tg) = min_time(
            15,
            || {
                for _ in 0..reps {
                    black_box(embedding::value_and_gradient_into_hand(
                        &x, k, &mut wh, &mut g,
                    ));
                }
            },
            || {
                for _ in 0..reps {
                    black_box(embedding::value_and_gradient_into(&x, k, &mut wg, &mut g2));
                }
            },
        );
        assert!(g
            .iter()
            .zip(&g2)
            .all(|(a, b)| (a - b).abs() <= 1e-12 * (1.0 + a.abs())));
        row(&format!("embedding k={k} G"), reps as f64, (th, tg));
    }
    for (d, k, n, rounds) in [
        (2, 5, 1000, 30),
        (2, 5, 10000, 15),
        (10, 25, 1000, 15),
        (10, 5, 10000, 7),
        (2, 200, 10000, 5),
        (10, 50, 10000, 5),
        (64, 5, 10000, 3),
    ] {
        let inst = gmm_generate(d, k, n, 1);
        let (mut g, mut g2) = (vec![0.0; inst.n_params()], vec![0.0; inst.n_params()]);
        let mut wh = gmm::GmmHandWork::new(d, k);
        let mut wg = gmm::GmmGradWork::new(d, k);
        let (th, tg) = min_time(
            rounds,
            || {
                black_box(gmm::gmm_value_grad_hand(&inst, &mut wh, &mut g));
            },
            || {
                black_box(gmm::gmm_value_grad(&inst, &mut wg, &mut g2));
            },
        );
        assert!(g
            .iter()
            .zip(&g2)
            .all(|(a, b)| (a - b).abs() <= 1e-10 * (1.0 + a.abs())));
        row(&format!("GMM n={n} d={d} K={k} G"), 1.0, (th, tg));
    }
    for name in ["ba1_n49_m7776_p31843", "ba5_n257_m65132_p225911"] {
        let b = BaInput::from_file(format!("{data}/adbench/ba/{name}.txt")).expect("BA data");
        let (mut j, mut j2) = (
            SparseJacobian::with_layout(&b),
            SparseJacobian::with_layout(&b),
        );
        let (th, tg) = min_time(
            10,
            || ba::ba_jacobian_into_hand(&b, &mut j),
            || ba::ba_jacobian_into(&b, &mut j2),
        );
        assert!(j
            .vals
            .iter()
            .zip(&j2.vals)
            .all(|(a, b)| (a - b).abs() <= 1e-12 * (1.0 + a.abs())));
        row(&format!("BA {name} J"), 1.0, (th, tg));
    }
}
