//! Coverage of every backward rule and instruction: at random points (fixed seed) each small
//! program's gradient matches central differences, passes a Taylor-remainder test (the
//! remainder of the first-order expansion shrinks at rate ≥ 1.9 as the step halves), and its
//! gradient program is reversible (`Grad` then its inverse restores values and erases
//! gradients). Each program exercises `+=` and `-=` and constant operands. Second derivatives
//! (reverse-over-reverse, forward-over-reverse, finite differences of the gradient) and the
//! Jacobian dot-product test are at the end.
use nilang::ad::{self, Grad};
use nilang::instr::{fns::SinCos, PlusEq1};
use nilang::prelude::*;

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
    a.iter()
        .zip(b)
        .all(|(x, y)| (x - y).abs() <= 1e-14 * (1.0 + y.abs()))
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

// ---------------------------------------------------------------------------------------------
// One-argument functions: `y += f(x0)` and `y -= f(x1)`, so both directions of the rule run.

macro_rules! unary_programs {
    ($($fn:ident $Ty:ident |$y:ident, $x:ident| $body:tt),* $(,)?) => {$(
        #[i(rev = $Ty)]
        fn $fn<T: Num>($y: &mut T, $x: &mut [T; 2]) $body
    )*};
}
unary_programs! {
    p_identity PIdentity |y, x| { y += x[0]; y -= identity(x[1]); },
    p_neg PNeg |y, x| { y += -x[0]; y -= -x[1]; },
    p_sin PSin |y, x| { y += sin(x[0]); y -= x[1].sin(); },
    p_cos PCos |y, x| { y += cos(x[0]); y -= cos(x[1]); },
    p_tan PTan |y, x| { y += tan(x[0]); y -= tan(x[1]); },
    p_asin PAsin |y, x| { y += asin(x[0]); y -= asin(x[1]); },
    p_acos PAcos |y, x| { y += acos(x[0]); y -= acos(x[1]); },
    p_atan PAtan |y, x| { y += atan(x[0]); y -= atan(x[1]); },
    p_sinh PSinh |y, x| { y += sinh(x[0]); y -= sinh(x[1]); },
    p_cosh PCosh |y, x| { y += cosh(x[0]); y -= cosh(x[1]); },
    p_tanh PTanh |y, x| { y += tanh(x[0]); y -= tanh(x[1]); },
    p_exp PExp |y, x| { y += exp(x[0]); y -= exp(x[1]); },
    p_ln PLn |y, x| { y += ln(x[0]); y -= log(x[1]); },
    p_ln1p PLn1p |y, x| { y += ln_1p(x[0]); y -= log1p(x[1]); },
    p_expm1 PExpm1 |y, x| { y += exp_m1(x[0]); y -= expm1(x[1]); },
    p_sqrt PSqrt |y, x| { y += sqrt(x[0]); y -= x[1].sqrt(); },
    p_abs PAbs |y, x| { y += abs(x[0]); y -= abs(x[1]); },
    p_abs2 PAbs2 |y, x| { y += abs2(x[0]); y -= abs2(x[1]); },
    p_inv PInv |y, x| { y += inv(x[0]); y -= recip(x[1]); },
    p_powi2 PPowi2 |y, x| { y += x[0].powi(2); y -= x[1].powi(2); },
    p_powi3 PPowi3 |y, x| { y += x[0].powi(3); y -= x[1].powi(3); },
    p_powi4 PPowi4 |y, x| { y += x[0].powi(4); y -= x[1].powi(4); },
    p_powim1 PPowim1 |y, x| { y += x[0].powi(-1); y -= x[1].powi(-1); },
    p_powim2 PPowim2 |y, x| { y += x[0].powi(-2); y -= x[1].powi(-2); },
}

