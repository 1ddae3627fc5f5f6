//! Invertibility checks that cannot be fooled (issue 10, item 1): non-finite values never pass,
//! the float tolerance is relative to the round-off an ancilla's history could cause, and the tolerance
//! setting is per thread and scoped.
use nilang::check::{
    catch, float_close, float_close_at, tolerance, with_tolerance, ErrorKind, Tolerance,
    ToleranceGuard,
};
use nilang::prelude::*;
use proptest::prelude::*;

/// A deliberately wrong uncompute: `exp(a)` is added, `exp(b)` subtracted.
#[i]
fn wrong_uncompute<T: Scalar>(out: &mut T, a: &T, b: &T) {
    let t = T::default();
    t += exp(a);
    out += t;
    t -= exp(b);
    dealloc!(t = T::default());
}

fn wrong(a: f64, b: f64) -> Result<f64, nilang::InvertibilityError> {
    catch(|| {
        let mut out = 0.0;
        WrongUncompute.call((&mut out, &a, &b));
        out
    })
}

#[test]
fn infinity_never_passes_a_deallocation_check() {
    for a in [10.0, 1000.0] {
        let e = wrong(a, a + 0.5).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Deallocation);
        assert!(e.detail.contains("expected 0.0"), "{}", e.detail);
    }
    // at a = 1000, exp overflows: t = inf - inf = NaN; with b small, t = inf
    let e = wrong(1000.0, 1001.0).unwrap_err();
    assert!(e.detail.starts_with("ancilla holds NaN"), "{}", e.detail);
    let e = wrong(1000.0, 1.0).unwrap_err();
    assert!(e.detail.starts_with("ancilla holds inf"), "{}", e.detail);
    // the correct uncompute passes; at a = b = 1000 it cannot: inf - inf is NaN, which is not
    // a restored zero, so that is reported too
    assert!(wrong(3.0, 3.0).is_ok());
    assert!(wrong(1000.0, 1000.0).is_err());
}

#[test]
fn infinity_is_caught_under_gradient() {
    for a in [10.0, 1000.0] {
        let r = catch(|| nilang::gradient(&WrongUncompute, (&mut 0.0, &a, &(a + 0.5)), 0));
        assert_eq!(r.unwrap_err().kind, ErrorKind::Deallocation, "a = {a}");
    }
    // and the correct program differentiates
    let (g, _, _) = nilang::gradient(&WrongUncompute, (&mut 0.0, &2.0, &2.0), 0);
    assert_eq!(g.g, 1.0);
}

#[test]
fn comparison_rules_for_non_finite_values() {
    assert!(!float_close(f64::NAN, f64::NAN));
    assert!(!float_close(f64::NAN, 0.0));
    assert!(float_close(f64::INFINITY, f64::INFINITY));
    assert!(float_close(f64::NEG_INFINITY, f64::NEG_INFINITY));
    assert!(!float_close(f64::INFINITY, f64::NEG_INFINITY));
    assert!(!float_close(f64::INFINITY, f64::MAX));
    assert!(!float_close_at(f64::INFINITY, 0.0, f64::MAX));
    // a history that went through infinity does not widen the tolerance
    assert_eq!(nilang::check::track(1.0, &f64::INFINITY), 1.0);
    assert!(!with_tolerance(Tolerance { rel: 1.0, abs: 1.0 }, || {
        float_close(f64::NAN, f64::NAN)
    }));
    // f32 too
    use nilang::check::AlmostSame;
    assert!(!f32::NAN.almost_same(&f32::NAN));
    assert!(f32::INFINITY.almost_same(&f32::INFINITY));
    assert!(!f32::INFINITY.almost_same(&f32::MAX));
}

