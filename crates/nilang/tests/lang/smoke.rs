use nilang::prelude::*;

#[i]
fn norm(res: &mut f64, y: &mut f64, x: &[f64]) {
    for i in 0..x.len() {
        y += x[i].powi(2);
    }
    res += y.sqrt();
}

#[test]
fn norm_forward_inverse() {
    let (mut res, mut y, x) = (0.0, 0.0, vec![1.0, 2.0, 3.0]);
    norm(&mut res, &mut y, &x);
    assert_eq!(res, 3.7416573867739413);
    assert_eq!(y, 14.0);
    norm_inv(&mut res, &mut y, &x);
    assert_eq!((res, y), (0.0, 0.0));
}
