//! The README's code compiles, runs and inverts (keep in sync with README.md).
use nilang::prelude::*;

#[i] // generates norm, norm_inv and `Norm: Reversible`
fn norm<T: Scalar>(res: &mut T, y: &mut T, x: &mut [T]) {
    for i in 0..x.len() {
        // loops: bounds checked unchanged
        y += x[i].powi(2); // instructions: += -= ^= (*= /= for log numbers)
    }
    res += y.sqrt();
}

#[i]
fn demo<T: Ordered>(out: &mut T, a: &mut T, b: &mut T, st: &mut Vec<T>) {
    routine! {                                  // compute ...
        let t = T::default();                   // ancilla from a constant (checked at dealloc)
        t += a * b;
    }
    out += exp(t); // ... copy ...
    unroutine!(); // ... uncompute: t -= a * b; dealloc!(t = 0)
    if (a.value() > 0.0, _) {
        // (pre, post) condition; `_`: post = pre
        NEG(b); // instructions: SWAP NEG INV ROT HADAMARD ...
    } else {
        b += 1.0;
    }
    let k = 0i64;
    #[from(k == 0)] // NiLang's @from: loop until k returns to 0
    while k < 3 {
        k += 1;
        out += a;
    }
    dealloc!(k = 3i64);
    copy_push!(st, a); // typed stacks
    inv! { norm(out, a, st) } // the inverse of any block; reversible calls
    safe! { println!("a = {:?}", a); } // irreversible side effects only
}

#[test]
fn readme_demo_runs_forward_and_backward() {
    let (mut out, mut a, mut b, mut st) = (0.0, 0.5, 2.0, vec![1.0, 2.0]);
    demo(&mut out, &mut a, &mut b, &mut st);
    assert_eq!(b, -2.0);
    assert_eq!(st.len(), 3);
    demo_inv(&mut out, &mut a, &mut b, &mut st);
    assert!(out.abs() < 1e-12 && (a - 0.5).abs() < 1e-12);
    assert_eq!((b, st), (2.0, vec![1.0, 2.0]));
    let (mut res, mut y, mut x) = (0.0, 0.0, vec![1.0, 2.0, 3.0]);
    let (_, _, gx) = nilang::gradient(&Norm, (&mut res, &mut y, &mut x[..]), 0);
    assert!((gx[0].g - 1.0 / 14f64.sqrt()).abs() < 1e-15);
}
