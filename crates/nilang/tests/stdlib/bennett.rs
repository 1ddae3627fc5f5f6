//! Bennett's time–space trade-off on NiLang's diffusion test (inventory §5.3 case 38): k = 4,
//! N = 100 steps of the explicit heat equation on a ring of 100 cells.
use nilang::check::{catch, ErrorKind};
use nilang::prelude::*;
use nilang::stdlib::bennett::*;

const CELLS: usize = 100;
const H: f64 = core::f64::consts::PI / CELLS as f64;
const DT: f64 = 0.01;
const ALPHA: f64 = 4e-2;

/// One explicit Euler step of `u_t = α u_xx` (periodic): `dest += src + dt α Δsrc / h²`.
#[i]
fn diffusion<T: Scalar, const N: usize>(dest: &mut [T; N], src: &mut [T; N]) {
    for i in 0..N {
        routine! {
            let (cum, g) = (T::default(), T::default());
            cum += src[(i + 1) % N] + src[(i + N - 1) % N];
            cum -= src[i] * 2.0;
            g += cum * cst!(T::lit(ALPHA / (H * H)));
        }
        dest[i] += src[i];
        dest[i] += g * cst!(T::lit(DT));
        unroutine!();
    }
}

/// The loss of NiLang's test: the centre cell after Bennett's schedule.
#[i]
fn bennett_loss<T: Scalar + ZeroLike, const N: usize>(out: &mut T, y: &mut [T; N], x: &mut [T; N]) {
    bennett(&Diffusion, y, x, 4, 100);
    out += y[N / 2];
}

/// NiLang's schedule: k = 4, 100 steps.
const DIFFUSION_4: Bennett<Diffusion<CELLS>> = Bennett {
    step: Diffusion,
    k: 4,
    n: 100,
};

fn initial() -> [f64; CELLS] {
    let mut x = [0.0; CELLS];
    x[CELLS / 2] = 1.0;
    x
}

#[test]
fn diffusion_equals_direct_emulation_and_conserves_the_sum() {
    let mut x = initial();
    let direct = direct_emulate(&Diffusion, &x, 100);
    let mut y = [0.0; CELLS];
    let mut log = BennettLog::default();
    DIFFUSION_4.logged(Direction::Forward, &mut y, &mut x, &mut log);
    assert_eq!(x, initial());
    assert!((y.iter().sum::<f64>() - 1.0).abs() < 1e-12);
    for (a, b) in y.iter().zip(&direct) {
        assert!((a - b).abs() < 1e-14);
    }
    // the diffusion really happened
    assert!(y[CELLS / 2] < 0.5 && y[CELLS / 2 + 3] > 1e-3);

    // calls: C(1) = 1, C(len) = (2·nstep − 1) segments of C(n) (n = ⌈len/4⌉): C(2) = 3,
    // C(4) = 7, C(7) = 19, C(25) = 121, C(100) = 7·121 = 847; all states but the last are
    // uncomputed, so there is one more forward than backward call; versus 100 for the direct
    // emulation
    let (f, b) = log.counts();
    assert_eq!(log.calls.len(), 847);
    assert_eq!((f, b), (424, 423));
    // a handful of states instead of 101
    assert!(log.peak_states <= 14, "peak {}", log.peak_states);
    // every call is at some depth, with a valid step index
    assert!(log.calls.iter().all(|c| c.0 <= 4 && c.1 < 100));

    // the inverse undoes it, logging the mirrored calls
    let mut log2 = BennettLog::default();
    DIFFUSION_4.logged(Direction::Backward, &mut y, &mut x, &mut log2);
    assert_eq!(x, initial());
    assert!(y.iter().all(|v| v.abs() < 1e-15));
    assert_eq!(log2.calls.len(), log.calls.len());
    let mirrored: Vec<_> = log
        .calls
        .iter()
        .rev()
        .map(|&(d, i, dir)| {
            let back = if dir == Direction::Forward {
                Direction::Backward
            } else {
                Direction::Forward
            };
            (d, i, back)
        })
        .collect();
    assert_eq!(log2.calls, mirrored);
}

