//! The batched Bessel program (`ibesselj_terms`, term count fixed per batch): on lanes it gives,
//! bit for bit, what it gives on `f64`; with `besselj_terms` at the batch's largest `|z|` every
//! lane equals the scalar series run to convergence within 1e-14; the gradient through the
//! gradient API on `GVar<F64xN>` equals the scalar gradient and the closed form.
use nilang::numbers::{Batch, F64x4, F64x8};
use nilang_apps::bessel::*;
use rand::{Rng, SeedableRng};

/// The scalar series run until a term no longer changes the sum (no truncation tolerance):
/// `t_0 = (z/2)^ν / ν!`, `t_k = t_{k-1} · (−(z/2)² / (k (k + ν)))`.
fn series(nu: usize, z: f64) -> f64 {
    summed(nu, z, -1.0)
}

/// Σ|t_k| (the modified Bessel function `I_ν(|z|)`): the scale of the series' rounding.
fn series_abs(nu: usize, z: f64) -> f64 {
    summed(nu, z.abs(), 1.0)
}

fn summed(nu: usize, z: f64, sign: f64) -> f64 {
    let hz = 0.5 * z;
    let h2 = sign * hz * hz;
    let mut t = hz.powi(nu as i32) / factorial(nu);
    let mut out = t;
    let mut k = 0;
    loop {
        k += 1;
        t *= h2 * (1.0 / (k * (k + nu)) as f64);
        if out + t == out {
            return out;
        }
        out += t;
    }
}

/// Points in [0, 10) (the benchmark's range), the ends, tiny values, and the zeros of J₂ near
/// 5.1356 and 8.4172 (the largest relative errors).
fn points() -> Vec<f64> {
    let mut rng = rand::rngs::StdRng::seed_from_u64(7);
    let mut z: Vec<f64> = (0..4000).map(|_| rng.gen_range(0.0..10.0)).collect();
    z.extend([
        0.0, 1e-300, 1e-8, 0.1, 1.0, 5.1356223, 8.4172441, 9.999999, 10.0, 20.0, 30.0,
    ]);
    z.extend((0..64).map(|k| -0.3 * k as f64));
    z
}

/// |a − b| relative to |b|.
fn rel(a: f64, b: f64) -> f64 {
    if a == b {
        0.0
    } else {
        (a - b).abs() / b.abs()
    }
}

fn group<B: Batch>(zs: &[f64]) -> B {
    B::from_fn(|k| zs.get(k).copied().unwrap_or(0.0))
}

#[test]
fn term_count_reaches_double_precision_on_every_lane() {
    fn run<B: Batch + nilang::instr::PlusEq1<nilang::instr::fns::PowiN<2>, B>>() {
        let z = points();
        let mut worst = 0.0f64;
        for chunk in z.chunks(B::LANES) {
            let zmax = chunk.iter().fold(0.0f64, |m, z| m.max(z.abs()));
            let n = besselj_terms(2, zmax).unwrap();
            let (mut out, mut zb) = (B::default(), group::<B>(chunk));
            ibesselj_terms::<B, 2, MAX_TERMS>(&mut out, &mut zb, n);
            for (k, &zk) in chunk.iter().enumerate() {
                // lane k is the same program on f64, bit for bit
                let (mut o, mut zz) = (0.0, zk);
                ibesselj_terms::<f64, 2, MAX_TERMS>(&mut o, &mut zz, n);
                assert_eq!(out.lane(k).to_bits(), o.to_bits(), "z = {zk}");
                let want = series(2, zk);
                let e = rel(o, want);
                assert!(e <= 1e-14, "J2({zk}) = {o} vs {want}: {e:.2e}");
                worst = worst.max(e);
            }
            // the inverse restores the inputs exactly
            ibesselj_terms_inv::<B, 2, MAX_TERMS>(&mut out, &mut zb, n);
            assert!(out.lane(0) == 0.0 && zb.lane(0) == chunk[0]);
        }
        assert!(worst > 0.0); // the comparison compared something
    }
    run::<F64x4>();
    run::<F64x8>();
}

