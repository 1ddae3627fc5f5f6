//! Complex AD: `Complex<GVar<f64>>` carries one adjoint per part. Gradients of every complex
//! instruction against central differences of the real and imaginary parts, reversibility of
//! the gradient program, and NiLang's complex-struct case (inventory case 33).
use nilang::ad::ComplexOps;
use nilang::instr::{
    fns::{Abs, Abs2},
    PlusEq1,
};
use nilang::prelude::*;
use num_complex::Complex;

type C = Complex<f64>;
type GC = Complex<GVar<f64>>;

fn c(re: f64, im: f64) -> C {
    Complex::new(re, im)
}
fn gc(v: C) -> GC {
    Complex::new(GVar::from(v.re), GVar::from(v.im))
}

/// Every complex instruction into a complex target, with complex and real operands.
#[i]
fn cprog<C: ComplexOps<R>, R>(y: &mut C, z: &mut [C; 2], x: &mut R) {
    y += z[0] * z[1];
    y -= z[0] / z[1];
    y += exp(z[0]);
    y -= ln(z[1]);
    y += conj(z[0]);
    y -= -z[1];
    y += identity(z[1]);
    y += z[0] + z[1];
    y -= z[0] - z[1];
    y += z[0] * x;
    y -= x / z[1];
    y += x - z[0];
}

/// `abs` and `abs2` of complex numbers into a real target.
#[i]
fn rprog<C: Copy, R: Scalar>(r: &mut R, z: &mut [C; 2], x: &mut R)
where
    R: PlusEq1<Abs, C> + PlusEq1<Abs2, C>,
{
    r += abs(z[0]);
    r -= abs2(z[1]);
    r += abs2(x);
}

/// The adjoints `gz` of both parts of both `z` against central differences of `loss` at `z0`.
fn check_z_gradients(gz: &[GC; 2], z0: [C; 2], loss: impl Fn([C; 2]) -> f64) {
    let h = 1e-6;
    for k in 0..2 {
        for part in 0..2 {
            let (mut zp, mut zm) = (z0, z0);
            let d = if part == 0 { c(h, 0.0) } else { c(0.0, h) };
            zp[k] += d;
            zm[k] -= d;
            let fd = (loss(zp) - loss(zm)) / (2.0 * h);
            let ad = if part == 0 { gz[k].re.g } else { gz[k].im.g };
            assert!(
                (ad - fd).abs() < 1e-7 * (1.0 + fd.abs()),
                "z{k} part {part}: {ad} vs {fd}"
            );
        }
    }
}

fn cprog_loss(z: [C; 2], x: f64, w: C) -> f64 {
    let (mut y, mut zz, mut xx) = (c(0.3, -0.2), z, x);
    cprog(&mut y, &mut zz, &mut xx);
    w.re * y.re + w.im * y.im
}

#[test]
fn complex_instruction_gradients() {
    let z0 = [c(0.7, -0.4), c(-1.1, 0.6)];
    let x0 = 0.8;
    let w = c(0.9, -1.7); // L = Re(conj(w) y) = w.re Re y + w.im Im y
                          // forward on plain numbers, then the inverse on gradient numbers with ∂L/∂y = w
    let (mut y, mut z, mut x) = (c(0.3, -0.2), z0, x0);
    cprog(&mut y, &mut z, &mut x);
    let mut gy = Complex::new(GVar::new(y.re, w.re), GVar::new(y.im, w.im));
    let mut gz = z.map(gc);
    let mut gx = GVar::from(x);
    cprog_inv(&mut gy, &mut gz, &mut gx);
    assert!((gy.re.x - 0.3).abs() < 1e-14 && (gy.im.x + 0.2).abs() < 1e-14);
    check_z_gradients(&gz, z0, |z| cprog_loss(z, x0, w));
    let h = 1e-6;
    let fd = (cprog_loss(z0, x0 + h, w) - cprog_loss(z0, x0 - h, w)) / (2.0 * h);
    assert!(
        (gx.g - fd).abs() < 1e-7 * (1.0 + fd.abs()),
        "x: {} vs {fd}",
        gx.g
    );
    // the gradient program is reversible: running it forward again erases the gradients
    cprog(&mut gy, &mut gz, &mut gx);
    assert!((gy.re.g - w.re).abs() < 1e-14 && (gy.im.g - w.im).abs() < 1e-14);
    for v in gz {
        assert!(v.re.g.abs() < 1e-13 && v.im.g.abs() < 1e-13, "{v:?}");
    }
    assert!(gx.g.abs() < 1e-13);
}

#[test]
fn complex_to_real_gradients() {
    let (z0, x0) = ([c(0.7, -0.4), c(-1.1, 0.6)], 0.8);
    let loss = |z: [C; 2], x: f64| {
        let (mut r, mut zz, mut xx) = (0.1, z, x);
        rprog(&mut r, &mut zz, &mut xx);
        r
    };
    let (mut r, mut z, mut x) = (0.1, z0, x0);
    rprog(&mut r, &mut z, &mut x);
    let (mut gr, mut gz, mut gx) = (GVar::new(r, 1.0), z.map(gc), GVar::from(x));
    rprog_inv(&mut gr, &mut gz, &mut gx);
    check_z_gradients(&gz, z0, |z| loss(z, x0));
    // exact: ∂|z|/∂re = re/|z|, ∂|z|²/∂im = 2 im
    assert!((gz[0].re.g - 0.7 / 0.65_f64.sqrt()).abs() < 1e-15);
    assert!((gz[1].im.g + 1.2).abs() < 1e-15);
    assert!((gx.g - 1.6).abs() < 1e-15);
}

