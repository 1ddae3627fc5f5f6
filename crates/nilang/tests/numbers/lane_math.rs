//! The vector elementary functions of the lanes (`F64x4`, `F64x8`: the rows of the table of
//! elementary functions whose lane slot names a SIMD implementation): within two ulps of
//! `f64`'s function on random inputs over each domain, the special values as `f64`'s, and the
//! same bits on 4 and 8 lanes.
//!
//! The full check (10⁶ random inputs per function and range) is ignored in CI:
//! `cargo test --release -p nilang --test numbers lane_math -- --ignored`.
use nilang::instr::{fns, Func};
use nilang::numbers::{F64x4, F64x8};

/// The distance in ulps between `a` and `b` (0 for equal values, two NaNs, or `+0`/`−0` only
/// if equal bits: the sign of zero counts).
fn ulps(a: f64, b: f64) -> u64 {
    if a.is_nan() && b.is_nan() {
        return 0;
    }
    let ordered = |x: f64| {
        let b = x.to_bits() as i64;
        if b < 0 {
            i64::MIN - b
        } else {
            b
        }
    };
    (ordered(a) - ordered(b)).unsigned_abs()
}

/// A function of the table on 4 and 8 lanes, and `f64`'s.
struct Case {
    name: &'static str,
    std: fn(f64) -> f64,
    x4: fn(F64x4) -> F64x4,
    x8: fn(F64x8) -> F64x8,
    /// Ranges `(lo, hi, log)`: uniform in `[lo, hi)`, or `±10^u` for `u` uniform in it.
    ranges: &'static [(f64, f64, bool)],
    special: &'static [f64],
}

macro_rules! case {
    ($name:literal, $F:ident, $std:expr, $ranges:expr, $special:expr) => {
        Case {
            name: $name,
            std: $std,
            x4: |x| <fns::$F as Func<(F64x4,)>>::eval((x,)),
            x8: |x| <fns::$F as Func<(F64x8,)>>::eval((x,)),
            ranges: $ranges,
            special: $special,
        }
    };
}

const EDGES: [f64; 10] = [
    0.0,
    -0.0,
    f64::INFINITY,
    f64::NEG_INFINITY,
    f64::NAN,
    f64::MIN_POSITIVE,
    -f64::MIN_POSITIVE,
    5e-324,
    -5e-324,
    1e-310,
];

fn cases() -> Vec<Case> {
    vec![
        case!(
            "exp",
            Exp,
            f64::exp,
            &[
                (-745.5, 709.8, false),
                (-1.0, 1.0, false),
                (-300.0, 2.0, true)
            ],
            &[
                709.78,
                709.79,
                -745.13,
                -745.2,
                -708.4,
                -720.0,
                -800.0,
                1e-17,
                -707.7015583258085,
                -670.1,
                670.1,
                700.0
            ]
        ),
        case!(
            "exp_m1",
            ExpM1,
            f64::exp_m1,
            &[
                (-50.0, 709.7, false),
                (-2.0, 2.0, false),
                (-300.0, 2.0, true)
            ],
            &[709.78, 709.79, -37.0, 37.0, 36.9, 37.1, -40.0, -41.0, 0.3465, 1e-17]
        ),
        case!(
            "ln",
            Ln,
            f64::ln,
            &[(0.0, 10.0, false), (0.5, 2.0, false), (-320.0, 308.0, true)],
            &[
                1.0,
                2.0,
                0.5,
                f64::MAX,
                1.0 + f64::EPSILON,
                1.0 - f64::EPSILON / 2.0,
                -1.0
            ]
        ),
        case!(
            "ln_1p",
            Ln1p,
            f64::ln_1p,
            &[
                (-1.0, 10.0, false),
                (-0.5, 0.5, false),
                (-320.0, 308.0, true)
            ],
            &[
                -1.0,
                -1.0 + f64::EPSILON / 2.0,
                -2.0,
                f64::MAX,
                1e-17,
                -1e-17,
                1.0
            ]
        ),
        case!(
            "tanh",
            Tanh,
            f64::tanh,
            &[
                (-25.0, 25.0, false),
                (-1.5, 1.5, false),
                (-320.0, 2.0, true),
                // where the forms meet (0.625) and where `tanh` reaches 1 (19.06)
                (0.55, 0.7, false),
                (18.0, 20.0, false)
            ],
            &[
                1.0,
                -1.0,
                22.0,
                19.0,
                0.55,
                1e-8,
                5e-8,
                f64::MAX,
                0.625,
                -0.625,
                0.624_999_999_999_999_9,
                0.625_000_000_000_000_1,
                core::f64::consts::LN_2 * 0.25 * 3.0,
                core::f64::consts::LN_2 * 0.25 * 5.0,
                19.06,
                -19.0615,
                19.5,
                19.500_000_000_000_004,
                1e-300,
                -2.2e-308
            ]
        ),
        case!(
            "sin",
            Sin,
            f64::sin,
            &[
                (-10.0, 10.0, false),
                (-1.6e6, 1.6e6, false),
                (-320.0, 300.0, true)
            ],
            &[
                core::f64::consts::PI,
                core::f64::consts::FRAC_PI_2,
                1.6e6,
                1.7e6,
                1e300,
                f64::MAX,
                1e-8,
            ]
        ),
        case!(
            "cos",
            Cos,
            f64::cos,
            &[
                (-10.0, 10.0, false),
                (-1.6e6, 1.6e6, false),
                (-320.0, 300.0, true)
            ],
            &[
                core::f64::consts::PI,
                core::f64::consts::FRAC_PI_2,
                1.6e6,
                1.7e6,
                1e300,
                f64::MAX,
                1e-8,
            ]
        ),
        case!(
            "sqrt",
            Sqrt,
            f64::sqrt,
            &[(0.0, 1e3, false), (-320.0, 308.0, true)],
            &[1.0, 4.0, f64::MAX, -1.0]
        ),
    ]
}

