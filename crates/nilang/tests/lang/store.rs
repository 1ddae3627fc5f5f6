//! `#[store] routine! { ... }` (split reversal: the routine's results go on the store tape)
//! against the default joint reversal (uncompute, recompute): the same values, the same
//! gradients, and the tape's memory.
use nilang::check::{catch, ErrorKind};
use nilang::prelude::*;

const N: usize = 16;

/// A smoothing step `$smooth` and a loss `$loss` over two smoothing steps through an array
/// ancilla, written once for both reversal modes: without `#[store]` joint mode (the routine is
/// uncomputed at `unroutine!()` and recomputed backwards), with it split mode (the routine's
/// results stored for the backward pass). The split loss calls the split step from a
/// joint-mode routine (the tape stays balanced through nesting).
macro_rules! smoothing {
    ($smooth:ident, $loss:ident $(, #[$store:ident])?) => {
        #[i]
        fn $smooth<T: Scalar, const M: usize>(dest: &mut [T; M], src: &mut [T; M]) {
            for i in 0..M {
                $(#[$store])?
                routine! {
                    let (cum, g) = (T::default(), T::default());
                    cum += src[(i + 1) % M] + src[(i + M - 1) % M];
                    cum -= src[i] * 2.0;
                    g += sin(cum);
                }
                dest[i] += src[i];
                dest[i] += g * 0.1;
                unroutine!();
            }
        }

        #[i]
        fn $loss<T: Scalar, const M: usize>(out: &mut T, x: &mut [T; M]) {
            $(#[$store])?
            routine! {
                let y = [T::default(); M];
                $smooth(&mut y, x);
            }
            routine! {
                let z = [T::default(); M];
                $smooth(&mut z, &mut y);
            }
            for i in 0..M {
                out += z[i].powi(2);
            }
            unroutine!();
            unroutine!();
        }
    };
}
smoothing!(smooth_joint, loss_joint);
smoothing!(smooth_split, loss_split, #[store]);

/// A stored routine with a nested (joint) routine inside: only the outer ancilla is stored.
#[i]
fn nested_split<T: Scalar>(y: &mut T, x: &mut T) {
    #[store]
    routine! {
        let a = T::default();
        routine! {
            let t = T::default();
            t += exp(x);
        }
        a += t * x;
        unroutine!();
    }
    y += sin(a);
    unroutine!();
}

fn input() -> [f64; N] {
    core::array::from_fn(|i| (i as f64 * 0.7).sin() + 0.1 * i as f64)
}

#[test]
fn split_and_joint_compute_the_same_and_invert() {
    nilang::tape::clear();
    let (mut a, mut x) = ([0.0; N], input());
    SmoothJoint.call((&mut a, &mut x));
    let (mut b, mut x2) = ([0.0; N], input());
    SmoothSplit.call((&mut b, &mut x2));
    assert_eq!(a, b);
    // the forward run left two numbers per cell on the tape...
    let s = nilang::tape::stats();
    assert_eq!((s.len, s.pushes), (2 * N, 2 * N));
    assert!(s.bytes > 0 && s.peak_bytes == s.bytes);
    // ...which the inverse takes back
    SmoothSplit.uncall((&mut b, &mut x2));
    assert_eq!(b, [0.0; N]);
    assert_eq!(x2, input());
    assert_eq!(nilang::tape::stats().len, 0);
    assert_eq!(nilang::tape::stats().bytes, 0);
}

#[test]
fn split_and_joint_give_identical_gradients() {
    nilang::tape::clear();
    let (mut o, mut x) = (0.0, input());
    let gj = nilang::gradient(&LossJoint, (&mut o, &mut x), 0);
    nilang::tape::reset_peak();
    let (mut o2, mut x2) = (0.0, input());
    let gs = nilang::gradient(&LossSplit, (&mut o2, &mut x2), 0);
    let (gj, gs): (Vec<f64>, Vec<f64>) = (
        gj.1.iter().map(|v| v.g).collect(),
        gs.1.iter().map(|v| v.g).collect(),
    );
    assert_eq!(gj, gs);
    assert!(gj.iter().any(|v| v.abs() > 0.1));
    assert!(o2.abs() < 1e-12 && x2 == input());
    // the tape is empty again. Forward: both calls push 2N numbers, the joint routine's
    // uncompute pops its call's, the stored routine pushes y (N); backward: y comes back, the
    // joint routine's recompute pushes 2N (gradient numbers) and pops them, the first call's
    // inverse pops its 2N. At the peak 4N numbers (at least 24 bytes each) were held.
    let s = nilang::tape::stats();
    assert_eq!(s.len, 0);
    assert_eq!(s.pushes, 7 * N);
    assert!(s.peak_bytes >= 4 * N * 24, "{s:?}");
    // finite differences agree too
    let f = |x: [f64; N]| {
        let (mut o, mut x) = (0.0, x);
        LossJoint.call((&mut o, &mut x));
        o
    };
    for k in [0, 5, N - 1] {
        let (mut p, mut m) = (input(), input());
        p[k] += 1e-6;
        m[k] -= 1e-6;
        let fd = (f(p) - f(m)) / 2e-6;
        assert!((gs[k] - fd).abs() < 1e-6, "{k}: {} vs {fd}", gs[k]);
    }
}

#[test]
fn inverse_without_forward_is_a_stack_error() {
    nilang::tape::clear();
    let (mut b, mut x) = ([0.0; N], input());
    let e = catch(|| SmoothSplit.uncall((&mut b, &mut x))).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Stack);
    assert!(e.detail.contains("store tape is empty"), "{}", e.detail);
}

#[test]
fn a_nested_routine_is_uncomputed_and_only_the_result_stored() {
    nilang::tape::clear();
    let (mut y, mut x) = (0.0, 0.3);
    NestedSplit.call((&mut y, &mut x));
    assert!((y - (0.3f64.exp() * 0.3).sin()).abs() < 1e-15);
    assert_eq!(nilang::tape::stats().len, 1);
    NestedSplit.uncall((&mut y, &mut x));
    assert_eq!((y, x, nilang::tape::stats().len), (0.0, 0.3, 0));
    let g = nilang::gradient(&NestedSplit, (&mut 0.0, &mut 0.3), 0);
    let a = 0.3f64.exp() * 0.3;
    let want = a.cos() * (0.3f64.exp() * 0.3 + 0.3f64.exp());
    assert!((g.1.g - want).abs() < 1e-14, "{} vs {want}", g.1.g);
}

#[test]
fn a_store_routine_needs_the_forward_pass() {
    // the joint version is compute–copy–uncompute (one reverse pass); the split version keeps
    // its routine's results on the tape, which only the forward pass fills
    assert_eq!(loss_joint::ADDITIVE, 0b1);
    assert_eq!(loss_split::ADDITIVE, 0);
}
