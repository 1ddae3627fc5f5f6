//! The data-parallel gradient of a sum of terms (`nilang::ad::TermSum`): equal to one serial
//! gradient up to rounding, the same bits for any number of threads, shared workspaces, and
//! clear errors for bad arguments.
use nilang::ad::{GVar, Shared, TermSum};
use nilang::prelude::*;

fn pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
}

/// The guide's example: `e += Σ_{lo ≤ i < hi} Σ_{j > i} 1 / (1 + (x_i − x_j)²)`.
#[i]
fn pairs<T: Scalar>(e: &mut T, x: &mut [T], lo: usize, hi: usize) {
    for i in lo..hi {
        for j in i + 1..x.len() {
            routine! {
                let (d, r2) = (T::default(), T::default());
                d += x[i] - x[j];
                r2 += abs2(d);
                r2 += 1.0;
            }
            e += 1.0 / r2;
            unroutine!();
        }
    }
}

fn points(n: usize) -> Vec<f64> {
    (0..n).map(|k| (k as f64 * 0.7).sin() * 3.0).collect()
}

#[test]
fn equals_the_serial_gradient_and_its_bits_do_not_depend_on_the_threads() {
    let x = points(150);
    let (mut e1, mut x1) = (0.0, x.clone());
    let (_, gx1, ..) = nilang::gradient(&Pairs, (&mut e1, &mut x1[..], 0, x.len()), 0);
    let mut serial_e = 0.0;
    pairs(&mut serial_e, &mut x.clone(), 0, x.len());
    // few costly terms (rows of pairs): chunks smaller than the default
    let mut sum = TermSum::with_chunk(x.len(), 3);
    assert_eq!(sum.chunks().count(), 50); // 150 rows in chunks of 3
    let mut runs = vec![];
    for threads in [1, 2, 3, 5] {
        let mut gx = vec![0.0; x.len()];
        let args = |r: core::ops::Range<usize>| (Shared(&0.0), Shared(&x[..]), r.start, r.end);
        let e =
            pool(threads).install(|| sum.args(args).value_and_gradient(&Pairs, 0, &[1], &mut gx));
        assert!((e - serial_e).abs() < 1e-12 * serial_e, "{e} vs {serial_e}");
        for (a, b) in gx.iter().zip(gx1.iter()) {
            assert!((a - b.g).abs() < 1e-12 * (1.0 + a.abs()), "{a} vs {}", b.g);
        }
        runs.push((
            e.to_bits(),
            gx.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
        ));
    }
    assert!(runs.iter().all(|r| *r == runs[0]));
}

#[test]
fn chunks_are_fixed_by_the_number_of_terms() {
    let s = TermSum::<()>::with_chunk(10, 4);
    assert_eq!(s.chunks().collect::<Vec<_>>(), [0..4, 4..8, 8..10]);
    let none: Vec<_> = TermSum::<()>::new(0).chunks().collect();
    assert_eq!((none.len(), none[0].clone()), (1, 0..0));
    // the default: `terms / MIN_CHUNK` chunks of equal length, at most MAX_CHUNKS
    let lens = |n| {
        TermSum::<()>::new(n)
            .chunks()
            .map(|r| r.len())
            .collect::<Vec<_>>()
    };
    assert_eq!(lens(64 * 5 + 1), [65, 65, 65, 65, 61]);
    assert_eq!(lens(127), [127]);
    assert_eq!(lens(128), [64, 64]);
    assert_eq!(lens(64 * 64), [64; 64]);
    let big = lens(64 * 64 * 10 + 1);
    assert_eq!(
        (big.len(), big[0], big[63]),
        (64, 641, 64 * 64 * 10 + 1 - 63 * 641)
    );
    for n in [0, 1, 63, 1000, 4095, 4097, 1 << 20] {
        let c: Vec<_> = TermSum::<()>::new(n).chunks().collect();
        assert!(c.len() <= nilang::ad::term_sum::MAX_CHUNKS, "{n}");
        let (last, whole) = c.split_last().unwrap();
        assert!(
            whole
                .iter()
                .all(|r| r.len() >= nilang::ad::term_sum::MIN_CHUNK),
            "{n}"
        );
        assert!(whole.iter().all(|r| r.len() >= last.len()), "{n}");
        assert_eq!((c[0].start, c[c.len() - 1].end), (0, n));
    }
}