/// NiLang's GVar docstring example (inventory case 33): a struct holding a complex number.
#[derive(Clone, Copy, Debug, Default)]
struct A<T> {
    x: Complex<T>,
}

#[i]
fn f33<T>(a: &mut A<T>, b: &mut A<T>)
where
    Complex<T>: ComplexOps<T>,
{
    a.x += ln(b.x);
}

#[test]
fn complex_struct_case_33() {
    let (mut a, mut b) = (A { x: c(2.0, 3.0) }, A { x: c(2.0, -1.0) });
    f33(&mut a, &mut b);
    assert!((a.x - c(2.8047189562170503, 2.536352390999194)).norm() < 1e-15);
    assert_eq!(b.x, c(2.0, -1.0));
    // wrap the outputs with gradient 3 + 3i and run the inverse
    let mut ga = A {
        x: Complex::new(GVar::new(a.x.re, 3.0), GVar::new(a.x.im, 3.0)),
    };
    let mut gb = A { x: gc(b.x) };
    f33_inv(&mut ga, &mut gb);
    assert_eq!((ga.x.re.g, ga.x.im.g), (3.0, 3.0));
    assert!((gb.x.re.g - 1.8).abs() < 1e-15 && (gb.x.im.g - 0.6).abs() < 1e-15);
    assert!((ga.x.re.x - 2.0).abs() < 1e-15 && (ga.x.im.x - 3.0).abs() < 1e-15);
}

/// The complex product is one instruction with a pairwise rule: `y -= a·b` on gradient numbers
/// moves `ā += ȳ·conj(b)`, `b̄ += ȳ·conj(a)` (against central differences), its inverse
/// `y += a·b` restores values and adjoints, and the adjoint-only variant (the target's value
/// never read again) moves the same adjoints, bit for bit, leaving the value.
#[test]
fn complex_product_rule_pairwise() {
    use nilang::instr::{fns::Mul, PlusEq2};
    let (a0, b0, w) = (c(0.7, -0.4), c(-1.1, 0.6), c(0.9, -1.7));
    let y0 = c(0.3, -0.2);
    let seeded = |v: C| Complex::new(GVar::new(v.re, w.re), GVar::new(v.im, w.im));
    let (mut gy, mut ga, mut gb) = (seeded(y0 + a0 * b0), gc(a0), gc(b0));
    PlusEq2::<Mul, _, _>::minus_eq(&mut gy, &mut ga, &mut gb);
    assert!((c(gy.re.x, gy.im.x) - y0).norm() < 1e-15);
    // L = Re(conj(w) (y0 + a b)) = w.re Re(ab) + w.im Im(ab)
    let loss = |z: [C; 2]| {
        let p = z[0] * z[1];
        w.re * p.re + w.im * p.im
    };
    check_z_gradients(&[ga, gb], [a0, b0], loss);
    // exact: ā = w conj(b), b̄ = w conj(a)
    let (ea, eb) = (w * b0.conj(), w * a0.conj());
    assert!((c(ga.re.g, ga.im.g) - ea).norm() < 1e-15);
    assert!((c(gb.re.g, gb.im.g) - eb).norm() < 1e-15);
    // the inverse restores the value and erases the adjoints
    PlusEq2::<Mul, _, _>::plus_eq(&mut gy, &mut ga, &mut gb);
    assert!((c(gy.re.x, gy.im.x) - (y0 + a0 * b0)).norm() < 1e-15);
    assert_eq!((gy.re.g, gy.im.g), (w.re, w.im));
    for v in [ga, gb] {
        assert!(v.re.g.abs() < 1e-15 && v.im.g.abs() < 1e-15, "{v:?}");
    }
    // adjoint-only: the same adjoints, the value untouched; `+=` undoes them
    let (mut fy, mut fa, mut fb) = (seeded(y0 + a0 * b0), gc(a0), gc(b0));
    PlusEq2::<Mul, _, _>::minus_eq(&mut fy, &mut fa, &mut fb);
    let (mut dy, mut da, mut db) = (seeded(y0 + a0 * b0), gc(a0), gc(b0));
    PlusEq2::<Mul, _, _>::minus_eq_adjoint(&mut dy, &mut da, &mut db);
    assert_eq!((da, db), (fa, fb));
    assert_eq!(dy, seeded(y0 + a0 * b0));
    PlusEq2::<Mul, _, _>::plus_eq_adjoint(&mut dy, &mut da, &mut db);
    assert_eq!((da, db), (gc(a0), gc(b0)));
    // a constant operand (plain complex) keeps its value
    let (mut ky, mut ka, mut kb) = (seeded(y0 + a0 * b0), gc(a0), b0);
    PlusEq2::<Mul, _, _>::minus_eq(&mut ky, &mut ka, &mut kb);
    assert_eq!(kb, b0);
    assert!((c(ka.re.g, ka.im.g) - ea).norm() < 1e-15);
}