/// `$name`: three iterations of `t += y*z`, the result used, three of `t -= y*z`, then (with
/// a relative `$mistake`) the mistake `t += y*z*$mistake`, and `t` deallocated as zero.
macro_rules! roundoff_program {
    ($name:ident $(, $mistake:tt)?) => {
        #[i]
        fn $name(out: &mut f64, y: &f64, z: &f64) {
            let t = 0.0;
            for _k in 0..3 {
                t += y * z;
            }
            out += t;
            for _k in 0..3 {
                t -= y * z;
            }
            $(t += y * z * $mistake;)?
            dealloc!(t = 0.0);
        }
    };
}
roundoff_program!(roundoff);
// a mistake of relative size 1e-6 of the values that passed through
roundoff_program!(roundoff_wrong, 1e-6);

#[test]
fn roundoff_of_large_intermediates_is_not_an_error() {
    let (y, z) = (12345.678, 9876.54321);
    // the residual really is there and larger than the old absolute tolerance 1e-8
    let mut t = 0.0f64;
    for _ in 0..3 {
        t += y * z;
    }
    for _ in 0..3 {
        t -= y * z;
    }
    assert!(t.abs() > 1e-8, "residual {t:e}");
    let mut out = 0.0;
    let r = catch(|| {
        Roundoff.call((&mut out, &y, &z));
    });
    assert!(r.is_ok(), "{}", r.unwrap_err());
    let mut sum = 0.0f64;
    for _ in 0..3 {
        sum += y * z;
    }
    let mut out = 0.0;
    Roundoff.call((&mut out, &y, &z));
    assert_eq!(out, sum);
    // and the inverse run
    let mut out = 0.0;
    assert!(catch(|| {
        Roundoff.uncall((&mut out, &y, &z));
    })
    .is_ok());
}

#[test]
fn mistakes_at_any_magnitude_are_caught_and_the_message_says_what_to_change() {
    for scale in [1e-300, 1e-150, 1.0, 1e150, 1e300] {
        let (y, z) = (12345.678 * scale / 1e8, 9876.54321);
        let e = catch(|| {
            RoundoffWrong.call((&mut 0.0, &y, &z));
        })
        .unwrap_err();
        assert_eq!(e.kind, ErrorKind::Deallocation);
        assert!(e.detail.contains("round-off budget"), "{}", e.detail);
        assert!(
            e.detail.contains("nilang::check::with_tolerance"),
            "{}",
            e.detail
        );
        assert!(e.detail.contains("#[nocheck]"), "{}", e.detail);
        // ...and within a wider tolerance it passes
        let wide = Tolerance {
            rel: 1e-5,
            abs: 0.0,
        };
        assert!(with_tolerance(wide, || catch(|| {
            RoundoffWrong.call((&mut 0.0, &y, &z));
        }))
        .is_ok());
        // the correct program passes at the same magnitude
        assert!(catch(|| {
            Roundoff.call((&mut 0.0, &y, &z));
        })
        .is_ok());
    }
}

/// The round-off case as compute–copy–uncompute: the ancilla lives from `routine!` to
/// `unroutine!()`, and its history is tracked across both.
#[i]
fn roundoff_routine(out: &mut f64, y: &f64, z: &f64) {
    routine! {
        let t = 0.0;
        for _k in 0..3 {
            t += y * z;
        }
    }
    out += t;
    unroutine!();
}

/// A mistake between `routine!` and `unroutine!()`: `t` is changed by `y * 1e-6`.
#[i]
fn routine_wrong(out: &mut f64, y: &f64) {
    routine! {
        let t = 0.0;
        t += y;
    }
    t += y * 1e-6;
    out += t;
    unroutine!();
}

#[test]
fn routine_ancillas_are_tracked_too() {
    let (y, z) = (12345.678, 9876.54321);
    assert!(catch(|| {
        RoundoffRoutine.call((&mut 0.0, &y, &z));
    })
    .is_ok());
    assert!(catch(|| {
        RoundoffRoutine.uncall((&mut 0.0, &y, &z));
    })
    .is_ok());
    // caught at every magnitude: with an unknown history (scale 1) the tiny ones would pass
    for y in [1e-300, 1e-20, 1.0, 1e20, 1e300] {
        let e = catch(|| {
            RoutineWrong.call((&mut 0.0, &y));
        })
        .unwrap_err();
        assert!(
            e.detail.contains(
                "its round-off budget (the sum of the magnitudes it held after each statement) was"
            ),
            "{}",
            e.detail
        );
    }
}

