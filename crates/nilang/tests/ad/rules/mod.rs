//! Coverage of every backward rule and instruction: at random points (fixed seed) each small
//! program's gradient matches central differences, passes a Taylor-remainder test (the
//! remainder of the first-order expansion shrinks at rate ≥ 1.9 as the step halves), and its
//! gradient program is reversible (`Grad` then its inverse restores values and erases
//! gradients). Each program exercises `+=` and `-=` and constant operands. This module holds
//! that check ([`check_program`]); the programs are grouped by kind in its submodules.
use nilang::ad::Grad;
use nilang::prelude::*;

mod binary;
mod convert;
mod instructions;
mod jacobians;
mod second_order;
mod table;
mod unary;

/// xorshift64*: deterministic uniform numbers.
struct Rng(u64);
impl Rng {
    fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        let u = (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11) as f64 / (1u64 << 53) as f64;
        lo + (hi - lo) * u
    }
}

/// `a ≈ b` element-wise (arguments are restored up to rounding).
fn close(a: &[f64], b: &[f64]) -> bool {
    nilang_testkit::close(a, b, 1e-14)
}

/// The bounds of a test program: every instruction on `T` and on its gradient numbers.
pub trait Num: Scalar + Rotate<Self> + Hadamard + Reciprocate {}
impl<T: Scalar + Rotate<T> + Hadamard + Reciprocate> Num for T {}

/// The plain loss of a program `f(y, x)` at `x` (arguments restored afterwards).
fn loss<F, const K: usize>(f: &F, x: [f64; K]) -> f64
where
    F: for<'b> Reversible<(&'b mut f64, &'b mut [f64; K])>,
{
    let (mut y, mut xx) = (0.25, x);
    f.call((&mut y, &mut xx));
    y
}

/// The AD gradient of `y` with respect to `x`.
fn ad_grad<F, const K: usize>(f: &F, x: [f64; K]) -> [f64; K]
where
    F: for<'b> Reversible<(&'b mut f64, &'b mut [f64; K])>
        + for<'b> Reversible<(&'b mut GVar<f64>, &'b mut [GVar<f64>; K])>,
{
    let (mut y, mut xx) = (0.25, x);
    let (_, g) = nilang::gradient::<F, (&mut f64, &mut [f64; K]), f64>(f, (&mut y, &mut xx), 0);
    assert!(close(&xx, &x), "gradient restores the arguments");
    g.map(|v| v.g)
}

/// Gradient vs central differences, Taylor remainder, and reversibility of `Grad`.
fn check_program<F, const K: usize>(name: &str, f: &F, ranges: [(f64, f64); K], seed: u64)
where
    F: Copy
        + for<'b> Reversible<(&'b mut f64, &'b mut [f64; K])>
        + for<'b> Reversible<(&'b mut GVar<f64>, &'b mut [GVar<f64>; K])>,
{
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15 ^ seed.wrapping_mul(0x2545_F491));
    for point in 0..4 {
        let x: [f64; K] = core::array::from_fn(|k| rng.uniform(ranges[k].0, ranges[k].1));
        let g = ad_grad(f, x);
        // central differences
        for k in 0..K {
            let h = 1e-6 * (1.0 + x[k].abs());
            let (mut xp, mut xm) = (x, x);
            xp[k] += h;
            xm[k] -= h;
            let fd = (loss(f, xp) - loss(f, xm)) / (2.0 * h);
            assert!(
                (g[k] - fd).abs() <= 1e-6 * (1.0 + fd.abs()),
                "{name} at {x:?} (point {point}): d/dx{k}: AD {} vs central difference {fd}",
                g[k]
            );
        }
        // Taylor remainder along a random direction
        let d: [f64; K] = core::array::from_fn(|_| rng.uniform(-1.0, 1.0));
        let f0 = loss(f, x);
        let slope: f64 = g.iter().zip(&d).map(|(a, b)| a * b).sum();
        let rem = |h: f64| {
            let xh: [f64; K] = core::array::from_fn(|k| x[k] + h * d[k]);
            (loss(f, xh) - f0 - h * slope).abs()
        };
        let floor = 1e-12 * (1.0 + f0.abs());
        let mut h = 1e-3;
        let mut rates = vec![];
        for _ in 0..4 {
            let (r1, r2) = (rem(h), rem(h / 2.0));
            if r1 > floor {
                let rate = (r1 / r2).log2();
                rates.push(rate);
                assert!(
                    rate >= 1.9,
                    "{name} at {x:?}: Taylor remainder rate {rate} at h = {h} ({r1} -> {r2})"
                );
            }
            h /= 2.0;
        }
        if point == 0 {
            let min = rates.iter().cloned().fold(f64::INFINITY, f64::min);
            eprintln!("{name}: Taylor rates {rates:.3?} (min {min:.3})");
        }
        // Grad and its inverse
        let mut y = GVar::from(0.25);
        let mut gx = x.map(GVar::from);
        Grad::new(*f, 0).call((&mut y, &mut gx));
        for k in 0..K {
            assert!(
                (gx[k].g - g[k]).abs() <= 1e-14 * (1.0 + g[k].abs()),
                "{name}: Grad vs gradient"
            );
            assert!(
                (gx[k].x - x[k]).abs() <= 1e-14 * (1.0 + x[k].abs()),
                "{name}: Grad restores values"
            );
        }
        Grad::new(*f, 0).uncall((&mut y, &mut gx));
        assert!(
            (y.x - 0.25).abs() < 1e-14 && y.g == 0.0,
            "{name}: ~Grad: loss {y:?}"
        );
        for k in 0..K {
            assert!(
                gx[k].g.abs() <= 1e-13 * (1.0 + g[k].abs()),
                "{name}: ~Grad leaves gradient {} in x{k}",
                gx[k].g
            );
            assert!(
                (gx[k].x - x[k]).abs() <= 1e-14 * (1.0 + x[k].abs()),
                "{name}: ~Grad restores values"
            );
        }
    }
}
