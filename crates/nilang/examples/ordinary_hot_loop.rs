//! The guide's page on ordinary functions: a leapfrog loop written as an ordinary `#[ad]`
//! function (its value tape grows with the number of steps), then with its step as an `#[i]`
//! function (the tape holds the loop's start and trip count only). Prints the tape bytes and
//! the gradient time of both, same run.
//!
//! `cargo run --release -p nilang --example ordinary_hot_loop [steps]` (`-- --ssa` prints
//! the single-assignment form and the tape layout of the ordinary version)
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
    let mut out = [(0.0, 0, 0.0), (0.0, 0, 0.0)];
    let mut grads = [[0.0; 3]; 2];
    for rep in 0..5 {
        for (k, name) in ["ordinary", "reversible step"].iter().enumerate() {
            let mut xs = x;
            let t = Instant::now();
            let (v, (_, g, _)) = if k == 0 {
                nilang::ad::value_and_gradient(&Orbit, (&mut 0.0, &mut xs[..], n), 0)
            } else {
                nilang::ad::value_and_gradient(&OrbitRev, (&mut 0.0, &mut xs[..], n), 0)
            };
            let secs = t.elapsed().as_secs_f64();
            let bytes = nilang::ad::ordinary::last_tape_bytes();
            if rep == 0 || secs < out[k].2 {
                out[k] = (v, bytes, secs);
            }
            grads[k] = [g[0].g, g[1].g, g[2].g];
            if rep == 4 {
                println!(
                    "{name:16} value {v:.12} gradient {:?} tape {} bytes, best time {:.3} ms",
                    grads[k],
                    out[k].1,
                    out[k].2 * 1e3
                );
            }
        }
    }
    println!(
        "tape: {} bytes → {} bytes; time ratio reversible/ordinary {:.2}",
        out[0].1,
        out[1].1,
        out[1].2 / out[0].2
    );
}
