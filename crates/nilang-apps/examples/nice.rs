//! Train a NICE normalizing flow on the two-moons density with Adam, gradients by reversible
//! AD, and report the negative log-likelihood before and after (train and held-out data).
//!
//! `cargo run --release -p nilang-apps --example nice -- [STEPS]`
use indicatif::{ProgressBar, ProgressStyle};
use nilang_apps::nice::*;
use rand::SeedableRng;

fn gaussian_nll(xs: &[f64]) -> f64 {
    // the best axis-aligned Gaussian, for comparison
    let n = xs.len() / 2;
    let mut nll = 0.0;
    for c in 0..2 {
        let m = (0..n).map(|i| xs[2 * i + c]).sum::<f64>() / n as f64;
        let v = (0..n).map(|i| (xs[2 * i + c] - m).powi(2)).sum::<f64>() / n as f64;
        nll += 0.5 * (2.0 * std::f64::consts::PI * v).ln() + 0.5;
    }
    nll
}

fn main() {
    let steps: usize = std::env::args()
        .nth(1)
        .map(|s| s.parse().expect("STEPS must be a number"))
        .unwrap_or(1500);
    let mut rng = rand::rngs::StdRng::seed_from_u64(22);
    let train = two_moons(1024, 0.05, &mut rng);
    let test = two_moons(1024, 0.05, &mut rng);
    let mut model = Nice::random(2, 16, 6, 0.1, &mut rng);
    println!(
        "NICE: {} additive coupling layers (MLP 1-16-1, ReLU) + diagonal scaling, {} parameters; two moons, {} training points",
        model.layers,
        model.w.len(),
        train.len() / 2
    );
    let (nll0, nll0_test) = (model.nll(&train), model.nll(&test));
    let bar = ProgressBar::new(steps as u64);
    bar.set_style(
        ProgressStyle::with_template("{msg} [{bar:40}] {pos}/{len} {elapsed_precise}")
            .expect("template")
            .progress_chars("=> "),
    );
    let hist = model.train_adam(&train, 0.01, steps, |t, l| {
        bar.inc(1);
        if t % 50 == 0 {
            bar.set_message(format!("nll {l:.4}"));
        }
    });
    bar.finish_and_clear();
    for t in (0..=steps).step_by((steps / 10).max(1)) {
        println!("  step {t:>5}: NLL {:.5}", hist[t]);
    }
    let (nll1, nll1_test) = (model.nll(&train), model.nll(&test));
    println!("NLL before training: train {nll0:.5}, test {nll0_test:.5}");
    println!("NLL after {steps} Adam steps (lr 0.01): train {nll1:.5}, test {nll1_test:.5}");
    println!(
        "best axis-aligned Gaussian (closed form): train {:.5}",
        gaussian_nll(&train)
    );
    // the flow stays exactly invertible
    let mut err: f64 = 0.0;
    for k in 0..100 {
        let x0 = [test[2 * k], test[2 * k + 1]];
        let mut x = x0;
        model.forward(&mut x);
        model.inverse(&mut x);
        err = err.max((x[0] - x0[0]).abs()).max((x[1] - x0[1]).abs());
    }
    println!("inverse(forward(x)) = x on test points: max error {err:.1e}");
    let s = model.sample(2000, &mut rng);
    let upper = (0..2000).filter(|&i| s[2 * i + 1] > 0.0).count();
    println!(
        "2000 samples from the trained flow: {:.1}% with y > 0 (data: {:.1}%), sample NLL under the model {:.4}",
        upper as f64 / 20.0,
        (0..1024).filter(|&i| test[2 * i + 1] > 0.0).count() as f64 / 10.24,
        model.nll(&s)
    );
}