#[test]
fn tolerance_is_per_thread_and_never_torn() {
    let threads: Vec<_> = (1..=4)
        .map(|k| {
            std::thread::spawn(move || {
                let mine = Tolerance {
                    rel: k as f64 * 1e-3,
                    abs: k as f64 * 1e-6,
                };
                for i in 0..20_000 {
                    if i % 2 == 0 {
                        with_tolerance(mine, || {
                            assert_eq!(tolerance(), mine);
                            // 1 vs 1 + rel/2 passes under mine, fails under the default
                            assert!(float_close(1.0, 1.0 + mine.rel / 2.0));
                        });
                    } else {
                        nilang::check::set_tolerance(mine.abs, mine.rel).unwrap();
                        assert_eq!(tolerance(), mine);
                        nilang::check::set_tolerance(0.0, 1e-8).unwrap();
                    }
                    assert_eq!(tolerance(), Tolerance::DEFAULT);
                    assert!(!float_close(1.0, 1.0 + mine.rel / 2.0));
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
}

#[test]
fn the_guard_restores_the_tolerance_when_unwinding() {
    let r = std::panic::catch_unwind(|| {
        let _g = ToleranceGuard::set(Tolerance { rel: 0.5, abs: 0.0 });
        assert_eq!(tolerance().rel, 0.5);
        panic!("boom");
    });
    assert!(r.is_err());
    assert_eq!(tolerance(), Tolerance::DEFAULT);
}

// ---- property test: random programs over magnitudes 1e-300 .. 1e300 ----

const NX: usize = 6;
const NY: usize = 5;
/// `[opcode, x index, y index]`.
type Op = [usize; 3];

/// One accumulation into the ancilla `t`.
#[i]
fn acc(t: &mut f64, x: &[f64; NX], y: &[f64; NY], op: usize, a: usize, b: usize) {
    if op == 0 {
        t += x[a];
    } else if op == 1 {
        t -= x[a];
    } else if op == 2 {
        t += x[a] * y[b];
    } else if op == 3 {
        t -= x[a] * y[b];
    } else if op == 4 {
        t += x[a] / y[b];
    } else if op == 5 {
        t -= x[a] / y[b];
    } else {
        NEG(t);
    }
}

/// Compute into an ancilla with `fwd`, use it, uncompute with the inverse of `undo` (a correct
/// program has `undo == fwd`).
#[i]
fn run(out: &mut f64, x: &[f64; NX], y: &[f64; NY], fwd: &[Op], undo: &[Op]) {
    let t = 0.0;
    for k in 0..fwd.len() {
        acc(&mut t, &x, &y, fwd[k][0], fwd[k][1], fwd[k][2]);
    }
    out += t;
    inv! {
        for k in 0..undo.len() {
            acc(&mut t, &x, &y, undo[k][0], undo[k][1], undo[k][2]);
        }
    }
    dealloc!(t = 0.0);
}

/// The value an accumulation adds to `t` (None for `NEG`).
fn contribution(op: Op, x: &[f64; NX], y: &[f64; NY]) -> Option<f64> {
    let [o, a, b] = op;
    Some(match o {
        0 => x[a],
        1 => -x[a],
        2 => x[a] * y[b],
        3 => -(x[a] * y[b]),
        4 => x[a] / y[b],
        5 => -(x[a] / y[b]),
        _ => return None,
    })
}

/// Values: a power of ten `p` from 1e-300 to 1e300 per program; `x` odd integers times `p`
/// times powers of two, `y` powers of two. Two contributions are then equal in exact arithmetic
/// exactly when they are bit-identical, and distinct ones differ by at least 1/16 relatively,
/// so that a changed instruction is either a no-op on the values or a change far above the
/// tolerance.
fn values() -> impl Strategy<Value = ([f64; NX], [f64; NY])> {
    (
        -300i32..=300,
        proptest::array::uniform6((0u32..8, -4i32..=4, any::<bool>())),
        proptest::array::uniform5(-2i32..=2),
    )
        .prop_map(|(e, xs, ys)| {
            let p = 10f64.powi(e);
            let x = xs.map(|(k, d, neg)| {
                let v = ((2 * k + 1) as f64 * p) * 2f64.powi(d);
                if neg {
                    -v
                } else {
                    v
                }
            });
            (x, ys.map(|j| 2f64.powi(j)))
        })
}

fn program() -> impl Strategy<Value = Vec<Op>> {
    proptest::collection::vec(
        prop_oneof![6 => (0usize..6, 0..NX, 0..NY), 1 => Just((6usize, 0, 0))]
            .prop_map(|(o, a, b)| [o, a, b]),
        1..24,
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn correct_programs_never_raise_a_false_error((x, y) in values(), prog in program()) {
        let mut out = 0.0;
        let r = catch(|| { Run.call((&mut out, &x, &y, &prog[..], &prog[..])); });
        prop_assert!(r.is_ok(), "{}", r.unwrap_err());
        let r = catch(|| { Run.uncall((&mut out, &x, &y, &prog[..], &prog[..])); });
        prop_assert!(r.is_ok(), "{}", r.unwrap_err());
    }

    #[test]
    fn wrong_programs_are_caught_unless_the_change_is_a_no_op(
        (x, y) in values(),
        prog in program(),
        pick in any::<prop::sample::Index>(),
        new in (0usize..6, 0..NX, 0..NY),
    ) {
        let k = pick.index(prog.len());
        prop_assume!(prog[k][0] != 6);
        let mut undo = prog.clone();
        undo[k] = [new.0, new.1, new.2];
        let was = contribution(prog[k], &x, &y).unwrap();
        let now = contribution(undo[k], &x, &y).unwrap();
        let r = catch(|| { Run.call((&mut 0.0, &x, &y, &prog[..], &undo[..])); });
        if was == now {
            prop_assert!(r.is_ok(), "a no-op change raised {}", r.unwrap_err());
        } else {
            let e = r.expect_err("a changed instruction was not caught");
            prop_assert_eq!(e.kind, ErrorKind::Deallocation);
        }
    }
}

/// The same program, generic, so that it runs on gradient numbers too.
#[i]
fn roundoff_generic<T: Scalar>(out: &mut T, y: &T, z: &T) {
    let t = T::default();
    for _k in 0..3 {
        t += y * z;
    }
    out += t;
    for _k in 0..3 {
        t -= y * z;
    }
    dealloc!(t = T::default());
}

#[test]
fn roundoff_of_large_intermediates_is_not_an_error_under_gradient() {
    let (y, z) = (12345.678, 9876.54321);
    // gradient numbers carry the history of their values
    let r = catch(|| nilang::gradient(&RoundoffGeneric, (&mut 0.0, &y, &z), 0));
    let (g, _, _) = r.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(g.g, 1.0);
}

// ---- issue 27: a tighter round-off window, guards in any order, validated settings ----

/// The ancilla holds `big` for one statement and is then given back `big - residual`.
#[i]
fn held_big(out: &mut f64, big: &f64, back: &f64) {
    let t = 0.0;
    t += big;
    out += t;
    t -= back;
    dealloc!(t = 0.0);
}

#[test]
fn an_ancilla_that_held_1e20_for_one_statement_cannot_keep_1e11() {
    let e = catch(|| {
        HeldBig.call((&mut 0.0, &1e20, &(1e20 - 1e11)));
    })
    .unwrap_err();
    assert_eq!(e.kind, ErrorKind::Deallocation);
    // (1e20 - 1e11 rounds: the residual is 1.00000006144e11)
    assert!(
        e.detail.starts_with("ancilla holds 100000006144.0"),
        "{}",
        e.detail
    );
    assert!(e.detail.contains("round-off budget"), "{}", e.detail);
    // the same in the inverse direction
    assert!(catch(|| {
        HeldBig.uncall((&mut 0.0, &1e20, &(1e20 - 1e11)));
    })
    .is_err());
    // a residual of the size real round-off leaves passes (1e20 is 2^66.4: one ulp is 16384)
    let back = 1e20 - 16384.0 * 4.0;
    assert!(catch(|| {
        HeldBig.call((&mut 0.0, &1e20, &back));
    })
    .is_ok());
    // the old window (rel × largest magnitude = 1e12) let 1e11 through
    const { assert!(1e11 <= Tolerance::DEFAULT.rel * 1e20) };
}

#[test]
fn non_finite_values_are_reported_as_such_not_as_round_off() {
    let e = catch(|| {
        HeldBig.call((&mut 0.0, &f64::NAN, &0.0));
    })
    .unwrap_err();
    assert!(e.detail.starts_with("ancilla holds NaN"), "{}", e.detail);
    assert!(
        e.detail
            .contains("a non-finite value (NaN or infinity) arrived in it"),
        "{}",
        e.detail
    );
    assert!(!e.detail.contains("with_tolerance"), "{}", e.detail);
    // and where: the first statement after which the ancilla held it
    assert!(
        e.detail.contains("it first held one after "),
        "{}",
        e.detail
    );
    assert!(e.detail.contains("check_tolerance.rs:"), "{}", e.detail);
    assert!(e.detail.contains(": `t += big`)"), "{}", e.detail);
    let e = catch(|| {
        HeldBig.call((&mut 0.0, &1.0, &f64::NEG_INFINITY));
    })
    .unwrap_err();
    assert!(e.detail.starts_with("ancilla holds inf"), "{}", e.detail);
    assert!(e.detail.contains(": `t -= back`)"), "{}", e.detail);
    assert!(e.detail.contains("non-finite"), "{}", e.detail);
    // a finite mistake still gets the tolerance advice
    let e = catch(|| {
        HeldBig.call((&mut 0.0, &1.0, &0.5));
    })
    .unwrap_err();
    assert!(e.detail.contains("with_tolerance"), "{}", e.detail);
}

#[test]
fn guards_dropped_out_of_order_restore_the_setting_before_them() {
    let a = Tolerance {
        rel: 1e-4,
        abs: 0.0,
    };
    let b = Tolerance {
        rel: 1e-2,
        abs: 1e-3,
    };
    let outer = ToleranceGuard::set(a);
    let inner = ToleranceGuard::set(b);
    drop(outer);
    // the newest live guard is still in force
    assert_eq!(tolerance(), b);
    drop(inner);
    assert_eq!(tolerance(), Tolerance::DEFAULT);
    // three, dropped middle, newest, oldest
    let g1 = ToleranceGuard::set(a);
    let g2 = ToleranceGuard::set(b);
    let g3 = ToleranceGuard::set(Tolerance { rel: 0.5, abs: 0.0 });
    drop(g2);
    assert_eq!(tolerance().rel, 0.5);
    drop(g3);
    assert_eq!(tolerance(), a);
    drop(g1);
    assert_eq!(tolerance(), Tolerance::DEFAULT);
}

#[test]
fn set_tolerance_rejects_nan_negative_and_infinite_values() {
    for (atol, rtol) in [
        (0.0, f64::NAN),
        (f64::NAN, 1e-8),
        (0.0, -1e-8),
        (-1.0, 1e-8),
        (0.0, f64::INFINITY),
        (f64::INFINITY, 1e-8),
    ] {
        let e = nilang::check::set_tolerance(atol, rtol).unwrap_err();
        assert_eq!(e.tolerance.rel.to_bits(), rtol.to_bits());
        assert_eq!(e.tolerance.abs.to_bits(), atol.to_bits());
        assert!(e.to_string().contains("finite and non-negative"), "{e}");
        // nothing changed: checks are still on
        assert_eq!(tolerance(), Tolerance::DEFAULT);
        assert!(!float_close(1.0, 2.0));
    }
    assert!(nilang::check::set_tolerance(0.0, 0.0).is_ok());
    assert!(!float_close(1.0, 1.0 + 1e-15));
    nilang::check::set_tolerance(0.0, 1e-8).unwrap();
    // the guard refuses them at the caller's line
    let r = std::panic::catch_unwind(|| {
        let _g = ToleranceGuard::set(Tolerance {
            rel: f64::INFINITY,
            abs: 0.0,
        });
    });
    let msg = r.unwrap_err();
    let msg = msg.downcast_ref::<String>().unwrap();
    assert!(msg.contains("invalid tolerance (rel = inf"), "{msg}");
    assert_eq!(tolerance(), Tolerance::DEFAULT);
}

// ---- issue 27: `fresh!` sets exact zeros also under `nocheck` ----

/// Computes into the workspace with round-off that does not cancel exactly
/// (`(a + big) - big - a` is not 0 in floating point), uses it, uncomputes, then `fresh!`.
macro_rules! reuse_program {
    ($attr:meta, $name:ident) => {
        #[$attr]
        fn $name(out: &mut f64, ws: &mut [f64], a: &f64, big: &f64) {
            routine! {
                ws[0] += a;
                ws[0] += big;
                ws[0] -= big;
            }
            out += ws[0];
            unroutine!();
            fresh!(ws);
        }
    };
}
reuse_program!(i(nocheck), reuse_nocheck);
reuse_program!(i, reuse_checked);

#[test]
fn fresh_leaves_exact_zeros_under_nocheck_so_reuse_is_bit_identical() {
    let (a, big) = (0.1f64, 1e7f64);
    // the round-off is there: the uncomputation alone leaves a residue
    assert_ne!((((a + big) - big) + big - big) - a, 0.0);
    let mut ws = [0.0f64];
    let mut out = 0.0;
    reuse_nocheck(&mut out, &mut ws, &a, &big);
    assert_eq!(ws[0].to_bits(), 0.0f64.to_bits());
    let first = out;
    // the reused workspace gives the bit-identical result of a fresh one
    let mut out2 = 0.0;
    reuse_nocheck(&mut out2, &mut ws, &a, &big);
    let mut out3 = 0.0;
    reuse_nocheck(&mut out3, &mut [0.0], &a, &big);
    assert_eq!(out2.to_bits(), out3.to_bits());
    assert_eq!(out2.to_bits(), first.to_bits());
    assert_eq!(ws[0].to_bits(), 0.0f64.to_bits());
    // the inverse runs `fresh!` first: on the reused workspace as on a fresh one
    let (mut o1, mut o2, mut fresh_ws) = (out2, out2, [0.0f64]);
    reuse_nocheck_inv(&mut o1, &mut ws, &a, &big);
    reuse_nocheck_inv(&mut o2, &mut fresh_ws, &a, &big);
    assert_eq!(
        (o1.to_bits(), ws[0].to_bits()),
        (o2.to_bits(), fresh_ws[0].to_bits())
    );
    // with checks on the same
    let mut ws = [0.0f64];
    reuse_checked(&mut 0.0, &mut ws, &a, &big);
    assert_eq!(ws[0].to_bits(), 0.0f64.to_bits());
    let mut fresh_ws = [0.0f64];
    reuse_checked_inv(&mut 0.0, &mut ws, &a, &big);
    reuse_checked_inv(&mut 0.0, &mut fresh_ws, &a, &big);
    assert_eq!(ws[0].to_bits(), fresh_ws[0].to_bits());
}