/// A xorshift stream of uniforms in `[0, 1)` (the same inputs on every run).
fn uniforms(seed: u64) -> impl FnMut() -> f64 {
    let mut s = seed | 1;
    move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        (s >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// The worst distance (ulps, at which input) of the case on `n` random inputs per range and on
/// the special values; panics where 4 and 8 lanes differ.
fn worst(c: &Case, n: usize) -> (u64, f64) {
    let mut u = uniforms(0x5eed ^ c.name.len() as u64);
    let mut worst = (0, 0.0);
    let mut check = |xs: [f64; 8]| {
        let y8 = (c.x8)(F64x8::new(xs)).to_array();
        let lo = (c.x4)(F64x4::new(core::array::from_fn(|k| xs[k]))).to_array();
        let hi = (c.x4)(F64x4::new(core::array::from_fn(|k| xs[k + 4]))).to_array();
        for k in 0..8 {
            let y4 = if k < 4 { lo[k] } else { hi[k - 4] };
            assert!(
                y4.to_bits() == y8[k].to_bits() || (y4.is_nan() && y8[k].is_nan()),
                "{}({:e}): {y4:e} on 4 lanes, {:e} on 8",
                c.name,
                xs[k],
                y8[k]
            );
            let e = ulps(y8[k], (c.std)(xs[k]));
            if e > worst.0 {
                worst = (e, xs[k]);
            }
        }
    };
    for &(lo, hi, log) in c.ranges {
        for _ in 0..n.div_ceil(8) {
            check(core::array::from_fn(|_| {
                let v = lo + (hi - lo) * u();
                if log {
                    let sign = if u() < 0.5 { -1.0 } else { 1.0 };
                    sign * 10f64.powf(v)
                } else {
                    v
                }
            }));
        }
    }
    let special: Vec<f64> = EDGES.iter().chain(c.special).copied().collect();
    for group in special.chunks(8) {
        // each special value in every lane position: next to ordinary values
        for shift in 0..8 {
            check(core::array::from_fn(|k| {
                *group.get((k + shift) % 8).unwrap_or(&0.5)
            }));
        }
    }
    worst
}

fn check_all(n: usize) {
    let mut report = Vec::new();
    for c in cases() {
        let (e, at) = worst(&c, n);
        eprintln!("{}: worst {e} ulps (at {at:e})", c.name);
        if e > 2 {
            report.push(format!("{} is {e} ulps from f64's at {at:e}", c.name));
        }
    }
    assert!(report.is_empty(), "{report:#?}");
}

#[test]
fn lane_functions_are_within_two_ulps_of_f64() {
    check_all(4_000);
}

#[test]
#[ignore = "10⁶ inputs per range: cargo test --release -p nilang --test numbers lane_math -- --ignored"]
fn lane_functions_are_within_two_ulps_of_f64_on_a_million_inputs() {
    check_all(1_000_000);
}

#[test]
fn special_values_are_f64s() {
    // the exact results std gives, sign of zero included
    let f = |x| <fns::Tanh as Func<(F64x4,)>>::eval((x,)).to_array();
    assert_eq!(
        f(F64x4::new([-0.0, f64::INFINITY, f64::NEG_INFINITY, 30.0])).map(f64::to_bits),
        [-0.0, 1.0, -1.0, 1.0].map(f64::to_bits)
    );
    // beyond 19.06 `tanh` is 1 (the lanes cap |x| at 19.5)
    let f = |x| <fns::Tanh as Func<(F64x8,)>>::eval((x,)).to_array();
    assert_eq!(
        f(F64x8::new([
            19.1, 19.5, 19.6, 1e10, -19.1, -19.5, -25.0, -1e300
        ])),
        [1.0, 1.0, 1.0, 1.0, -1.0, -1.0, -1.0, -1.0]
    );
    let f = |x| <fns::Ln1p as Func<(F64x4,)>>::eval((x,)).to_array();
    let y = f(F64x4::new([-1.0, -0.0, f64::INFINITY, -1.5]));
    assert_eq!(y[..3], [f64::NEG_INFINITY, -0.0, f64::INFINITY]);
    assert!(y[1].is_sign_negative() && y[3].is_nan());
    let f = |x| <fns::ExpM1 as Func<(F64x4,)>>::eval((x,)).to_array();
    let y = f(F64x4::new([-0.0, f64::NEG_INFINITY, f64::INFINITY, 710.0]));
    assert_eq!(y, [-0.0, -1.0, f64::INFINITY, f64::INFINITY]);
    assert!(y[0].is_sign_negative());
    let f = |x| <fns::Sin as Func<(F64x4,)>>::eval((x,)).to_array();
    let y = f(F64x4::new([-0.0, f64::INFINITY, f64::NAN, -5e-324]));
    assert!(y[0] == 0.0 && y[0].is_sign_negative() && y[1].is_nan() && y[2].is_nan());
    assert_eq!(y[3], -5e-324);
    let f = |x| <fns::Ln as Func<(F64x4,)>>::eval((x,)).to_array();
    let y = f(F64x4::new([0.0, -0.0, 5e-324, -5e-324]));
    assert_eq!(
        y[..3],
        [f64::NEG_INFINITY, f64::NEG_INFINITY, 5e-324f64.ln()]
    );
    assert!(y[3].is_nan());
}

/// `powf` on lanes against `f64::powf`: the worst ulps over random `(x, y)` and every pair of
/// special values (4 and 8 lanes giving the same bits).
fn powf_worst(n: usize) -> (u64, f64, f64) {
    let pow4 = |x: F64x4, y: F64x4| <fns::Powf as Func<(F64x4, F64x4)>>::eval((x, y));
    let pow8 = |x: F64x8, y: F64x8| <fns::Powf as Func<(F64x8, F64x8)>>::eval((x, y));
    let mut worst = (0, 0.0, 0.0);
    let mut check = |xs: [f64; 8], ys: [f64; 8]| {
        let z8 = pow8(F64x8::new(xs), F64x8::new(ys)).to_array();
        let part = |o: usize| {
            pow4(
                F64x4::new(core::array::from_fn(|k| xs[k + o])),
                F64x4::new(core::array::from_fn(|k| ys[k + o])),
            )
            .to_array()
        };
        let (lo, hi) = (part(0), part(4));
        for k in 0..8 {
            let z4 = if k < 4 { lo[k] } else { hi[k - 4] };
            assert!(
                z4.to_bits() == z8[k].to_bits() || (z4.is_nan() && z8[k].is_nan()),
                "powf({:e}, {:e}): {z4:e} on 4 lanes, {:e} on 8",
                xs[k],
                ys[k],
                z8[k]
            );
            let e = ulps(z8[k], xs[k].powf(ys[k]));
            if e > worst.0 {
                worst = (e, xs[k], ys[k]);
            }
        }
    };
    let mut u = uniforms(0x9e37);
    // (x range as ±10^u or uniform, y range)
    let ranges: [(f64, f64, bool, f64, f64); 4] = [
        (0.0, 10.0, false, -50.0, 50.0),
        (-3.0, 3.0, true, -100.0, 100.0),
        (-300.0, 300.0, true, -1.5, 1.5),
        (0.9, 1.1, false, -5000.0, 5000.0),
    ];
    for (xlo, xhi, log, ylo, yhi) in ranges {
        for _ in 0..n.div_ceil(8) {
            let mut ys = [0.0; 8];
            let xs = core::array::from_fn(|k| {
                let v = xlo + (xhi - xlo) * u();
                ys[k] = ylo + (yhi - ylo) * u();
                if log {
                    10f64.powf(v)
                } else {
                    v
                }
            });
            check(xs, ys);
        }
    }
    // every pair of special values, integer powers of negative bases among them
    let special = [
        0.0,
        -0.0,
        1.0,
        -1.0,
        2.0,
        -2.0,
        0.5,
        -0.5,
        3.0,
        -3.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        5e-324,
        -5e-324,
        1e-310,
        f64::MAX,
        f64::MIN_POSITIVE,
        1e300,
        -1e300,
        1.0 + f64::EPSILON,
        1024.0,
        -1075.0,
        2f64.powi(53) + 2.0,
    ];
    let pairs: Vec<(f64, f64)> = special
        .iter()
        .flat_map(|&x| special.iter().map(move |&y| (x, y)))
        .collect();
    for group in pairs.chunks(8) {
        let at = |k: usize| *group.get(k).unwrap_or(&(2.0, 0.5));
        check(
            core::array::from_fn(|k| at(k).0),
            core::array::from_fn(|k| at(k).1),
        );
    }
    worst
}

#[test]
fn powf_is_within_two_ulps_of_f64() {
    let (e, x, y) = powf_worst(4_000);
    eprintln!("powf: worst {e} ulps (at {x:e}^{y:e})");
    assert!(e <= 2, "powf is {e} ulps from f64's at {x:e}^{y:e}");
}

#[test]
#[ignore = "10⁶ inputs per range: cargo test --release -p nilang --test numbers lane_math -- --ignored"]
fn powf_is_within_two_ulps_of_f64_on_a_million_inputs() {
    let (e, x, y) = powf_worst(1_000_000);
    eprintln!("powf: worst {e} ulps (at {x:e}^{y:e})");
    assert!(e <= 2, "powf is {e} ulps from f64's at {x:e}^{y:e}");
}

/// `tanh` on lanes is odd, bit for bit (the sign of `x` is put on `tanh |x|`), on 4 and 8 lanes.
#[test]
fn tanh_is_odd() {
    let mut u = uniforms(0x7a9);
    for _ in 0..2_000 {
        let xs: [f64; 8] = core::array::from_fn(|k| (u() - 0.5) * [2.0, 3.0, 50.0, 1e-3][k % 4]);
        let y = <fns::Tanh as Func<(F64x8,)>>::eval((F64x8::new(xs),)).to_array();
        let ny = <fns::Tanh as Func<(F64x8,)>>::eval((F64x8::new(xs.map(|x| -x)),)).to_array();
        let lo =
            <fns::Tanh as Func<(F64x4,)>>::eval((F64x4::new(core::array::from_fn(|k| -xs[k])),))
                .to_array();
        for k in 0..8 {
            assert_eq!(ny[k].to_bits(), (-y[k]).to_bits(), "tanh(-{:e})", xs[k]);
            assert!(y[k].abs() <= 1.0 && (y[k] == 0.0) == (xs[k] == 0.0));
            if k < 4 {
                assert_eq!(lo[k].to_bits(), ny[k].to_bits());
            }
        }
    }
}

/// `softplus` (`ln(1 + eˣ)`, a row of the table whose lanes compose the lane `exp` and `ln_1p`
/// as `max(x, 0) + ln_1p(e^(−|x|))`) against the scalar `Real::softplus` (the same formula on
/// std's functions): the same bits on 4 and 8 lanes, within three ulps (the two lane
/// functions' errors add where `e^(−|x|)` is near one), no overflow where `eˣ` overflows, the
/// special values.
#[test]
fn lane_softplus_is_within_three_ulps_of_the_scalar_one() {
    let c = case!(
        "softplus",
        Softplus,
        nilang::Real::softplus,
        &[
            (-40.0, 40.0, false),
            (-1.0, 1.0, false),
            (-750.0, 750.0, false),
            (-320.0, 308.0, true)
        ],
        &[
            1.0,
            -1.0,
            709.8,
            710.0,
            1e300,
            f64::MAX,
            -745.0,
            -746.0,
            37.0
        ]
    );
    let (e, at) = worst(&c, 20_000);
    eprintln!("softplus: worst {e} ulps (at {at:e})");
    assert!(e <= 3, "softplus is {e} ulps from the scalar one at {at:e}");
    let f = |x| <fns::Softplus as Func<(F64x4,)>>::eval((x,)).to_array();
    let y = f(F64x4::new([
        1000.0,
        -1000.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
    ]));
    assert_eq!(y, [1000.0, 0.0, f64::INFINITY, 0.0]);
    let y = f(F64x4::new([0.0, f64::NAN, 800.0, -800.0]));
    assert_eq!(y[0], core::f64::consts::LN_2);
    assert!(y[1].is_nan() && y[2] == 800.0 && y[3] == 0.0);
}
