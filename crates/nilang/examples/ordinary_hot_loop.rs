//! The guide's page on ordinary functions: a leapfrog loop written as an ordinary `#[ad]`
//! function (its value tape grows with the number of steps), then with its step as an `#[i]`
//! function (the tape holds the loop's start and trip count only). Prints the tape bytes and
//! the gradient time of both, same run.
//!
//! `cargo run --release -p nilang --example ordinary_hot_loop [steps]` (`-- --ssa` prints
//! the single-assignment form and the tape layout of the ordinary version)
// the ordinary version is written as ordinary code is (`a = a + ..`)
#![allow(clippy::assign_op_pattern)]
use nilang::prelude::*;
use std::time::Instant;

/// The ordinary version: `a` and `b` are overwritten each step, and the adjoint reads them.
#[ad]
fn orbit(x: &[f64], n: usize) -> f64 {
    let mut a = x[0];
    let mut b = x[1];
    let dt = x[2];
    for _s in 0..n {
        a = a + dt * b.sin();
        b = b - dt * a;
    }
    a * a + b * b
}

/// One leapfrog step, reversible: its inverse restores `a` and `b`.
#[i]
fn leap<T: Scalar>(a: &mut T, b: &mut T, dt: &mut T) {
    let s = T::default();
    s += sin(b);
    a += dt * s;
    s -= sin(b);
    dealloc!(s = T::default());
    b -= dt * a;
}

/// The same function with the hot loop's body reversible.
#[ad]
fn orbit_rev(x: &[f64], n: usize) -> f64 {
    let mut a = x[0];
    let mut b = x[1];
    let mut dt = x[2];
    for _s in 0..n {
        leap(&mut a, &mut b, &mut dt);
    }
    a * a + b * b
}

fn main() {
    if std::env::args().any(|a| a == "--ssa") {
        println!("{}\n{}", Orbit::SSA, Orbit::TAPE);
        return;
    }
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(100_000);
    let x = [0.3, 0.1, 1e-3];
    let reps = 21;
    let mut times = [vec![], vec![]];
    let mut bytes = [0; 2];
    let mut grads = [[0.0; 3]; 2];
    let mut values = [0.0; 2];
    // alternating runs, so both see the same machine load
    for _ in 0..reps {
        for k in 0..2 {
            let mut xs = x;
            let t = Instant::now();
            let (v, (_, g, _)) = if k == 0 {
                nilang::ad::value_and_gradient(&Orbit, (&mut 0.0, &mut xs[..], n), 0)
            } else {
                nilang::ad::value_and_gradient(&OrbitRev, (&mut 0.0, &mut xs[..], n), 0)
            };
            times[k].push(t.elapsed().as_secs_f64());
            bytes[k] = nilang::ad::ordinary::last_tape_bytes();
            grads[k] = [g[0].g, g[1].g, g[2].g];
            values[k] = v;
        }
    }
    for t in times.iter_mut() {
        t.sort_by(f64::total_cmp);
    }
    for (k, name) in ["ordinary", "reversible step"].iter().enumerate() {
        println!(
            "{name:16} value {:.12} gradient {:?} tape {} bytes, time min {:.3} ms, median {:.3} ms",
            values[k],
            grads[k],
            bytes[k],
            times[k][0] * 1e3,
            times[k][reps / 2] * 1e3
        );
    }
    println!(
        "n = {n}: tape {} bytes -> {} bytes; time reversible/ordinary: min {:.2}, median {:.2}",
        bytes[0],
        bytes[1],
        times[1][0] / times[0][0],
        times[1][reps / 2] / times[0][reps / 2]
    );
}
