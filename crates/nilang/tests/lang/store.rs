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

/// A routine of a few additions and multiplications (`$step`, with the loss `$loss` over it):
/// `#[store]` recomputes it (joint mode), `#[store(always)]` stores it.
macro_rules! stencil {
    ($step:ident, $loss:ident, #[$($store:tt)*]) => {
        #[i]
        fn $step<T: Scalar, const M: usize>(dest: &mut [T; M], src: &mut [T; M]) {
            for i in 1..M - 1 {
                #[$($store)*]
                routine! {
                    let (lap, sq) = (T::default(), T::default());
                    lap += src[i + 1] + src[i - 1];
                    lap -= src[i] * 2.0;
                    sq += src[i].powi(2);
                }
                dest[i] += src[i];
                dest[i] += lap * sq;
                unroutine!();
            }
        }

        #[i]
        fn $loss<T: Scalar, const M: usize>(out: &mut T, x: &mut [T; M]) {
            routine! {
                let y = [T::default(); M];
                $step(&mut y, x);
            }
            for i in 0..M {
                out += y[i].powi(2);
            }
            unroutine!();
        }
    };
}
stencil!(stencil_cheap, stencil_cheap_loss, #[store]);
stencil!(stencil_always, stencil_always_loss, #[store(always)]);

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
    let (mut o, mut x) = (0.0, input());
    let gj = nilang::gradient(&LossJoint, (&mut o, &mut x), 0);
    let (mut o2, mut x2) = (0.0, input());
    let mut plan = nilang::ad::Plan::new();
    let (_, gs) = plan.value_and_gradient(&LossSplit, (&mut o2, &mut x2), 0);
    let (gj, gs): (Vec<f64>, Vec<f64>) = (
        gj.1.iter().map(|v| v.g).collect(),
        gs.1.iter().map(|v| v.g).collect(),
    );
    assert_eq!(gj, gs);
    assert!(gj.iter().any(|v| v.abs() > 0.1));
    assert!(o2.abs() < 1e-12 && x2 == input());
    // the plan's tape is empty again. Forward: both calls push 2N numbers, the joint
    // routine's uncompute pops its call's, the stored routine pushes y (N); backward: y comes
    // back, the joint routine's recompute pushes 2N (gradient numbers) and pops them, the first
    // call's inverse pops its 2N. At the peak 4N gradient numbers were held, each with a zero
    // adjoint, so as its value alone (8 bytes), in runs of one routine each (a few headers);
    // nothing was left on the thread's own tape.
    let s = plan.tape_stats();
    assert_eq!((s.len, s.bytes), (0, 0));
    assert_eq!(s.pushes, 7 * N);
    assert!(
        s.peak_bytes >= 4 * N * 8 && s.peak_bytes <= 4 * N * 8 + 4 * 64,
        "{s:?}"
    );
    assert!(s.reserved_bytes >= s.peak_bytes, "{s:?}");
    assert_eq!(nilang::tape::stats().pushes, 0);
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

/// A cheap routine (straight-line additions, multiplications and powers, at most eight
/// instructions per ancilla) stays in joint mode under `#[store]`: nothing is pushed, the same
/// values and gradients as with `#[store(always)]`, which stores it.
#[test]
fn a_cheap_routine_is_stored_only_when_asked_always() {
    use nilang::tape::Tape;
    let mut tape = Tape::new();
    let (mut a, mut x) = ([0.0; N], input());
    let (mut b, mut x2) = ([0.0; N], input());
    tape.scope(|| {
        StencilCheap.call((&mut a, &mut x));
        assert_eq!(nilang::tape::stats().len, 0);
        StencilAlways.call((&mut b, &mut x2));
        assert_eq!(nilang::tape::stats().len, 2 * (N - 2));
        assert_eq!(a, b);
        assert!(a[3] != 0.0);
        StencilAlways.uncall((&mut b, &mut x2));
        StencilCheap.uncall((&mut a, &mut x));
        // (back to zero up to the rounding of `dest += src; dest += lap * sq`)
        assert_eq!((a, x, x2), (b, input(), input()));
        assert!(a.iter().all(|v| v.abs() < 1e-15), "{a:?}");
    });
    let mut plan = nilang::ad::Plan::new();
    let (v, g) = plan.value_and_gradient(&StencilCheapLoss, (&mut 0.0, &mut input()), 0);
    let g: Vec<f64> = g.1.iter().map(|v| v.g).collect();
    assert_eq!(plan.tape_stats().pushes, 0);
    let mut plan2 = nilang::ad::Plan::new();
    let (v2, g2) = plan2.value_and_gradient(&StencilAlwaysLoss, (&mut 0.0, &mut input()), 0);
    let g2: Vec<f64> = g2.1.iter().map(|v| v.g).collect();
    assert!(
        plan2.tape_stats().pushes >= 2 * (N - 2),
        "{:?} {:?}",
        plan2.tape_stats(),
        nilang::tape::stats()
    );
    assert_eq!((v, &g), (v2, &g2));
    assert!(v > 0.0 && g.iter().all(|g| *g != 0.0));
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

/// Issue 22: a forward run that is never inverted leaves nothing behind once its scope ends,
/// and the scope's tape holds exactly what the allocator sees.
#[test]
fn a_forward_run_never_inverted_leaves_nothing_behind() {
    use nilang::tape::Tape;
    nilang::tape::clear();
    let mut tape = Tape::new();
    let (mut b, mut x) = ([0.0; N], input());
    tape.scope(|| SmoothSplit.call((&mut b, &mut x)));
    let s = tape.stats();
    assert_eq!((s.len, s.bytes, s.pushes), (0, 0, 2 * N));
    // one run of 2N f64 (the routine's two ancillas, cell after cell): 16 N bytes of numbers
    assert!(
        s.peak_bytes >= 2 * N * 8 && s.peak_bytes <= 2 * N * 8 + 64,
        "{s:?}"
    );
    // nothing on the thread's own tape, and the scope's entries are gone: a later inverse
    // finds no stored results
    assert_eq!(nilang::tape::stats(), Default::default());
    let e = catch(|| tape.scope(|| SmoothSplit.uncall((&mut b, &mut x)))).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Stack);
    // a gradient through a plan leaves its tape empty between calls
    let mut plan = nilang::ad::Plan::new();
    plan.value_and_gradient(&LossSplit, (&mut 0.0, &mut input()), 0);
    assert_eq!((plan.tape_stats().len, nilang::tape::stats().len), (0, 0));
    // forward runs inside `discarding` push nothing and compute the same
    let (mut c, mut x3) = ([0.0; N], input());
    nilang::tape::discarding(|| SmoothSplit.call((&mut c, &mut x3)));
    let (mut d, mut x4) = ([0.0; N], input());
    SmoothJoint.call((&mut d, &mut x4));
    assert_eq!((c, nilang::tape::stats().pushes), (d, 0));
}

/// Issue 27: an entry left by a forward run of another routine (never inverted) is not
/// consumed as if it were this routine's: a stack error naming both routines, before the
/// argument is modified.
#[test]
fn a_stale_entry_of_another_routine_is_reported_precisely() {
    nilang::tape::clear();
    let (mut y, mut x) = (0.0, 0.3);
    NestedSplit.call((&mut y, &mut x)); // never inverted
    let (mut b, mut x2) = ([0.0; N], input());
    SmoothSplit.call((&mut b, &mut x2));
    SmoothSplit.uncall((&mut b, &mut x2)); // a balanced pair: fine
    assert_eq!((b, x2), ([0.0; N], input()));
    let (mut b, mut x2) = ([1.0; N], input());
    let e = catch(|| SmoothSplit.uncall((&mut b, &mut x2))).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Stack);
    assert!(
        e.detail.contains("was stored by the `#[store]` routine at"),
        "{e}"
    );
    assert!(e.detail.contains("store.rs:"), "{e}");
    assert!(e.detail.contains("never inverted"), "{e}");
    assert!(e.location.contains("store.rs:"), "{e}");
    nilang::tape::clear();
}

/// Issue 22: two threads running split-mode gradients at once each use their own tape:
/// every result equals the serial one.
#[test]
fn two_threads_running_split_gradients_do_not_share_a_tape() {
    let inputs: Vec<[f64; N]> = (0..2)
        .map(|t| core::array::from_fn(|i| (i as f64 * 0.7 + t as f64).sin()))
        .collect();
    let serial: Vec<Vec<f64>> = inputs
        .iter()
        .map(|x| {
            let g = nilang::gradient(&LossSplit, (&mut 0.0, &mut x.clone()), 0);
            g.1.iter().map(|v| v.g).collect()
        })
        .collect();
    std::thread::scope(|s| {
        for (x, want) in inputs.iter().zip(&serial) {
            s.spawn(move || {
                let mut plan = nilang::ad::Plan::new();
                for _ in 0..300 {
                    let (_, g) = plan.value_and_gradient(&LossSplit, (&mut 0.0, &mut x.clone()), 0);
                    assert!(g.1.iter().map(|v| v.g).eq(want.iter().copied()));
                }
            });
        }
    });
}

/// `Grad(f)` and the reverse-over-reverse Hessian run a split-mode function's forward and
/// inverse on a store tape of their own: the thread's tape (here holding a stale entry of a
/// forward run never inverted) is neither used nor changed, and the results are those of
/// joint mode.
#[test]
fn grad_and_hessian_use_a_tape_of_their_own() {
    use nilang::ad::Grad;
    nilang::tape::clear();
    let (mut b, mut x2) = ([0.0; N], input());
    SmoothSplit.call((&mut b, &mut x2));
    let before = nilang::tape::stats();
    assert_eq!(before.len, 2 * N);
    // Grad(f) and ~Grad(f)
    let (mut o, mut x) = (GVar::from(0.0), input().map(GVar::from));
    Grad::new(LossSplit, 0).call((&mut o, &mut x));
    let g: Vec<f64> = x.iter().map(|v| v.g).collect();
    let reference = nilang::gradient(&LossJoint, (&mut 0.0, &mut input()), 0).1;
    assert_eq!(g, reference.iter().map(|v| v.g).collect::<Vec<f64>>());
    Grad::new(LossSplit, 0).uncall((&mut o, &mut x));
    // the gradients erased (up to the roundoff of adding them back in another order)
    assert!(x.iter().all(|v| v.g.abs() < 1e-12) && o.g == 0.0, "{x:?}");
    assert_eq!(nilang::tape::stats(), before);
    // the Hessian of sin(x eˣ) by reverse over reverse, against forward over reverse
    let h = nilang::ad::hessian_rev_rev(&NestedSplit, (&mut 0.0, &mut 0.3), 0, 1);
    let want = nilang::ad::hessian_fwd_rev(&NestedSplit, (&mut 0.0, &mut 0.3), 0, 1);
    assert!(
        (h[0][0] - want[0][0]).abs() < 1e-12 * want[0][0].abs(),
        "{h:?} {want:?}"
    );
    assert!(want[0][0].abs() > 0.1);
    assert_eq!(nilang::tape::stats(), before);
    nilang::tape::clear();
}

/// Issue 22: a function that stores opens one cursor on the tape per body; while it holds the
/// tape, code outside the generated statements cannot use it (a stack error, not a stale
/// read), and a cursor dropped without being closed (a panic) hands the tape back through its
/// guard.
#[test]
fn a_cursor_holds_the_tape_and_its_guard_hands_it_back() {
    use nilang::tape::{Guard, Tape};
    let mut tape = Tape::new();
    tape.scope(|| {
        let mut g = Guard::new();
        let mut c = g.open();
        let (mut a, mut b) = (1.5, 2.5);
        c.store2(&mut a, &mut b, 0.0, 0.0, "here");
        let e = catch(nilang::tape::stats).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Stack);
        assert!(e.detail.contains("in use"), "{e}");
        // released: the tape holds what the cursor pushed
        c.release();
        assert_eq!(nilang::tape::stats().len, 2);
        c.acquire();
        c.store2_inv(&mut a, &mut b, 0.0, 0.0, "here");
        c.close();
        assert_eq!((a, b, nilang::tape::stats().len), (1.5, 2.5, 0));
    });
    // a panic inside a split-mode inverse (nothing stored): the guard hands the tape back
    let (mut b, mut x) = ([0.0; N], input());
    let e = catch(|| tape.scope(|| SmoothSplit.uncall((&mut b, &mut x)))).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Stack);
    let (mut b, mut x) = ([0.0; N], input());
    tape.scope(|| {
        SmoothSplit.call((&mut b, &mut x));
        assert_eq!(nilang::tape::stats().len, 2 * N);
        SmoothSplit.uncall((&mut b, &mut x));
        assert_eq!(nilang::tape::stats().len, 0);
    });
    assert_eq!((b, x), ([0.0; N], input()));
    // a cursor never closed: its guard hands the tape back (what it pushed since its last
    // write-back is dropped)
    tape.scope(|| {
        {
            let mut g = Guard::new();
            let mut c = g.open();
            let mut a = 1.0;
            c.store(&mut a, 0.0, "here");
            // `c` ends here without `close`
        }
        assert_eq!(nilang::tape::stats().len, 0);
    });
}