#[test]
fn unary_rules() {
    let any = (-1.5, 1.5);
    let pos = (0.3, 2.5);
    let unit = (-0.9, 0.9);
    check_program("identity", &PIdentity, [any; 2], 1);
    check_program("neg", &PNeg, [any; 2], 2);
    check_program("sin", &PSin, [any; 2], 3);
    check_program("cos", &PCos, [any; 2], 4);
    check_program("tan", &PTan, [(-1.2, 1.2); 2], 5);
    check_program("asin", &PAsin, [unit; 2], 6);
    check_program("acos", &PAcos, [unit; 2], 7);
    check_program("atan", &PAtan, [any; 2], 8);
    check_program("sinh", &PSinh, [any; 2], 9);
    check_program("cosh", &PCosh, [any; 2], 10);
    check_program("tanh", &PTanh, [any; 2], 11);
    check_program("exp", &PExp, [any; 2], 12);
    check_program("ln", &PLn, [pos; 2], 13);
    check_program("ln_1p", &PLn1p, [unit; 2], 14);
    check_program("exp_m1", &PExpm1, [any; 2], 15);
    check_program("sqrt", &PSqrt, [pos; 2], 16);
    check_program("abs (negative)", &PAbs, [(-2.0, -0.1); 2], 17);
    check_program("abs (positive)", &PAbs, [(0.1, 2.0); 2], 18);
    check_program("abs2", &PAbs2, [any; 2], 19);
    check_program("inv", &PInv, [pos; 2], 20);
    check_program("powi 2", &PPowi2, [any; 2], 21);
    check_program("powi 3", &PPowi3, [any; 2], 22);
    check_program("powi 4", &PPowi4, [any; 2], 23);
    check_program("powi -1", &PPowim1, [pos; 2], 24);
    check_program("powi -2", &PPowim2, [(-2.0, -0.4); 2], 25);
}

#[test]
fn sqrt_at_zero_has_no_gradient() {
    // NiLang: `gradient(opm(sqrt), (1.0, 0.0); iloss=1)[2] == 0`
    let g = ad_grad(&PSqrt, [0.0, 0.0]);
    assert_eq!(g, [0.0, 0.0]);
}

// ---------------------------------------------------------------------------------------------
// Two-argument functions: every operand mix (gradient number with gradient number, with a
// literal, with a constant expression) in both directions.

#[i(rev = PAdd)]
fn p_add<T: Num>(y: &mut T, x: &mut [T; 4]) {
    y += x[0] + x[1];
    y -= x[2] + x[3];
    y += x[0] + 0.7;
    y -= cst!(T::lit(-1.3)) + x[1];
}
#[i(rev = PSub)]
fn p_sub<T: Num>(y: &mut T, x: &mut [T; 4]) {
    y += x[0] - x[1];
    y -= x[2] - x[3];
    y += x[0] - 0.7;
    y -= cst!(T::lit(-1.3)) - x[1];
}
#[i(rev = PMul)]
fn p_mul<T: Num>(y: &mut T, x: &mut [T; 4]) {
    y += x[0] * x[1];
    y -= x[2] * x[3];
    y += x[0] * 0.7;
    y -= cst!(T::lit(-1.3)) * x[1];
}
#[i(rev = PDiv)]
fn p_div<T: Num>(y: &mut T, x: &mut [T; 4]) {
    y += x[0] / x[1];
    y -= x[2] / x[3];
    y += x[0] / 0.7;
    y -= cst!(T::lit(-1.3)) / x[1];
}
#[i(rev = PPowf)]
fn p_powf<T: Num>(y: &mut T, x: &mut [T; 4]) {
    y += powf(x[0], x[1]);
    y -= x[2].powf(x[3]);
    y += powf(x[0], 2.5);
    y -= powf(cst!(T::lit(1.3)), x[1]);
}
#[i(rev = PAtan2)]
fn p_atan2<T: Num>(y: &mut T, x: &mut [T; 4]) {
    y += atan2(x[0], x[1]);
    y -= atan2(x[2], x[3]);
    y += atan2(x[0], 0.7);
    y -= atan2(cst!(T::lit(-1.3)), x[1]);
}
#[i(rev = PHypot)]
fn p_hypot<T: Num>(y: &mut T, x: &mut [T; 4]) {
    y += hypot(x[0], x[1]);
    y -= hypot(x[2], x[3]);
    y += hypot(x[0], 0.7);
    y -= hypot(cst!(T::lit(-1.3)), x[1]);
}
#[i(rev = PMin)]
fn p_min<T: Num>(y: &mut T, x: &mut [T; 4]) {
    y += min(x[0], x[1]);
    y -= min(x[2], x[3]);
    y += min(x[0], 0.1);
    y -= min(cst!(T::lit(-0.2)), x[1]);
}
#[i(rev = PMax)]
fn p_max<T: Num>(y: &mut T, x: &mut [T; 4]) {
    y += max(x[0], x[1]);
    y -= max(x[2], x[3]);
    y += max(x[0], 0.1);
    y -= max(cst!(T::lit(-0.2)), x[1]);
}
/// Operand mixes on the target side: a gradient-number target with plain-constant operands
/// only (no adjoint flows into constants) and an operand read twice.
#[i(rev = PMixed)]
fn p_mixed<T: Num>(y: &mut T, x: &mut [T; 2]) {
    y += cst!(T::lit(2.0)) * cst!(T::lit(0.5));
    y += x[0] * x[1];
    y -= sin(cst!(T::lit(0.3)));
    y += exp(x[1]);
    y -= abs2(x[0]);
}