#[test]
fn batched_gradient_is_the_scalar_gradient_and_the_closed_form() {
    fn run<B>()
    where
        B: Batch + nilang::instr::PlusEq1<nilang::instr::fns::PowiN<2>, B>,
        nilang::GVar<B>: nilang::ad::AbsAbove
            + nilang::instr::PlusEq1<nilang::instr::fns::PowiN<2>, nilang::GVar<B>>,
    {
        let z = points();
        let (mut v, mut g) = (vec![0.0; z.len()], vec![0.0; z.len()]);
        besselj_batch_value_grad::<B, 2>(&z, &mut v, &mut g).unwrap();
        let mut plan = nilang::ad::Plan::new();
        let mut worst = 0.0f64;
        for (chunk, (vs, gs)) in z
            .chunks(B::LANES)
            .zip(v.chunks(B::LANES).zip(g.chunks(B::LANES)))
        {
            let zmax = chunk.iter().fold(0.0f64, |m, z| m.max(z.abs()));
            // the driver's count: that of |z|max rounded up to a quarter
            let n = besselj_terms(2, (4.0 * zmax).ceil() / 4.0).unwrap();
            for (k, &zk) in chunk.iter().enumerate() {
                // the same program on f64 through a Plan: the same bits
                let (val, st) = plan.value_and_gradient(
                    &IbesseljTerms::<2, MAX_TERMS>,
                    (&mut 0.0, &mut { zk }, n),
                    0,
                );
                assert_eq!(vs[k].to_bits(), val.to_bits(), "value at z = {zk}");
                assert_eq!(gs[k].to_bits(), st.1.g.to_bits(), "gradient at z = {zk}");
                // J2' = (J1 − J3) / 2, both series run to convergence. Any evaluation of the
                // alternating series rounds at the scale of its largest terms, so the error is
                // measured relative to Σ|t_k'| = (I1 + I3) / 2 (which is |J2'| for small z)
                let want = 0.5 * (series(1, zk) - series(3, zk));
                let scale = 0.5 * (series_abs(1, zk) + series_abs(3, zk));
                let e = (gs[k] - want).abs() / scale.max(f64::MIN_POSITIVE);
                assert!(e <= 1e-14, "J2'({zk}) = {} vs {want}: {e:.2e}", gs[k]);
                worst = worst.max(e);
            }
        }
        eprintln!("{} lanes: worst J2' error {worst:.2e}", B::LANES);
    }
    run::<F64x4>();
    run::<F64x8>();
}

#[test]
fn every_tail_length_and_the_errors() {
    let z: Vec<f64> = (0..19).map(|k| 0.5 * k as f64).collect();
    for len in 0..z.len() {
        let (mut v, mut g) = (vec![0.0; len], vec![0.0; len]);
        besselj_batch_value_grad::<F64x8, 2>(&z[..len], &mut v, &mut g).unwrap();
        for k in 0..len {
            assert!(
                (v[k] - series(2, z[k])).abs() <= 1e-15,
                "len {len}, z = {}",
                z[k]
            );
            // a group's term count is its largest |z|'s: beyond double precision for the others
            let g1 = besselj_batch_single(z[k]);
            assert!(
                (g[k] - g1).abs() <= 1e-15 * (1.0 + g1.abs()),
                "len {len}, z = {}",
                z[k]
            );
        }
    }
    let (mut v, mut g) = ([0.0; 3], [0.0; 3]);
    let e = besselj_batch_value_grad::<F64x4, 2>(&[1.0, 200.0, 2.0], &mut v, &mut g).unwrap_err();
    assert_eq!(e.zmax, 200.0);
    assert!(e.to_string().contains("more than 63 terms"), "{e}");
    let e = besselj_batch_value_grad::<F64x4, 2>(&[1.0, f64::INFINITY, 2.0], &mut v, &mut g);
    assert!(e.is_err());
    assert!(besselj_terms(2, f64::NAN).is_err());
    assert_eq!(besselj_terms(2, 0.0), Ok(0));
    // the count grows with |z| and is symmetric
    let counts: Vec<usize> = (0..=36)
        .map(|k| besselj_terms(2, k as f64).unwrap())
        .collect();
    assert!(counts.windows(2).all(|w| w[0] <= w[1]), "{counts:?}");
    assert_eq!(besselj_terms(2, -7.5), besselj_terms(2, 7.5));
}

/// The gradient of one point alone (its own term count).
fn besselj_batch_single(z: f64) -> f64 {
    let n = besselj_terms(2, z.abs()).unwrap();
    nilang::gradient(&IbesseljTerms::<2, MAX_TERMS>, (&mut 0.0, &mut { z }, n), 0)
        .1
        .g
}
