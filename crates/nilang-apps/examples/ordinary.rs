//! Ordinary (`#[ad]`) versus reversible (`#[i]`) versions of the applications (Bessel, GMM,
//! BA, embedding): gradient (Jacobian) time and tape bytes, same run (best and median of
//! alternating repetitions).
//!
//! `cargo run --release -p nilang-apps --example ordinary`
use nilang_apps::adbench::gmm::gmm_generate;
use nilang_apps::adbench::{ba::BaInput, oracle::data_dir};
use nilang_apps::bessel::{Ibesselj, IbesseljLog};
use nilang_apps::gmm::{gmm_value_grad, GmmGradWork};
use nilang_apps::ordinary::{Besselj, Embedding};
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

    // GMM: the ordinary function through a gradient plan (its buffers reused) against the
    // reversible program with its workspace
    let (d, k, n) = (5, 10, 1000);
    let g = gmm_generate(d, k, n, 1);
    let mut work = GmmGradWork::new(d, k);
    let mut grad = vec![0.0; g.n_params()];
    let mut p: Vec<f64> = g
        .alphas
        .iter()
        .chain(&g.means)
        .chain(&g.icf)
        .copied()
        .collect();
    let c = nilang_apps::adbench::gmm::gmm_constant(d, k, n, g.gamma, g.m);
    let mut plan = nilang::ad::Plan::new();
    let mut ordinary_gmm = || {
        let (v, (_, gp, ..)) = plan.value_and_gradient(
            &nilang_apps::ordinary::Gmm,
            (
                &mut 0.0,
                &mut p[..],
                &g.x[..],
                d,
                k,
                n,
                g.gamma,
                g.m as f64,
                c,
            ),
            0,
        );
        v + gp[0].g
    };
    // the same gradient as the one-call entry point
    let (v1, g1, _) = nilang_apps::ordinary::gmm_value_grad(&g);
    assert_eq!(ordinary_gmm(), v1 + g1[0]);
    let tape = nilang::ad::ordinary::last_tape_bytes();
    let mut tg: [Vec<f64>; 2] = [vec![], vec![]];
    for _ in 0..7 {
        tg[0].push(time(&mut ordinary_gmm, 1));
        tg[1].push(time(&mut || gmm_value_grad(&g, &mut work, &mut grad), 3));
    }
    for t in tg.iter_mut() {
        t.sort_by(f64::total_cmp);
    }
    println!("GMM d = {d}, K = {k}, n = {n}: gradient time (min, median of 7)");
    println!(
        "  ordinary #[ad] gmm (Plan)     {:8.3} ms  {:8.3} ms  tape {tape} bytes",
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

    // BA: the 2×15 Jacobian block of each observation of ADBench's test instance
    let b = BaInput::from_file(data_dir().join("adbench/ba/test.txt"))
        .expect("ADBench's BA test instance");
    let obs: Vec<_> = b
        .obs
        .iter()
        .enumerate()
        .map(|(i, &(c, q))| (*b.cam(c), *b.point(q), b.w[i], *b.feat(i)))
        .collect();
    let mut ba_tape = 0;
    let mut ordinary_ba = || {
        obs.iter()
            .map(|(c, x, w, f)| {
                let (j, bytes) = nilang_apps::ordinary::ba_block(c, x, *w, f);
                ba_tape = ba_tape.max(bytes);
                j[1][14]
            })
            .sum()
    };
    let mut tb: [Vec<f64>; 2] = [vec![], vec![]];
    let ba_reps = 50;
    for _ in 0..7 {
        tb[0].push(time(&mut ordinary_ba, ba_reps));
        tb[1].push(time(
            &mut || {
                obs.iter()
                    .map(|(c, x, w, f)| nilang_apps::ba::ba_block(c, x, *w, f)[1][14])
                    .sum()
            },
            ba_reps,
        ));
    }
    for t in tb.iter_mut() {
        t.sort_by(f64::total_cmp);
    }
    let per = |t: &Vec<f64>| (t[0] * 1e9 / obs.len() as f64, t[3] * 1e9 / obs.len() as f64);
    println!(
        "BA Jacobian block (2x15) per observation, {} observations (min, median of 7 x {ba_reps})",
        obs.len()
    );
    let (mn, md) = per(&tb[0]);
    println!("  ordinary #[ad] ba_reproj      {mn:8.1} ns  {md:8.1} ns  tape {ba_tape} bytes");
    let (mn, md) = per(&tb[1]);
    println!("  reversible ba_block           {mn:8.1} ns  {md:8.1} ns  tape 0 bytes");
    println!(
        "  ratio ordinary / reversible (min): {:.2}",
        tb[0][0] / tb[1][0]
    );

    // embedding: the Petersen loss's gradient, both through a gradient plan
    for k in [2, 5] {
        let x: Vec<f64> = (0..10 * k)
            .map(|i| (i as f64 * 0.37).sin() + 0.1 * i as f64)
            .collect();
        let mut ws = nilang_apps::embedding::Workspace::new(k);
        let mut grad = vec![0.0; 10 * k];
        let mut plan = nilang::ad::Plan::new();
        let mut xo = x.clone();
        let mut te: [Vec<f64>; 2] = [vec![], vec![]];
        let e_reps = 2000;
        for _ in 0..7 {
            te[0].push(time(
                &mut || {
                    plan.value_and_gradient(&Embedding, (&mut 0.0, &mut xo[..], k), 0)
                        .0
                },
                e_reps,
            ));
            te[1].push(time(
                &mut || nilang_apps::embedding::value_and_gradient_into(&x, k, &mut ws, &mut grad),
                e_reps,
            ));
        }
        let bytes = nilang::ad::ordinary::last_tape_bytes();
        for t in te.iter_mut() {
            t.sort_by(f64::total_cmp);
        }
        println!("embedding k = {k}: gradient time (min, median of 7 x {e_reps})");
        println!(
            "  ordinary #[ad] embedding      {:8.2} us  {:8.2} us  tape {bytes} bytes",
            te[0][0] * 1e6,
            te[0][3] * 1e6
        );
        println!(
            "  reversible embedding_loss     {:8.2} us  {:8.2} us  tape 0 bytes",
            te[1][0] * 1e6,
            te[1][3] * 1e6
        );
        println!(
            "  ratio ordinary / reversible (min): {:.2}",
            te[0][0] / te[1][0]
        );
    }
}
