//! A measured prototype of split gradient storage (docs/architecture.md, "Split storage:
//! values and adjoints apart (design, stop 35)"): the adjoint-only backward pass of the
//! `sparse` suite's complex `y += A x` (1000×1000, 5 % dense) written as the emitted code of
//! `nilang_apps::sparse::i_sparse_matvec`'s `__adj` looks today, and as it would look on
//! split arrays, against the hand-written `manual-B`; and the refresh of the plan's storage
//! with the values lifted (today) or borrowed (split).
//!
//! ```text
//! cargo build --release -p nilang-bench --example split_storage
//! target/release/examples/split_storage        # 1000x1000 (or: split_storage 300)
//! ```
//!
//! Then the MLP suite's two GEMMs at B = 4096 (`z₁ += X·W₁` and `W̄₁ += Xᵀ·Z̄₁`, X data of
//! B × 16, W₁ 16 × 32) by `matrixmultiply::dgemm`, as the library runs them, on interleaved
//! gradient numbers (stride 2) and on split planes (stride 1).
//!
//! Every variant runs the library's own rule (`PlusEq2<Mul>::minus_eq_adjoint` on
//! `Complex<GVar<f64>>`); only how places are read and written differs. The emitted-style body
//! [`adj_body`] is one generic function over [`Places`], the container trait the macro would
//! target: on `[Complex<GVar<f64>>]` (today's storage) it is element copies in and out, on the
//! split containers a value read from the value plane and an adjoint from the adjoint plane.
//! Nothing here is library code.
use nilang::instr::{fns::Mul, PlusEq2};
use nilang::{GVar, Reversible};
use nilang_apps::sparse::{ISparseMatvec, SparseView};
use nilang_bench::suites::sparse::{matvec_backward, Csc};
use num_complex::{Complex, Complex64};
use rand::Rng;
use std::hint::black_box;

/// Calls per timed sample.
const REPS: usize = 5;
/// Timed samples per variant (alternating).
const SAMPLES: usize = 60;

/// The gradient number the rules run on.
type G = Complex<GVar<f64>>;

/// What the emitted code would target for a slice parameter at gradient type: the length and
/// element access by copy (a place is read into a local gradient number, the instruction runs
/// on the local, the local is written back), so the instruction rules stay written once, on
/// `GVar`.
trait Places {
    /// The gradient number of one element.
    type Num: Copy;
    /// Element `i` (value and adjoint).
    fn get(&self, i: usize) -> Self::Num;
    /// Write element `i` back.
    fn set(&mut self, i: usize, v: Self::Num);
}

/// Today's storage, and every plain slice: the element itself.
impl<T: Copy> Places for [T] {
    type Num = T;
    #[inline(always)]
    fn get(&self, i: usize) -> T {
        self[i]
    }
    #[inline(always)]
    fn set(&mut self, i: usize, v: T) {
        self[i] = v;
    }
}

/// Split storage of a parameter the program never writes: the values borrowed from the
/// caller, the adjoints owned by the plan (one length: checked once when made).
struct SplitRef<'a> {
    x: &'a [Complex64],
    g: &'a mut [Complex64],
}

/// Split storage of a parameter the program writes: both planes owned by the plan.
struct SplitMut<'a> {
    x: &'a mut [Complex64],
    g: &'a mut [Complex64],
}

impl<'a> SplitRef<'a> {
    fn new(x: &'a [Complex64], g: &'a mut [Complex64]) -> Self {
        assert_eq!(x.len(), g.len(), "one length for both planes");
        SplitRef { x, g }
    }
}
impl<'a> SplitMut<'a> {
    fn new(x: &'a mut [Complex64], g: &'a mut [Complex64]) -> Self {
        assert_eq!(x.len(), g.len(), "one length for both planes");
        SplitMut { x, g }
    }
}

#[inline(always)]
fn pair(x: Complex64, g: Complex64) -> G {
    Complex::new(GVar::new(x.re, g.re), GVar::new(x.im, g.im))
}

impl Places for SplitRef<'_> {
    type Num = G;
    #[inline(always)]
    fn get(&self, i: usize) -> G {
        assert!(i < self.x.len());
        // SAFETY: both planes have `x.len()` elements (checked in `new`)
        unsafe { pair(*self.x.get_unchecked(i), *self.g.get_unchecked(i)) }
    }
    /// The adjoint only: the values are the caller's (a write of a changed value would be a
    /// program the compiler's `WRITES` mask says does not exist).
    #[inline(always)]
    fn set(&mut self, i: usize, v: G) {
        assert!(i < self.x.len());
        // SAFETY: as in `get`
        unsafe { *self.g.get_unchecked_mut(i) = Complex::new(v.re.g, v.im.g) };
    }
}

