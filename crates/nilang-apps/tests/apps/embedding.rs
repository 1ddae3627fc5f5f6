use nilang_apps::adbench::oracle::{adbench_rel_err, data_dir};
use nilang_apps::embedding::*;

#[test]
fn oracle_loss_gradient_hessian() {
    for file in ["petersen_k2_seed0.json", "petersen_k5_seed0.json"] {
        let o = load_oracle(&data_dir().join("oracle-reference").join(file)).unwrap();
        let l = loss(&o.x, o.k);
        let (l2, g) = gradient(&o.x, o.k);
        let ga = gradient_api(&o.x, o.k);
        assert_eq!(g, ga);
        let h = hessian(&o.x, o.k);
        let hr = hessian_rev_rev(&o.x, o.k);
        let mut worst = [
            adbench_rel_err(l, o.loss),
            adbench_rel_err(l2, o.loss),
            0.0,
            0.0,
            0.0,
        ];
        for i in 0..g.len() {
            worst[2] = f64::max(worst[2], adbench_rel_err(g[i], o.grad[i]));
            for j in 0..g.len() {
                worst[3] = f64::max(worst[3], adbench_rel_err(h[i][j], o.hess[i][j]));
                worst[4] = f64::max(worst[4], adbench_rel_err(hr[i][j], o.hess[i][j]));
            }
        }
        println!("{file}: {worst:?}");
        assert!(worst.iter().all(|&w| w < 1e-12), "{file}: {worst:?}");
    }
}

#[test]
fn graph_lists() {
    let mut all = vec![];
    for i in 0..10 {
        for j in i + 1..10 {
            all.push((i, j));
        }
    }
    let non: Vec<_> = all.into_iter().filter(|p| !EDGES.contains(p)).collect();
    assert_eq!(non, NON_EDGES.to_vec());
    for v in 0..10 {
        assert_eq!(EDGES.iter().filter(|&&(a, b)| a == v || b == v).count(), 3);
    }
}

#[test]
fn inverse_restores_and_gradient_checks() {
    use nilang::ad::check_grad;
    let mut rng = <rand::rngs::StdRng as rand::SeedableRng>::seed_from_u64(7);
    for k in [1, 3] {
        let x = random_positions(k, &mut rng);
        let (mut out, mut xx) = (0.25, x.clone());
        embedding_loss(&mut out, &mut xx, k);
        let l = loss(&x, k);
        assert!((out - 0.25 - l).abs() < 1e-14 * (1.0 + l), "{out} vs {l}");
        embedding_loss_inv(&mut out, &mut xx, k);
        assert!((out - 0.25).abs() < 1e-15); // exact up to the rounding of 0.25 + L - L
        for (a, b) in xx.iter().zip(&x) {
            assert!((a - b).abs() < 1e-14);
        }
        let mut out = 0.0;
        check_grad(&EmbeddingLoss, (&mut out, &mut xx[..], k), 0, 1, 1e-7, 1e-5).unwrap();
    }
}

#[test]
fn newton_embeds_at_k5_not_at_k2() {
    let mut rng = <rand::rngs::StdRng as rand::SeedableRng>::seed_from_u64(5000);
    let x0 = random_positions(5, &mut rng);
    let mut ticks = 0;
    let t = train_newton(&x0, 5, &[0, 1], 60, || ticks += 1);
    assert!(t.loss() < 1e-12, "k = 5: loss {}", t.loss());
    assert!(t.hessians <= 60 && ticks == t.hessians);
    // the fixed vertices did not move
    assert_eq!(&t.x[..10], &x0[..10]);
    let (l1, l2) = mean_distances(&t.x, 5);
    assert!((l2 / l1 - 2f64.sqrt()).abs() < 1e-8, "l2/l1 = {}", l2 / l1);
    // losses decrease
    assert!(t.losses.windows(2).all(|w| w[1] <= w[0]));

    let mut rng = <rand::rngs::StdRng as rand::SeedableRng>::seed_from_u64(2000);
    let x0 = random_positions(2, &mut rng);
    let t = train_newton(&x0, 2, &[0, 1], 30, || {});
    assert!(t.loss() > 1e-3, "k = 2 cannot embed: loss {}", t.loss());
}

#[test]
fn adam_decreases_the_loss_and_plot() {
    let mut rng = <rand::rngs::StdRng as rand::SeedableRng>::seed_from_u64(11);
    let x0 = random_positions(6, &mut rng);
    let t = train_adam(&x0, 6, &[0, 1], 0.01, 200, || {});
    assert_eq!(t.losses.len(), 201);
    assert!(
        t.loss() < 0.5 * t.losses[0],
        "{} -> {}",
        t.losses[0],
        t.loss()
    );
    assert_eq!(&t.x[..12], &x0[..12]);
    let dir = std::env::temp_dir().join(format!("nilang-embedding-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("e.svg");
    plot_losses(&path, &[("Adam", vec![(6, t.losses.clone())])]).unwrap();
    let svg = std::fs::read_to_string(&path).unwrap();
    assert!(svg.starts_with("<svg") && svg.contains("polyline"));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn trust_region_step_respects_the_radius() {
    // indefinite H: the step lies on the boundary and decreases the model
    let h = [1.0, 0.0, 0.0, -2.0];
    let g = [1.0, 0.5];
    let p = trust_region_step(&h, &g, 0.5);
    let n = (p[0] * p[0] + p[1] * p[1]).sqrt();
    assert!((n - 0.5).abs() < 1e-9, "|p| = {n}");
    let model = g[0] * p[0] + g[1] * p[1] + 0.5 * (p[0] * p[0] - 2.0 * p[1] * p[1]);
    assert!(model < 0.0);
    // positive definite H, large region: the Newton step
    let h = [2.0, 0.0, 0.0, 4.0];
    let p = trust_region_step(&h, &g, 10.0);
    assert!((p[0] + 0.5).abs() < 1e-15 && (p[1] + 0.125).abs() < 1e-15);
}

#[test]
fn fast_value_and_gradient_equals_the_generic_gradient() {
    use nilang_apps::embedding::{gradient, value_and_gradient_into, Workspace};
    let mut rng = <rand::rngs::StdRng as rand::SeedableRng>::seed_from_u64(5);
    for k in [1, 3, 10] {
        let x = nilang_apps::embedding::random_positions(k, &mut rng);
        let (v0, g0) = gradient(&x, k);
        let mut ws = Workspace::new(k);
        let mut g = vec![0.0; x.len()];
        let v = value_and_gradient_into(&x, k, &mut ws, &mut g);
        assert!((v - v0).abs() < 1e-14 * v0.abs().max(1.0));
        for (a, b) in g.iter().zip(&g0) {
            assert!((a - b).abs() < 1e-13, "{a} vs {b}");
        }
    }
}