#[test]
fn no_terms_run_the_program_once_on_an_empty_range() {
    let x = points(5);
    let mut g = vec![1.0; 5];
    let e = TermSum::new(0)
        .args(|r| (Shared(&0.0), Shared(&x[..]), r.start, r.end))
        .value_and_gradient(&Pairs, 0, &[1], &mut g);
    assert_eq!((e, g), (0.0, vec![0.0; 5]));
}

/// A workspace struct shared (zero) by every chunk, and two shared parameter arguments.
#[derive(Clone, Debug)]
struct Work<T> {
    t: Vec<T>,
}
nilang::grad_struct!(Work { t });

/// `out += Σ_{i in lo..hi} (a·x_i + b)²`, the products kept in the workspace.
#[i]
fn affine_sq<T: Scalar>(
    out: &mut T,
    a: &mut T,
    b: &mut [T],
    x: &[f64],
    lo: usize,
    hi: usize,
    ws: &mut Work<T>,
) {
    for i in lo..hi {
        routine! {
            ws.t[0] += a * x[i];
            ws.t[0] += b[0];
        }
        out += abs2(ws.t[0]);
        unroutine!();
    }
}

#[test]
fn shared_numbers_slices_and_workspaces() {
    let x: Vec<f64> = (0..1000).map(|k| k as f64 / 1000.0).collect();
    let (a, b) = (0.5, [-0.25]);
    let ws = Work { t: vec![0.0] };
    let mut g = [0.0; 2];
    let v = pool(2).install(|| {
        TermSum::with_chunk(x.len(), 100)
            .args(|r| {
                (
                    Shared(&0.0),
                    Shared(&a),
                    Shared(&b[..]),
                    &x[..],
                    r.start,
                    r.end,
                    Shared(&ws),
                )
            })
            .value_and_gradient(&AffineSq, 0, &[1, 2], &mut g)
    });
    let want_v: f64 = x.iter().map(|&xi| (a * xi + b[0]).powi(2)).sum();
    let want_a: f64 = x.iter().map(|&xi| 2.0 * (a * xi + b[0]) * xi).sum();
    let want_b: f64 = x.iter().map(|&xi| 2.0 * (a * xi + b[0])).sum();
    assert!((v - want_v).abs() < 1e-12 * want_v);
    assert!((g[0] - want_a).abs() < 1e-12 * want_a.abs());
    assert!((g[1] - want_b).abs() < 1e-12 * want_b.abs());
    assert_eq!(ws.t, [0.0]); // shared arguments are never written back
}

#[test]
#[should_panic(
    expected = "TermSum gradient buffer holds 3 numbers, but the parameters [1] have 4 slots"
)]
fn a_gradient_buffer_of_the_wrong_length_is_named() {
    let x = points(4);
    let mut g = vec![0.0; 3];
    TermSum::new(4)
        .args(|r| (Shared(&0.0), Shared(&x[..]), r.start, r.end))
        .value_and_gradient(&Pairs, 0, &[1], &mut g);
}

#[test]
#[should_panic(expected = "the loss (argument 1) must be a scalar `&mut` number")]
fn the_loss_must_be_a_scalar() {
    let x = points(4);
    let mut g = vec![0.0; 4];
    TermSum::new(4)
        .args(|r| (Shared(&0.0), Shared(&x[..]), r.start, r.end))
        .value_and_gradient(&Pairs, 1, &[1], &mut g);
}

#[test]
#[should_panic(expected = "the parameter is argument 7, but the function has 4 arguments")]
fn parameters_must_exist() {
    let x = points(4);
    let mut g = vec![0.0; 4];
    TermSum::new(4)
        .args(|r| (Shared(&0.0), Shared(&x[..]), r.start, r.end))
        .value_and_gradient(&Pairs, 0, &[7], &mut g);
}