#[test]
fn binary_rules() {
    let any = (-1.5, 1.5);
    let nz = (0.4, 2.0);
    check_program("add", &PAdd, [any; 4], 31);
    check_program("sub", &PSub, [any; 4], 32);
    check_program("mul", &PMul, [any; 4], 33);
    check_program("div", &PDiv, [any, nz, any, nz], 34);
    check_program("powf", &PPowf, [nz, any, nz, any], 35);
    check_program("atan2", &PAtan2, [any; 4], 36);
    check_program("hypot", &PHypot, [any; 4], 37);
    check_program("min", &PMin, [any; 4], 38);
    check_program("max", &PMax, [any; 4], 39);
    check_program("mixed operands", &PMixed, [any; 2], 40);
}

// ---------------------------------------------------------------------------------------------
// Tuple target and the primitive instructions.

#[i(rev = PSincos)]
fn p_sincos<T: Num>(y: &mut T, x: &mut [T; 5])
where
    (T, T): PlusEq1<SinCos, T>,
{
    (x[1], x[2]) += sincos(x[0]);
    (x[3], x[4]) -= sincos(x[1]);
    y += x[2] * x[4];
    y += x[1] * x[3];
}
#[i(rev = PSwap)]
fn p_swap<T: Num>(y: &mut T, x: &mut [T; 3]) {
    SWAP(&mut x[0], &mut x[1]);
    y += x[0] * x[2];
    y += exp(x[1]);
}
#[i(rev = PNegI)]
fn p_neg_instr<T: Num>(y: &mut T, x: &mut [T; 2]) {
    NEG(&mut x[0]);
    y += x[0] * x[1];
    y += sin(x[0]);
}
#[i(rev = PInvI)]
fn p_inv_instr<T: Num>(y: &mut T, x: &mut [T; 2]) {
    INV(&mut x[0]);
    y += x[0] * x[1];
    y += exp(x[0]);
}
#[i(rev = PRot)]
fn p_rot<T: Num>(y: &mut T, x: &mut [T; 3]) {
    ROT(&mut x[0], &mut x[1], &mut x[2]);
    y += x[0] * x[1];
    y += sin(x[0]);
    ROT(&mut x[0], &mut x[1], &mut cst!(T::lit(0.4)));
    y += x[1] * x[2];
}
#[i(rev = PIrot)]
fn p_irot<T: Num>(y: &mut T, x: &mut [T; 3]) {
    IROT(&mut x[0], &mut x[1], &mut x[2]);
    y += x[0] * x[1];
    y += cos(x[1]);
    IROT(&mut x[1], &mut x[0], &mut cst!(T::lit(-0.9)));
    y += x[0] * x[2];
}
#[i(rev = PHadamard)]
fn p_hadamard<T: Num>(y: &mut T, x: &mut [T; 2]) {
    HADAMARD(&mut x[0], &mut x[1]);
    y += x[0] * x[1];
    y += exp(x[0]);
}
#[i(rev = PIncDec)]
fn p_inc_dec<T: Num + Increment>(y: &mut T, x: &mut [T; 2]) {
    INC(&mut x[0]);
    DEC(&mut x[1]);
    DEC(&mut x[1]);
    y += x[0] * x[1];
    ADD_CONST(&mut x[0], T::lit(0.5));
    SUB_CONST(&mut x[1], T::lit(1.5));
    y += abs2(x[0]);
    y += x[1] * x[0];
}

