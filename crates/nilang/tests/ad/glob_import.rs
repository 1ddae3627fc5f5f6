//! `use nilang::ad::*;` brings no trait whose methods take over the names of ordinary methods:
//! `.get(i)` and `.len()` on a slice and `.value()` on a gradient number keep their meaning.
use nilang::ad::*;
use nilang::prelude::*;

/// A helper a user writes next to their gradient code.
fn second_or_zero(v: &mut [f64]) -> (Option<f64>, usize, bool) {
    (v.get(1).copied(), v.len(), v.is_empty())
}

#[test]
fn slice_methods_keep_their_meaning() {
    let mut data = [1.5, 2.5, 3.5];
    let v: &mut [f64] = &mut data[..];
    assert_eq!(v.get(1), Some(&2.5));
    assert_eq!(v.get(7), None);
    assert_eq!((v.len(), v.is_empty()), (3, false));
    assert_eq!(second_or_zero(v), (Some(2.5), 3, false));
    assert_eq!(second_or_zero(&mut []), (None, 0, true));
    let mut gs = [GVar::new(1.0, 0.5), GVar::new(2.0, 0.25)];
    let g: &mut [GVar<f64>] = &mut gs[..];
    assert_eq!(g.get(1), Some(&GVar::new(2.0, 0.25)));
    assert_eq!(g.len(), 2);
    // a gradient number's value is the `f64` of `Value`
    let x = GVar::new(2.0, 0.5);
    assert_eq!(x.value(), 2.0);
    // the gradient API from the glob still works
    let (mut y, mut z) = (0.0, 3.0);
    let (gy, gz) = gradient(&Square, (&mut y, &mut z), 0);
    assert_eq!((gy.g, gz.g), (1.0, 6.0));
}

#[i]
fn square<T: Scalar>(y: &mut T, z: &mut T) {
    y += z.powi(2);
}
