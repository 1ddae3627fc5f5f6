//! Classic programs of the reversible-computing literature, run forward and backward:
//! Fibonacci (Janus `fib` and NiLang's `rfib`, inventory case 27; its `rfibn` search is the
//! application `nilang_apps::fib`, tested there), integer square root, prime factorisation
//! with a stack of factors, permutation to Lehmer code, run-length encoding.
use nilang::check::{catch, ErrorKind};
use nilang::prelude::*;

// Janus' Fibonacci pairs: (0, 0, n) -> (F(n+1), F(n+2), 0)
#[i]
fn fib_pair(x1: &mut i64, x2: &mut i64, n: &mut i64) {
    if (n == 0, x1 == x2) {
        x1 += 1;
        x2 += 1;
    } else {
        DEC(n);
        fib_pair(x1, x2, n);
        x1 += x2;
        SWAP(x1, x2);
    }
}

fn fib(n: i64) -> i64 {
    let (mut a, mut b) = (0_i64, 1_i64);
    for _ in 0..n {
        (a, b) = (b, a + b);
    }
    a
}

#[test]
fn fibonacci_pairs() {
    for n in 0..40 {
        let (mut x1, mut x2, mut k) = (0, 0, n);
        fib_pair(&mut x1, &mut x2, &mut k);
        assert_eq!((x1, x2, k), (fib(n + 1), fib(n + 2), 0));
        // the inverse recovers n from the pair
        fib_pair_inv(&mut x1, &mut x2, &mut k);
        assert_eq!((x1, x2, k), (0, 0, n));
    }
    // a pair that does not match n: the inverse detects it
    let (mut x1, mut x2, mut k) = (1, 1, 5);
    let e = catch(|| fib_pair_inv(&mut x1, &mut x2, &mut k)).unwrap_err();
    assert_eq!(e.kind, ErrorKind::IfPostcondition);
}

// NiLang's `rfib` (examples/fib.jl): out += fib(n), by tree recursion with ancillas
#[i]
fn rfib(out: &mut i64, n: i64) {
    let n1 = n - 1;
    let n2 = n - 2;
    if n <= 2 {
        out += 1;
    } else {
        rfib(out, n1);
        rfib(out, n2);
    }
    dealloc!(n2 = n - 2);
    dealloc!(n1 = n - 1);
}

#[test]
fn case27_rfib() {
    let mut out = 0;
    rfib(&mut out, 10);
    assert_eq!(out, 55);
    rfib_inv(&mut out, 10);
    assert_eq!(out, 0);
    rfib(&mut out, 6);
    assert_eq!(out, 8);
}

// integer square root: r = floor(sqrt(x)), rem = x - r^2
#[i]
fn isqrt(r: &mut i64, rem: &mut i64, x: &i64) {
    while ((r + 1) * (r + 1) <= x, r > 0) {
        INC(r);
    }
    rem += x;
    // `rem -= r * r` reads `r` twice (a compile error): square through a copy
    let rr = 0_i64;
    rr += r;
    rem -= r * rr;
    rr -= r;
    dealloc!(rr = 0);
}

#[test]
fn integer_square_root() {
    for x in (0..2000).chain([1 << 40, (1 << 40) - 1, 999_999_999]) {
        let (mut r, mut rem) = (0, 0);
        isqrt(&mut r, &mut rem, &x);
        let e = (x as f64).sqrt() as i64;
        assert_eq!(r, e, "isqrt({x})");
        assert_eq!(rem, x - e * e);
        isqrt_inv(&mut r, &mut rem, &x);
        assert_eq!((r, rem), (0, 0));
    }
}

// prime factorisation (after Janus' `factor`): num -> 1, factors <- its prime factors ascending
#[i]
fn factor(num: &mut i64, factors: &mut Vec<i64>) {
    let t = 2_i64;
    while (num > 1, t > 2 || !factors.is_empty()) {
        if (num % t == 0, factors.last() == Some(&t)) {
            // num = num / t, through an ancilla: exact because t divides num
            let q = 0_i64;
            q += num / t;
            num -= q * t;
            SWAP(num, &mut q);
            dealloc!(q = 0);
            copy_push!(factors, t);
        } else {
            INC(&mut t);
        }
    }
    // uncompute the trial divisor: it ends at the largest factor (2 when there is none)
    if !factors.is_empty() {
        t -= factors[factors.len() - 1];
    } else {
        t -= 2;
    }
    dealloc!(t = 0);
}