#[test]
fn instructions() {
    let any = (-1.5, 1.5);
    check_program("sincos", &PSincos, [any; 5], 51);
    check_program("SWAP", &PSwap, [any; 3], 52);
    check_program("NEG", &PNegI, [any; 2], 53);
    check_program("INV", &PInvI, [(0.4, 2.0), any], 54);
    check_program("ROT", &PRot, [any; 3], 55);
    check_program("IROT", &PIrot, [any; 3], 56);
    check_program("HADAMARD", &PHadamard, [any; 2], 57);
    check_program("INC/DEC/ADD_CONST/SUB_CONST", &PIncDec, [any; 2], 58);
}

// ---------------------------------------------------------------------------------------------
// Second derivatives: reverse-over-reverse and forward-over-reverse against each other and
// against central differences of the AD gradient.

fn check_hessian<F, const K: usize>(name: &str, f: &F, x: [f64; K])
where
    F: for<'b> Reversible<(&'b mut f64, &'b mut [f64; K])>
        + for<'b> Reversible<(&'b mut GVar<f64>, &'b mut [GVar<f64>; K])>
        + for<'b> Reversible<(&'b mut GVar<Dual<f64>>, &'b mut [GVar<Dual<f64>>; K])>
        + for<'b> Reversible<(&'b mut GVar<GVar<f64>>, &'b mut [GVar<GVar<f64>>; K])>,
{
    let (mut y, mut xx) = (0.25, x);
    let hf = ad::hessian_fwd_rev::<F, (&mut f64, &mut [f64; K])>(f, (&mut y, &mut xx), 0, 1);
    let hr = ad::hessian_rev_rev::<F, (&mut f64, &mut [f64; K])>(f, (&mut y, &mut xx), 0, 1);
    assert!(close(&xx, &x));
    for i in 0..K {
        let h = 1e-5 * (1.0 + x[i].abs());
        let (mut xp, mut xm) = (x, x);
        xp[i] += h;
        xm[i] -= h;
        let (gp, gm) = (ad_grad(f, xp), ad_grad(f, xm));
        for j in 0..K {
            let fd = (gp[j] - gm[j]) / (2.0 * h);
            assert!(
                (hf[i][j] - hr[i][j]).abs() <= 1e-12 * (1.0 + hf[i][j].abs()),
                "{name}: H[{i}][{j}] fwd-rev {} vs rev-rev {}",
                hf[i][j],
                hr[i][j]
            );
            assert!(
                (hf[i][j] - fd).abs() <= 1e-6 * (1.0 + fd.abs()),
                "{name}: H[{i}][{j}] fwd-rev {} vs finite difference of the gradient {fd}",
                hf[i][j]
            );
        }
    }
}

#[test]
fn hessians_of_rules() {
    check_hessian("mul", &PMul, [0.3, -0.8, 1.1, 0.6]);
    check_hessian("div", &PDiv, [0.3, 0.8, 1.1, 0.6]);
    check_hessian("powf", &PPowf, [0.7, -0.4, 1.3, 0.9]);
    check_hessian("atan2", &PAtan2, [0.7, -0.4, 1.3, 0.9]);
    check_hessian("hypot", &PHypot, [0.7, -0.4, 1.3, 0.9]);
    check_hessian("sin", &PSin, [0.7, -0.4]);
    check_hessian("tan", &PTan, [0.7, -0.4]);
    check_hessian("asin", &PAsin, [0.7, -0.4]);
    check_hessian("tanh", &PTanh, [0.7, -0.4]);
    check_hessian("sqrt", &PSqrt, [0.7, 1.4]);
    check_hessian("ln", &PLn, [0.7, 1.4]);
    check_hessian("powi 3", &PPowi3, [0.7, -1.4]);
    check_hessian("powi -2", &PPowim2, [0.7, -1.4]);
    check_hessian("inv", &PInv, [0.7, -1.4]);
    check_hessian("sincos", &PSincos, [0.7, -0.4, 1.3, 0.9, -1.1]);
    check_hessian("ROT", &PRot, [0.7, -0.4, 1.3]);
    check_hessian("IROT", &PIrot, [0.7, -0.4, 1.3]);
    check_hessian("HADAMARD", &PHadamard, [0.7, -0.4]);
    check_hessian("INV", &PInvI, [0.7, -0.4]);
    check_hessian("NEG", &PNegI, [0.7, -0.4]);
}