impl Places for SplitMut<'_> {
    type Num = G;
    #[inline(always)]
    fn get(&self, i: usize) -> G {
        assert!(i < self.x.len());
        // SAFETY: both planes have `x.len()` elements (checked in `new`)
        unsafe { pair(*self.x.get_unchecked(i), *self.g.get_unchecked(i)) }
    }
    #[inline(always)]
    fn set(&mut self, i: usize, v: G) {
        assert!(i < self.x.len());
        // SAFETY: as in `get`
        unsafe {
            *self.x.get_unchecked_mut(i) = Complex::new(v.re.x, v.im.x);
            *self.g.get_unchecked_mut(i) = Complex::new(v.re.g, v.im.g);
        }
    }
}

/// Split storage of a read-only parameter whose adjoints the pass writes once each, with
/// nothing read before (a fact the compiler would have to prove: here `av[p]` with `p` over
/// the consecutive ranges `indptr[j]..indptr[j + 1]`): the adjoint is not read (its old value
/// is taken as zero) and its plane is not zeroed before the pass.
struct SplitOnce<'a> {
    x: &'a [Complex64],
    g: &'a mut [Complex64],
}

impl Places for SplitOnce<'_> {
    type Num = G;
    #[inline(always)]
    fn get(&self, i: usize) -> G {
        assert!(i < self.x.len());
        // SAFETY: both planes have `x.len()` elements (checked where made)
        unsafe { pair(*self.x.get_unchecked(i), Complex64::new(0.0, 0.0)) }
    }
    #[inline(always)]
    fn set(&mut self, i: usize, v: G) {
        assert!(i < self.x.len());
        // SAFETY: as in `get`
        unsafe { *self.g.get_unchecked_mut(i) = Complex::new(v.re.g, v.im.g) };
    }
}