#[test]
#[should_panic(expected = "TermSum chunks must hold at least one term")]
fn chunks_are_not_empty() {
    TermSum::<()>::with_chunk(10, 0);
}

/// `out += Σ_k (w·x_k)²` over the chunk's data `x`, the products kept in `z`, a zero
/// workspace of the chunk's length.
#[i]
fn scaled_sq<T: Scalar>(out: &mut T, w: &mut T, z: &mut [T], x: &[f64]) {
    for k in 0..x.len() {
        routine! {
            z[k] += w * x[k];
        }
        out += abs2(z[k]);
        unroutine!();
    }
}

#[test]
fn no_allocation_after_the_first_call_even_with_a_shorter_last_chunk() {
    let x = points(150);
    let zeros = vec![0.0; 40];
    let w = 0.5;
    // chunks of 40, 40, 40 and 30 terms: the workspace of the last one is shorter
    let mut sum = TermSum::with_chunk(x.len(), 40);
    let want = 2.0 * w * x.iter().map(|v| v * v).sum::<f64>();
    for threads in [1, 2] {
        let (fresh, g) = pool(threads).install(|| {
            let mut g = [0.0];
            let mut call = || {
                sum.args(|r| (Shared(&0.0), Shared(&w), Shared(&zeros[..r.len()]), &x[r]))
                    .value_and_gradient(&ScaledSq, 0, &[1], &mut g)
            };
            call();
            let before = nilang_testkit::alloc::allocs();
            call();
            (nilang_testkit::alloc::allocs() - before, g)
        });
        assert!((g[0] - want).abs() < 1e-12 * want, "{} vs {want}", g[0]);
        // counted on the pool's thread that called: the chunks it ran and the tree
        assert_eq!(fresh, 0, "{threads} threads");
    }
}

/// [`scaled_sq`] with `z` a `zero(..)` workspace: a `Plan` takes it as zero (release builds
/// never read it) and leaves its values.
#[i(zero(z))]
fn scaled_sq_ws<T: Scalar>(out: &mut T, w: &mut T, z: &mut [T], x: &[f64]) {
    for k in 0..x.len() {
        routine! {
            z[k] += w * x[k];
        }
        out += abs2(z[k]);
        unroutine!();
    }
}

#[test]
fn the_gradient_alone_has_the_bits_of_value_and_gradient() {
    let x = points(150);
    let zeros = vec![0.0; 40];
    let w = 0.5;
    let mut sum = TermSum::with_chunk(x.len(), 40);
    let mut sum_pairs = TermSum::with_chunk(x.len(), 7);
    let want_w = 2.0 * w * x.iter().map(|v| v * v).sum::<f64>();
    for threads in [1, 2, 3] {
        let (mut g, mut g_only) = ([0.0], [0.0]);
        pool(threads).install(|| {
            let args = |r: core::ops::Range<usize>| {
                (Shared(&0.0), Shared(&w), Shared(&zeros[..r.len()]), &x[r])
            };
            sum.args(args)
                .value_and_gradient(&ScaledSqWs, 0, &[1], &mut g);
            sum.args(args).gradient(&ScaledSqWs, 0, &[1], &mut g_only);
        });
        assert!(
            (g[0] - want_w).abs() < 1e-12 * want_w,
            "{} vs {want_w}",
            g[0]
        );
        assert_eq!(g_only[0].to_bits(), g[0].to_bits(), "{threads} threads");
        let (mut gx, mut gx_only) = (vec![0.0; x.len()], vec![0.0; x.len()]);
        pool(threads).install(|| {
            let args = |r: core::ops::Range<usize>| (Shared(&0.0), Shared(&x[..]), r.start, r.end);
            sum_pairs
                .args(args)
                .value_and_gradient(&Pairs, 0, &[1], &mut gx);
            sum_pairs.args(args).gradient(&Pairs, 0, &[1], &mut gx_only);
        });
        let bits = |v: &[f64]| v.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&gx_only), bits(&gx), "{threads} threads");
    }
}

