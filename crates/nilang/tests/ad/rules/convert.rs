//! Conversions between float and fixed point.
use nilang::prelude::*;

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