fn factors_of(mut n: i64) -> Vec<i64> {
    let mut v = vec![];
    let mut p = 2;
    while n > 1 {
        if n % p == 0 {
            v.push(p);
            n /= p;
        } else {
            p += 1;
        }
    }
    v
}

#[test]
fn prime_factorisation() {
    for n in (1..600).chain([7919, 7919 * 2 * 2 * 3, 1 << 20, 999_983]) {
        let (mut num, mut fs) = (n, vec![]);
        factor(&mut num, &mut fs);
        assert_eq!(num, 1);
        assert_eq!(fs, factors_of(n), "factors of {n}");
        // the inverse multiplies them back
        factor_inv(&mut num, &mut fs);
        assert_eq!((num, fs.len()), (n, 0));
    }
    // the inverse of an unsorted list of factors is not a valid input
    let (mut num, mut fs) = (1, vec![3, 2]);
    assert!(catch(|| factor_inv(&mut num, &mut fs)).is_err());
}

// permutation to Lehmer code, in place (Janus' `perm_to_code`)
#[i]
fn perm_to_code(x: &mut Vec<i64>) {
    for k in 0..x.len() {
        for j in (k + 1)..x.len() {
            if (x[j] > x[k], x[j] >= x[k]) {
                x[j] -= 1;
            }
        }
    }
}

fn lehmer(p: &[i64]) -> Vec<i64> {
    (0..p.len())
        .map(|i| p[i + 1..].iter().filter(|&&q| q < p[i]).count() as i64)
        .collect()
}

fn permutations(n: i64) -> Vec<Vec<i64>> {
    if n == 0 {
        return vec![vec![]];
    }
    let mut out = vec![];
    for p in permutations(n - 1) {
        for pos in 0..=p.len() {
            let mut q = p.clone();
            q.insert(pos, n - 1);
            out.push(q);
        }
    }
    out
}

#[test]
fn permutation_to_code() {
    let mut x = vec![2, 0, 3, 1];
    perm_to_code(&mut x);
    assert_eq!(x, [2, 0, 1, 0]);
    for n in 0..=6 {
        for p in permutations(n) {
            let mut x = p.clone();
            perm_to_code(&mut x);
            assert_eq!(x, lehmer(&p));
            // and back: code to permutation
            perm_to_code_inv(&mut x);
            assert_eq!(x, p);
        }
    }
}

// run-length encoding onto a stack of (value, count) pairs, consuming the input from its end
#[i]
fn rle(src: &mut Vec<i64>, out: &mut Vec<i64>) {
    while (!src.is_empty(), !out.is_empty()) {
        let v = 0_i64;
        pop!(src, v);
        if (
            out.len() >= 2 && out[out.len() - 2] == v,
            out[out.len() - 1] > 1,
        ) {
            INC(&mut out[out.len() - 1]);
            v -= out[out.len() - 2];
        } else {
            let c = 1_i64;
            push!(out, v);
            push!(out, c);
            dealloc!(c = 0);
        }
        dealloc!(v = 0);
    }
}

fn rle_plain(src: &[i64]) -> Vec<i64> {
    let mut out: Vec<i64> = vec![];
    for &v in src.iter().rev() {
        let n = out.len();
        if n >= 2 && out[n - 2] == v {
            out[n - 1] += 1;
        } else {
            out.extend([v, 1]);
        }
    }
    out
}

#[test]
fn run_length_encoding() {
    let (mut src, mut out) = (vec![1, 1, 2, 2, 2, 3], vec![]);
    rle(&mut src, &mut out);
    assert!(src.is_empty());
    assert_eq!(out, [3, 1, 2, 3, 1, 2]);
    rle_inv(&mut src, &mut out);
    assert_eq!((&src[..], out.len()), (&[1, 1, 2, 2, 2, 3][..], 0));

    // pseudo-random inputs with runs
    let mut seed = 12345_u64;
    for len in 0..60 {
        let input: Vec<i64> = (0..len)
            .map(|_| {
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                ((seed >> 60) % 3) as i64
            })
            .collect();
        let (mut src, mut out) = (input.clone(), vec![]);
        rle(&mut src, &mut out);
        assert_eq!(out, rle_plain(&input));
        rle_inv(&mut src, &mut out);
        assert_eq!(src, input);
        assert!(out.is_empty());
    }
    // decoding a non-canonical encoding (two adjacent runs of one value) is detected
    let (mut src, mut out) = (vec![], vec![5, 1, 5, 1]);
    let e = catch(|| rle_inv(&mut src, &mut out)).unwrap_err();
    assert_eq!(e.kind, ErrorKind::IfPostcondition);
}