// ---------------------------------------------------------------------------------------------
// Jacobians: the dot-product test `<J u, w> = <u, Jᵀ w>`, with `J u` by forward mode (dual
// numbers) and `Jᵀ w` from the reverse-mode Jacobians (one pass with lanes, and one pass per
// output).

#[i(rev = JRotChain)]
fn j_rot_chain<T: Num>(out: &mut [T; 3], x: &mut [T; 4]) {
    ROT(&mut x[0], &mut x[1], &mut x[3]);
    ROT(&mut x[1], &mut x[2], &mut x[0]);
    IROT(&mut x[2], &mut x[0], &mut cst!(T::lit(0.7)));
    HADAMARD(&mut x[0], &mut x[2]);
    out[0] += x[0] * x[1];
    out[1] += sin(x[2]);
    out[2] += x[3] / x[1];
    ROT(&mut out[0], &mut out[2], &mut x[3]);
    HADAMARD(&mut out[1], &mut out[2]);
}
#[i(rev = JInPlace)]
fn j_in_place<T: Num>(x: &mut [T; 4]) {
    for i in 0..3 {
        ROT(
            &mut x[i],
            &mut x[i + 1],
            &mut cst!(T::lit(0.3 * (i as f64) + 0.2)),
        );
        HADAMARD(&mut x[i], &mut x[i + 1]);
    }
    ROT(&mut x[0], &mut x[3], &mut x[1]);
    NEG(&mut x[2]);
}
#[i(rev = JElem)]
fn j_elem<T: Num>(out: &mut [T; 4], x: &mut [T; 4]) {
    for i in 0..4 {
        out[i] += exp(x[i]);
        out[i] += x[i] * x[(i + 1) % 4];
    }
    out[0] += atan2(x[1], x[2]);
    out[3] += hypot(x[0], x[3]);
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// `J u` by forward mode: `f` run on dual numbers.
fn jvp<F, const M: usize, const K: usize>(
    f: &F,
    out: [f64; M],
    x: [f64; K],
    u: [f64; K],
) -> Vec<f64>
where
    F: for<'b> Reversible<(&'b mut [Dual<f64>; M], &'b mut [Dual<f64>; K])>,
{
    let mut o = out.map(|v| Dual::new(v, 0.0));
    let mut xx: [Dual<f64>; K] = core::array::from_fn(|k| Dual::new(x[k], u[k]));
    f.call((&mut o, &mut xx));
    o.iter().map(|v| v.eps).collect()
}

fn transpose_apply(j: &[Vec<f64>], w: &[f64]) -> Vec<f64> {
    (0..j[0].len())
        .map(|i| j.iter().zip(w).map(|(row, wj)| row[i] * wj).sum())
        .collect()
}

fn dot_test<F, const M: usize, const K: usize>(name: &str, f: &F, seed: u64)
where
    F: for<'b> Reversible<(&'b mut [f64; M], &'b mut [f64; K])>
        + for<'b> Reversible<(&'b mut [GVar<f64>; M], &'b mut [GVar<f64>; K])>
        + for<'b> Reversible<(
            &'b mut [GVar<ad::Lanes<M>>; M],
            &'b mut [GVar<ad::Lanes<M>>; K],
        )> + for<'b> Reversible<(&'b mut [Dual<f64>; M], &'b mut [Dual<f64>; K])>,
{
    let mut rng = Rng(seed);
    for _ in 0..3 {
        let out: [f64; M] = core::array::from_fn(|_| rng.uniform(-1.0, 1.0));
        let x: [f64; K] = core::array::from_fn(|_| rng.uniform(-1.0, 1.0));
        let u: [f64; K] = core::array::from_fn(|_| rng.uniform(-1.0, 1.0));
        let w: [f64; M] = core::array::from_fn(|_| rng.uniform(-1.0, 1.0));
        let (mut o, mut xx) = (out, x);
        let j1 = ad::jacobian::<F, (&mut [f64; M], &mut [f64; K]), M>(f, (&mut o, &mut xx), 1, 0);
        let j2 = ad::jacobian_repeat::<F, (&mut [f64; M], &mut [f64; K]), f64>(
            f,
            (&mut o, &mut xx),
            1,
            0,
        );
        assert!(close(&o, &out) && close(&xx, &x));
        let ju = jvp(f, out, x, u);
        let lhs = dot(&ju, &w);
        for (which, j) in [("lanes", &j1), ("repeat", &j2)] {
            let rhs = dot(&u, &transpose_apply(j, &w));
            let rel = (lhs - rhs).abs() / lhs.abs().max(rhs.abs());
            assert!(
                rel <= 1e-12,
                "{name} ({which}): <J u, w> = {lhs} vs <u, J^T w> = {rhs} (relative {rel:e})"
            );
        }
    }
}