/// Second order: over `GVar<GVar<f64>>` the product's rule runs whole (the adjoint-only
/// variant too), so forward-over-reverse sees the value update.
#[test]
fn complex_product_rule_second_order() {
    use nilang::instr::{fns::Mul, PlusEq2};
    type G2 = GVar<GVar<f64>>;
    let g2 = |x: f64, g: f64| G2::new(GVar::from(x), GVar::from(g));
    let (mut y, mut a, mut b) = (
        Complex::new(g2(1.0, 1.0), g2(2.0, 0.0)),
        Complex::new(g2(0.5, 0.0), g2(-0.3, 0.0)),
        Complex::new(g2(1.5, 0.0), g2(0.2, 0.0)),
    );
    PlusEq2::<Mul, _, _>::minus_eq_adjoint(&mut y, &mut a, &mut b);
    // y -= a b: Re(ab) = 0.75 + 0.06 = 0.81, Im(ab) = 0.1 - 0.45 = -0.35
    assert!((y.re.x.x - 0.19).abs() < 1e-15 && (y.im.x.x - 2.35).abs() < 1e-15);
    // ā = ȳ conj(b) = 1.5 - 0.2i
    assert!((a.re.g.x - 1.5).abs() < 1e-15 && (a.im.g.x + 0.2).abs() < 1e-15);
}

/// `y[0] += Σ a_k b_k` on complex slices.
#[i]
fn dotc<T: Scalar>(y: &mut [Complex<T>], a: &mut [Complex<T>], b: &mut [Complex<T>])
where
    Complex<T>: ComplexOps<T>,
{
    for i in 0..a.len() {
        y[0] += a[i] * b[i];
    }
}

/// A complex slice as an argument of the gradient API: a plan's vector–Jacobian product
/// (slots `[re, im, ..]`), its storage reused by a second call, and the caller's arguments
/// unchanged.
#[test]
fn complex_slices_in_a_plan() {
    let (mut a, mut b) = ([c(1.0, 2.0), c(-0.5, 0.3)], [c(3.0, 4.0), c(0.25, -2.0)]);
    let mut plan = nilang::ad::Plan::new();
    for _ in 0..2 {
        let mut y = [c(0.0, 0.0)];
        // L = Re y + 2 Im y: ȳ = 1 + 2i, ā_k = ȳ conj(b_k)
        let st = plan.vjp(&Dotc, (&mut y[..], &mut a[..], &mut b[..]), 0, &[1.0, 2.0]);
        let yb = c(1.0, 2.0);
        for k in 0..2 {
            assert_eq!(c(st.1[k].re.g, st.1[k].im.g), yb * b[k].conj());
            assert_eq!(c(st.2[k].re.g, st.2[k].im.g), yb * a[k].conj());
        }
        assert_eq!(y, [c(0.0, 0.0)]);
    }
    assert_eq!(
        (a, b),
        ([c(1.0, 2.0), c(-0.5, 0.3)], [c(3.0, 4.0), c(0.25, -2.0)])
    );
    // a seed of the wrong length is refused before anything runs
    let r = std::panic::catch_unwind(move || {
        let mut y = [c(0.0, 0.0)];
        let mut plan = nilang::ad::Plan::new();
        plan.vjp(&Dotc, (&mut y[..], &mut a[..], &mut b[..]), 0, &[1.0]);
    });
    assert!(r.is_err());
}

/// A plan's refresh of complex storage (the parts lifted in one stream: on `f64` the vector
/// path of the CPU) writes what a fresh lift writes, bit for bit (signed zeros included),
/// for lengths around the vector widths, whatever the storage held before.
#[test]
fn complex_refresh_writes_the_bits_of_a_fresh_lift() {
    use nilang::ad::GradArg;
    let bits = |v: &GC| [v.re.x, v.re.g, v.im.x, v.im.g].map(f64::to_bits);
    for n in [0, 1, 2, 3, 4, 5, 8, 9, 17] {
        let mut z: Vec<C> = (0..n)
            .map(|k| match k % 3 {
                0 => c(-0.0, k as f64 + 0.5),
                1 => c(k as f64 * -1.25, 0.0),
                _ => c(f64::MIN_POSITIVE, -(k as f64)),
            })
            .collect();
        let arg: &mut [C] = &mut z;
        let fresh = <&mut [C] as GradArg<f64>>::store::<f64>(&arg);
        let mut st = vec![Complex::new(GVar::new(9.0, -3.0), GVar::new(-0.0, 7.0)); n];
        <&mut [C] as GradArg<f64>>::refresh::<f64>(&arg, &mut st);
        assert_eq!(st.len(), n);
        for (k, (s, f)) in st.iter().zip(&fresh).enumerate() {
            assert_eq!(bits(s), bits(f), "n = {n}, number {k}");
            assert_eq!(bits(s)[1], 0.0f64.to_bits());
        }
    }
}
