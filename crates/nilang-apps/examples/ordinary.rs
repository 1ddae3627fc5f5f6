//! Ordinary (`#[ad]`) versus reversible (`#[i]`) versions of the applications: gradient time
//! and tape bytes, same run (best and median of alternating repetitions).
//!
//! `cargo run --release -p nilang-apps --example ordinary`
use nilang_apps::adbench::gmm::gmm_generate;
use nilang_apps::bessel::{Ibesselj, IbesseljLog};
use nilang_apps::gmm::{gmm_value_grad, GmmGradWork};
use nilang_apps::ordinary::Besselj;
use std::hint::black_box;
use std::time::Instant;

fn time(f: &mut dyn FnMut() -> f64, reps: usize) -> f64 {
    let t = Instant::now();
    let mut acc = 0.0;
    for _ in 0..reps {
        acc += f();
    }
    black_box(acc);
    t.elapsed().as_secs_f64() / reps as f64
}

fn main() {
    let reps = 20_000;
    let zs = [0.5, 1.0, 2.0, 4.0];
    let nu = 2;
    let mut ordinary = || {
        zs.iter()
            .map(|&z| {
                nilang::ad::value_and_gradient(&Besselj, (&mut 0.0, nu, &mut { z }), 0)
                    .1
                     .2
                    .g
            })
            .sum()
    };
    let mut paper = || {
        zs.iter()
            .map(|&z| {
                nilang::ad::value_and_gradient(&Ibesselj, (&mut 0.0, nu, &mut { z }), 0)
                    .1
                     .2
                    .g
            })
            .sum()
    };
    let mut log = || {
        zs.iter()
            .map(|&z| {
                nilang::ad::value_and_gradient(&IbesseljLog, (&mut 0.0, nu, &mut { z }), 0)
                    .1
                     .2
                    .g
            })
            .sum()
    };
    let mut ts: [Vec<f64>; 3] = [vec![], vec![], vec![]];
    for _ in 0..7 {
        ts[0].push(time(&mut ordinary, reps));
        ts[1].push(time(&mut paper, reps));
        ts[2].push(time(&mut log, reps));
    }
    // the tape of one ordinary call at each z
    let bytes: Vec<usize> = zs
        .iter()
        .map(|&z| {
            nilang::ad::value_and_gradient(&Besselj, (&mut 0.0, nu, &mut { z }), 0);
            nilang::ad::ordinary::last_tape_bytes()
        })
        .collect();
    for t in ts.iter_mut() {
        t.sort_by(f64::total_cmp);
    }
    let per = |t: &Vec<f64>| {
        (
            t[0] * 1e9 / zs.len() as f64,
            t[t.len() / 2] * 1e9 / zs.len() as f64,
        )
    };
    let names = [
        "ordinary #[ad] besselj",
        "reversible ibesselj (paper)",
        "reversible ibesselj_log",
    ];
    println!("Bessel J_{nu}(z), z in {zs:?}: gradient time per call (min, median of 7 x {reps})");
    for (k, n) in names.iter().enumerate() {
        let (mn, md) = per(&ts[k]);
        println!("  {n:28} {mn:8.1} ns  {md:8.1} ns");
    }
    println!(
        "  ratio ordinary / paper (min): {:.2}; ordinary / log: {:.2}",
        ts[0][0] / ts[1][0],
        ts[0][0] / ts[2][0]
    );
    println!("  tape bytes of the ordinary version per z: {bytes:?}; reversible: 0");

    // GMM: the ordinary function against the reversible program with its workspace
    let (d, k, n) = (5, 10, 1000);
    let g = gmm_generate(d, k, n, 1);
    let mut work = GmmGradWork::new(d, k);
    let mut grad = vec![0.0; g.n_params()];
    let mut tg: [Vec<f64>; 2] = [vec![], vec![]];
    let mut tape = 0;
    for _ in 0..7 {
        let t = Instant::now();
        let (v, gr, b) = nilang_apps::ordinary::gmm_value_grad(&g);
        tg[0].push(t.elapsed().as_secs_f64());
        black_box((v, gr));
        tape = b;
        let t = Instant::now();
        black_box(gmm_value_grad(&g, &mut work, &mut grad));
        tg[1].push(t.elapsed().as_secs_f64());
    }
    for t in tg.iter_mut() {
        t.sort_by(f64::total_cmp);
    }
    println!("GMM d = {d}, K = {k}, n = {n}: gradient time (min, median of 7)");
    println!(
        "  ordinary #[ad] gmm            {:8.3} ms  {:8.3} ms  tape {tape} bytes",
        tg[0][0] * 1e3,
        tg[0][3] * 1e3
    );
    println!(
        "  reversible gmm_value_grad     {:8.3} ms  {:8.3} ms  tape 0 bytes",
        tg[1][0] * 1e3,
        tg[1][3] * 1e3
    );
    println!(
        "  ratio ordinary / reversible (min): {:.2}",
        tg[0][0] / tg[1][0]
    );
}