#[test]
fn call_counts_trade_time_for_space() {
    // larger k: fewer calls, more stored states; k = n: the direct schedule plus uncomputing
    let mut prev_calls = usize::MAX;
    let mut prev_peak = 0;
    for k in [2, 3, 4, 8, 100] {
        let (mut y, mut x, mut log) = ([0.0; CELLS], initial(), BennettLog::default());
        let schedule = Bennett { k, ..DIFFUSION_4 };
        schedule.logged(Direction::Forward, &mut y, &mut x, &mut log);
        assert!(log.calls.len() <= prev_calls, "k = {k}");
        assert!(log.peak_states >= prev_peak, "k = {k}");
        prev_calls = log.calls.len();
        prev_peak = log.peak_states;
    }
    // k = N: compute all 100 states, uncompute 99
    assert_eq!(prev_calls, 199);
    assert_eq!(prev_peak, 101);
}

#[test]
fn gradient_at_the_centre_matches_finite_difference() {
    let (mut out, mut y, mut x) = (0.0, [0.0; CELLS], initial());
    let st = nilang::gradient(&BennettLoss, (&mut out, &mut y, &mut x), 0);
    assert_eq!((out, x), (0.0, initial()));
    let gx: Vec<f64> = st.2.iter().map(|v| v.g).collect();
    // NiLang's check: one-sided difference of the direct emulation, δ = 1e-5
    let base = direct_emulate(&Diffusion, &initial(), 100);
    for j in [CELLS / 2, CELLS / 2 + 1, CELLS / 2 + 5, 0] {
        let mut xp = initial();
        xp[j] += 1e-5;
        let fd = (direct_emulate(&Diffusion, &xp, 100)[CELLS / 2] - base[CELLS / 2]) / 1e-5;
        assert!((gx[j] - fd).abs() < 1e-8, "cell {j}: {} vs {fd}", gx[j]);
    }
    // the map is linear and symmetric: the gradient of the centre cell is the centre row of
    // the propagator, which is the solution itself
    for (g, b) in gx.iter().zip(&base) {
        assert!((g - b).abs() < 1e-13);
    }
}

#[test]
fn bennett_value_is_reversible_and_nests() {
    let b = Bennett {
        step: Diffusion,
        k: 3,
        n: 10,
    };
    let (mut y, mut x) = ([0.0; CELLS], initial());
    let (y2, x2) = b.call((&mut y, &mut x));
    let direct = direct_emulate(&Diffusion, &initial(), 10);
    assert!(y2.iter().zip(&direct).all(|(a, b)| (a - b).abs() < 1e-15));
    assert_eq!(*x2, initial());
    b.uncall((&mut y, &mut x));
    assert!(y.iter().all(|v| *v == 0.0));
    // Bennett of Bennett: 5 × 10 = 50 steps
    let outer = Bennett {
        step: b,
        k: 2,
        n: 5,
    };
    let (mut y, mut x) = ([0.0; CELLS], initial());
    outer.call((&mut y, &mut x));
    let direct = direct_emulate(&Diffusion, &initial(), 50);
    assert!(y.iter().zip(&direct).all(|(a, b)| (a - b).abs() < 1e-14));
}

#[test]
fn nonzero_output_is_an_invertibility_error() {
    let (mut y, mut x) = ([0.0; CELLS], initial());
    y[0] = 1.0;
    let e = catch(|| bennett(&Diffusion, &mut y, &mut x, 4, 10)).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Deallocation);
}

/// Issue 27: Bennett's k and n are checked before the schedule's table is allocated.
#[test]
fn bennett_sizes_are_typed_errors() {
    let (mut y, mut x) = ([0.0; 4], [1.0, 2.0, 3.0, 4.0]);
    for (k, n, what) in [
        (1, 10, "k must be at least 2"),
        (2, 0, "at least 1"),
        (2, usize::MAX, "cannot be allocated"),
        (2, usize::MAX / 2, "cannot be allocated"),
    ] {
        let e = catch(|| bennett(&Diffusion, &mut y, &mut x, k, n)).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Argument, "{k} {n}");
        assert!(e.detail.contains(what), "{e}");
        assert!(e.location.contains("bennett.rs"), "{e}");
    }
    // nothing was modified
    assert_eq!((y, x), ([0.0; 4], [1.0, 2.0, 3.0, 4.0]));
}