/// `i_sparse_matvec`'s adjoint-only inverse (`__adj`, `y` dead when bit 0 of `dead` is set) as
/// the compiler emits it today (`emit/for_loop.rs`: `x[j]` promoted to a local across the
/// inner loop), with each place read into a local and written back through [`Places`].
#[inline(always)]
fn adj_body<Y, A, X>(dead: u64, y: &mut Y, a: &SparseView<'_>, av: &mut A, x: &mut X)
where
    Y: Places<Num = G> + ?Sized,
    A: Places<Num = G> + ?Sized,
    X: Places<Num = G> + ?Sized,
{
    for j in (0..a.ncols).rev() {
        let (s, e) = (a.indptr[j], a.indptr[j + 1]);
        if !(s..e).is_empty() {
            let mut acc = x.get(j);
            for p in (s..e).rev() {
                let ix = a.indices[p];
                let (mut t0, mut t1) = (y.get(ix), av.get(p));
                if dead & 1 == 1 {
                    <G as PlusEq2<Mul, G, G>>::minus_eq_adjoint(&mut t0, &mut t1, &mut acc);
                } else {
                    <G as PlusEq2<Mul, G, G>>::minus_eq(&mut t0, &mut t1, &mut acc);
                }
                y.set(ix, t0);
                av.set(p, t1);
            }
            x.set(j, acc);
        }
    }
}

/// Today's layout through [`adj_body`] (a control: copies in and out of interleaved storage
/// should cost what the library's borrowed places cost).
#[inline(never)]
fn run_interleaved_copies(dead: u64, y: &mut [G], a: &SparseView<'_>, av: &mut [G], x: &mut [G]) {
    for _ in 0..REPS {
        adj_body(dead, y, a, av, x);
    }
}

/// The library's own adjoint-only inverse on today's storage (what `nilang-B` runs).
#[inline(never)]
fn run_library(dead: u64, y: &mut [G], a: &SparseView<'_>, av: &mut [G], x: &mut [G]) {
    for _ in 0..REPS {
        ISparseMatvec.uncall_dead((&mut *y, a, &mut *av, &mut *x), dead);
    }
}

/// Split storage, the containers made inside the function from its plane parameters (the
/// emitted body taking each plane as its own parameter: `noalias` on every plane).
#[inline(never)]
fn run_split_planes(
    dead: u64,
    (yx, yg): (&mut [Complex64], &mut [Complex64]),
    a: &SparseView<'_>,
    (ax, ag): (&[Complex64], &mut [Complex64]),
    (xx, xg): (&[Complex64], &mut [Complex64]),
) {
    let mut y = SplitMut::new(yx, yg);
    let mut av = SplitRef::new(ax, ag);
    let mut x = SplitRef::new(xx, xg);
    for _ in 0..REPS {
        adj_body(dead, &mut y, a, &mut av, &mut x);
    }
}

/// Split storage, the containers passed by reference (the emitted body taking one parameter
/// per container: no `noalias` between a container's planes).
#[inline(never)]
fn run_split_structs(
    dead: u64,
    y: &mut SplitMut<'_>,
    a: &SparseView<'_>,
    av: &mut SplitRef<'_>,
    x: &mut SplitRef<'_>,
) {
    for _ in 0..REPS {
        adj_body(dead, y, a, av, x);
    }
}

/// As [`run_split_planes`], `av`'s adjoints written once ([`SplitOnce`]).
#[inline(never)]
fn run_split_once(
    dead: u64,
    (yx, yg): (&mut [Complex64], &mut [Complex64]),
    a: &SparseView<'_>,
    (ax, ag): (&[Complex64], &mut [Complex64]),
    (xx, xg): (&[Complex64], &mut [Complex64]),
) {
    let mut y = SplitMut::new(yx, yg);
    assert_eq!(ax.len(), ag.len());
    let mut av = SplitOnce { x: ax, g: ag };
    let mut x = SplitRef::new(xx, xg);
    for _ in 0..REPS {
        adj_body(dead, &mut y, a, &mut av, &mut x);
    }
}

#[inline(never)]
fn run_manual(
    a: &Csc<Complex64>,
    x: &[Complex64],
    ybar: &[Complex64],
    xbar: &mut [Complex64],
    abar: &mut [Complex64],
) {
    for _ in 0..REPS {
        matvec_backward(a, x, ybar, xbar, abar);
    }
}

/// Today's refresh of the three arguments (`GradArg::refresh`: values lifted, adjoints zero;
/// the caller's `y` zeroed first, as `sparse_matvec_vjp` does) and the seed of `ȳ`.
#[inline(never)]
fn run_refresh_interleaved(
    args: (&mut [Complex64], &mut [Complex64], &mut [Complex64]),
    st: (&mut Vec<G>, &mut Vec<G>, &mut Vec<G>),
    ybar: &[f64],
) {
    use nilang::ad::GradArg;
    let (y, av, x) = args;
    for _ in 0..REPS {
        y.iter_mut().for_each(|v| *v = Complex::new(0.0, 0.0));
        let (y, av, x): (&mut [Complex64], &mut [Complex64], &mut [Complex64]) =
            (&mut *y, &mut *av, &mut *x);
        <&mut [Complex64] as GradArg<f64>>::refresh::<f64>(&y, st.0);
        <&mut [Complex64] as GradArg<f64>>::refresh::<f64>(&av, st.1);
        <&mut [Complex64] as GradArg<f64>>::refresh::<f64>(&x, st.2);
        for (v, g) in st.0.iter_mut().zip(ybar.chunks_exact(2)) {
            v.re.g += g[0];
            v.im.g += g[1];
        }
    }
}

/// The split refresh: the written parameter `y` copied (its values zero, as
/// `sparse_matvec_vjp` makes them), the adjoints zeroed (`av`'s unless `None`: written once by
/// the pass), `ȳ` seeded; `av` and `x` borrowed (no copy).
#[inline(never)]
fn run_refresh_split(
    y: &[Complex64],
    (yx, yg): (&mut [Complex64], &mut [Complex64]),
    mut ag: Option<&mut [Complex64]>,
    xg: &mut [Complex64],
    ybar: &[f64],
) {
    for _ in 0..REPS {
        yx.copy_from_slice(y);
        yg.fill(Complex::new(0.0, 0.0));
        if let Some(ag) = ag.as_deref_mut() {
            ag.fill(Complex::new(0.0, 0.0));
        }
        xg.fill(Complex::new(0.0, 0.0));
        for (v, g) in yg.iter_mut().zip(ybar.chunks_exact(2)) {
            v.re += g[0];
            v.im += g[1];
        }
    }
}

/// `c += a·b` by `matrixmultiply` (`m × k` times `k × n`, strides in elements).
fn dgemm(
    (m, k, n): (usize, usize, usize),
    a: (&[f64], isize, isize),
    b: (&[f64], isize, isize),
    c: (&mut [f64], isize, isize),
) {
    let last = |r: isize, s: isize, rows: usize, cols: usize| {
        (rows as isize - 1) * r + (cols as isize - 1) * s
    };
    assert!(last(a.1, a.2, m, k) < a.0.len() as isize);
    assert!(last(b.1, b.2, k, n) < b.0.len() as isize);
    assert!(last(c.1, c.2, m, n) < c.0.len() as isize);
    // SAFETY: the views lie in their slices (asserted above); `c` is its own allocation
    unsafe {
        matrixmultiply::dgemm(
            m,
            k,
            n,
            1.0,
            a.0.as_ptr(),
            a.1,
            a.2,
            b.0.as_ptr(),
            b.1,
            b.2,
            1.0,
            c.0.as_mut_ptr(),
            c.1,
            c.2,
        )
    }
}

/// The MLP suite's two GEMMs at batch `bsz` (16 inputs, 32 hidden), interleaved (stride 2, the
/// value at offset 0 and the adjoint at 1 of each pair) and split (stride 1): minimum and
/// median µs of each, alternating.
fn mlp_gemms(bsz: usize) {
    let (ni, nh) = (16usize, 32usize);
    let x: Vec<f64> = (0..bsz * ni).map(|k| ((k % 97) as f64) * 0.01).collect();
    let il = |len: usize| -> Vec<f64> { (0..2 * len).map(|k| ((k % 89) as f64) * 0.01).collect() };
    let (w_il, mut wg_il, mut z_il, zg_il) = (il(ni * nh), il(ni * nh), il(bsz * nh), il(bsz * nh));
    let pl = |len: usize| -> Vec<f64> { (0..len).map(|k| ((k % 89) as f64) * 0.01).collect() };
    let (w, mut wg, mut z, zg) = (pl(ni * nh), pl(ni * nh), pl(bsz * nh), pl(bsz * nh));
    let (h, r) = (nh as isize, 2 * nh as isize);
    let mut t: [Vec<f64>; 4] = Default::default();
    let time = |v: &mut Vec<f64>, f: &mut dyn FnMut()| {
        let s = std::time::Instant::now();
        f();
        v.push(s.elapsed().as_secs_f64());
    };
    for _ in 0..SAMPLES {
        // z₁ += X·W₁ (values)
        time(&mut t[0], &mut || {
            dgemm(
                (bsz, ni, nh),
                (&x, ni as isize, 1),
                (&w_il, r, 2),
                (&mut z_il, r, 2),
            )
        });
        time(&mut t[1], &mut || {
            dgemm(
                (bsz, ni, nh),
                (&x, ni as isize, 1),
                (&w, h, 1),
                (&mut z, h, 1),
            )
        });
        // W̄₁ += Xᵀ·Z̄₁ (adjoints)
        time(&mut t[2], &mut || {
            dgemm(
                (ni, bsz, nh),
                (&x, 1, ni as isize),
                (&zg_il[1..], r, 2),
                (&mut wg_il[1..], r, 2),
            )
        });
        time(&mut t[3], &mut || {
            dgemm(
                (ni, bsz, nh),
                (&x, 1, ni as isize),
                (&zg, h, 1),
                (&mut wg, h, 1),
            )
        });
    }
    black_box((&z_il, &wg_il, &z, &wg));
    println!("MLP's GEMMs, B = {bsz}: min / median us");
    for (k, name) in ["z1 += X W1", "W1bar += X^T Z1bar"].iter().enumerate() {
        let (im, id) = stats(&mut t[2 * k]);
        let (sm, sd) = stats(&mut t[2 * k + 1]);
        println!(
            "{name:<20} interleaved {:>7.1} / {:>7.1}, split {:>7.1} / {:>7.1} ({:.2}x by the minima)",
            im * 1e6,
            id * 1e6,
            sm * 1e6,
            sd * 1e6,
            im / sm
        );
    }
}

/// Minimum and median of per-call seconds.
fn stats(v: &mut [f64]) -> (f64, f64) {
    v.sort_by(f64::total_cmp);
    (v[0], v[v.len() / 2])
}

fn main() {
    let n = std::env::args()
        .nth(1)
        .map_or(1000, |a| a.parse().expect("a size"));
    let mut rng = nilang_bench::suites::rng(2);
    let z = |r: &mut dyn rand::RngCore| Complex64::new(r.gen::<f64>(), r.gen::<f64>());
    let a = Csc::random(n, n, 0.05, &mut rng, z);
    let x: Vec<Complex64> = (0..n).map(|_| z(&mut rng)).collect();
    let ybar: Vec<Complex64> = (0..n).map(|_| z(&mut rng)).collect();
    let yb: Vec<f64> = ybar.iter().flat_map(|c| [c.re, c.im]).collect();
    let p = SparseView {
        nrows: a.m,
        ncols: a.n,
        indptr: &a.colptr,
        indices: &a.rowval,
    };
    let nnz = a.nnz();
    let zero = Complex64::new(0.0, 0.0);
    let lift = |v: &[Complex64]| -> Vec<G> { v.iter().map(|&c| pair(c, zero)).collect() };
    let seeded = || -> Vec<G> { ybar.iter().map(|&g| pair(zero, g)).collect() };

    // the hand-written backward pass
    let (mut xbar, mut abar) = (vec![zero; n], vec![zero; nnz]);
    // today's storage: lifted values, zero adjoints, ȳ seeded
    let (mut ly, mut la, mut lx) = (seeded(), lift(&a.nzval), lift(&x));
    let (mut cy, mut ca, mut cx) = (seeded(), lift(&a.nzval), lift(&x));
    // split storage: the values borrowed (`a.nzval`, `x`), `y` owned, the adjoints owned
    let (mut syx, mut syg) = (vec![zero; n], ybar.clone());
    let (mut sag, mut sxg) = (vec![zero; nnz], vec![zero; n]);
    let (mut tyx, mut tyg) = (vec![zero; n], ybar.clone());
    let (mut tag, mut txg) = (vec![zero; nnz], vec![zero; n]);

    // one pass of each, from zero adjoints: the same adjoints (up to the order of sums)
    run_manual(&a, &x, &ybar, &mut xbar, &mut abar);
    let dead = black_box(1u64);
    ISparseMatvec.uncall_dead((&mut ly[..], &p, &mut la[..], &mut lx[..]), dead);
    adj_body(dead, &mut cy[..], &p, &mut ca[..], &mut cx[..]);
    {
        let mut y = SplitMut::new(&mut syx, &mut syg);
        let mut av = SplitRef::new(&a.nzval, &mut sag);
        let mut xs = SplitRef::new(&x, &mut sxg);
        adj_body(dead, &mut y, &p, &mut av, &mut xs);
    }
    let gl =
        |v: &[G]| -> Vec<Complex64> { v.iter().map(|c| Complex64::new(c.re.g, c.im.g)).collect() };
    let err = |u: &[Complex64], v: &[Complex64]| {
        u.iter()
            .zip(v)
            .map(|(p, q)| (p - q).norm())
            .fold(0.0, f64::max)
    };
    let (e_lib, e_copy, e_split) = (
        err(&gl(&la), &abar).max(err(&gl(&lx), &xbar)),
        err(&gl(&ca), &abar).max(err(&gl(&cx), &xbar)),
        err(&sag, &abar).max(err(&sxg, &xbar)),
    );
    assert!(
        e_lib < 1e-12 && e_copy < 1e-12 && e_split < 1e-12,
        "adjoints differ from manual-B: {e_lib:.1e} {e_copy:.1e} {e_split:.1e}"
    );
    // written once: the adjoints of `av` whatever its plane held before
    let mut stale = vec![Complex64::new(7.0, -7.0); nnz];
    let (mut oy, mut oyb, mut ox) = (vec![zero; n], ybar.clone(), vec![zero; n]);
    adj_body(
        dead,
        &mut SplitMut::new(&mut oy, &mut oyb),
        &p,
        &mut SplitOnce {
            x: &a.nzval,
            g: &mut stale,
        },
        &mut SplitRef::new(&x, &mut ox),
    );
    let e_once = err(&stale, &abar).max(err(&ox, &xbar));
    assert!(e_once < 1e-12, "written once: {e_once:.1e}");
    // an adjoint-only pass leaves the values of the dead `y` as they were
    assert!(syx.iter().all(|v| *v == zero));

    let mut t: [Vec<f64>; 9] = Default::default();
    let (mut ry, mut ra, mut rx) = (vec![zero; n], a.nzval.clone(), x.clone());
    let (mut sy, mut sa, mut sx) = (seeded(), lift(&a.nzval), lift(&x));
    let (mut fyx, mut fyg, mut fag, mut fxg) =
        (vec![zero; n], vec![zero; n], vec![zero; nnz], vec![zero; n]);
    let (mut oyx, mut oyg) = (vec![zero; n], ybar.clone());
    let (mut oag, mut oxg) = (vec![zero; nnz], vec![zero; n]);
    let time = |v: &mut Vec<f64>, f: &mut dyn FnMut()| {
        let s = std::time::Instant::now();
        f();
        v.push(s.elapsed().as_secs_f64() / REPS as f64);
    };
    for _ in 0..SAMPLES {
        time(&mut t[0], &mut || {
            run_manual(&a, &x, &ybar, &mut xbar, &mut abar)
        });
        time(&mut t[1], &mut || {
            run_library(dead, &mut ly, &p, &mut la, &mut lx)
        });
        time(&mut t[2], &mut || {
            run_interleaved_copies(dead, &mut cy, &p, &mut ca, &mut cx)
        });
        time(&mut t[3], &mut || {
            run_split_planes(
                dead,
                (&mut syx, &mut syg),
                &p,
                (&a.nzval, &mut sag),
                (&x, &mut sxg),
            )
        });
        time(&mut t[4], &mut || {
            let mut y = SplitMut::new(&mut tyx, &mut tyg);
            let mut av = SplitRef::new(&a.nzval, &mut tag);
            let mut xs = SplitRef::new(&x, &mut txg);
            run_split_structs(dead, &mut y, &p, &mut av, &mut xs)
        });
        time(&mut t[5], &mut || {
            run_refresh_interleaved(
                (&mut ry, &mut ra, &mut rx),
                (&mut sy, &mut sa, &mut sx),
                &yb,
            )
        });
        time(&mut t[6], &mut || {
            run_refresh_split(&ry, (&mut fyx, &mut fyg), Some(&mut fag), &mut fxg, &yb)
        });
        time(&mut t[7], &mut || {
            run_split_once(
                dead,
                (&mut oyx, &mut oyg),
                &p,
                (&a.nzval, &mut oag),
                (&x, &mut oxg),
            )
        });
        time(&mut t[8], &mut || {
            run_refresh_split(&ry, (&mut fyx, &mut fyg), None, &mut fxg, &yb)
        });
    }
    let names = [
        "manual-B (hand scatter-gather)",
        "interleaved, library __adj (today)",
        "interleaved, emitted-style copies",
        "split, planes as parameters",
        "split, containers by reference",
        "refresh, interleaved (today)",
        "refresh, split (values borrowed)",
        "split, av's adjoints written once",
        "refresh, split, av's adjoints not zeroed",
    ];
    let (m0, d0) = stats(&mut t[0].clone());
    println!(
        "complex y += A x, {n}x{n}, nnz {nnz}; max |adjoint - manual| {:.1e}",
        e_lib.max(e_copy).max(e_split).max(e_once)
    );
    println!(
        "{:<38} {:>10} {:>10} {:>7} {:>7}",
        "per call", "min us", "median us", "min/", "med/"
    );
    for (name, v) in names.iter().zip(t.iter_mut()) {
        let (mn, md) = stats(v);
        println!(
            "{name:<38} {:>10.1} {:>10.1} {:>6.2}x {:>6.2}x",
            mn * 1e6,
            md * 1e6,
            mn / m0,
            md / d0
        );
    }
    let (rl, _) = stats(&mut t[5]);
    let (rs, _) = stats(&mut t[6]);
    let (bl, _) = stats(&mut t[1]);
    let (bs, _) = stats(&mut t[3]);
    let (bo, _) = stats(&mut t[7]);
    let (ro, _) = stats(&mut t[8]);
    println!(
        "nilang-B estimate (refresh + backward, minimum): today {:.2}x manual-B, split {:.2}x, split with adjoints written once {:.2}x",
        (rl + bl) / m0,
        (rs + bs) / m0,
        (ro + bo) / m0
    );
    mlp_gemms(4096);
}