#[i(rev = JInPlaceWrap)]
fn j_in_place_wrap<T: Num>(out: &mut [T; 4], x: &mut [T; 4]) {
    j_in_place(x);
    for i in 0..4 {
        out[i] += x[i];
    }
}

#[test]
fn jacobian_dot_product_tests() {
    dot_test("ROT chain + HADAMARD", &JRotChain, 71);
    dot_test("elementwise", &JElem, 72);
    dot_test("in-place rotations", &JInPlaceWrap, 73);
}

#[test]
fn jacobian_of_in_place_program() {
    // the Jacobian of an in-place orthogonal transform is orthogonal (up to the angle input)
    let x0 = [0.3, -0.2, 0.9, 0.5];
    let mut x = x0;
    let j1 = ad::jacobian::<_, _, 4>(&JInPlace, (&mut x,), 0, 0);
    let j2 = ad::jacobian_repeat(&JInPlace, (&mut x,), 0, 0);
    assert!(close(&x, &x0));
    for r in 0..4 {
        for c in 0..4 {
            assert!((j1[r][c] - j2[r][c]).abs() < 1e-14);
        }
    }
}

/// `y += convert(x)` between float and fixed point: value converted, adjoint converted back,
/// and the gradient program inverts.
#[test]
fn convert_float_fixed_gradients() {
    use nilang::Fixed43;
    #[i]
    fn to_float(y: &mut GVar<f64>, x: &mut GVar<Fixed43>) {
        y += convert(x);
    }
    #[i]
    fn to_fixed(y: &mut GVar<Fixed43>, x: &mut GVar<f64>) {
        y += convert(x);
    }
    // backward pass of y += convert(x) with ȳ = 1.5
    let (mut y, mut x) = (GVar::new(0.75, 1.5), GVar::from(Fixed43::from_num(0.5)));
    to_float_inv(&mut y, &mut x);
    assert_eq!((y.x, x.g), (0.25, Fixed43::from_num(1.5)));
    to_float(&mut y, &mut x);
    assert_eq!((y.x, y.g, x.g), (0.75, 1.5, Fixed43::ZERO));
    let (mut y, mut x) = (
        GVar::new(Fixed43::from_num(1), Fixed43::from_num(2)),
        GVar::from(0.25),
    );
    to_fixed_inv(&mut y, &mut x);
    assert_eq!((y.x, x.g), (Fixed43::from_num(0.75), 2.0));
    // a finite-difference check through f64 -> fixed -> f64
    #[i]
    fn roundtrip(y: &mut GVar<f64>, x: &mut GVar<f64>) {
        let t = GVar::<Fixed43>::default();
        t += convert(x);
        y += convert(t);
        t -= convert(x);
        dealloc!(t = GVar::<Fixed43>::default());
    }
    let (mut y, mut x) = (GVar::new(0.0, 1.0), GVar::from(0.3));
    roundtrip(&mut y, &mut x);
    y.g = 1.0;
    x.g = 0.0;
    roundtrip_inv(&mut y, &mut x);
    assert!((x.g - 1.0).abs() < 1e-12 && y.x == 0.0);
}