/// A `zero(..)` workspace passed as a [`Shared`] slice is taken as zero, as a `Plan` takes a
/// `&mut` one: release builds never read it (given nonzero, the gradient is that of zeros);
/// debug builds read it once and report a nonzero one as a typed `Argument` error.
#[test]
fn shared_zero_workspaces_are_taken_as_zero() {
    let x = points(100);
    let w = -0.75;
    let mut sum = TermSum::with_chunk(x.len(), 30);
    let run = |fill: f64, sum: &mut TermSum<_>| {
        let ws = vec![fill; 30];
        let mut g = [0.0];
        let v = sum
            .args(|r| (Shared(&0.0), Shared(&w), Shared(&ws[..r.len()]), &x[r]))
            .value_and_gradient(&ScaledSqWs, 0, &[1], &mut g);
        (v.to_bits(), g[0].to_bits())
    };
    let want = run(0.0, &mut TermSum::with_chunk(x.len(), 30));
    let want_v = w * w * x.iter().map(|v| v * v).sum::<f64>();
    assert!((f64::from_bits(want.0) - want_v).abs() < 1e-12 * want_v);
    for fill in [2.0, 0.0, -1.5] {
        let got = pool(1).install(|| nilang::check::catch(|| run(fill, &mut sum)));
        if cfg!(debug_assertions) && fill != 0.0 {
            let e = got.unwrap_err();
            assert_eq!(e.kind, nilang::check::ErrorKind::Argument, "{e}");
            assert!(e.to_string().contains("not zero on entry"), "{e}");
        } else {
            assert_eq!(got.unwrap(), want, "{fill}");
        }
    }
}

/// `out += Σ_{lo ≤ i < hi} x_i²`, a hand-written reversible program whose forward and inverse
/// both run rayon tasks (one per term, each made slow, so that threads steal them and a
/// waiting thread steals other work, the other chunks of the sum included). The terms are
/// summed in order after the tasks: its result does not depend on the threads.
struct ParSumSq;

impl ParSumSq {
    fn sum(x: &[GVar<f64>]) -> f64 {
        use rayon::prelude::*;
        let sq: Vec<f64> = x
            .par_iter()
            .with_max_len(1)
            .map(|v| {
                (0..500).for_each(|k| {
                    std::hint::black_box(k);
                });
                v.x * v.x
            })
            .collect();
        sq.iter().sum()
    }
}

type ParArgs<'b> = (&'b mut GVar<f64>, &'b mut [GVar<f64>], usize, usize);

impl<'b> Reversible<ParArgs<'b>> for ParSumSq {
    fn call(&self, (out, x, lo, hi): ParArgs<'b>) -> ParArgs<'b> {
        out.x += Self::sum(&x[lo..hi]);
        (out, x, lo, hi)
    }
    fn uncall(&self, (out, x, lo, hi): ParArgs<'b>) -> ParArgs<'b> {
        use rayon::prelude::*;
        out.x -= Self::sum(&x[lo..hi]);
        let g = out.g;
        x[lo..hi]
            .par_iter_mut()
            .with_max_len(1)
            .for_each(|v| v.g += 2.0 * v.x * g);
        (out, x, lo, hi)
    }
}

#[test]
fn a_program_that_runs_rayon_tasks_itself_runs_on_any_pool() {
    // no lock may be held while a chunk's program runs: a thread waiting for the program's
    // own tasks can start another chunk, which must not wait for the first one's storage
    let x = points(400);
    let mut sum = TermSum::with_chunk(x.len(), 4);
    let mut runs = vec![];
    for threads in [1, 2, 3, 4] {
        for _ in 0..40 {
            let mut g = vec![0.0; x.len()];
            let v = pool(threads).install(|| {
                sum.args(|r| (Shared(&0.0), Shared(&x[..]), r.start, r.end))
                    .value_and_gradient(&ParSumSq, 0, &[1], &mut g)
            });
            let want: f64 = x.iter().map(|v| v * v).sum();
            assert!((v - want).abs() < 1e-12 * want, "{v} vs {want}");
            for (g, x) in g.iter().zip(&x) {
                assert_eq!(*g, 2.0 * x);
            }
            runs.push((v.to_bits(), g));
        }
    }
    assert!(runs.iter().all(|r| *r == runs[0]));
}
